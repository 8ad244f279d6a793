//! Collision belongs to cells: the floor and wall tests read only the tiles listed in the
//! player's cell, so a polygon that reaches into another cell has to be entered there too, as a
//! collision-only tile if need be (FORMAT.md §4 "Cells", §10).
//!
//! One rule says where, for the check, for export and for the test level ([`reaches`]): a
//! polygon reaches a cell by how far its part over the cell's square lies in from the cell's
//! sides (its *depth*), read at both plane scales a level may have been written at and counted at
//! the smaller ([`PlaneScale`]: the 0.8 % by which a level written ×4096 reaches further than its
//! author meant is no reach). A floor then reaching no further than the floor test's own edge
//! tolerance is no reach either: the engine blurs every ledge by that much. Past it a floor
//! needs some floor of that cell under it, and past a sliver ([`SLIVER`]) a floor as high, or to
//! be entered there; a wall, whose test is not modelled, needs entering past a sliver.
//!
//! A *coverage copy* is a collision-only tile (a model with no vertices and no faces) listed in
//! the covered cell: the owner's polygons that reach that cell, at the owner's height and
//! rotation, moved by whole cells, each plane's d changed by exactly the distance moved, so that
//! the engine finds the same heights to the 1/4096 in either cell.

use std::collections::HashMap;

use glam::{DVec2, DVec3};

use crate::game::cells::{coordinate_in_cell, tile_cell, Cell, CellLists};
use crate::game::floor::edge_tolerance;
use crate::game::space::{from_fixed, to_tile_frame, to_world};
use crate::geometry::{bounding_box, decode_collision_polygon, PlaneScale};
use crate::level::{Map, Model, Tile};
use crate::raw::CollisionPolygon;

/// How far (units) into a cell a floor must reach to need a floor as high there (or to be
/// entered), and a wall to need entering: the engine's edge tolerance of 0.016–0.023 plus margin.
pub const SLIVER: f64 = 0.03;
const BOX_MARGIN: f32 = 1.0 / 128.0;

/// A tile's fixed-point origin in world game space, units.
pub fn tile_origin(tile: &Tile) -> DVec3 {
    DVec3::from_array(tile.fixed.position.map(|v| from_fixed(v as i64)))
}

/// A tile's polygon in world game space: its corners where the engine's planes meet.
pub fn world_polygon(tile: &Tile, poly: &CollisionPolygon) -> Vec<DVec3> {
    world_polygon_at(tile, poly, PlaneScale::Engine)
}

/// A tile's polygon in world game space read at `scale`: at note 001's ×4096 the engine's
/// outline shrunk about the tile's origin by 4064/4096.
pub fn world_polygon_at(tile: &Tile, poly: &CollisionPolygon, scale: PlaneScale) -> Vec<DVec3> {
    let origin = tile_origin(tile);
    let rotation = tile.fixed.rotation[1] as u32;
    let factor = scale.from_engine();
    decode_collision_polygon(poly)
        .into_iter()
        .map(|c| to_world(origin, c.as_dvec3() * factor, rotation))
        .collect()
}

/// The polygon clipped to one side of an axis-aligned plane: keeps points with
/// `sign·(p[axis] − at) ≥ 0` (axis 0 = x, 2 = z).
fn clip(points: &[DVec3], axis: usize, at: f64, sign: f64) -> Vec<DVec3> {
    let inside = |p: &DVec3| sign * (p[axis] - at) >= 0.0;
    let mut out = Vec::with_capacity(points.len() + 2);
    for (k, p) in points.iter().enumerate() {
        let q = points[(k + 1) % points.len()];
        if inside(p) {
            out.push(*p);
        }
        if inside(p) != inside(&q) {
            let t = (at - p[axis]) / (q[axis] - p[axis]);
            out.push(*p + (q - *p) * t);
        }
    }
    out
}

/// The part of a world polygon above a cell's square (empty when it misses the square).
pub fn clip_to_cell(polygon: &[DVec3], cell: Cell) -> Vec<DVec3> {
    let (x0, z0) = (cell.col as f64, cell.row as f64);
    let mut part = polygon.to_vec();
    for (axis, at, sign) in [
        (0, x0, 1.0),
        (0, x0 + 1.0, -1.0),
        (2, z0, 1.0),
        (2, z0 + 1.0, -1.0),
    ] {
        if part.is_empty() {
            break;
        }
        part = clip(&part, axis, at, sign);
    }
    part
}

/// How far (units) the polygon's part over the cell's square lies in from the cell's sides:
/// for each side the farthest the part gets from it, the least of the four. A polygon reaching
/// 0.01 across a border has depth 0.01 there; None when it misses the square.
pub fn depth(polygon: &[DVec3], cell: Cell) -> Option<f64> {
    let (x0, z0) = (cell.col as f64, cell.row as f64);
    let part = clip_to_cell(polygon, cell);
    if part.is_empty() {
        return None;
    }
    let farthest = |f: &dyn Fn(&DVec3) -> f64| part.iter().map(f).fold(f64::MIN, f64::max);
    Some(
        [
            farthest(&|p| p.x - x0),
            farthest(&|p| x0 + 1.0 - p.x),
            farthest(&|p| p.z - z0),
            farthest(&|p| z0 + 1.0 - p.z),
        ]
        .into_iter()
        .fold(f64::MAX, f64::min),
    )
}

/// Whether a polygon (convex, or a wall: a line seen from above) covers the cell's square,
/// reaching at least `sliver` past each side it crosses.
pub fn covers(polygon: &[DVec3], cell: Cell, sliver: f64) -> bool {
    depth(polygon, cell).is_some_and(|d| d >= sliver)
}

/// The cells of the grid whose square a world polygon's outline overlaps, in row-major order.
/// Parts outside the grid overlap nothing: the collision tests never run there.
pub fn cells_under(polygon: &[DVec3], width: u32, height: u32) -> Vec<Cell> {
    if polygon.is_empty() || width == 0 || height == 0 {
        return Vec::new();
    }
    let (lo, hi) = polygon.iter().map(|p| DVec2::new(p.x, p.z)).fold(
        (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    );
    let range = |lo: f64, hi: f64, n: u32| {
        let first = lo.floor().clamp(0.0, (n - 1) as f64) as u32;
        let last = hi.floor().clamp(0.0, (n - 1) as f64) as u32;
        first..=last
    };
    range(lo.y, hi.y, height)
        .flat_map(|row| range(lo.x, hi.x, width).map(move |col| Cell { col, row }))
        .collect()
}

/// What the floor test of a cell a polygon reaches into must find there, by [`need`]; ordered
/// from the least demanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// A floor of that cell under the part, at any height: a floor reaching past the edge
    /// tolerance by no more than a sliver, whose end the llama then finds at the border.
    AnyFloor,
    /// A floor of that cell as high as the part, or the polygon entered there.
    AsHigh,
    /// The polygon entered there: a wall or a ceiling, whose tests are not modelled.
    Entered,
}

/// How far (units) outside its edges the floor test lets a probe stand on a floor of this
/// polygon's slope (FORMAT.md §4, step 5): 0.016 on the flat.
pub fn edge_tolerance_units(poly: &CollisionPolygon) -> f64 {
    -edge_tolerance(poly.planes[0].normal[1]) as f64 / PlaneScale::Engine.steps()
}

/// What a polygon reaching `depth` into another cell needs there (FORMAT.md §4 "Cells"); None
/// when the reach is none: a floor within the floor test's edge tolerance, a wall within a
/// sliver.
pub fn need(poly: &CollisionPolygon, depth: f64) -> Option<Need> {
    if poly.planes[0].normal[1] > 0 {
        if depth <= edge_tolerance_units(poly) {
            None
        } else if depth <= SLIVER {
            Some(Need::AnyFloor)
        } else {
            Some(Need::AsHigh)
        }
    } else {
        (depth > SLIVER).then_some(Need::Entered)
    }
}

/// A polygon that reaches a cell other than its tile's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// Counted over the model's groups A, B and C.
    pub polygon: usize,
    pub cell: Cell,
    /// How far it reaches in, read at the plane scale that reaches less.
    pub depth: f64,
    pub need: Need,
}

/// Where the polygons of a tile reach beyond the cell the tile is listed under, by the one rule
/// ([`need`] of the depth read at both plane scales). A tile outside the grid reaches nowhere (the
/// check reports the tile itself).
pub fn reaches(tile: &Tile, model: &Model, width: u32, height: u32) -> Vec<Reach> {
    let Some(home) = tile_cell(tile, width, height) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (polygon, poly) in model.collision_polygons().enumerate() {
        let outlines = Outlines::of(tile, poly);
        for cell in cells_under(&outlines.engine, width, height) {
            if cell == home {
                continue;
            }
            let Some(depth) = outlines.depth(cell) else {
                continue;
            };
            if let Some(need) = need(poly, depth) {
                out.push(Reach {
                    polygon,
                    cell,
                    depth,
                    need,
                });
            }
        }
    }
    out
}

/// A tile's polygon in world space read at both plane scales.
#[derive(Debug, Clone)]
pub struct Outlines {
    /// As the engine tests it.
    pub engine: Vec<DVec3>,
    /// As a tool writing ×4096 meant it.
    pub notes: Vec<DVec3>,
}

impl Outlines {
    pub fn of(tile: &Tile, poly: &CollisionPolygon) -> Outlines {
        Outlines {
            engine: world_polygon(tile, poly),
            notes: world_polygon_at(tile, poly, PlaneScale::Notes),
        }
    }

    /// How far the polygon reaches into the cell, at the scale that reaches less; None when
    /// either reading misses the cell.
    pub fn depth(&self, cell: Cell) -> Option<f64> {
        Some(depth(&self.engine, cell)?.min(depth(&self.notes, cell)?))
    }
}

/// A polygon's planes in the frame of a tile whose origin lies `offset` (20.12, the first tile's
/// frame) from the polygon's own tile: d − n·32·offset/4096, exact when the offset is a multiple
/// of 1/32 (always for whole cells at quarter turns). None when a d leaves the i16 range.
pub fn translate(poly: &CollisionPolygon, offset: [i64; 3]) -> Option<CollisionPolygon> {
    let mut out = *poly;
    for plane in &mut out.planes {
        let n = plane.normal.map(i64::from);
        let shift = (n[0] * offset[0] + n[1] * offset[1] + n[2] * offset[2]) as f64 / 128.0;
        plane.d = i16::try_from((plane.d as f64 - shift).round() as i64).ok()?;
    }
    Some(out)
}

/// Why coverage cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tile {tile}, collision polygon {polygon}: covers cell {}, {} but lies too far from any tile origin there for its planes (collision reaches about 8 units)", cell.col, cell.row)]
pub struct CoverageError {
    pub tile: usize,
    pub polygon: usize,
    pub cell: Cell,
}

/// The copy of `owner` listed under `cell`: same height and rotation, moved by whole cells.
fn copy_placement(owner: &Tile, cell: Cell, model: u32) -> Tile {
    let [x, y, z] = owner.float.position;
    let x = coordinate_in_cell(cell.col, x as f64) as f32;
    let z = -(coordinate_in_cell(cell.row, -z as f64) as f32);
    Tile::new([x, y, z], owner.float.rotation, model)
}

/// The owner's frame offset of a copy: the copy's origin relative to the owner's, turned into
/// the owner's frame as the engine turns probes.
fn frame_offset(owner: &Tile, copy: &Tile) -> [i64; 3] {
    let d = |k: usize| copy.fixed.position[k] as i64 - owner.fixed.position[k] as i64;
    let (x, z) = to_tile_frame(d(0), d(2), owner.fixed.rotation[1] as u32);
    [x, d(1), z]
}

/// A model that draws nothing and collides only: no vertices, no faces.
pub fn is_collision_only(model: &Model) -> bool {
    model.vertices.is_empty() && model.faces.is_empty() && model.collision_count() > 0
}

/// The coverage copies of `owner`'s polygons, one per covered cell other than its own: the
/// copy tiles (model index to be set) and their models.
pub fn copies(
    owner_index: usize,
    owner: &Tile,
    model: &Model,
    width: u32,
    height: u32,
) -> Result<Vec<(Tile, Model)>, CoverageError> {
    copies_where(owner_index, owner, model, (width, height), |_, _| true)
}

/// [`copies`] for the reaches `needed` says need one (given the reach and the polygon).
fn copies_where(
    owner_index: usize,
    owner: &Tile,
    model: &Model,
    (width, height): (u32, u32),
    mut needed: impl FnMut(&Reach, &CollisionPolygon) -> bool,
) -> Result<Vec<(Tile, Model)>, CoverageError> {
    // Row-major, like the grid.
    let mut by_cell: std::collections::BTreeMap<(u32, u32), (Cell, Model)> = Default::default();
    let all: Vec<&CollisionPolygon> = model.collision_polygons().collect();
    for reach in reaches(owner, model, width, height) {
        if !needed(&reach, all[reach.polygon]) {
            continue;
        }
        let copy = copy_placement(owner, reach.cell, 0);
        let offset = frame_offset(owner, &copy);
        let (group, poly) = model
            .collision
            .iter()
            .enumerate()
            .flat_map(|(g, ps)| ps.iter().map(move |p| (g, p)))
            .nth(reach.polygon)
            .expect("reaches counts the model's polygons");
        let moved = translate(poly, offset).ok_or(CoverageError {
            tile: owner_index,
            polygon: reach.polygon,
            cell: reach.cell,
        })?;
        by_cell
            .entry((reach.cell.row, reach.cell.col))
            .or_insert_with(|| (reach.cell, Model::default()))
            .1
            .collision[group]
            .push(moved);
    }
    Ok(by_cell
        .into_values()
        .map(|(cell, mut copy_model)| {
            let tile = copy_placement(owner, cell, 0);
            let corners: Vec<[f32; 3]> = copy_model
                .collision_polygons()
                .flat_map(decode_collision_polygon)
                .map(|c| [c.x, c.y, -c.z])
                .collect();
            (copy_model.centre, copy_model.box_corners) = bounding_box(&corners, BOX_MARGIN);
            (tile, copy_model)
        })
        .collect())
}

/// Whether `copy` (a collision-only tile) holds only coverage copies of `owner`'s polygons.
pub fn is_copy_of(copy: &Tile, copy_model: &Model, owner: &Tile, owner_model: &Model) -> bool {
    if !is_collision_only(copy_model)
        || copy.fixed.rotation != owner.fixed.rotation
        || copy.fixed.position[1] != owner.fixed.position[1]
        || std::ptr::eq(copy, owner)
    {
        return false;
    }
    let offset = frame_offset(owner, copy);
    copy_model.collision_polygons().all(|c| {
        owner_model
            .collision_polygons()
            .any(|p| translate(p, offset).as_ref() == Some(c))
    })
}

/// How the coverage of a level changed.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CoverageChange {
    /// Copy tiles written (in reused slots or appended).
    pub copies: Vec<usize>,
    /// The tile each copy serves, parallel to `copies`.
    pub owners: Vec<usize>,
    /// Copy tiles of changed owners that serve no more: emptied, or removed at the end of the
    /// tile list.
    pub freed: Vec<usize>,
    pub removed: usize,
}

/// The collision-only tiles of `map` that are coverage copies of one of `owners`, found by their
/// placements and planes (the tiles within three cells of an owner, same height and rotation).
pub fn copies_of(map: &Map, models: &[Model], owners: &[usize]) -> Vec<usize> {
    let lists = CellLists::of(map);
    let mut found = Vec::new();
    for &o in owners {
        let owner = &map.tiles[o];
        let (Some(owner_model), Some(home)) = (
            models.get(owner.model_index as usize),
            tile_cell(owner, map.width, map.height),
        ) else {
            continue;
        };
        if owner_model.collision_count() == 0 {
            continue;
        }
        let near = |a: u32, d: i64| a as i64 + d;
        for dr in -3i64..=3 {
            for dc in -3i64..=3 {
                let (col, row) = (near(home.col, dc), near(home.row, dr));
                if col < 0 || row < 0 || col >= map.width as i64 || row >= map.height as i64 {
                    continue;
                }
                let cell = Cell {
                    col: col as u32,
                    row: row as u32,
                };
                for &k in lists.tiles(cell) {
                    let copy = &map.tiles[k as usize];
                    let is_copy = models.get(copy.model_index as usize).is_some_and(|m| {
                        k as usize != o && is_copy_of(copy, m, owner, owner_model)
                    });
                    if is_copy {
                        found.push(k as usize);
                    }
                }
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The collision-only models of a level by their collision, so that coverage tiles whose copy
/// model has the collision of one already there share it.
pub struct SharedModels(HashMap<Vec<CollisionPolygon>, u32>);

impl SharedModels {
    pub fn of(models: &[Model]) -> SharedModels {
        let mut shared = HashMap::new();
        for (i, m) in models.iter().enumerate() {
            if is_collision_only(m) {
                shared
                    .entry(m.collision_polygons().copied().collect())
                    .or_insert(i as u32);
            }
        }
        SharedModels(shared)
    }

    /// Gives `tile` the model with `model`'s collision: one already in `models`, or `model`
    /// appended to them.
    pub fn give(&mut self, tile: &mut Tile, model: Model, models: &mut Vec<Model>) {
        let key: Vec<CollisionPolygon> = model.collision_polygons().copied().collect();
        let index = *self.0.entry(key).or_insert_with(|| {
            models.push(model);
            (models.len() - 1) as u32
        });
        tile.model_index = index;
        tile.float.model = index;
    }
}

/// Rebuilds the coverage of `owners` in `map`: the tiles `stale` (earlier copies of them) are
/// emptied, then every owner gets its copies, in emptied slots first and then appended; emptied
/// slots left at the end of the tile list are removed. Copy models equal to an existing
/// collision-only model share it.
pub fn rebuild(
    map: &mut Map,
    models: &mut Vec<Model>,
    owners: &[usize],
    stale: &[usize],
) -> Result<CoverageChange, CoverageError> {
    let mut change = CoverageChange::default();
    let mut shared = SharedModels::of(models);
    let mut free: std::collections::VecDeque<usize> = stale.iter().copied().collect();
    if !stale.is_empty() {
        let empty = empty_model(models);
        for &k in stale {
            let tile = &mut map.tiles[k];
            tile.model_index = empty;
            tile.float.model = empty;
            tile.colours.clear();
            change.freed.push(k);
        }
    }
    // A cell that holds a polygon already (a tile of its own, another tool's copy) needs no
    // copy of it: collision-only tiles are made only where the rule needs them.
    let lists = CellLists::of(map);
    let mut held: HashMap<Cell, Held> = HashMap::new();
    let mut placed = Vec::new();
    for &o in owners {
        let owner = map.tiles[o].clone();
        let Some(model) = models.get(owner.model_index as usize) else {
            continue;
        };
        let mut entered = |reach: &Reach, poly: &CollisionPolygon| {
            let outlines = Outlines::of(&owner, poly);
            let cell = held.entry(reach.cell).or_insert_with(|| {
                let tiles = lists.tiles(reach.cell).iter().map(|&t| t as usize);
                Held::of(map, models, tiles)
            });
            let found = cell.holding(&outlines, poly.material).next().is_some();
            found
        };
        let wanted = copies_where(o, &owner, model, (map.width, map.height), |r, p| {
            !entered(r, p)
        })?;
        for (mut tile, copy_model) in wanted {
            shared.give(&mut tile, copy_model, models);
            placed.push((tile, o));
        }
    }
    for (tile, owner) in placed {
        let slot = match free.pop_front() {
            Some(k) => {
                map.tiles[k] = tile;
                k
            }
            None => {
                map.tiles.push(tile);
                map.tiles.len() - 1
            }
        };
        change.copies.push(slot);
        change.owners.push(owner);
    }
    let mut left: Vec<usize> = free.into_iter().collect();
    left.sort_unstable();
    while !map.tiles.is_empty() && left.last() == Some(&(map.tiles.len() - 1)) {
        left.pop();
        map.tiles.pop();
        change.removed += 1;
    }
    change.freed.retain(|k| !change.copies.contains(k));
    Ok(change)
}

/// The index of a model without vertices, faces or collision, appended when there is none.
pub fn empty_model(models: &mut Vec<Model>) -> u32 {
    match models
        .iter()
        .position(|m| m.vertices.is_empty() && m.faces.is_empty() && m.collision_count() == 0)
    {
        Some(k) => k as u32,
        None => {
            models.push(Model::default());
            (models.len() - 1) as u32
        }
    }
}

mod held;
#[cfg(test)]
mod tests;

pub use held::{Held, Placed};
