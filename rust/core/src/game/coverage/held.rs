//! Which polygons a set of tiles holds, found by their corners: whether a polygon is entered
//! into a cell (the check's question, and the writer's before it enters a copy).

use rustc_hash::FxHashMap;

use glam::DVec3;

use super::Outlines;
use crate::level::{Map, Model};

/// Corners of two polygons this close (units) are the same polygon entered twice.
const SAME_CORNER: f64 = 0.01;

/// A polygon of a tile, read at both plane scales.
pub struct Placed {
    pub tile: usize,
    /// Counted over the model's groups A, B and C.
    pub polygon: usize,
    pub outlines: Outlines,
    pub material: u8,
}

/// The polygons of some tiles in world space, found by their corners: whether a polygon is
/// entered there costs what the polygons near its corner cost, not every polygon of the cell
/// (compared with each, a crowded level once took minutes). A polygon is the same as another
/// when its outline is, as the engine reads both or as a tool writing ×4096 meant both (such a
/// tool moves a coverage copy's planes at its own scale).
pub struct Held {
    placed: Vec<Placed>,
    /// Polygons by the [`SAME_CORNER`]-sized box each corner of either outline lies in.
    by_corner: FxHashMap<[i64; 3], Vec<usize>>,
}

impl Held {
    pub fn of(map: &Map, models: &[Model], tiles: impl Iterator<Item = usize>) -> Held {
        let mut held = Held {
            placed: Vec::new(),
            by_corner: FxHashMap::default(),
        };
        for t in tiles {
            let tile = &map.tiles[t];
            let Some(model) = models.get(tile.model_index as usize) else {
                continue;
            };
            for (polygon, q) in model.collision_polygons().enumerate() {
                let outlines = Outlines::of(tile, q);
                let mut boxes: Vec<[i64; 3]> = outlines
                    .engine
                    .iter()
                    .chain(&outlines.notes)
                    .map(|&c| corner_box(c))
                    .collect();
                boxes.sort_unstable();
                boxes.dedup();
                for b in boxes {
                    held.by_corner.entry(b).or_default().push(held.placed.len());
                }
                held.placed.push(Placed {
                    tile: t,
                    polygon,
                    outlines,
                    material: q.material,
                });
            }
        }
        held
    }

    /// The polygons that are `outlines` of `material` ([`same_outline`]): one with a corner
    /// within [`SAME_CORNER`] of either reading's first lies in a box next to that corner's.
    pub fn holding<'a>(
        &'a self,
        outlines: &'a Outlines,
        material: u8,
    ) -> impl Iterator<Item = &'a Placed> + 'a {
        let firsts = [outlines.engine.first(), outlines.notes.first()];
        let mut candidates: Vec<usize> = firsts
            .into_iter()
            .flatten()
            .flat_map(|&first| {
                let [x, y, z] = corner_box(first);
                (-1..=1).flat_map(move |dx| {
                    (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| [x + dx, y + dy, z + dz]))
                })
            })
            .filter_map(|b| self.by_corner.get(&b))
            .flatten()
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .map(|k| &self.placed[k])
            .filter(move |q| {
                q.material == material
                    && (same_outline(&outlines.engine, &q.outlines.engine)
                        || same_outline(&outlines.notes, &q.outlines.notes))
            })
    }
}

fn corner_box(p: DVec3) -> [i64; 3] {
    (p / SAME_CORNER).floor().as_i64vec3().to_array()
}

fn same_outline(a: &[DVec3], b: &[DVec3]) -> bool {
    a.len() == b.len()
        && a.iter().all(|p| {
            b.iter()
                .any(|q| (*p - *q).abs().max_element() < SAME_CORNER)
        })
}
