//! The tiles' vertex colours: sunlight, sky and shade baked per vertex, tinted per region.

use glam::Vec3;

use super::builder::TOP;
use super::kit::Kit;
use super::world::World;
use crate::game::cells::tile_cell;
use crate::level::map::Rgba;
use crate::level::{Model, Tile};
use crate::rng::{sin_cos_turns, Rng};

/// Vertex colours for every tile and swap model. Most tiles have one set; some flicker through
/// two or three (at least one of each, so that every level exercises the frame count).
pub(super) fn colour_tiles(rng: &mut Rng, world: &World, kit: &Kit, tiles: &mut [Tile]) {
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
        let cell = tile_cell(tile, width, height)
            .expect("generated tiles stand inside the grid")
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
    let (sin, cos) = sin_cos_turns(rotation as f32 / 4096.0);
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
