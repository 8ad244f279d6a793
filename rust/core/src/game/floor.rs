//! The engine's floor test against the map tiles (`FUN_004036d0`, FORMAT.md §4), in the
//! engine's integers, step for step.
//!
//! Per tile of the player's cell and per collision polygon:
//! 1. the probe in the tile's frame (`space::to_tile_frame`), lifted by 0.25 (0x400);
//! 2. skip material 0x11 (0x12 instead for strats with 0xe8 bit 0x8000000), skip ny ≤ 0;
//! 3. the vertical distance to the surface plane in C integer division;
//! 4. a plane more than 1/32 above the probe belongs to the ceiling branch ("surface above");
//! 5. the edge test with its tolerance on the point of the plane under the probe;
//! 6. of the passing planes the one with the smallest distance (the first on a tie) is the floor.
//!
//! Material 0x1e is "no floor" (water, death plane) once chosen.
//!
//! Assumptions, where the notes are loose (FORMAT.md §11): the cell lists in tile order (ties);
//! no floor outside the grid; 64-bit products where the engine's are 32-bit; only the test of
//! ordinary strats (the variants of strats with the flag 0x200000 left out); and only the test
//! against the map tiles: the same test against strat objects with a collision model
//! (`FUN_00403ad0`, crates and platforms that are strats, whose floor wins when higher) is not
//! modelled, so nothing here stands on them.

use serde::Serialize;

use crate::game::cells::{Cell, CellLists};
use crate::game::space::{from_fixed, to_fixed, to_tile_frame};
use crate::level::{Level, Map, Model, Tile};
use crate::raw::CollisionPolygon;

/// DAT_0057dd98: the probe's lift above the feet, 0.25.
///
/// Assumption (FORMAT.md §11): for strats with the flag 0x200000 the engine lifts by half the
/// floor record's +0x18 instead and tests surfaces facing down too; that variant is left out.
/// The player's type flags (0x248000 in the originals, note 003) have that bit, if they are the
/// word the test reads: then the player's probe reaches another height above its feet and
/// overhangs count for it, and heights near a step or under an overhang may differ from here.
pub const LIFT: i64 = 0x400;
/// Planes more than this above the lifted probe (1/32) are surfaces above, never the floor.
const ABOVE: i64 = -0x80;
/// The selection's starting distance.
const NO_FLOOR_YET: i64 = 1_000_000;
/// Ignored by the floor test for ordinary strats (the player among them).
pub const MATERIAL_IGNORED: u8 = 0x11;
/// Ignored instead of 0x11 by strats with 0xe8 bit 0x8000000.
pub const MATERIAL_IGNORED_ALT: u8 = 0x12;
/// The strat flag that swaps the skipped material (step 2). Note 001 reads it at strat+0xe8;
/// note 002 ties 17/18 to WFPC 0x8000000 (*likely*).
pub const FLAG_ALTERNATIVE_MATERIAL: u32 = 0x800_0000;
/// Chosen like any floor, then treated as no floor (FORMAT.md §4: water, death plane).
pub const MATERIAL_NO_FLOOR: u8 = 0x1e;

/// The engine's edge tolerance of a surface with normal y `ny` (×127): −64 − ((4096 − 32·ny) >> 6),
/// about 0.016 units outside the edge on a flat floor, 0.023 at ny 0.5.
pub fn edge_tolerance(ny: i8) -> i64 {
    -0x40 - ((0x1000 - ny as i64 * 32) >> 6)
}

/// Where the edge test lets a probe on the polygon's plane pass: the polygon with every edge plane
/// moved out by the tolerance (an edge passes while `e_k ≥ tolerance`, and `e_k` is the edge
/// plane's `32·n·p − d`). At sharp corners this reaches far past the polygon (needles).
pub fn tolerance_zone(poly: &CollisionPolygon) -> CollisionPolygon {
    let tolerance = edge_tolerance(poly.planes[0].normal[1]);
    let mut zone = *poly;
    for plane in &mut zone.planes[1..] {
        plane.d = (plane.d as i64 + tolerance).clamp(i16::MIN as i64, i16::MAX as i64) as i16;
    }
    zone
}

/// One polygon the test looked at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub tile: u32,
    /// Counted over the model's groups A, B and C.
    pub polygon: u32,
    pub material: u8,
    /// Height of the probe above the plane, units (negative: the plane is above the probe).
    pub dist: f64,
    /// e_k of every edge, in 1/4096 units (≥ `tolerance` passes).
    pub edges: Vec<i64>,
    pub tolerance: i64,
    /// All edges passed.
    pub passed: bool,
    /// The plane is more than 1/32 above the lifted probe: a surface above, never a floor.
    pub above: bool,
    /// Height of the plane under (or over) the probe, game units.
    pub height: f64,
}

/// A chosen polygon.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Surface {
    pub height: f64,
    pub tile: u32,
    pub polygon: u32,
    pub material: u8,
}

/// What the floor test finds at a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// The cell tested, None outside the grid (no tiles, no floor).
    ///
    /// Assumption (FORMAT.md §11): the notes do not say what the engine does with a cell
    /// outside the grid (x >> 12 or z >> 12 beyond W, H, or negative); taken as no floor. If it
    /// reads the cell lists out of bounds, it finds whatever lies there.
    pub cell: Option<Cell>,
    /// What the llama stands on; None when nothing passes or material 0x1e wins.
    pub floor: Option<Surface>,
    /// The winning polygon when it was material 0x1e: the llama falls into water or dies.
    pub no_floor: Option<Surface>,
    /// The lowest passing plane more than 1/32 above the probe (the ceiling branch of step 7,
    /// never observed in the game; reported, never chosen).
    pub surface_above: Option<Surface>,
    pub candidates: Vec<Candidate>,
}

/// A probe point that is not three finite numbers: on its way to fixed point NaN becomes 0 (cell
/// 0, 0) and infinity the largest integer, so it is refused rather than probed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("the point ({}, {}, {}) is not three finite numbers", .point[0], .point[1], .point[2])]
pub struct NotFinite {
    pub point: [f64; 3],
}

/// The parts of a level the collision tests read: the tiles' fixed-point placements and models,
/// and the cell lists.
pub struct World<'a> {
    map: &'a Map,
    models: &'a [Model],
    lists: CellLists,
    ignored_material: u8,
}

impl<'a> World<'a> {
    /// None when the level has no MAP or TRAK chunk.
    pub fn of(level: &'a Level) -> Option<World<'a>> {
        let map = level.map()?;
        let models = &level.trak()?.models;
        Some(World::new(map, models))
    }

    pub fn new(map: &'a Map, models: &'a [Model]) -> World<'a> {
        World {
            map,
            models,
            lists: CellLists::of(map),
            ignored_material: MATERIAL_IGNORED,
        }
    }

    /// The test as run for a strat with 0xe8 bit 0x8000000 (material 0x12 ignored, not 0x11).
    pub fn with_alternative_material(mut self) -> Self {
        self.ignored_material = MATERIAL_IGNORED_ALT;
        self
    }

    /// The material this test skips (step 2).
    pub fn ignored_material(&self) -> u8 {
        self.ignored_material
    }

    pub fn lists(&self) -> &CellLists {
        &self.lists
    }

    pub fn map(&self) -> &'a Map {
        self.map
    }

    pub fn models(&self) -> &'a [Model] {
        self.models
    }

    /// [`World::probe`] at a point given from outside (a command line, a file, Python), refused
    /// unless it is three finite numbers.
    pub fn probe_point(&self, point: [f64; 3]) -> Result<Probe, NotFinite> {
        if !point.iter().all(|v| v.is_finite()) {
            return Err(NotFinite { point });
        }
        let [x, y, z] = point;
        Ok(self.probe(x, y, z))
    }

    /// The floor test at a game-space point (units: x east, y up, z the grid row).
    pub fn probe(&self, x: f64, y: f64, z: f64) -> Probe {
        let (fx, fy, fz) = (to_fixed(x) as i64, to_fixed(y) as i64, to_fixed(z) as i64);
        let cell = Cell::of_point(x, z, self.map.width, self.map.height);
        let mut candidates = Vec::new();
        for &t in cell.map_or(&[][..], |c| self.lists.tiles(c)) {
            let tile = &self.map.tiles[t as usize];
            let Some(model) = self.models.get(tile.model_index as usize) else {
                continue;
            };
            for (p, poly) in model.collision_polygons().enumerate() {
                if let Some(c) = test_polygon(tile, poly, [fx, fy, fz], Some(self.ignored_material))
                {
                    candidates.push(Candidate {
                        tile: t,
                        polygon: p as u32,
                        ..c
                    });
                }
            }
        }
        let surface = |c: &Candidate| Surface {
            height: c.height,
            tile: c.tile,
            polygon: c.polygon,
            material: c.material,
        };
        // Step 6: strictly smaller wins, so the first of equals stays: the first in the cell's
        // list, assumed to be in tile order (`CellLists`, FORMAT.md §11).
        let best = candidates
            .iter()
            .filter(|c| c.passed && !c.above && c.dist < from_fixed(NO_FLOOR_YET))
            .fold(None::<&Candidate>, |best, c| match best {
                Some(b) if b.dist <= c.dist => Some(b),
                _ => Some(c),
            });
        let above =
            candidates
                .iter()
                .filter(|c| c.passed && c.above)
                .fold(None::<&Candidate>, |low, c| match low {
                    Some(l) if l.height <= c.height => Some(l),
                    _ => Some(c),
                });
        let chosen = best.map(surface);
        let dead = chosen.filter(|s| s.material == MATERIAL_NO_FLOOR);
        Probe {
            x,
            y,
            z,
            cell,
            floor: chosen.filter(|s| s.material != MATERIAL_NO_FLOOR),
            no_floor: dead,
            surface_above: above.map(surface),
            candidates,
        }
    }
}

/// Steps 1 to 5 of the floor test for one polygon of a tile, the probe (20.12, game space) not
/// yet lifted; None when the engine skips the polygon (its material is `ignored_material`, or it
/// does not face up). With `ignored_material` None, every up-facing polygon is tested. `tile` and `polygon` of the result are 0: the caller knows them.
pub fn test_polygon(
    tile: &Tile,
    poly: &CollisionPolygon,
    [x, y, z]: [i64; 3],
    ignored_material: Option<u8>,
) -> Option<Candidate> {
    if Some(poly.material) == ignored_material {
        return None;
    }
    let surface = poly.planes[0];
    let [nx0, ny0, nz0] = surface.normal.map(i64::from);
    if ny0 <= 0 {
        return None;
    }
    let [tx, ty, tz] = tile.fixed.position.map(i64::from);
    let (lx, lz) = to_tile_frame(x - tx, z - tz, tile.fixed.rotation[1] as u32);
    let ly = y - ty + LIFT;
    // Assumption (FORMAT.md §11): i64 products where the engine's are i32. The engine's
    // 32·127·l overflows once l, the probe's distance from the tile in x, y or z, passes
    // 2³¹ / 4064 steps (129 units); then it would wrap and find other heights. A tile is tested
    // only in its own cell, so only one listed far from its origin (or a probe far above or
    // below it) gets there.
    // C division truncates towards zero; Rust's `/` on integers does the same.
    let i6 = (surface.d as i64 * 4096 - nz0 * 32 * lz - nx0 * 32 * lx - ny0 * 32 * ly) / (ny0 * 32);
    let dist = -i6;
    let plane_y = ly + i6;
    let tolerance = edge_tolerance(surface.normal[1]);
    let edges: Vec<i64> = poly.planes[1..=poly.edge_count()]
        .iter()
        .map(|e| {
            let [nx, ny, nz] = e.normal.map(i64::from);
            ((ny * 32 * plane_y + nz * 32 * lz + nx * 32 * lx) >> 12) - e.d as i64
        })
        .collect();
    Some(Candidate {
        tile: 0,
        polygon: 0,
        material: poly.material,
        dist: from_fixed(dist),
        passed: edges.iter().all(|&e| e >= tolerance),
        edges,
        tolerance,
        above: dist < ABOVE,
        height: from_fixed(ty + plane_y),
    })
}

#[cfg(test)]
pub(crate) mod tests;
