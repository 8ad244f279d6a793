//! Rays against the level's tiles: the geometry in world game space in a BVH (obvhs), and the
//! sky's directions about a vertex's normal.
//!
//! Everything here is arithmetic and square roots (no sine or cosine, whose last bit differs
//! between C libraries), so a bake gives the same bytes on every machine; the vertices are
//! independent, so spreading them over the cores changes nothing either.

use std::time::Duration;

use glam::{DVec3, Vec3A};
use obvhs::bvh2::{builder::build_bvh2_from_tris, Bvh2};
use obvhs::ray::Ray;
use obvhs::triangle::Triangle;
use obvhs::BvhBuildParams;

use super::LightError;
use crate::game::space::to_world;
use crate::level::map::Tile;
use crate::level::model::Model;
use crate::limits::MAX_DRAWN_FACES;
use crate::Level;

/// How far above its surface a ray starts, and the nearest hit it counts (units; a cell is one):
/// far below the smallest detail of a level, far above f32's noise at its size.
const START_ABOVE: f32 = 1e-3;
const NEAREST_HIT: f32 = 1e-4;

/// One vertex of a tile as the world has it: game space.
#[derive(Debug, Clone, Copy)]
pub(super) struct WorldVertex {
    pub position: Vec3A,
    /// Unit length; straight up where the model's is no direction.
    pub normal: Vec3A,
}

/// A tile's vertices in world game space: the model's export-space vertices with z negated,
/// turned by the tile's rotation with the engine's sine table and placed at its position.
pub(super) fn tile_vertices(tile: &Tile, model: &Model) -> Vec<WorldVertex> {
    let [x, y, z] = tile.float.position;
    let origin = DVec3::new(x as f64, y as f64, -(z as f64));
    let rotation = tile.float.rotation;
    model
        .vertices
        .iter()
        .map(|v| {
            let local = |p: [f32; 3]| DVec3::new(p[0] as f64, p[1] as f64, -(p[2] as f64));
            let position = to_world(origin, local(v.position), rotation);
            let normal = to_world(DVec3::ZERO, local(v.normal), rotation).as_vec3a();
            WorldVertex {
                position: position.as_vec3a(),
                normal: normal.try_normalize().unwrap_or(Vec3A::Y),
            }
        })
        .collect()
}

/// The faces every tile draws, in world game space: what hides the sky and the sun.
pub(super) struct Occluders {
    triangles: Vec<Triangle>,
    bvh: Option<Bvh2>,
}

impl Occluders {
    /// The faces of every tile; refused past [`MAX_DRAWN_FACES`], counted before any is built
    /// (a model of many faces on many tiles is a few megabytes of level and gigabytes of
    /// triangles, and a BVH of many alike takes minutes to build).
    pub fn of(level: &Level) -> Result<Occluders, LightError> {
        let (Some(map), Some(trak)) = (level.map(), level.trak()) else {
            return Ok(Occluders::new(Vec::new()));
        };
        let faces = |tile: &Tile| {
            trak.models
                .get(tile.model_index as usize)
                .map_or(0, |m| m.faces.len() as u64)
        };
        let drawn: u64 = map.tiles.iter().map(faces).sum();
        if drawn > MAX_DRAWN_FACES {
            return Err(LightError::FacesDrawn { drawn });
        }
        let mut triangles = Vec::with_capacity(drawn as usize);
        for tile in &map.tiles {
            let Some(model) = trak.models.get(tile.model_index as usize) else {
                continue;
            };
            let vertices = tile_vertices(tile, model);
            for face in &model.faces {
                let corner = |k: usize| vertices.get(face.corners[k] as usize).map(|v| v.position);
                // A damaged model's corner that is no number hides nothing.
                if let (Some(v0), Some(v1), Some(v2)) = (corner(0), corner(1), corner(2)) {
                    if (v0 + v1 + v2).is_finite() {
                        triangles.push(Triangle { v0, v1, v2 });
                    }
                }
            }
        }
        Ok(Occluders::new(triangles))
    }

    fn new(triangles: Vec<Triangle>) -> Occluders {
        let bvh = (!triangles.is_empty()).then(|| {
            build_bvh2_from_tris(
                &triangles,
                BvhBuildParams::fast_build(),
                &mut Duration::default(),
            )
        });
        Occluders { triangles, bvh }
    }

    /// Whether a ray from just above `vertex` along `direction` (unit) meets a face.
    pub fn blocked(&self, vertex: &WorldVertex, direction: Vec3A) -> bool {
        self.blocked_within(vertex, direction, f32::INFINITY)
    }

    /// Whether a ray from just above `vertex` along `direction` (unit) meets a face before
    /// `distance`.
    pub fn blocked_within(&self, vertex: &WorldVertex, direction: Vec3A, distance: f32) -> bool {
        let Some(bvh) = &self.bvh else { return false };
        let origin = vertex.position + vertex.normal * START_ABOVE;
        // A damaged model's vertex that is no number: nothing hides anything from it.
        if !(origin.is_finite() && direction.is_finite()) {
            return false;
        }
        let ray = Ray::new(origin, direction, NEAREST_HIT, distance);
        !bvh.ray_traverse_miss(ray, |ray, id| {
            self.triangles[bvh.primitive_indices[id] as usize].intersect(ray)
        })
    }
}

/// Directions about a normal, cosine-weighted (points spread evenly over the unit disk, lifted
/// onto the hemisphere: Malley's method): the centres of a square grid's cells inside the disk,
/// about `rays` of them.
pub(super) struct SkySamples(Vec<[f32; 3]>);

impl SkySamples {
    pub fn new(rays: u32) -> SkySamples {
        // A k × k grid over the disk's square keeps π/4 of its cells; k even, so that no
        // direction lies in the normal's plane with the tangents (on the horizon of a wall).
        let k = ((rays as f64 * 4.0 / std::f64::consts::PI).sqrt().ceil() as u32).max(2);
        let k = k + k % 2;
        let mut out = Vec::new();
        for i in 0..k {
            for j in 0..k {
                let a = ((2 * i + 1) as f32 / k as f32) - 1.0;
                let b = ((2 * j + 1) as f32 / k as f32) - 1.0;
                let r2 = a * a + b * b;
                if r2 < 1.0 {
                    out.push([a, b, (1.0 - r2).sqrt()]);
                }
            }
        }
        if out.is_empty() {
            out.push([0.0, 0.0, 1.0]);
        }
        SkySamples(out)
    }

    /// The part of the sky (directions with y > 0) the normal faces, cosine-weighted (`open`),
    /// and the part of it no face hides (`seen`), both 0 to 1.
    pub fn sky(&self, occluders: &Occluders, vertex: &WorldVertex) -> (f32, f32) {
        let (t, b) = basis(vertex.normal);
        let n = vertex.normal;
        let (mut open, mut seen) = (0u32, 0u32);
        for &[x, z, up] in &self.0 {
            let direction = t * x + b * z + n * up;
            if direction.y <= 0.0 {
                continue;
            }
            open += 1;
            if !occluders.blocked(vertex, direction) {
                seen += 1;
            }
        }
        let count = self.0.len() as f32;
        (open as f32 / count, seen as f32 / count)
    }
}

/// Two unit vectors that make a right-handed frame with the unit normal `n` (Duff et al. 2017,
/// "Building an orthonormal basis, revisited": no branch where n is near an axis).
fn basis(n: Vec3A) -> (Vec3A, Vec3A) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (
        Vec3A::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x),
        Vec3A::new(b, sign + n.y * n.y * a, -n.y),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_unit_directions_about_the_normal() {
        for n in [Vec3A::Y, Vec3A::NEG_Y, Vec3A::Z, Vec3A::new(0.6, 0.0, -0.8)] {
            let (t, b) = basis(n);
            for v in [t, b] {
                assert!((v.length() - 1.0).abs() < 1e-5 && v.dot(n).abs() < 1e-5);
            }
            assert!(t.dot(b).abs() < 1e-5 && (t.cross(b) - n).length() < 1e-5);
        }
        let samples = SkySamples::new(64);
        assert!((50..=80).contains(&samples.0.len()), "{}", samples.0.len());
        for [x, z, up] in &samples.0 {
            assert!(((x * x + z * z + up * up).sqrt() - 1.0).abs() < 1e-5 && *up > 0.0);
        }
    }

    #[test]
    fn open_sky_is_all_of_it_up_half_of_it_sideways_none_down() {
        let nothing = Occluders::new(Vec::new());
        let samples = SkySamples::new(256);
        let at = |normal| WorldVertex {
            position: Vec3A::ZERO,
            normal,
        };
        assert_eq!(samples.sky(&nothing, &at(Vec3A::Y)), (1.0, 1.0));
        assert_eq!(samples.sky(&nothing, &at(Vec3A::NEG_Y)), (0.0, 0.0));
        let (open, seen) = samples.sky(&nothing, &at(Vec3A::X));
        // (1 + n·y) / 2 of the sky, cosine-weighted, for a normal at n·y = 0.
        assert!((open - 0.5).abs() < 0.03 && open == seen, "{open}");
    }
}
