//! Which plane scale a level's collision was written at (FORMAT.md §4 "Plane scale"): the
//! engine's (d = 4064 × distance) or note 001's words (d = 4096 × distance), model by model,
//! since a level edited by two tools holds both.
//!
//! Only planes that face along an axis (normal ±127 on one axis, 0 on the others) say it
//! clearly: such a plane lies at d/4064 or d/4096 along its axis exactly, and the two differ by
//! 0.8 % of its distance from the tile origin. A plane speaks for the scale that puts it on a
//! coordinate of the model's own render vertices (collision is in game space, z mirrored), and
//! where neither or both do, for the one that puts it on a round 1/32 of a unit (a cell border,
//! a floor at 0.25): d a multiple of 127 at the engine's scale, of 128 at ×4096. A model is
//! decided when one scale has four fifths of its planes' votes.

use serde::Serialize;

use crate::geometry::PlaneScale;
use crate::level::{Level, Model};
use crate::raw::CollisionPolygon;

/// How close (units) a plane must lie to a render vertex's coordinate to lie on it: d rounds a
/// plane by up to 1/8192, and the two readings of a plane 0.05 from the origin lie 4e-4 apart.
const ON_VERTEX: f64 = 1.5e-4;
/// Share of its planes' votes a scale needs to decide a model.
const DECIDES: f64 = 0.8;

/// What a model's planes say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Votes {
    pub engine: u32,
    pub notes: u32,
}

impl Votes {
    /// The scale the votes decide for, if any.
    pub fn scale(self) -> Option<PlaneScale> {
        let all = (self.engine + self.notes) as f64;
        if all == 0.0 {
            None
        } else if self.engine as f64 >= DECIDES * all {
            Some(PlaneScale::Engine)
        } else if self.notes as f64 >= DECIDES * all {
            Some(PlaneScale::Notes)
        } else {
            None
        }
    }
}

/// The votes of a model's planes.
pub fn model_votes(model: &Model) -> Votes {
    let mut axes: [Vec<f64>; 3] = Default::default();
    for v in &model.vertices {
        let [x, y, z] = v.position;
        for (axis, c) in [x, y, -z].into_iter().enumerate() {
            if c.is_finite() {
                axes[axis].push(c as f64);
            }
        }
    }
    for axis in &mut axes {
        axis.sort_by(f64::total_cmp);
    }
    let has_vertices = !model.vertices.is_empty();
    let near = |axis: usize, p: f64| {
        let coords = &axes[axis];
        let i = coords.partition_point(|&c| c < p);
        [i.wrapping_sub(1), i]
            .iter()
            .filter_map(|&k| coords.get(k))
            .any(|c| (c - p).abs() <= ON_VERTEX)
    };
    let mut votes = Votes::default();
    for plane in model.collision_polygons().flat_map(planes) {
        let Some((axis, sign)) = along_axis(plane.normal) else {
            continue;
        };
        let d = plane.d as i32;
        if d == 0 {
            continue;
        }
        let at = |scale: PlaneScale| sign * d as f64 / scale.steps();
        let on_vertex = has_vertices.then(|| {
            (
                near(axis, at(PlaneScale::Engine)),
                near(axis, at(PlaneScale::Notes)),
            )
        });
        let round = (d % 127 == 0, d % 128 == 0);
        let said = match on_vertex {
            Some((true, false)) => Some(PlaneScale::Engine),
            Some((false, true)) => Some(PlaneScale::Notes),
            _ => match round {
                (true, false) => Some(PlaneScale::Engine),
                (false, true) => Some(PlaneScale::Notes),
                _ => None,
            },
        };
        match said {
            Some(PlaneScale::Engine) => votes.engine += 1,
            Some(PlaneScale::Notes) => votes.notes += 1,
            None => {}
        }
    }
    votes
}

/// The surface and edge planes a polygon uses.
fn planes(poly: &CollisionPolygon) -> impl Iterator<Item = crate::raw::CollisionPlane> + '_ {
    poly.planes[..=poly.edge_count()].iter().copied()
}

/// The axis (0 x, 1 y, 2 z) and direction of a normal ±127 along one axis.
fn along_axis(normal: [i8; 3]) -> Option<(usize, f64)> {
    let nonzero: Vec<usize> = (0..3).filter(|&k| normal[k] != 0).collect();
    match nonzero[..] {
        [axis] if normal[axis].unsigned_abs() == 127 => Some((axis, normal[axis].signum() as f64)),
        _ => None,
    }
}

/// The scale of a level's collision, model by model: the TRAK models its tiles use (a swap's
/// other model included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelScale {
    pub verdict: Verdict,
    /// Models with collision decided for the engine's scale.
    pub engine_models: Vec<usize>,
    /// Models with collision decided for ×4096.
    pub notes_models: Vec<usize>,
    /// Models with collision whose planes decide nothing (none along an axis, or votes split).
    pub undecided_models: usize,
}

/// What a level's collision says as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every decided model at the engine's scale.
    #[serde(rename = "4064")]
    Engine,
    /// Every decided model at ×4096.
    #[serde(rename = "4096")]
    Notes,
    /// Models of both.
    Mixed,
    /// No model decided (no collision, or none with planes along an axis).
    Unknown,
}

impl LevelScale {
    pub fn of(level: &Level) -> LevelScale {
        let models = level.trak().map_or(&[][..], |t| &t.models[..]);
        let mut used = vec![false; models.len()];
        for tile in level.map().map_or(&[][..], |m| &m.tiles[..]) {
            let swap = tile.swap.map(|s| s.model_b);
            for m in std::iter::once(tile.model_index).chain(swap) {
                if let Some(u) = used.get_mut(m as usize) {
                    *u = true;
                }
            }
        }
        LevelScale::of_models(models.iter().enumerate().filter(|&(i, _)| used[i]))
    }

    fn of_models<'a>(models: impl Iterator<Item = (usize, &'a Model)>) -> LevelScale {
        let mut out = LevelScale {
            verdict: Verdict::Unknown,
            engine_models: Vec::new(),
            notes_models: Vec::new(),
            undecided_models: 0,
        };
        for (i, model) in models {
            if model.collision_count() == 0 {
                continue;
            }
            match model_votes(model).scale() {
                Some(PlaneScale::Engine) => out.engine_models.push(i),
                Some(PlaneScale::Notes) => out.notes_models.push(i),
                None => out.undecided_models += 1,
            }
        }
        out.verdict = match (out.engine_models.is_empty(), out.notes_models.is_empty()) {
            (false, true) => Verdict::Engine,
            (true, false) => Verdict::Notes,
            (false, false) => Verdict::Mixed,
            (true, true) => Verdict::Unknown,
        };
        out
    }

    /// One line for `info`.
    pub fn describe(&self) -> String {
        let counts = format!(
            "{} models ×4064, {} ×4096, {} undecided",
            self.engine_models.len(),
            self.notes_models.len(),
            self.undecided_models
        );
        let what = match self.verdict {
            Verdict::Engine => "×4064 (the engine's scale)",
            Verdict::Notes => "×4096 (note 001's wording: 0.8 % further out than meant)",
            Verdict::Mixed => "mixed (a level edited by tools of both scales)",
            Verdict::Unknown => "not known (no collision plane along an axis says it)",
        };
        format!("{what}; {counts}")
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::geometry::encode_collision_polygon_at;
    use crate::raw::{CollisionPlane, Vertex};

    fn plane(normal: [i8; 3], d: i16) -> CollisionPlane {
        CollisionPlane { normal, pad: 0, d }
    }

    /// A floor quad over the unit square at y 0.25 as the notes' tools write it, d by hand:
    /// ×4096 (borders at ±2048, the surface 1024) or ×4064 (±2032, 1016).
    fn hand_floor(border: i16, surface: i16) -> CollisionPolygon {
        CollisionPolygon {
            kind: crate::raw::COLLISION_QUAD,
            material: 0,
            planes: [
                plane([0, 127, 0], surface),
                plane([0, 0, -127], -border),
                plane([-127, 0, 0], -border),
                plane([0, 0, 127], -border),
                plane([127, 0, 0], -border),
            ],
        }
    }

    fn floor_model(poly: CollisionPolygon, with_vertices: bool) -> Model {
        let vertices = if with_vertices {
            [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                .map(|(x, z)| Vertex {
                    position: [x, 0.25, z],
                    normal: [0.0, 1.0, 0.0],
                })
                .to_vec()
        } else {
            Vec::new()
        };
        Model {
            vertices,
            collision: [vec![poly], Vec::new(), Vec::new()],
            ..Model::default()
        }
    }

    #[test]
    fn hand_written_floors_tell_their_scale_with_and_without_vertices() {
        for with_vertices in [true, false] {
            let notes = floor_model(hand_floor(2048, 1024), with_vertices);
            assert_eq!(
                model_votes(&notes),
                Votes {
                    engine: 0,
                    notes: 5
                }
            );
            let engine = floor_model(hand_floor(2032, 1016), with_vertices);
            assert_eq!(model_votes(&engine).scale(), Some(PlaneScale::Engine));
        }
    }

    #[test]
    fn a_level_of_both_is_mixed_and_one_without_axis_planes_unknown() {
        let models = [
            floor_model(hand_floor(2048, 1024), true),
            floor_model(hand_floor(2032, 1016), true),
            Model::default(),
        ];
        let scale = LevelScale::of_models(models.iter().enumerate());
        assert_eq!(
            (scale.engine_models.clone(), scale.notes_models.clone()),
            (vec![1], vec![0])
        );
        assert_eq!(scale.verdict, Verdict::Mixed);
        // A slope's planes lie along no axis.
        let slope = [
            Vec3::new(-0.4, 0.1, 0.3),
            Vec3::new(0.45, 0.35, 0.4),
            Vec3::new(0.2, 0.6, -0.45),
        ];
        let poly = encode_collision_polygon_at(&slope, 0, PlaneScale::Notes).unwrap();
        let sloped = floor_model(poly, false);
        assert_eq!(
            LevelScale::of_models([(0, &sloped)].into_iter()).verdict,
            Verdict::Unknown,
            "{:?}",
            model_votes(&floor_model(poly, false))
        );
    }

    #[test]
    fn off_round_planes_are_told_by_the_vertices_they_lie_on() {
        // Borders at ±0.3, surface at 0.17: no round 1/32, so only the vertices tell.
        let corners = [
            Vec3::new(-0.3, 0.17, 0.3),
            Vec3::new(0.3, 0.17, 0.3),
            Vec3::new(0.3, 0.17, -0.3),
            Vec3::new(-0.3, 0.17, -0.3),
        ];
        for scale in [PlaneScale::Engine, PlaneScale::Notes] {
            let poly = encode_collision_polygon_at(&corners, 0, scale).unwrap();
            let model = Model {
                vertices: corners
                    .map(|c| Vertex {
                        position: [c.x, c.y, -c.z],
                        normal: [0.0, 1.0, 0.0],
                    })
                    .to_vec(),
                collision: [vec![poly], Vec::new(), Vec::new()],
                ..Model::default()
            };
            assert_eq!(model_votes(&model).scale(), Some(scale));
        }
    }
}
