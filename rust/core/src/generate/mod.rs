//! Synthetic levels made to the specification, deterministic from a seed.
//!
//! A level is built the way the originals are (FORMAT.md §5, §6): a kit of tile models in local
//! coordinates (floors, some with a special surface, island edges with cliff skirts, ramps,
//! blocks, fences, pillars, rocks, doors, rocks beyond the grid's border, and model 0, the
//! invisible water plane) placed on a grid of islands over water, the ground cell-centred, rocks
//! and pillars anywhere in their cells and turned by any angle; collision entered into every
//! cell it covers through collision-only tiles; strats standing on the islands, their types
//! named by code units in STPC; texture pages painted with procedural patterns. Every rule of
//! `game::check` holds, and the level is exactly what its own bytes read back as.
//!
//! Determinism: a local splitmix64 generator, integer texture painting, and nothing but
//! arithmetic and square roots in the geometry (sines come from a series, not from a maths
//! library; the engine's sine table, which placement and coverage use, is rounded far from any
//! boundary), so a seed gives the same bytes on every machine.

use std::fmt;
use std::str::FromStr;

use crate::container::Tag;
use crate::geometry::PlaneScale;
use crate::level::{Chunk, ChunkBody, Level, Trak};
use crate::rng::Rng;

use kit::build_kit;
use map::{build_lights, build_map, level_name, sound_bank};
use plan::{Plan, OPTIONAL_WFPC_BITS, VARIANTS};
use stpc::build_stpc;
use textures::build_textures;
use tiles::place_tiles;
use world::World;

mod builder;
mod colours;
mod kit;
mod map;
mod plan;
mod props;
mod stpc;
mod textures;
mod tiles;
mod world;

#[cfg(test)]
mod tests;

/// How big a generated level is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// A handful of tiles: small enough to commit as a test fixture.
    Tiny,
    /// About 150 tiles: every kind of model, strat and block, generated in a moment.
    Small,
    /// The size of the originals' first level.
    Full,
}

impl Size {
    pub const ALL: [Size; 3] = [Size::Tiny, Size::Small, Size::Full];
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        match s {
            "tiny" => Ok(Size::Tiny),
            "small" => Ok(Size::Small),
            "full" => Ok(Size::Full),
            _ => Err(format!("unknown size {s:?}: use tiny, small or full")),
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Full => "full",
        })
    }
}

/// The plane scale a generated level's tile models write their collision at (FORMAT.md §4
/// "Plane scale"): the engine's, note 001's ×4096 as other tools write it, or both, model by
/// model (odd models ×4096), as in a level edited by two tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CollisionScales {
    #[default]
    Engine,
    Notes,
    Mixed,
}

impl CollisionScales {
    fn of_model(self, index: usize) -> PlaneScale {
        match self {
            CollisionScales::Engine => PlaneScale::Engine,
            CollisionScales::Notes => PlaneScale::Notes,
            CollisionScales::Mixed if index % 2 == 1 => PlaneScale::Notes,
            CollisionScales::Mixed => PlaneScale::Engine,
        }
    }
}

impl FromStr for CollisionScales {
    type Err = String;
    fn from_str(s: &str) -> Result<CollisionScales, String> {
        match s {
            "4064" => Ok(CollisionScales::Engine),
            "4096" => Ok(CollisionScales::Notes),
            "mixed" => Ok(CollisionScales::Mixed),
            _ => Err(format!(
                "unknown collision scale {s:?}: use 4064, 4096 or mixed"
            )),
        }
    }
}

impl fmt::Display for CollisionScales {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CollisionScales::Engine => "4064",
            CollisionScales::Notes => "4096",
            CollisionScales::Mixed => "mixed",
        })
    }
}

/// A level of the given size, the same for the same seed on every machine.
pub fn generate(seed: u64, size: Size) -> Level {
    generate_with(seed, size, CollisionScales::Engine)
}

/// [`generate`] with the tile models' collision written at `scales`.
pub fn generate_with(seed: u64, size: Size, scales: CollisionScales) -> Level {
    let plan = Plan::of(size);
    let variant = &VARIANTS[(seed % VARIANTS.len() as u64) as usize];
    let mut rng = Rng::new(seed);
    let mut wfpc = variant.wfpc;
    for bit in OPTIONAL_WFPC_BITS {
        if rng.chance(0.5) {
            wfpc |= bit;
        }
    }
    // Each part draws from its own stream, so that changing one part of the generator does not
    // reshuffle all the others.
    let textures = build_textures(&mut rng.fork(), &plan, variant);
    let mut kit = build_kit(&mut rng.fork(), &plan.kit, &textures, scales);
    let world = World::grow(&mut rng.fork(), &plan);
    let placed = place_tiles(&mut rng.fork(), &plan, &world, &mut kit, wfpc);
    let (stpc, code) = build_stpc(&mut rng.fork(), &plan, &textures, wfpc);
    let map = build_map(&mut rng.fork(), &plan, &world, placed, &code, wfpc);
    let lights = build_lights(&mut rng.fork(), &plan, &world);

    let chunk = |tag: Tag, body: ChunkBody| Chunk {
        tag,
        body,
        padding: Vec::new(),
    };
    let level = Level {
        convention: variant.convention,
        chunks: vec![
            chunk(Tag::WFPC, ChunkBody::Flags(wfpc)),
            chunk(Tag::NAME, ChunkBody::Name(level_name(seed))),
            chunk(Tag::LNFO, ChunkBody::LevelInfo([55, 2])),
            chunk(Tag(*b"SMPC"), ChunkBody::Raw(sound_bank(&mut rng))),
            chunk(Tag::TEXT, ChunkBody::Text(textures.text)),
            chunk(Tag::TRAK, ChunkBody::Trak(Trak { models: kit.models })),
            chunk(Tag::STPC, ChunkBody::Stpc(stpc)),
            chunk(Tag::MAP, ChunkBody::Map(map)),
            chunk(Tag::LGHT, ChunkBody::Lights(lights)),
        ],
        trailing: Vec::new(),
        warnings: Vec::new(),
    };
    // Returned as read back from its own bytes: the padding after each chunk is then exactly what
    // the container writer puts there, and the level equals a fresh parse of what it writes.
    let bytes = level.to_bytes().expect("a generated level can be written");
    Level::parse(&bytes).expect("a generated level reads back")
}
