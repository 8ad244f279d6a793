//! MAP: the tiles of the ground, the rocks beyond the grid's border and the props, the
//! collision-only tiles that enter collision into every cell it covers, and where the Llama
//! starts.

use super::builder::{MATERIAL_NORMAL, TOP, WATER_MODEL};
use super::colours::colour_tiles;
use super::kit::Kit;
use super::plan::Plan;
use super::props::{add_props, reached_cells, Budget};
use super::world::World;
use crate::game::coverage;
use crate::game::floor::{World as Floors, MATERIAL_IGNORED, MATERIAL_IGNORED_ALT};
use crate::game::space::to_fixed;
use crate::level::{Map, Model, Tile};
use crate::rng::Rng;

/// Hands out models so that each is used once before any is used twice, in an order the seed
/// shuffles.
struct Deck<'a> {
    models: &'a [u32],
    next: Vec<u32>,
}

impl<'a> Deck<'a> {
    fn new(models: &'a [u32]) -> Deck<'a> {
        Deck {
            models,
            next: Vec::new(),
        }
    }

    fn draw(&mut self, rng: &mut Rng) -> u32 {
        if self.next.is_empty() {
            self.next = self.models.to_vec();
            rng.shuffle(&mut self.next);
        }
        self.next
            .pop()
            .expect("a deck is never drawn from without models")
    }
}

/// The tiles of a level and where its Llama starts.
pub(super) struct Placed {
    pub(super) tiles: Vec<Tile>,
    pub(super) start_cell: usize,
    /// Game-space 20.12 position on the floor the engine finds there.
    pub(super) start: [i32; 3],
}

/// Places every tile within the plan's budget of tiles and models, coverage copies counted in:
/// the ground, the ramps, the rocks beyond the border, water planes under as many sea cells as
/// leave the props their share, and the props; then enters every polygon into every cell
/// it covers (collision-only tiles, `game::coverage`).
pub(super) fn place_tiles(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    kit: &mut Kit,
    wfpc: u32,
) -> Placed {
    let steps = ramp_steps(rng, plan, world);
    let mut tiles = ground_tiles(rng, plan, world, kit);
    let mut ramps = [Deck::new(&kit.ramps[0]), Deck::new(&kit.ramps[1])];
    for (cell, side, rise) in steps {
        let model = ramps[rise - 1].draw(rng);
        tiles.push(Tile::new(world.centre(cell), side as u32 * 1024, model));
    }
    tiles.extend(backdrop_tiles(rng, plan, world, kit));
    let mut budget = Budget::new(plan, kit);
    for tile in &tiles {
        let cost = budget
            .cost(tile, &kit.models[tile.model_index as usize])
            .expect("the ground's collision lies within reach of the cells it covers");
        budget.take(cost);
    }
    for tile in water_tiles(
        rng,
        world,
        budget
            .tiles_left()
            .saturating_sub(plan.prop_tiles.max(kit.props.len())),
    ) {
        budget.take(
            budget
                .cost(&tile, &kit.models[WATER_MODEL as usize])
                .expect("water stays in its cell"),
        );
        tiles.push(tile);
    }
    add_props(rng, plan, world, kit, wfpc, &mut budget, &mut tiles);
    colour_tiles(rng, world, kit, &mut tiles);

    let mut map = Map {
        width: world.grid.width as u32,
        height: world.grid.height as u32,
        tiles,
        ..Map::default()
    };
    let owners: Vec<usize> = (0..map.tiles.len()).collect();
    coverage::rebuild(&mut map, &mut kit.models, &owners, &[])
        .expect("every placement was costed with its coverage copies");
    let (start_cell, start) = start_position(world, &map, &kit.models);
    Placed {
        tiles: map.tiles,
        start_cell,
        start,
    }
}

/// Where ramps go up to the plateaus: (cell, side, rise in half units), at most one per cell
/// and none in the exit's or the start's cell; the ramp's high end (local +z) faces the higher
/// cell.
fn ramp_steps(rng: &mut Rng, plan: &Plan, world: &World) -> Vec<(usize, usize, usize)> {
    let mut steps = Vec::new();
    for cell in world.island_cells() {
        if cell == world.exit || cell == world.start {
            continue;
        }
        for side in 0..4 {
            let Some(higher) = world.grid.neighbour(cell, side) else {
                continue;
            };
            let rise = world.level[higher].saturating_sub(world.level[cell]) as usize;
            if world.island[higher] && rise > 0 {
                steps.push((cell, side, rise));
            }
        }
    }
    rng.shuffle(&mut steps);
    let mut ramped = vec![false; world.grid.cells()];
    steps.retain(|&(cell, ..)| !std::mem::replace(&mut ramped[cell], true));
    steps.truncate(plan.ramps);
    steps
}

/// The tiles of the ground, cell by cell: a floor for every island cell (an edge model turned
/// to its open side where it has one, the exit floor in the exit cell, now and then a floor
/// with a special surface, never at the start), and a skirt for every further open side when
/// the plan has them.
fn ground_tiles(rng: &mut Rng, plan: &Plan, world: &World, kit: &Kit) -> Vec<Tile> {
    let extra_skirts = |cell: usize, open: usize| {
        if !plan.extra_skirts {
            0
        } else if cell == world.exit {
            open
        } else {
            open.saturating_sub(1)
        }
    };
    let mut tiles = Vec::with_capacity(plan.tiles);
    let mut floors = Deck::new(&kit.floors);
    let mut special_floors = Deck::new(&kit.special_floors);
    let special_share =
        kit.special_floors.len() as f32 / (kit.floors.len() + kit.special_floors.len()) as f32;
    let mut edges = Deck::new(&kit.edges);
    let mut skirts = Deck::new(&kit.skirts);
    for cell in world.island_cells() {
        let centre = world.centre(cell);
        let open = world.open_sides(cell);
        let (model, rotation) = match open.first() {
            _ if cell == world.exit => (kit.exit, rng.quarter_turn()),
            Some(&side) => (edges.draw(rng), side as u32 * 1024),
            None if cell != world.start && rng.chance(special_share) => {
                (special_floors.draw(rng), rng.quarter_turn())
            }
            None => (floors.draw(rng), rng.quarter_turn()),
        };
        tiles.push(Tile::new(centre, rotation, model));
        for &side in &open[open.len() - extra_skirts(cell, open.len())..] {
            tiles.push(Tile::new(centre, side as u32 * 1024, skirts.draw(rng)));
        }
    }
    tiles
}

/// Water planes under up to `count` sea cells: under all of them, except in the tiny level.
fn water_tiles(rng: &mut Rng, world: &World, count: usize) -> Vec<Tile> {
    let mut sea: Vec<usize> = (0..world.grid.cells())
        .filter(|&c| !world.island[c])
        .collect();
    rng.shuffle(&mut sea);
    sea.truncate(count);
    sea.sort_unstable();
    sea.into_iter()
        .map(|cell| Tile::new(world.centre(cell), 0, WATER_MODEL))
        .collect()
}

/// Rocks in the sea along the grid's border, each turned to face out of the grid from a border
/// cell (and kept away from the exit and the start).
fn backdrop_tiles(rng: &mut Rng, plan: &Plan, world: &World, kit: &Kit) -> Vec<Tile> {
    let grid = world.grid;
    let mut borders: Vec<(usize, usize)> = (0..grid.cells())
        .filter(|&c| !world.island[c])
        .flat_map(|c| {
            (0..4)
                .filter(move |&side| grid.neighbour(c, side).is_none())
                .map(move |side| (c, side))
        })
        .collect();
    rng.shuffle(&mut borders);
    let mut deck = Deck::new(&kit.backdrops);
    let mut tiles = Vec::with_capacity(plan.backdrops);
    for (cell, side) in borders {
        if tiles.len() == plan.backdrops {
            break;
        }
        let model = deck.draw(rng);
        let tile = Tile::new(world.centre(cell), side as u32 * 1024, model);
        let reached = reached_cells(&tile, &kit.models[model as usize], grid);
        if !reached.contains(&world.exit) && !reached.contains(&world.start) {
            tiles.push(tile);
        }
    }
    tiles
}

/// Where the Llama starts: at the centre of the start cell, on the floor the engine's floor
/// test finds there (FORMAT.md §4), which must be ordinary ground with nothing skipped above it
/// (materials 17 and 18, floor test step 2). Should the start cell fail, the first island cell
/// that passes (none has so far).
fn start_position(world: &World, map: &Map, models: &[Model]) -> (usize, [i32; 3]) {
    let floors = Floors::new(map, models);
    let special = |t: &u32| {
        let model = &models[map.tiles[*t as usize].model_index as usize];
        model
            .collision_polygons()
            .any(|p| [MATERIAL_IGNORED, MATERIAL_IGNORED_ALT].contains(&p.material))
    };
    let on_floor = |cell: usize| {
        let [x, y, z] = world.centre(cell).map(f64::from);
        let probe = floors.probe(x, y + TOP as f64, -z);
        let floor = probe.floor.filter(|f| f.material == MATERIAL_NORMAL)?;
        let tiles = floors.lists().tiles(probe.cell?);
        (!tiles.iter().any(special)).then(|| (cell, [x, floor.height, -z].map(to_fixed)))
    };
    std::iter::once(world.start)
        .chain(world.island_cells())
        .find_map(on_floor)
        .unwrap_or_else(|| (world.start, world.stand(world.start, glam::Vec2::ZERO)))
}
