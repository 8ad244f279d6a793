//! Rules for the tiles and the grid (FORMAT.md §10: tiles inside the grid, the three copies in
//! agreement, colours per vertex, swap entries, a visible zone; §4 "Cells" for coverage).

use crate::codes::Code;
use std::collections::HashMap;

use glam::DVec3;

use super::Problem;
use crate::game::cells::{tile_cell, Cell, CellLists};
use crate::game::coverage::{cells_under, need, reaches, Held, Need, Outlines, SLIVER};
use crate::game::floor::{test_polygon, World, MATERIAL_IGNORED};
use crate::game::space::{to_fixed, ONE, TURN};
use crate::level::map::{fixed_from_float, REGION_COUNT};
use crate::level::Tile;
use crate::level::{Level, Map, Model};

/// A floor found this far (units) below the polygon it stands in for still covers it.
const SAME_HEIGHT: f64 = 0.001;

pub(super) fn check_map(level: &Level, map: &Map, models: &[Model], out: &mut Vec<Problem>) {
    check_zone_numbers(map, out);
    let swaps_in_file = level.wfpc() & crate::level::map::WFPC_TILE_SWAPS != 0;
    let zones_used = zones_used(map);
    for (i, tile) in map.tiles.iter().enumerate() {
        let Some(cell) = placed_cell(i, tile, map, out) else {
            continue;
        };
        let t = TileAt { i, tile, cell };
        check_tile_records(&t, out);
        check_tile_colours(&t, map, models, out);
        check_tile_swap(&t, swaps_in_file, out);
        check_tile_seen(&t, map, models, &zones_used, out);
    }
    coverage(map, models, out);
}

/// A tile under check: its number, its record and its cell, which its problems name.
#[derive(Clone, Copy)]
struct TileAt<'a> {
    i: usize,
    tile: &'a Tile,
    cell: Cell,
}

impl TileAt<'_> {
    fn at(&self, p: Problem) -> Problem {
        p.tile(self.i).cell(self.cell.col, self.cell.row)
    }
}

/// Each cell's zone a number the engine's zone table has.
fn check_zone_numbers(map: &Map, out: &mut Vec<Problem>) {
    let w = map.width;
    for (cell, &region) in map.region_grid.iter().enumerate() {
        if region as usize >= REGION_COUNT {
            let (col, row) = (cell as u32 % w.max(1), cell as u32 / w.max(1));
            out.push(
            Problem::error(
                Code::ZoneNumber,
                format!("cell {col}, {row}: zone {region} is not 0 to 31; the engine reads past its zone table"),
            )
            .cell(col, row),
        );
        }
    }
}

/// The cell a tile stands in; None, with the problem said, when its position is no number or
/// outside the grid.
fn placed_cell(i: usize, tile: &Tile, map: &Map, out: &mut Vec<Problem>) -> Option<Cell> {
    let (w, h) = (map.width, map.height);
    let [x, y, z] = tile.float.position;
    if !(x.is_finite() && y.is_finite() && z.is_finite()) {
        // The loader finds the cell from x and z, the fixed-point copy and the drawing use
        // all three: no place at all (a cell only when x and z are numbers).
        let problem = Problem::error(
            Code::NotFinite,
            format!(
                "tile {i}: its position (block 2) x {x}, y {y}, z {} is not a finite number; the loader places and draws the tile by it: a damaged file",
                -z
            ),
        )
        .tile(i);
        out.push(match tile_cell(tile, w, h) {
            Some(cell) => problem.cell(cell.col, cell.row),
            None => problem,
        });
        return None;
    }
    let Some(cell) = tile_cell(tile, w, h) else {
        let [x, y, z] = tile.float.position;
        out.push(
            Problem::error(
                Code::TileInGrid,
                format!(
                    "tile {i} stands at x {x:.3}, y {y:.3}, z {:.3}, outside the {w}×{h} grid; the loader would write into foreign memory: move it inside",
                    -z
                ),
            )
            .tile(i),
        );
        return None;
    };
    Some(cell)
}

/// The tile's copies (blocks 2 and 8, the model index block) agree, and its turn is under one.
fn check_tile_records(t: &TileAt, out: &mut Vec<Problem>) {
    let TileAt { i, tile, .. } = *t;
    let at = |p| t.at(p);
    if tile.fixed != fixed_from_float(&tile.float) {
        out.push(at(Problem::error(
            Code::TileCopies,
            format!(
                "tile {i}: its fixed-point copy (block 8) does not match its float copy (block 2)"
            ),
        )));
    }
    if tile.float.rotation >= TURN {
        out.push(at(Problem::warning(
            Code::TileRotation,
            format!(
                "tile {i}: rotation {} is a turn or more (4096 to the turn); the collision tests look it up in a sine table of 4096 entries, and whether the game wraps it the notes do not say: use {}",
                tile.float.rotation,
                tile.float.rotation % TURN
            ),
        )));
    }
    if tile.model_index != tile.float.model {
        out.push(at(Problem::error(
            Code::TileCopies,
            format!(
                "tile {i}: the model index block says {}, the tile record says {}",
                tile.model_index, tile.float.model
            ),
        )));
    }
}

/// The tile's models exist and its colour blocks hold a colour for each of their vertices.
fn check_tile_colours(t: &TileAt, map: &Map, models: &[Model], out: &mut Vec<Problem>) {
    let TileAt { i, tile, .. } = *t;
    let at = |p| t.at(p);
    let swap_model = tile.swap.map(|s| s.model_b);
    for (m, colours, what) in [
        (Some(tile.model_index), &tile.colours, "its model"),
        (swap_model, &tile.swap_colours, "its swap model"),
    ] {
        let Some(m) = m else { continue };
        let Some(model) = models.get(m as usize) else {
            out.push(at(Problem::error(
                Code::ModelIndex,
                format!(
                    "tile {i}: {what} {m} does not exist ({} models)",
                    models.len()
                ),
            )));
            continue;
        };
        let nv = model.vertices.len();
        let expected = nv * map.colour_rule.set_count(colours.first());
        if colours.len() != expected {
            out.push(at(Problem::error(
                Code::VertexColours,
                format!(
                    "tile {i}: {} vertex colours for {what} {m} with {nv} vertices (needs {expected}); the rest of MAP would be read shifted",
                    colours.len()
                ),
            )
            .model(m as usize)));
        }
    }
}

/// A swap entry only with the swap flag and WFPC 0x10000, naming the tile's model and cell.
fn check_tile_swap(t: &TileAt, swaps_in_file: bool, out: &mut Vec<Problem>) {
    let TileAt { i, tile, cell } = *t;
    let at = |p| t.at(p);
    if let Some(swap) = tile.swap {
        if !swaps_in_file || tile.float.swap_flag == 0 {
            out.push(at(Problem::error(
                Code::TileSwap,
                format!("tile {i} has a swap entry without the swap flag or without WFPC 0x10000"),
            )));
        }
        if swap.model_a != tile.model_index {
            out.push(at(Problem::warning(
                Code::TileSwap,
                format!(
                    "tile {i}: its swap entry's model A is {}, the tile's model is {}",
                    swap.model_a, tile.model_index
                ),
            )));
        }
        if (swap.cell_x, swap.cell_z) != (cell.col, cell.row) {
            out.push(at(Problem::warning(
                Code::TileSwap,
                format!(
                    "tile {i}: its swap entry names cell {}, {}, the tile stands in {}, {}",
                    swap.cell_x, swap.cell_z, cell.col, cell.row
                ),
            )));
        }
    } else if swaps_in_file && tile.float.swap_flag != 0 {
        out.push(at(Problem::error(
            Code::TileSwap,
            format!("tile {i} has the swap flag but no swap entry"),
        )));
    } else if tile.float.swap_flag != 0 {
        out.push(at(Problem::warning(
            Code::TileSwap,
            format!(
                "tile {i} has the swap flag (hasAlt {:#x}) but WFPC lacks 0x10000, so the level has no swap entries (block 10): the tile has no other model to swap to, and what the engine does with the flag the notes do not say",
                tile.float.swap_flag
            ),
        )));
    }
}

/// A drawn tile stands in a zone some zone's mask sees.
fn check_tile_seen(
    t: &TileAt,
    map: &Map,
    models: &[Model],
    zones_used: &[bool],
    out: &mut Vec<Problem>,
) {
    let TileAt { i, tile, cell } = *t;
    let at = |p| t.at(p);
    let w = map.width;
    let region = map.region_grid.get(cell.index(w)).copied().unwrap_or(0);
    let drawn = models
        .get(tile.model_index as usize)
        .is_some_and(|m| !m.faces.is_empty());
    // Only the zones of some cell: the camera stands in one of those (a zone no cell is in,
    // whose mask 0 sees everything, is never the camera's).
    let seen = map
        .regions
        .iter()
        .enumerate()
        .filter(|(z, _)| zones_used[*z])
        .any(|(_, r)| r.mask == 0 || r.mask & (1u32 << (region % 32)) != 0);
    if drawn && (region as usize) < REGION_COUNT && !seen {
        out.push(at(Problem::warning(
            Code::VisibleZone,
            format!("tile {i}: its cell is in zone {region}, which no zone's mask sees: the tile is never drawn"),
        )));
    }
}

/// Which of the 32 zones some cell of the grid is in.
fn zones_used(map: &Map) -> [bool; REGION_COUNT] {
    let mut used = [false; REGION_COUNT];
    for &zone in &map.region_grid {
        if let Some(u) = used.get_mut(zone as usize) {
            *u = true;
        }
    }
    used
}

/// Every polygon that reaches into another cell is found there too (checklist item 2), as the
/// floor test of that cell decides (FORMAT.md §4 "Cells"; the one rule is `coverage::reaches`):
/// entered into that cell, or, for a floor, under a floor of that cell at least as high at every
/// sample of its part there; a floor reaching past the edge tolerance by no more than a sliver
/// needs a floor of that cell under it at any height: the llama then drops at the border by
/// less than the engine's own edge tolerance blurs where a ledge ends; where that cell finds no
/// floor at all (a cell holding nothing) it falls through, however narrow the sliver. Walls keep
/// the sliver rule: no test of theirs is modelled.
///
/// A polygon entered into several cells (its owner's and coverage copies) is one polygon of the
/// world: it reaches a cell only as far as the most lenient of its holders counts it. A copy's
/// ×4096 reading shrinks it about the copy's origin, not its owner's, and a copy of a tile
/// turned by other than quarter turns has planes moved by a rounded offset: seen from the copy,
/// the polygon can reach a cell by a hair more than its owner, by whose reach the writer entered
/// it.
pub(super) fn coverage(map: &Map, models: &[Model], out: &mut Vec<Problem>) {
    let lists = CellLists::of(map);
    let world = World::new(map, models);
    let mut held = HeldByCell {
        map,
        models,
        lists: &lists,
        cells: HashMap::new(),
    };
    for (i, tile) in map.tiles.iter().enumerate() {
        let Some(model) = models.get(tile.model_index as usize) else {
            continue;
        };
        if model.collision_count() == 0 {
            continue;
        }
        let all: Vec<_> = model.collision_polygons().collect();
        for reach in reaches(tile, model, map.width, map.height) {
            let poly = all[reach.polygon];
            let outlines = Outlines::of(tile, poly);
            let entered = held
                .in_cell(reach.cell)
                .holding(&outlines, poly.material)
                .next()
                .is_some();
            let found = |need| floor_found(&world, tile, poly, &outlines.engine, reach.cell, need);
            if entered || found(reach.need) {
                continue;
            }
            // Its other holders are listed in the cells it lies over: its owner's and copies'.
            let holders: Vec<(usize, usize)> = cells_under(&outlines.engine, map.width, map.height)
                .into_iter()
                .flat_map(|cell| {
                    held.in_cell(cell)
                        .holding(&outlines, poly.material)
                        .filter(|h| h.tile != i)
                        .map(|h| (h.tile, h.polygon))
                        .collect::<Vec<_>>()
                })
                .collect();
            let lenient = holders.iter().any(|&(t, p)| {
                let theirs = &map.tiles[t];
                let Some(q) = models
                    .get(theirs.model_index as usize)
                    .and_then(|m| m.collision_polygons().nth(p))
                else {
                    return false;
                };
                let depth = Outlines::of(theirs, q).depth(reach.cell);
                match depth.and_then(|d| need(q, d)) {
                    None => true,
                    Some(need) => need < reach.need && found(need),
                }
            });
            if lenient {
                continue;
            }
            out.push(
                Problem::error(
                    Code::Coverage,
                    format!(
                        "tile {i} collision polygon {}: reaches into cell {}, {} by {:.3}, where no tile holds it: the llama there {}; enter it there (a collision-only tile)",
                        reach.polygon,
                        reach.cell.col,
                        reach.cell.row,
                        reach.depth,
                        if poly.planes[0].normal[1] > 0 { "falls through it" } else { "walks through it" }
                    ),
                )
                .tile(i)
                .model(tile.model_index as usize)
                .polygon(reach.polygon)
                .cell(reach.cell.col, reach.cell.row),
            );
        }
    }
}

/// The polygons each cell's tiles hold, found when first asked for.
struct HeldByCell<'a> {
    map: &'a Map,
    models: &'a [Model],
    lists: &'a CellLists,
    cells: HashMap<Cell, Held>,
}

impl HeldByCell<'_> {
    fn in_cell(&mut self, cell: Cell) -> &Held {
        let (map, models, lists) = (self.map, self.models, self.lists);
        self.cells
            .entry(cell)
            .or_insert_with(|| Held::of(map, models, lists.tiles(cell).iter().map(|&t| t as usize)))
    }
}

/// A polygon the player's floor test can stand on.
fn is_floor(poly: &crate::raw::CollisionPolygon) -> bool {
    poly.planes[0].normal[1] > 0 && poly.material != MATERIAL_IGNORED
}

/// For a floor: at every sample of its part in `cell`, the floor test of that cell finds what
/// `need` says. Walls never pass this way.
fn floor_found(
    world: &World,
    tile: &crate::level::Tile,
    poly: &crate::raw::CollisionPolygon,
    outline: &[DVec3],
    cell: Cell,
    need: Need,
) -> bool {
    if !is_floor(poly) {
        return false;
    }
    let samples = samples_in_cell(outline, cell, need);
    need != Need::Entered
        && !samples.is_empty()
        && samples.iter().all(|p| {
            let point = [to_fixed(p.x), 0, to_fixed(p.z)].map(i64::from);
            let Some(own) = test_polygon(tile, poly, point, None) else {
                return false;
            };
            let (floor, _) = world.floor(p.x, own.height, p.z);
            match need {
                Need::AsHigh => floor.is_some_and(|f| f.height >= own.height - SAME_HEIGHT),
                Need::AnyFloor | Need::Entered => floor.is_some(),
            }
        })
}

/// Points of the polygon's part inside the cell, kept clear of the cell's sides: the centroid of
/// the part and its corners a quarter of the way towards it. A sliver's lie within it, clear of
/// the sides by a few fixed-point steps (so that the probe stays in the cell).
fn samples_in_cell(outline: &[DVec3], cell: Cell, need: Need) -> Vec<DVec3> {
    let (x0, z0) = (cell.col as f64, cell.row as f64);
    let margin = match need {
        Need::AnyFloor => 4.0 / ONE as f64,
        Need::AsHigh | Need::Entered => SLIVER / 2.0,
    };
    let inside = |p: &DVec3| {
        p.x > x0 + margin && p.x < x0 + 1.0 - margin && p.z > z0 + margin && p.z < z0 + 1.0 - margin
    };
    let part = crate::game::coverage::clip_to_cell(outline, cell);
    if part.is_empty() {
        return Vec::new();
    }
    let centroid = part.iter().copied().sum::<DVec3>() / part.len() as f64;
    std::iter::once(centroid)
        .chain(part.iter().map(|c| *c + (centroid - *c) * 0.25))
        .filter(inside)
        .collect()
}
