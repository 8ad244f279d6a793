//! New pieces that are a model the level has already, after a quarter turn, share it: the notes'
//! builders merge identical tiles, so that a level re-tiled as new geometry stays the size of the
//! original (FORMAT.md §5). A shared piece is placed turned so that the model shows it, its vertex
//! colours in the model's vertex order.

use std::collections::HashMap;

use glam::{DVec3, Vec3};

use super::model::POSITION_TOLERANCE;
use crate::game::space::to_world;
use crate::geometry::decode_collision_polygon;
use crate::level::map::Rgba;
use crate::level::Model;
use crate::raw::{CollisionPlane, CollisionPolygon};

/// Colour 0x80 (1.0) in each channel, one set.
const NEUTRAL: Rgba = [0x80, 0x80, 0x80, 0];

/// Positions are matched in steps of 1/1024 unit (then held to [`POSITION_TOLERANCE`]): noise of
/// a turn there and back is far below, a step apart is another vertex.
const STEP: f64 = 1024.0;

/// What a model must agree in to be compared at all: vertex, face and collision counts.
type Shape = (usize, usize, [usize; 3]);

fn shape(model: &Model) -> Shape {
    (
        // A model without faces draws nothing: its vertices (model 0's water plane has four)
        // make no difference to a piece of collision alone.
        if model.faces.is_empty() {
            0
        } else {
            model.vertices.len()
        },
        model.faces.len(),
        model.collision.each_ref().map(Vec::len),
    )
}

/// The models a new piece may share, by their shape.
pub(super) struct Sharing {
    by_shape: HashMap<Shape, Vec<u32>>,
    face_counts: std::collections::HashSet<usize>,
}

/// A model a piece shares: its index, the quarter turns (0 to 3) the piece's tile turns further,
/// and the piece's colours in the model's vertex order.
pub(super) struct Share {
    pub model: u32,
    pub turn: u32,
    pub colours: Vec<Rgba>,
}

impl Sharing {
    /// The level's models (numbered from 0) as shareable.
    pub(super) fn of(models: &[Model]) -> Sharing {
        let mut sharing = Sharing {
            by_shape: HashMap::new(),
            face_counts: Default::default(),
        };
        for (i, m) in models.iter().enumerate() {
            sharing.add(i as u32, m);
        }
        sharing
    }

    pub(super) fn add(&mut self, index: u32, model: &Model) {
        self.by_shape.entry(shape(model)).or_default().push(index);
        self.face_counts.insert(model.faces.len());
    }

    /// Whether some model has this many faces: a cheap test before a piece is built to be
    /// compared.
    pub(super) fn has_face_count(&self, faces: usize) -> bool {
        self.face_counts.contains(&faces)
    }

    /// The first model (`model_at` gives each by index) that `piece` is after a quarter turn,
    /// with the piece's `colours` (one set, one per vertex) in its vertex order.
    pub(super) fn find<'a>(
        &self,
        piece: &Model,
        colours: &[Rgba],
        model_at: impl Fn(u32) -> &'a Model,
    ) -> Option<Share> {
        if colours.len() != piece.vertices.len() {
            return None;
        }
        let candidates = self.by_shape.get(&shape(piece))?;
        candidates.iter().find_map(|&index| {
            let model = model_at(index);
            (0..4).find_map(|turn| {
                let order = same_after_turn(piece, model, turn)?;
                // A faceless model's own vertices get the neutral colour (shown as 1.0).
                let mut ordered = vec![NEUTRAL; model.vertices.len()];
                for (v, &to) in order.iter().enumerate() {
                    ordered[to as usize] = colours[v];
                }
                Some(Share {
                    model: index,
                    turn,
                    colours: ordered,
                })
            })
        })
    }
}

/// A point of a model (export space) turned by `turn` quarter turns as a tile turns it (game
/// space, z negated): exact, the quarter turns' sines being 0 and ±1.
fn turned(p: [f32; 3], turn: u32) -> DVec3 {
    let game = DVec3::new(p[0] as f64, p[1] as f64, -(p[2] as f64));
    let w = to_world(DVec3::ZERO, game, turn * 1024);
    DVec3::new(w.x, w.y, -w.z)
}

fn key(p: DVec3) -> [i64; 3] {
    (p * STEP).round().as_i64vec3().to_array()
}

/// A plane turned by quarter turns: its normal turns, its distance from the origin stays.
fn turned_plane(plane: CollisionPlane, turn: u32) -> CollisionPlane {
    let [x, y, z] = plane.normal.map(f64::from);
    let n = to_world(DVec3::ZERO, DVec3::new(x, y, z), turn * 1024);
    CollisionPlane {
        normal: n.round().as_ivec3().to_array().map(|c| c as i8),
        ..plane
    }
}

/// How far (units) the corners of a polygon re-encoded from its corners may lie from the
/// original's: an edge plane is fitted anew to its i8 lattice, and where a polygon is steep it
/// may tilt otherwise (the encoder keeps decoded corners within 0.02 of the encoded).
const SAME_CORNER: f64 = 0.02;
/// How far (units) a floor's corners may lie above or below: the height the floor test finds,
/// held to the millimetre by which floors are compared (FORMAT.md §4 "Measuring an edit"). Two
/// readings of one floor at 0.25 units, ×4064 and ×4096, lie 2 mm apart.
const SAME_HEIGHT: f64 = 0.001;

/// A group's polygons as the engine would meet them, in an order to compare them by: kind,
/// material, centroid (in steps of 1/8 unit) and whether a floor, with the corners.
/// Kind, material, centroid in steps of 1/8 unit, and whether it is a floor.
type OutlineKey = (u8, u8, [i64; 3], bool);

/// A surface whose i8 normal rises this steeply (about 45°) is a floor whose height counts.
const FLOOR_NY: i8 = 90;

fn outlines(polygons: impl Iterator<Item = CollisionPolygon>) -> Vec<(OutlineKey, Vec<DVec3>)> {
    let mut out: Vec<_> = polygons
        .map(|p| {
            let corners: Vec<DVec3> = decode_collision_polygon(&p)
                .iter()
                .map(|c| c.as_dvec3())
                .collect();
            let centre = corners.iter().sum::<DVec3>() / corners.len().max(1) as f64;
            let at = (centre * 8.0).round().as_i64vec3().to_array();
            let floor = p.planes[0].normal[1] >= FLOOR_NY;
            ((p.kind, p.material, at, floor), corners)
        })
        .collect();
    out.sort_by_key(|(k, _)| *k);
    out
}

/// Whether two groups hold the same polygons: one by one in [`outlines`] order, of one kind and
/// material, each corner of one within [`SAME_CORNER`] of a corner of the other, a floor's
/// within [`SAME_HEIGHT`] in height.
fn same_corner(p: DVec3, q: DVec3, floor: bool) -> bool {
    let d = (p - q).abs();
    d.max_element() <= SAME_CORNER && (!floor || d.y <= SAME_HEIGHT)
}

fn same_polygons(a: &[CollisionPolygon], b: &[CollisionPolygon], turn: u32) -> bool {
    let theirs = b.iter().map(|p| CollisionPolygon {
        planes: p.planes.map(|q| turned_plane(q, turn)),
        ..*p
    });
    let (a, b) = (outlines(a.iter().copied()), outlines(theirs));
    a.len() == b.len()
        && a.iter().zip(&b).all(|((ka, ca), (kb, cb))| {
            ka == kb
                && ca.len() == cb.len()
                && ca
                    .iter()
                    .all(|p| cb.iter().any(|q| same_corner(*p, *q, ka.3)))
        })
}

/// Whether `piece` is `model` turned by `turn` quarter turns: the same faces (flags but the
/// batch bit, texture entry, and corners where the model's turned stand), the vertices no face
/// uses where the model's stand, and the same collision polygons turned, group by group (as
/// their corners tell: re-encoded from them, a steep polygon's planes may tilt otherwise; a
/// shared model keeps the level's own). The piece's vertex k is then the model's vertex
/// `order[k]`; vertices at one place (hard edges, colour seams) are told apart by their faces.
fn same_after_turn(piece: &Model, model: &Model, turn: u32) -> Option<Vec<u16>> {
    let same_collision =
        || (0..3).all(|g| same_polygons(&piece.collision[g], &model.collision[g], turn));
    if piece.faces.is_empty() && piece.vertices.is_empty() && model.faces.is_empty() {
        return same_collision().then_some(Vec::new());
    }
    let theirs: Vec<DVec3> = model
        .vertices
        .iter()
        .map(|v| turned(v.position, turn))
        .collect();
    let ours: Vec<DVec3> = piece
        .vertices
        .iter()
        .map(|v| Vec3::from(v.position).as_dvec3())
        .collect();
    let (their_keys, our_keys): (Vec<_>, Vec<_>) = (
        theirs.iter().map(|&p| key(p)).collect(),
        ours.iter().map(|&p| key(p)).collect(),
    );
    let face = |f: &crate::raw::Face, keys: &[[i64; 3]]| {
        let corner = |c: u16| keys.get(c as usize).copied();
        Some((
            f.flags & !0x8,
            f.texture,
            [
                corner(f.corners[0])?,
                corner(f.corners[1])?,
                corner(f.corners[2])?,
            ],
        ))
    };
    let mut faces: HashMap<_, Vec<usize>> = HashMap::new();
    for (k, f) in model.faces.iter().enumerate().rev() {
        faces.entry(face(f, &their_keys)?).or_default().push(k);
    }
    let mut order: Vec<Option<u16>> = vec![None; ours.len()];
    let mut taken = vec![false; theirs.len()];
    // Pairs our vertex with theirs: each of either side once.
    let map = |ours: u16, theirs: u16, order: &mut [Option<u16>], taken: &mut [bool]| match order
        [ours as usize]
    {
        Some(t) => (t == theirs).then_some(()),
        None if taken[theirs as usize] => None,
        None => {
            order[ours as usize] = Some(theirs);
            taken[theirs as usize] = true;
            Some(())
        }
    };
    for f in &piece.faces {
        let k = faces.get_mut(&face(f, &our_keys)?)?.pop()?;
        for (&c, &t) in f.corners.iter().zip(&model.faces[k].corners) {
            map(c, t, &mut order, &mut taken)?;
        }
    }
    // Vertices no face uses: by where they stand.
    let mut free: HashMap<[i64; 3], Vec<u16>> = HashMap::new();
    for (v, k) in their_keys.iter().enumerate().rev() {
        if !taken[v] {
            free.entry(*k).or_default().push(v as u16);
        }
    }
    for v in 0..ours.len() {
        if order[v].is_none() {
            let t = free.get_mut(&our_keys[v])?.pop()?;
            map(v as u16, t, &mut order, &mut taken)?;
        }
    }
    let order: Vec<u16> = order.into_iter().collect::<Option<_>>()?;
    let near = order.iter().enumerate().all(|(v, &t)| {
        (theirs[t as usize] - ours[v]).abs().max_element() <= POSITION_TOLERANCE as f64
    });
    (near && same_collision()).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, Size};

    /// A model turned by a quarter turn, its vertices and faces reordered and its colours with
    /// them, is found as that model with its colours in the model's order.
    #[test]
    fn a_model_turned_and_reordered_is_found_with_its_colours_in_order() {
        let level = generate(2, Size::Small);
        let models = &level.trak().unwrap().models;
        let (index, model) = models
            .iter()
            .enumerate()
            .find(|(_, m)| m.vertices.len() > 8 && m.collision_count() > 1)
            .unwrap();
        let sharing = Sharing::of(models);
        for turn in 0..4 {
            // The piece is the model turned by `turn`: the model turned back by the tile.
            let mut piece = model.clone();
            for v in &mut piece.vertices {
                let p = turned(v.position, turn);
                v.position = p.as_vec3().to_array();
            }
            for poly in piece.collision.iter_mut().flatten() {
                poly.planes = poly.planes.map(|q| turned_plane(q, turn));
            }
            piece.vertices.reverse();
            let n = piece.vertices.len() as u16;
            for f in &mut piece.faces {
                f.corners = f.corners.map(|c| n - 1 - c);
            }
            piece.faces.reverse();
            let colours: Vec<Rgba> = (0..n).map(|v| [v as u8, 0, 0, 0]).collect();
            let share = sharing
                .find(&piece, &colours, |i| &models[i as usize])
                .unwrap_or_else(|| panic!("turn {turn}"));
            assert_eq!(share.model as usize, index, "turn {turn}");
            assert_eq!(share.turn, turn, "placed turned as the piece is");
            let expected: Vec<Rgba> = (0..n).map(|v| [(n - 1 - v) as u8, 0, 0, 0]).collect();
            assert_eq!(share.colours, expected);
        }
        // A vertex moved by a millimetre is another piece.
        let mut moved = model.clone();
        moved.vertices[0].position[0] += 0.001;
        let colours = vec![[0; 4]; moved.vertices.len()];
        assert!(sharing
            .find(&moved, &colours, |i| &models[i as usize])
            .is_none_or(|s| s.model as usize != index));
    }
}
