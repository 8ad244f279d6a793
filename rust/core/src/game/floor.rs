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

use std::sync::OnceLock;

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
/// A collision polygon as drawn over the level: its corners and its tolerance zone in world game
/// space, and the tolerance (units).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolygonOutline {
    pub corners: Vec<[f64; 3]>,
    pub zone: Vec<[f64; 3]>,
    pub tolerance: f64,
}

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
    /// Per cell, where each of its polygons can pass the edge test (built on first use by
    /// [`World::floor`]).
    reach: OnceLock<Vec<Vec<Reach<'a>>>>,
}

/// A polygon of a cell's tile and the box (world x, z: min, max) of its tolerance zone, None
/// when its edges bound no region.
struct Reach<'a> {
    tile: u32,
    polygon: u32,
    poly: &'a CollisionPolygon,
    zone: Option<[f64; 4]>,
}

/// How far (units) past its tolerance zone a probe is still tested: the engine's integer steps
/// (the `>> 12`, the C division, the sine table) move an edge by a few 1/4096.
const ZONE_MARGIN: f64 = 1.0 / 64.0;
/// How much (d's units) an edge value may fall below its exact value by the engine's rounding.
const EDGE_SLACK: f64 = 4.0;

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
            reach: OnceLock::new(),
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

    /// A tile's collision polygon in world game space, and where the floor test's edge tolerance
    /// still lets it pass ([`tolerance_zone`]): what the add-on draws of a probe. `polygon`
    /// counts over the model's groups A, B and C, as [`Candidate::polygon`] does.
    pub fn polygon_outline(&self, tile: usize, polygon: usize) -> Option<PolygonOutline> {
        let tile = self.map.tiles.get(tile)?;
        let model = self.models.get(tile.model_index as usize)?;
        let poly = model.collision_polygons().nth(polygon)?;
        let tolerance = edge_tolerance(poly.planes[0].normal[1]);
        let points = |p| -> Vec<[f64; 3]> {
            crate::game::space::world_polygon(tile, p)
                .into_iter()
                .map(|c| c.to_array())
                .collect()
        };
        Some(PolygonOutline {
            corners: points(poly),
            zone: points(&tolerance_zone(poly)),
            tolerance: from_fixed(-tolerance),
        })
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

    /// The floor test at a game-space point (units: x east, y up, z the grid row), with every
    /// polygon of the point's cell it looks at: those whose tolerance zone comes near the point
    /// (the others fail the edge test wherever they lie, so a probe of a crowded cell lists what
    /// lies around it, not every polygon of the cell).
    pub fn probe(&self, x: f64, y: f64, z: f64) -> Probe {
        let cell = Cell::of_point(x, z, self.map.width, self.map.height);
        let candidates = cell.map_or_else(Vec::new, |cell| self.candidates(cell, x, y, z));
        let (floor, no_floor) = chosen(&candidates);
        let above =
            candidates
                .iter()
                .filter(|c| c.passed && c.above)
                .fold(None::<&Candidate>, |low, c| match low {
                    Some(l) if l.height <= c.height => Some(l),
                    _ => Some(c),
                });
        Probe {
            x,
            y,
            z,
            cell,
            floor,
            no_floor,
            surface_above: above.map(Surface::of),
            candidates,
        }
    }

    /// What [`World::probe`] finds to stand on at a point (its `floor` and `no_floor`).
    pub fn floor(&self, x: f64, y: f64, z: f64) -> (Option<Surface>, Option<Surface>) {
        let Some(cell) = Cell::of_point(x, z, self.map.width, self.map.height) else {
            return (None, None);
        };
        chosen(&self.candidates(cell, x, y, z))
    }

    /// The polygons of the cell whose tolerance zone reaches the point, tested, in the order the
    /// test meets them: a probe costs what the polygons near it cost, not every polygon of a
    /// crowded cell (`check` probes every polygon reaching into a cell).
    fn candidates(&self, cell: Cell, x: f64, y: f64, z: f64) -> Vec<Candidate> {
        let reach = self.reach.get_or_init(|| self.reaches());
        let point = [to_fixed(x), to_fixed(y), to_fixed(z)].map(i64::from);
        reach[cell.index(self.map.width)]
            .iter()
            .filter(|r| {
                r.zone.is_none_or(|[x0, z0, x1, z1]| {
                    (x0 - ZONE_MARGIN..=x1 + ZONE_MARGIN).contains(&x)
                        && (z0 - ZONE_MARGIN..=z1 + ZONE_MARGIN).contains(&z)
                })
            })
            .filter_map(|r| {
                let tile = &self.map.tiles[r.tile as usize];
                let c = test_polygon(tile, r.poly, point, Some(self.ignored_material))?;
                Some(Candidate {
                    tile: r.tile,
                    polygon: r.polygon,
                    ..c
                })
            })
            .collect()
    }

    /// Every cell's polygons with their tolerance zones' boxes, in the order the test meets
    /// them.
    fn reaches(&self) -> Vec<Vec<Reach<'a>>> {
        self.lists
            .cells()
            .map(|cell| {
                let mut out = Vec::new();
                for &t in self.lists.tiles(cell) {
                    let tile = &self.map.tiles[t as usize];
                    let Some(model) = self.models.get(tile.model_index as usize) else {
                        continue;
                    };
                    for (p, poly) in model.collision_polygons().enumerate() {
                        out.push(Reach {
                            tile: t,
                            polygon: p as u32,
                            poly,
                            zone: zone_box(tile, poly),
                        });
                    }
                }
                out
            })
            .collect()
    }
}

impl Surface {
    fn of(c: &Candidate) -> Surface {
        Surface {
            height: c.height,
            tile: c.tile,
            polygon: c.polygon,
            material: c.material,
        }
    }
}

/// Step 6 over the candidates in the order the test met them: of the passing planes not above
/// the probe the smallest distance wins, strictly, so the first of equals stays (the first in
/// the cell's list, assumed to be in tile order: `CellLists`, FORMAT.md §11). The floor, or the
/// winner of material 0x1e as no floor.
fn chosen(candidates: &[Candidate]) -> (Option<Surface>, Option<Surface>) {
    let best = candidates
        .iter()
        .filter(|c| c.passed && !c.above && c.dist < from_fixed(NO_FLOOR_YET))
        .fold(None::<&Candidate>, |best, c| match best {
            Some(b) if b.dist <= c.dist => Some(b),
            _ => Some(c),
        })
        .map(Surface::of);
    match best {
        Some(s) if s.material == MATERIAL_NO_FLOOR => (None, Some(s)),
        floor => (floor, None),
    }
}

/// Where around its tile a polygon's edge test can pass, seen from above: the box (world x, z:
/// min, max) of the region its edge planes, moved out by the tolerance and met on the surface
/// plane, bound (its tolerance zone), widened by the engine's rounding. None when that region
/// has no bound (or the planes are no floor the test reads): then every probe tests it.
fn zone_box(tile: &Tile, poly: &CollisionPolygon) -> Option<[f64; 4]> {
    let surface = poly.planes[0];
    let [nx0, ny0, nz0] = surface.normal.map(f64::from);
    if ny0 <= 0.0 {
        return None;
    }
    let tolerance = edge_tolerance(surface.normal[1]) as f64;
    // The surface's height over (x, z) (units, tile frame): (127·d/4064 − nx·x − nz·z) / ny.
    let height = 127.0 * surface.d as f64 / (4064.0 * ny0);
    // Edge k passes while 32·n_k·P − d_k ≥ tolerance: on the surface, a·x + b·z ≥ c.
    let edges: Vec<[f64; 3]> = poly.planes[1..=poly.edge_count()]
        .iter()
        .map(|e| {
            let [nx, ny, nz] = e.normal.map(f64::from);
            [
                32.0 * (nx - ny * nx0 / ny0),
                32.0 * (nz - ny * nz0 / ny0),
                e.d as f64 + tolerance - EDGE_SLACK - 32.0 * ny * height,
            ]
        })
        .collect();
    // Unbounded when some direction leaves every edge's half-plane no worse: such a direction
    // runs along an edge (or there is none to run along).
    let unbounded = edges.iter().all(|[a, b, _]| a.abs() + b.abs() < 1e-9)
        || edges.iter().any(|&[a, b, _]| {
            [[-b, a], [b, -a]].iter().all(|&[vx, vz]| {
                edges.iter().all(|[a, b, _]| {
                    a * vx + b * vz >= -1e-9 * (a.abs() + b.abs()) * (vx.abs() + vz.abs())
                })
            })
        });
    if unbounded {
        return None;
    }
    let mut corners = Vec::new();
    for (j, [a1, b1, c1]) in edges.iter().enumerate() {
        for [a2, b2, c2] in &edges[j + 1..] {
            let det = a1 * b2 - a2 * b1;
            if det.abs() < 1e-9 {
                continue;
            }
            let (x, z) = ((c1 * b2 - c2 * b1) / det, (a1 * c2 - a2 * c1) / det);
            let inside = edges
                .iter()
                .all(|[a, b, c]| a * x + b * z >= c - 1e-6 * (a.abs() + b.abs() + c.abs() + 1.0));
            if inside {
                corners.push((x, z));
            }
        }
    }
    if corners.is_empty() {
        return None;
    }
    let origin = crate::game::space::tile_origin(tile);
    let rotation = tile.fixed.rotation[1] as u32;
    let (x0, x1, z0, z1) = corners.iter().fold(
        (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
        |(x0, x1, z0, z1), &(x, z)| (x0.min(x), x1.max(x), z0.min(z), z1.max(z)),
    );
    let world = [(x0, z0), (x1, z0), (x0, z1), (x1, z1)]
        .map(|(x, z)| crate::game::space::to_world(origin, glam::DVec3::new(x, 0.0, z), rotation));
    let (lo, hi) = world
        .iter()
        .fold((glam::DVec3::MAX, glam::DVec3::MIN), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    Some([lo.x, lo.z, hi.x, hi.z])
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
