//! Rules for one TRAK model (FORMAT.md §3, §10).

use glam::Vec3;

use super::Problem;
use crate::geometry::{decode_collision_polygon, edge_count, face_plane, outward_edges};
use crate::level::Model;
use crate::limits::{render_state, MAX_BATCH_FACES, MAX_MODEL_VERTICES, NORMAL_LENGTH_SLACK};
use crate::raw::{face_flags, TextureEntry};

/// Stored face planes and boxes may differ from the recomputed ones by float noise.
const PLANE_TOLERANCE: f32 = 2e-3;
/// Collision planes hold d in 16 bits at 1/4064 units.
const COLLISION_REACH: f32 = 32767.0 / 4064.0;

pub(super) fn check_model(
    model: &Model,
    index: usize,
    entries: &[TextureEntry],
    out: &mut Vec<Problem>,
) {
    let name = format!("TRAK model {index}");
    if model.vertices.len() > MAX_MODEL_VERTICES {
        out.push(
            Problem::error(
                "vertex-limit",
                format!(
                    "{name} has {} vertices; the engine transforms at most {MAX_MODEL_VERTICES} per model: split it",
                    model.vertices.len()
                ),
            )
            .model(index),
        );
    }
    faces(model, index, &name, entries, out);
    bounding_box(model, index, &name, out);
    collision(model, index, &name, out);
}

fn faces(
    model: &Model,
    index: usize,
    name: &str,
    entries: &[TextureEntry],
    out: &mut Vec<Problem>,
) {
    let mut previous_state = None;
    let mut batch_len = 0usize;
    for (f, face) in model.faces.iter().enumerate() {
        let at = |p: Problem| p.model(index).face(f);
        let corners: Option<Vec<Vec3>> = face
            .corners
            .iter()
            .map(|&c| {
                model
                    .vertices
                    .get(c as usize)
                    .map(|v| Vec3::from(v.position))
            })
            .collect();
        match corners {
            None => out.push(at(Problem::error(
                "face-corners",
                format!(
                    "{name} face {f}: corners {:?}, but the model has {} vertices",
                    face.corners,
                    model.vertices.len()
                ),
            ))),
            Some(c) => {
                let plane = face_plane(c[0], c[1], c[2]);
                let off = plane
                    .iter()
                    .zip(&face.plane)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max);
                if off > PLANE_TOLERANCE || face.plane.iter().any(|v| !v.is_finite()) {
                    out.push(at(Problem::warning(
                        "face-plane",
                        format!(
                            "{name} face {f}: its stored plane {:?} is not the plane of its corners {plane:?}; the engine culls the face by it",
                            face.plane
                        ),
                    )));
                }
            }
        }
        if face.texture as usize >= entries.len() {
            out.push(at(Problem::error(
                "texture-entry",
                format!(
                    "{name} face {f}: texture entry {} does not exist (the table has {})",
                    face.texture,
                    entries.len()
                ),
            )));
        }
        let state = render_state(face, entries);
        let new_batch = face.flags & face_flags::NEW_BATCH != 0;
        if !new_batch && previous_state != Some(state) {
            out.push(at(Problem::error(
                "batch-bit",
                format!("{name} face {f}: starts a new page or render state but lacks flag 0x8"),
            )));
        }
        batch_len = if new_batch { 1 } else { batch_len + 1 };
        if batch_len == MAX_BATCH_FACES + 1 {
            out.push(at(Problem::error(
                "batch-length",
                format!(
                    "{name} face {f}: more than {MAX_BATCH_FACES} faces since the last flag 0x8"
                ),
            )));
        }
        previous_state = Some(state);
    }
}

fn bounding_box(model: &Model, index: usize, name: &str, out: &mut Vec<Problem>) {
    let (lo, hi) = model.box_corners.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), c| (lo.min(Vec3::from(*c)), hi.max(Vec3::from(*c))),
    );
    let outside = model.vertices.iter().position(|v| {
        let p = Vec3::from(v.position);
        (p - hi).max_element() > PLANE_TOLERANCE || (lo - p).max_element() > PLANE_TOLERANCE
    });
    if let Some(v) = outside {
        out.push(
            Problem::warning(
                "bounding-box",
                format!(
                    "{name}: vertex {v} lies outside the model's box; the engine culls the whole model by it and may hide it"
                ),
            )
            .model(index),
        );
    }
}

fn collision(model: &Model, index: usize, name: &str, out: &mut Vec<Problem>) {
    for (p, poly) in model.collision_polygons().enumerate() {
        let at = |problem: Problem| problem.model(index).polygon(p);
        let off_unit = poly.planes[..=edge_count(poly)]
            .iter()
            .enumerate()
            .find_map(|(k, plane)| {
                let n = Vec3::from_array(plane.normal.map(f32::from)).as_dvec3();
                let length = n.length();
                ((length - 127.0).abs() > NORMAL_LENGTH_SLACK).then_some((k, length))
            });
        if let Some((k, length)) = off_unit {
            out.push(at(Problem::warning(
                "collision-normal",
                format!(
                    "{name} collision polygon {p}: plane {k} has a normal of length {:.3} × 127, not a unit normal; the engine's heights and edges are off by as much",
                    length / 127.0
                ),
            )));
        }
        if let Some(k) = outward_edges(poly).first() {
            out.push(at(Problem::error(
                "collision-edge",
                format!(
                    "{name} collision polygon {p}: edge plane {k} faces outwards (edges face inwards), so no point lies inside every edge and the game never finds the polygon: negate that plane's normal and d"
                ),
            )));
        }
        let far = decode_collision_polygon(poly)
            .iter()
            .map(|c| c.abs().max_element())
            .fold(0.0, f32::max);
        if far > COLLISION_REACH {
            out.push(at(Problem::warning(
                "collision-reach",
                format!(
                    "{name} collision polygon {p}: its planes meet {far:.2} units from the tile origin; collision planes reach about {COLLISION_REACH:.1}"
                ),
            )));
        }
    }
}
