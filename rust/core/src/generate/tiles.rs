//! MAP: the tiles on the islands, and their vertex colours.

use glam::Vec3;

use super::builder::{TOP, WATER_MODEL};
use super::kit::Kit;
use super::plan::Plan;
use super::rng::Rng;
use super::world::World;
use crate::level::map::{Rgba, WFPC_TILE_SWAPS};
use crate::level::{Model, Tile};
use crate::raw::TileSwap;

/// Hands out models so that each is used once before any is used twice, in an order the seed
/// shuffles.
struct Deck<'a> {
    pub(super) models: &'a [u32],
    pub(super) next: Vec<u32>,
}

impl<'a> Deck<'a> {
    pub(super) fn new(models: &'a [u32]) -> Deck<'a> {
        Deck {
            models,
            next: Vec::new(),
        }
    }

    pub(super) fn draw(&mut self, rng: &mut Rng) -> u32 {
        if self.next.is_empty() {
            self.next = self.models.to_vec();
            rng.shuffle(&mut self.next);
        }
        self.next
            .pop()
            .expect("a deck is never drawn from without models")
    }
}

pub(super) fn place_tiles(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    kit: &Kit,
    wfpc: u32,
) -> Vec<Tile> {
    let steps = ramp_steps(rng, plan, world);
    let mut tiles = ground_tiles(rng, plan, world, kit, steps.len());
    let mut ramps = [Deck::new(&kit.ramps[0]), Deck::new(&kit.ramps[1])];
    for (cell, side, rise) in steps {
        let model = ramps[rise - 1].draw(rng);
        tiles.push(Tile::new(world.centre(cell), side as u32 * 1024, model));
    }
    add_props(rng, plan, world, kit, wfpc, &mut tiles);
    colour_tiles(rng, world, kit, &mut tiles);
    tiles
}

/// Where ramps go up to the plateaus: (cell, side, rise in half units), at most one per cell;
/// the ramp's high end (local +z) faces the higher cell.
fn ramp_steps(rng: &mut Rng, plan: &Plan, world: &World) -> Vec<(usize, usize, usize)> {
    let mut steps = Vec::new();
    for cell in world.island_cells() {
        for side in 0..4 {
            let Some(higher) = world.grid.neighbour(cell, side) else {
                continue;
            };
            let rise = world.level[higher].saturating_sub(world.level[cell]) as usize;
            if world.island[higher] && rise > 0 && cell != world.exit {
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
/// to its open side where it has one, the exit floor in the exit cell), a skirt for every
/// further open side when the plan has them, and water planes under as many sea cells as the
/// tile budget leaves room for besides the ramps and one tile of every prop model: under all of
/// them, except in the tiny level.
fn ground_tiles(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    kit: &Kit,
    ramps: usize,
) -> Vec<Tile> {
    let grid = world.grid;
    let islands = world.island_cells();
    let extra_skirts = |cell: usize| {
        let open = world.open_sides(cell).len();
        if !plan.extra_skirts {
            0
        } else if cell == world.exit {
            open
        } else {
            open.saturating_sub(1)
        }
    };
    let skirt_tiles: usize = islands.iter().map(|&c| extra_skirts(c)).sum();
    let mut sea: Vec<usize> = (0..grid.cells()).filter(|&c| !world.island[c]).collect();
    rng.shuffle(&mut sea);
    sea.truncate(
        plan.tiles
            .saturating_sub(islands.len() + skirt_tiles + ramps + kit.props.len()),
    );
    let mut watered = vec![false; grid.cells()];
    for &cell in &sea {
        watered[cell] = true;
    }

    let mut tiles = Vec::with_capacity(plan.tiles);
    let mut floors = Deck::new(&kit.floors);
    let mut edges = Deck::new(&kit.edges);
    let mut skirts = Deck::new(&kit.skirts);
    for cell in 0..grid.cells() {
        let centre = world.centre(cell);
        if !world.island[cell] {
            if watered[cell] {
                tiles.push(Tile::new(centre, 0, WATER_MODEL));
            }
            continue;
        }
        let open = world.open_sides(cell);
        let (model, rotation) = match open.first() {
            _ if cell == world.exit => (kit.exit, rng.quarter_turn()),
            Some(&side) => (edges.draw(rng), side as u32 * 1024),
            None => (floors.draw(rng), rng.quarter_turn()),
        };
        tiles.push(Tile::new(centre, rotation, model));
        for &side in &open[open.len() - extra_skirts(cell)..] {
            tiles.push(Tile::new(centre, side as u32 * 1024, skirts.draw(rng)));
        }
    }
    tiles
}

/// Props on random island cells fill the tile budget: every prop model once, then the ones that
/// steer the level's face count towards the plan. Doors get their open model as a tile swap
/// when the level has swaps (WFPC 0x10000).
fn add_props(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    kit: &Kit,
    wfpc: u32,
    tiles: &mut Vec<Tile>,
) {
    let islands = world.island_cells();
    let mut faces: usize = tiles.iter().map(|t| kit.faces(t.model_index)).sum();
    let mut first_pass = kit.props.clone();
    rng.shuffle(&mut first_pass);
    let slots = plan.tiles.saturating_sub(tiles.len());
    for slot in 0..slots {
        let model = match first_pass.get(slot) {
            Some(&m) => m,
            None if plan.tile_faces > 0 => {
                let wanted = (plan.tile_faces as isize - faces as isize) / (slots - slot) as isize;
                (0..6)
                    .map(|_| rng.pick(&kit.props))
                    .min_by_key(|&m| (kit.faces(m) as isize - wanted).abs())
                    .expect("six candidates")
            }
            None => rng.pick(&kit.props),
        };
        faces += kit.faces(model);
        let cell = rng.pick(&islands);
        let mut tile = Tile::new(world.centre(cell), rng.quarter_turn(), model);
        let door = kit.doors.iter().find(|d| d.0 == model);
        if let (Some(&(closed, open)), true) = (door, wfpc & WFPC_TILE_SWAPS != 0) {
            let (col, row) = world.grid.col_row(cell);
            tile.float.swap_flag = 1;
            tile.swap = Some(TileSwap {
                cell_x: col as u32,
                // The notes name the field only; taken as the tile's height, like the tiles'
                // fixed-point copy.
                y: tile.fixed.position[1] as u32,
                cell_z: row as u32,
                model_a: closed,
                model_b: open,
            });
        }
        tiles.push(tile);
    }
}

/// Vertex colours for every tile and swap model. Most tiles have one set; some flicker through
/// two or three (at least one of each, so that every level exercises the frame count).
fn colour_tiles(rng: &mut Rng, world: &World, kit: &Kit, tiles: &mut [Tile]) {
    let mut frames: Vec<u8> = (0..tiles.len())
        .map(|_| match rng.unit() {
            p if p < 0.015 => 3,
            p if p < 0.075 => 2,
            _ => 1,
        })
        .collect();
    let two = rng.below(tiles.len());
    frames[two] = 2;
    frames[(two + 1 + rng.below(tiles.len() - 1)) % tiles.len()] = 3;
    let (width, height) = (world.grid.width as u32, world.grid.height as u32);
    for (tile, frames) in tiles.iter_mut().zip(frames) {
        let cell = crate::game::cells::tile_cell(tile, width, height)
            .expect("tiles are cell-centred")
            .index(width);
        let tint = REGION_TINTS[world.region[cell] as usize % REGION_TINTS.len()];
        let rotation = tile.float.rotation;
        let model = &kit.models[tile.model_index as usize];
        tile.colours = vertex_colours(rng, model, rotation, tint, frames);
        if let Some(swap) = tile.swap {
            let model = &kit.models[swap.model_b as usize];
            tile.swap_colours = vertex_colours(rng, model, rotation, tint, 1);
        }
    }
}

/// Direction the sunlight comes from, export space.
pub(super) const SUN: Vec3 = Vec3::new(-0.36, 0.8, 0.48);
/// Colour casts of the regions, as if each had been lit by hand.
const REGION_TINTS: [Vec3; 4] = [
    Vec3::new(1.0, 1.0, 1.0),
    Vec3::new(1.06, 1.0, 0.9),
    Vec3::new(0.92, 0.98, 1.08),
    Vec3::new(1.0, 1.04, 0.94),
];

/// Vertex colours baked the way the originals' look: sunlight, light from the sky above, and
/// shade low on the cliffs, tinted per region; 0x80 is 1.0 (the game doubles and clamps). With
/// `frames` ≥ 2 dimmer copies follow (flickering torch light) and byte 3 of the first entry
/// counts the sets; with one set it is 0 or 1, both of which the originals use.
fn vertex_colours(
    rng: &mut Rng,
    model: &Model,
    rotation: u32,
    tint: Vec3,
    frames: u8,
) -> Vec<Rgba> {
    let sun = SUN.normalize();
    let (sin, cos) =
        [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)][(rotation / 1024 % 4) as usize];
    let lit: Vec<Vec3> = model
        .vertices
        .iter()
        .map(|v| {
            let [nx, ny, nz] = v.normal;
            let normal = Vec3::new(nx * cos - nz * sin, ny, nx * sin + nz * cos);
            let light = 0.32 + 0.55 * normal.dot(sun).max(0.0) + 0.18 * (0.5 + 0.5 * ny);
            let shade = (1.0 + 0.3 * (v.position[1] - TOP)).clamp(0.55, 1.0);
            tint * (light * shade)
        })
        .collect();
    let mut colours = Vec::with_capacity(lit.len() * frames as usize);
    for frame in 0..frames {
        let flicker = 1.0 - 0.18 * frame as f32;
        colours.extend(lit.iter().map(|c| {
            let byte = |v: f32| (128.0 * v * flicker).round().clamp(8.0, 255.0) as u8;
            [byte(c.x), byte(c.y), byte(c.z), 0]
        }));
    }
    if let Some(first) = colours.first_mut() {
        first[3] = if frames >= 2 {
            frames
        } else {
            rng.below(2) as u8
        };
    }
    colours
}
