//! The props on the islands (rocks, blocks, fences, pillars, doors), some of them off-centre and
//! turned by any angle, placed within the plan's budget of tiles and models with the coverage
//! copies their collision needs counted in.

use std::collections::HashSet;

use super::kit::Kit;
use super::plan::Plan;
use super::world::{Grid, World};
use crate::game::cells::tile_cell;
use crate::game::coverage::{self, CoverageError};
use crate::level::map::WFPC_TILE_SWAPS;
use crate::level::{Model, Tile};
use crate::raw::{CollisionPolygon, TileSwap};
use crate::rng::Rng;

/// The grid cells (indices) a tile touches with its collision: the cell the loader lists it
/// under, and every cell its polygons cover.
pub(super) fn reached_cells(tile: &Tile, model: &Model, grid: Grid) -> Vec<usize> {
    let (w, h) = (grid.width as u32, grid.height as u32);
    let home = tile_cell(tile, w, h).expect("generated tiles stand inside the grid");
    std::iter::once(home)
        .chain(
            coverage::reaches(tile, model, w, h)
                .into_iter()
                .map(|r| r.cell),
        )
        .map(|cell| cell.index(w))
        .collect()
}

/// What a placement takes: MAP tiles (itself and its coverage copies) and the copies' models
/// that no earlier copy shares.
pub(super) struct Cost {
    tiles: usize,
    models: Vec<Vec<CollisionPolygon>>,
}

/// What is left of the plan's tiles and models. Copy models are counted as
/// `coverage::rebuild` shares them: one per distinct set of polygons.
pub(super) struct Budget {
    width: u32,
    height: u32,
    tiles: usize,
    models: usize,
    copy_models: HashSet<Vec<CollisionPolygon>>,
}

impl Budget {
    pub(super) fn new(plan: &Plan, kit: &Kit) -> Budget {
        Budget {
            width: plan.width as u32,
            height: plan.height as u32,
            tiles: plan.tiles,
            models: plan.models.saturating_sub(kit.models.len()),
            copy_models: HashSet::new(),
        }
    }

    pub(super) fn cost(&self, tile: &Tile, model: &Model) -> Result<Cost, CoverageError> {
        let copies = coverage::copies(0, tile, model, self.width, self.height)?;
        let mut models: Vec<Vec<CollisionPolygon>> = Vec::new();
        for (_, copy) in &copies {
            let key: Vec<CollisionPolygon> = copy.collision_polygons().copied().collect();
            if !self.copy_models.contains(&key) && !models.contains(&key) {
                models.push(key);
            }
        }
        Ok(Cost {
            tiles: 1 + copies.len(),
            models,
        })
    }

    pub(super) fn tiles_left(&self) -> usize {
        self.tiles
    }

    /// Whether the budget affords `cost` and then still `reserve` tiles.
    fn fits(&self, cost: &Cost, reserve: usize) -> bool {
        cost.tiles + reserve <= self.tiles && cost.models.len() <= self.models
    }

    pub(super) fn take(&mut self, cost: Cost) {
        self.tiles = self.tiles.saturating_sub(cost.tiles);
        self.models = self.models.saturating_sub(cost.models.len());
        self.copy_models.extend(cost.models);
    }
}

/// Props fill the tile budget: every prop model once (a tile kept in reserve for each), then the
/// ones that steer the level's face count towards the plan. Rocks and pillars stand anywhere in
/// their cell, turned by any angle; the rest stand at a cell's centre, turned by quarter turns.
/// A placement whose copies the budget cannot afford falls back to a quarter turn at the cell's
/// centre, or to another model that stays in its cell there. No prop reaches the exit's or the
/// start's cell. Doors get their open model as a tile swap when the level has swaps (WFPC
/// 0x10000).
pub(super) fn add_props(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    kit: &Kit,
    wfpc: u32,
    budget: &mut Budget,
    tiles: &mut Vec<Tile>,
) {
    let grid = world.grid;
    let cells: Vec<usize> = world
        .island_cells()
        .into_iter()
        .filter(|&c| c != world.exit && c != world.start)
        .collect();
    if cells.is_empty() {
        return;
    }
    let contained: Vec<u32> = kit
        .props
        .iter()
        .copied()
        .filter(|&m| stays_in_its_cell(&kit.models[m as usize], grid))
        .collect();
    let mut faces: usize = tiles.iter().map(|t| kit.faces(t.model_index)).sum();
    let mut first_pass = kit.props.clone();
    rng.shuffle(&mut first_pass);
    let mut first_pass = first_pass.into_iter();
    while budget.tiles > 0 {
        let model = match first_pass.next() {
            Some(m) => m,
            None if plan.tile_faces > 0 => {
                let wanted = (plan.tile_faces as isize - faces as isize) / budget.tiles as isize;
                (0..6)
                    .map(|_| rng.pick(&kit.props))
                    .min_by_key(|&m| (kit.faces(m) as isize - wanted).abs())
                    .expect("six candidates")
            }
            None => rng.pick(&kit.props),
        };
        // A tile for each model of the first pass still to come.
        let reserve = first_pass.len();
        let cell = rng.pick(&cells);
        let centred = Tile::new(world.centre(cell), rng.quarter_turn(), model);
        let loose = kit
            .loose
            .contains(&model)
            .then(|| loose_placement(rng, world, cell, model));
        let fallback = (!contained.is_empty()).then(|| {
            let other = rng.pick(&contained);
            Tile::new(world.centre(cell), rng.quarter_turn(), other)
        });
        let placed = loose
            .into_iter()
            .chain([centred])
            .chain(fallback)
            .find_map(|tile| {
                let model = &kit.models[tile.model_index as usize];
                let reached = reached_cells(&tile, model, grid);
                if reached.contains(&world.exit) || reached.contains(&world.start) {
                    return None;
                }
                let cost = budget.cost(&tile, model).ok()?;
                budget.fits(&cost, reserve).then_some((tile, cost))
            });
        let Some((mut tile, cost)) = placed else {
            // Nothing that fits the budget stays in its cell: the level gets fewer tiles.
            break;
        };
        budget.take(cost);
        faces += kit.faces(tile.model_index);
        let door = kit.doors.iter().find(|d| d.0 == tile.model_index);
        if let (Some(&(closed, open)), true) = (door, wfpc & WFPC_TILE_SWAPS != 0) {
            let cell = tile_cell(&tile, grid.width as u32, grid.height as u32)
                .expect("props stand inside the grid");
            tile.float.swap_flag = 1;
            tile.swap = Some(TileSwap {
                cell_x: cell.col,
                // The notes name the field only; taken as the tile's height, like the tiles'
                // fixed-point copy.
                y: tile.fixed.position[1] as u32,
                cell_z: cell.row,
                model_a: closed,
                model_b: open,
            });
        }
        tiles.push(tile);
    }
}

/// Off-centre positions lie on a lattice of 1/64 unit, which f32 and 20.12 both hold exactly,
/// so that the coverage copies' planes move by exactly the cells they are moved by.
const LATTICE: f32 = 1.0 / 64.0;
/// At most this many lattice steps from the cell's centre: the loader lists the tile under the
/// cell whose centre is at or below-left of it (`ftol(x − 0.5)`), which for an off-centre tile
/// is often a neighbour of the cell it stands in, always inside the grid.
const MAX_STEPS: usize = 28;

/// A tile at `cell` moved off its centre and turned by any angle (4096 steps to the turn).
fn loose_placement(rng: &mut Rng, world: &World, cell: usize, model: u32) -> Tile {
    let [x, y, z] = world.centre(cell);
    let mut step = || (rng.below(2 * MAX_STEPS + 1) as f32 - MAX_STEPS as f32) * LATTICE;
    let (dx, dz) = (step(), step());
    Tile::new([x + dx, y, z + dz], rng.below(4096) as u32, model)
}

/// Whether a model at a cell's centre, by any quarter turn, enters collision into no other
/// cell (tried in the middle of the grid).
fn stays_in_its_cell(model: &Model, grid: Grid) -> bool {
    let (w, h) = (grid.width as u32, grid.height as u32);
    let centre = [(w / 2) as f32 + 0.5, 0.0, -((h / 2) as f32 + 0.5)];
    (0..4).all(|q| coverage::reaches(&Tile::new(centre, q * 1024, 0), model, w, h).is_empty())
}
