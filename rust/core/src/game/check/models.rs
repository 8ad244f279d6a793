//! Rules for one TRAK model (FORMAT.md §3, §10).

use crate::codes::Code;
use glam::Vec3;

use super::Problem;
use crate::geometry::{decode_collision_polygon, face_plane, outward_edges};
use crate::level::Model;
use crate::limits::{render_state, MAX_BATCH_FACES, MAX_MODEL_VERTICES, NORMAL_LENGTH_SLACK};
use crate::raw::{face_flags, TextureEntry};

/// Collision d is an i16 in 20.12 fixed point: polygons lie within ±8 units of their tile's
/// origin (notes 001 and 002). At the engine's 1/4064 plane scale (FORMAT.md §4) a plane could
/// lie 8.06 away; the notes' ±8 is the rule.
const COLLISION_REACH: f32 = 8.0;
/// The bits of a collision polygon's kind byte the notes know (FORMAT.md §4): 0x1 a quad (four
/// edges), 0x4 a surface facing down (note 001: *likely*).
const KNOWN_COLLISION_KIND_BITS: u8 = 0x1 | 0x4;
/// Rounding steps of f32 (half an ulp at 1.0) a face plane computed in f32 may be off by per
/// unit of its condition (see `plane_rounding`), with room to spare.
const PLANE_ROUNDING_STEPS: f64 = 16.0;

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
                Code::VertexLimit,
                format!(
                    "{name} has {} vertices; the engine transforms at most {MAX_MODEL_VERTICES} per model: split it",
                    model.vertices.len()
                ),
            )
            .model(index),
        );
    }
    not_finite(model, &name, out, |p| p.model(index));
    faces(model, index, &name, entries, out);
    bounding_box(model, index, &name, out);
    collision(model, index, &name, out);
}

/// Floats the engine reads from a model that are no number it can compute with (NaN or
/// infinity): vertex positions (transformed, culled), normals, the box (culling) and the face
/// planes (culling). The game's own levels hold none. One problem for each kind, at its first.
/// `at` adds the model's culprit (a TRAK model's number; none for an STPC object model).
pub(super) fn not_finite(
    model: &Model,
    name: &str,
    out: &mut Vec<Problem>,
    at: impl Fn(Problem) -> Problem,
) {
    let bad = |v: &[f32]| v.iter().any(|c| !c.is_finite());
    for (what, of) in [
        (
            "position",
            (|v| v.position) as fn(&crate::raw::Vertex) -> [f32; 3],
        ),
        ("normal", |v| v.normal),
    ] {
        let vertices: Vec<usize> = (0..model.vertices.len())
            .filter(|&v| bad(&of(&model.vertices[v])))
            .collect();
        if let Some(&v) = vertices.first() {
            let more = match vertices.len() {
                1 => String::new(),
                n => format!(" ({n} vertices in all)"),
            };
            out.push(at(Problem::error(
                Code::NotFinite,
                format!(
                    "{name} vertex {v}: {what} {:?} is not a finite number{more}; the engine transforms and lights it: a damaged file",
                    of(&model.vertices[v])
                ),
            )));
        }
    }
    let mut box_values = vec![model.centre];
    box_values.extend_from_slice(&model.box_corners);
    if let Some(k) = box_values.iter().position(|c| bad(c)) {
        let what = match k {
            0 => "centre".to_string(),
            k => format!("corner {}", k - 1),
        };
        out.push(at(Problem::error(
            Code::NotFinite,
            format!(
                "{name} box: its {what} {:?} is not a finite number; the engine culls the model by it: a damaged file",
                box_values[k]
            ),
        )));
    }
    let planes: Vec<usize> = (0..model.faces.len())
        .filter(|&f| bad(&model.faces[f].plane))
        .collect();
    if let Some(&f) = planes.first() {
        let more = match planes.len() {
            1 => String::new(),
            n => format!(" ({n} faces in all)"),
        };
        out.push(
            at(Problem::error(
                Code::NotFinite,
                format!(
                    "{name} face {f}: its plane {:?} is not finite{more}; the engine culls the face by it: a damaged file",
                    model.faces[f].plane
                ),
            ))
            .face(f),
        );
    }
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
                Code::FaceCorners,
                format!(
                    "{name} face {f}: corners {:?}, but the model has {} vertices",
                    face.corners,
                    model.vertices.len()
                ),
            ))),
            // Not finite: reported once by `not_finite`, no plane to hold it to.
            Some(c)
                if !c.iter().all(|v| v.is_finite())
                    || face.plane.iter().any(|v| !v.is_finite()) => {}
            Some(c) => {
                let plane = face_plane(c[0], c[1], c[2]);
                let off = |k: std::ops::Range<usize>| {
                    k.map(|k| (plane[k] as f64 - face.plane[k] as f64).abs())
                        .fold(0.0, f64::max)
                };
                let (normal_slack, d_slack) = plane_rounding(&c);
                if off(0..3) > normal_slack || off(3..4) > d_slack {
                    out.push(at(Problem::warning(
                        Code::FacePlane,
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
                Code::TextureEntry,
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
                Code::BatchBit,
                format!("{name} face {f}: starts a new page or render state but lacks flag 0x8"),
            )));
        }
        batch_len = if new_batch { 1 } else { batch_len + 1 };
        if batch_len == MAX_BATCH_FACES + 1 {
            out.push(at(Problem::error(
                Code::BatchLength,
                format!(
                    "{name} face {f}: more than {MAX_BATCH_FACES} faces since the last flag 0x8"
                ),
            )));
        }
        previous_state = Some(state);
    }
}

/// How far a stored face plane may lie from the plane its corners give (normal components, d),
/// to the float: what n = normalize(a × b) (a = v1 − v0, b = v2 − v0) and d = n·v0 may round
/// away when computed in f32, or from the corners before they were rounded to f32. The cross
/// product is off by a few rounding steps of |a||b|, or of (|a| + |b|) times the corners' size
/// when they moved by their rounding, so the normal is off by that over |a × b|, which grows as
/// the triangle thins; d adds |v0| times that. A degenerate triangle has no plane to hold it to.
fn plane_rounding(c: &[Vec3]) -> (f64, f64) {
    let [v0, v1, v2] = [c[0], c[1], c[2]].map(|v| v.as_dvec3());
    let (a, b) = (v1 - v0, v2 - v0);
    let area = a.cross(b).length();
    if area == 0.0 {
        return (f64::INFINITY, f64::INFINITY);
    }
    let size = v0.length().max(v1.length()).max(v2.length());
    let cross = a.length() * b.length() + size * (a.length() + b.length());
    let step = f32::EPSILON as f64 / 2.0;
    let normal = PLANE_ROUNDING_STEPS * step * (1.0 + cross / area);
    (normal, normal * (1.0 + v0.length()))
}

/// Every vertex inside the box, as the stored floats compare: nothing is computed, so nothing
/// rounds (the originals' boxes are 0.004–0.014 larger than their vertices).
fn bounding_box(model: &Model, index: usize, name: &str, out: &mut Vec<Problem>) {
    // A box or vertex that is no number is `not_finite`'s: no comparison tells anything.
    let finite = |p: &[f32; 3]| p.iter().all(|c| c.is_finite());
    if !model.box_corners.iter().all(finite) || !model.vertices.iter().all(|v| finite(&v.position))
    {
        return;
    }
    let (lo, hi) = model.box_corners.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), c| (lo.min(Vec3::from(*c)), hi.max(Vec3::from(*c))),
    );
    let outside = model.vertices.iter().position(|v| {
        let p = Vec3::from(v.position);
        (p - hi).max_element() > 0.0 || (lo - p).max_element() > 0.0
    });
    if let Some(v) = outside {
        out.push(
            Problem::warning(
                Code::BoundingBox,
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
        let unknown = poly.kind & !KNOWN_COLLISION_KIND_BITS;
        if unknown != 0 {
            out.push(at(Problem::warning(
                Code::CollisionKind,
                format!(
                    "{name} collision polygon {p}: kind {:#04x} has bits {unknown:#04x} besides the known 0x1 (a quad) and 0x4 (facing down); what the engine does with them the notes do not say",
                    poly.kind
                ),
            )));
        }
        let off_unit = poly.planes[..=poly.edge_count()]
            .iter()
            .enumerate()
            .find_map(|(k, plane)| {
                let n = Vec3::from_array(plane.normal.map(f32::from)).as_dvec3();
                let length = n.length();
                ((length - 127.0).abs() > NORMAL_LENGTH_SLACK).then_some((k, length))
            });
        if let Some((k, length)) = off_unit {
            out.push(at(Problem::warning(
                Code::CollisionNormal,
                format!(
                    "{name} collision polygon {p}: plane {k} has a normal of length {:.3} × 127, not a unit normal; the engine's heights and edges are off by as much",
                    length / 127.0
                ),
            )));
        }
        if let Some(k) = outward_edges(poly).first() {
            out.push(at(Problem::error(
                Code::CollisionEdge,
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
                Code::CollisionReach,
                format!(
                    "{name} collision polygon {p}: its planes meet {far:.2} units from the tile origin; collision planes reach about {COLLISION_REACH:.1}"
                ),
            )));
        }
    }
}
