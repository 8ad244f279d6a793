//! The test area: where the plates, the steps and the goal lie in the grown grid, the plates
//! laid, and the collision-only tiles that enter their collision into the new cells.

use crate::game::cells::Cell;
use crate::game::coverage::{copies, reaches, Reach, SharedModels};
use crate::geometry::decode_collision_polygon;
use crate::level::{Map, Model, Tile};
use crate::limits::MAX_GRID_CELLS;

use super::{TestLevelError, MATERIAL_EXIT};

/// Stepping plates of the parkour, each this much higher than the one before (units).
pub(super) const STEPS: u32 = 6;
const STEP_RISE: f32 = 0.5;
/// Rows between the old grid's far edge and the area: tiles reach up to 2.4 units beyond their
/// cell (note 001 §1).
const REACH_ROWS: u32 = 3;

/// The test area, in cells of the grown grid: the plate (the player's column, then the strats
/// every `spacing` cells), a gap, the six steps with gaps, and the 3 × 3 goal.
pub(super) struct Area {
    spacing: u32,
    /// Strats a row of the plate.
    columns: u32,
    /// The plate's width and depth.
    pub(super) plate: [u32; 2],
    /// The plate's middle row: the player's, the steps' and the goal's.
    pub(super) mid: u32,
    pub(super) width: u32,
    /// The area's first column and row.
    pub(super) origin: [u32; 2],
    pub(super) grid_before: [u32; 2],
    pub(super) grid: [u32; 2],
}

impl Area {
    pub(super) fn of(strats: usize, spacing: u32, map: &Map) -> Result<Area, TestLevelError> {
        let n = strats.max(1) as u32;
        let columns = (n as f64).sqrt().ceil() as u32;
        let rows = n.div_ceil(columns);
        let plate = [1 + columns * spacing, (rows * spacing).max(3)];
        let width = plate[0] + 1 + 2 * STEPS + 3;
        let origin = [1, map.height + REACH_ROWS];
        let grid = [
            map.width.max(origin[0] + width + 1),
            origin[1] + plate[1] + 1,
        ];
        if grid[0] as u64 * grid[1] as u64 > MAX_GRID_CELLS {
            return Err(TestLevelError::GridTooLarge {
                width: grid[0],
                height: grid[1],
            });
        }
        Ok(Area {
            spacing,
            columns,
            plate,
            mid: plate[1] / 2,
            width,
            origin,
            grid_before: [map.width, map.height],
            grid,
        })
    }

    pub(super) fn step_col(&self, k: u32) -> u32 {
        self.plate[0] + 1 + 2 * k
    }

    /// The goal's middle column and its height.
    pub(super) fn goal(&self) -> (u32, f32) {
        (self.step_col(STEPS) + 1, step_y(STEPS - 1))
    }

    /// Where the `i`th chosen strat stands on the plate.
    pub(super) fn on_plate(&self, i: usize) -> (u32, u32) {
        let (i, spacing) = (i as u32, self.spacing);
        let col = 1 + (i % self.columns) * spacing + spacing / 2;
        (col, (i / self.columns) * spacing + spacing / 2)
    }

    /// A strat's place on a plate at height `y`, game units.
    pub(super) fn stand(&self, col: u32, row: u32, y: f32) -> [f64; 3] {
        let (x, z) = (self.origin[0] + col, self.origin[1] + row);
        [x as f64 + 0.5, y as f64 + 0.25, z as f64 + 0.5]
    }

    fn is_new_cell(&self, cell: &Cell) -> bool {
        cell.col >= self.grid_before[0] || cell.row >= self.grid_before[1]
    }

    /// Whether a tile stands in a new cell (its fixed-point origin past the old grid).
    fn holds_new(&self, tile: &Tile) -> bool {
        let [x, _, z] = tile.fixed.position.map(i64::from);
        x >= self.grid_before[0] as i64 * 4096 || z >= self.grid_before[1] as i64 * 4096
    }
}

pub(super) fn step_y(k: u32) -> f32 {
    STEP_RISE * (k + 1) as f32
}

/// The grid grown to the area's; new cells are in a zone that sees itself (else the player's).
pub(super) fn grow_grid(map: &mut Map, area: &Area, player: [f64; 3]) {
    let region = new_cells_region(map, player);
    let ([old_w, old_h], [width, height]) = (area.grid_before, area.grid);
    let mut grid = Vec::with_capacity((width * height) as usize);
    for row in 0..height {
        for col in 0..width {
            grid.push(match (col < old_w, row < old_h) {
                (true, true) => map.region_grid[(col + row * old_w) as usize],
                _ => region,
            });
        }
    }
    (map.width, map.height, map.region_grid) = (width, height, grid);
}

/// The plates laid: their model and the exit's, the first of their tiles and how many.
pub(super) struct Plates {
    pub(super) model: u32,
    pub(super) exit_model: u32,
    pub(super) first_tile: usize,
    pub(super) tiles: usize,
}

pub(super) fn lay_plates(
    map: &mut Map,
    models: &mut Vec<Model>,
    floor: u32,
    area: &Area,
) -> Plates {
    let colours = map
        .tiles
        .iter()
        .find(|t| t.model_index == floor)
        .map(|t| t.colours.clone())
        .expect("the floor model is that of a tile");
    let model = with_material(models, floor, 0);
    let exit_model = with_material(models, floor, MATERIAL_EXIT);
    let first_tile = map.tiles.len();
    let mut plate_at = |col: u32, row: u32, y: f32, model: u32| {
        let (x, z) = (area.origin[0] + col, area.origin[1] + row);
        let mut tile = Tile::new([x as f32 + 0.5, y, -(z as f32 + 0.5)], 0, model);
        tile.colours = colours.clone();
        map.tiles.push(tile);
    };
    for row in 0..area.plate[1] {
        for col in 0..area.plate[0] {
            plate_at(col, row, 0.0, model);
        }
    }
    for k in 0..STEPS {
        plate_at(area.step_col(k), area.mid, step_y(k), model);
    }
    let goal = area.goal();
    for row in area.mid - 1..=area.mid + 1 {
        for col in goal.0 - 1..=goal.0 + 1 {
            let centre = (col, row) == (goal.0, area.mid);
            plate_at(col, row, goal.1, if centre { exit_model } else { model });
        }
    }
    Plates {
        model,
        exit_model,
        first_tile,
        tiles: map.tiles.len() - first_tile,
    }
}

/// Collision entered into the new cells it reaches (of the new plates, and of old tiles reaching
/// past the old grid's edges) by collision-only tiles; returns how many.
pub(super) fn enter_coverage(
    map: &mut Map,
    models: &mut Vec<Model>,
    area: &Area,
    first_new: usize,
) -> Result<usize, TestLevelError> {
    let [width, height] = area.grid;
    let mut shared = SharedModels::of(models);
    let mut coverage = Vec::new();
    for (i, tile) in map.tiles.iter().enumerate() {
        let Some(model) = models.get(tile.model_index as usize) else {
            continue;
        };
        let old = i < first_new;
        let reaches_new = |r: &Reach| area.is_new_cell(&r.cell);
        if old && !reaches(tile, model, width, height).iter().any(reaches_new) {
            continue;
        }
        for (mut copy, copy_model) in copies(i, tile, model, width, height)? {
            if old && !area.holds_new(&copy) {
                continue; // an old cell: its coverage is the source's
            }
            shared.give(&mut copy, copy_model, models);
            coverage.push(copy);
        }
    }
    let count = coverage.len();
    map.tiles.extend(coverage);
    Ok(count)
}

/// `model` when all its collision is of `material`, else its copy with that material, appended.
fn with_material(models: &mut Vec<Model>, model: u32, material: u8) -> u32 {
    let mut copy = models[model as usize].clone();
    if copy.collision_polygons().all(|p| p.material == material) {
        return model;
    }
    for poly in copy.collision.iter_mut().flatten() {
        poly.material = material;
    }
    models.push(copy);
    (models.len() - 1) as u32
}

/// The level's most used flat floor model (ties: the first): faces at y 0.25 over the whole
/// cell, its collision facing straight up and covering the cell.
pub(super) fn flat_floor(tiles: &[Tile], models: &[Model]) -> Option<u32> {
    let mut uses = vec![0usize; models.len()];
    for t in tiles {
        if let Some(u) = uses.get_mut(t.model_index as usize) {
            *u += 1;
        }
    }
    let flat = |m: &Model| {
        let square = |k: usize| {
            let (lo, hi) = m
                .vertices
                .iter()
                .map(|v| v.position[k])
                .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            (lo + 0.5).abs() < 0.01 && (hi - 0.5).abs() < 0.01
        };
        let area: f32 = m
            .collision_polygons()
            .map(|p| {
                let c = decode_collision_polygon(p);
                let twice: f32 = (0..c.len())
                    .map(|k| {
                        let (a, b) = (c[k], c[(k + 1) % c.len()]);
                        a.x * b.z - b.x * a.z
                    })
                    .sum();
                twice.abs() / 2.0
            })
            .sum();
        !m.faces.is_empty()
            && m.vertices
                .iter()
                .all(|v| (v.position[1] - 0.25).abs() < 1e-3)
            && square(0)
            && square(2)
            && m.collision_count() > 0
            && m.collision_polygons()
                .all(|p| p.planes[0].normal == [0, 127, 0])
            && (area - 1.0).abs() < 0.02
    };
    (0..models.len())
        .filter(|&k| uses[k] > 0 && flat(&models[k]))
        .max_by_key(|&k| (uses[k], std::cmp::Reverse(k)))
        .map(|k| k as u32)
}

/// The zone of the new cells: that of the player's old cell when it sees itself, else the first
/// zone that does, else the player's.
fn new_cells_region(map: &Map, player: [f64; 3]) -> u32 {
    let sees_itself = |r: u32| {
        map.regions
            .get(r as usize)
            .is_some_and(|z| z.mask == 0 || z.mask & (1u32 << (r % 32)) != 0)
    };
    let players = Cell::of_point(player[0], player[2], map.width, map.height)
        .and_then(|c| map.region_grid.get(c.index(map.width)).copied())
        .unwrap_or(0);
    if sees_itself(players) {
        return players;
    }
    (0..map.regions.len() as u32)
        .find(|&r| sees_itself(r))
        .unwrap_or(players)
}
