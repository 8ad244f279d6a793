//! Levels for `check` to judge: written and read back as `check` meets them in a file, with a
//! polygon replaced by one written by hand.
// Each test file takes what it needs of these.
#![allow(dead_code)]

use llamawad::game::{check, Problem};
use llamawad::level::ChunkBody;
use llamawad::raw::{CollisionPlane, CollisionPolygon};
use llamawad::Level;

/// The level written and read back, as `check` meets it in a file.
pub fn reread(level: &Level) -> Level {
    Level::parse(&level.to_bytes().expect("writable")).expect("readable")
}

/// The problems of the written level.
pub fn problems(level: &Level) -> Vec<Problem> {
    check(&reread(level)).problems
}

pub fn set_wfpc(level: &mut Level, flags: u32) {
    for chunk in &mut level.chunks {
        if let ChunkBody::Flags(f) = &mut chunk.body {
            *f = flags;
        }
    }
}

/// The index of the player's strat and where it stands, in game units.
pub fn the_llama(level: &Level) -> (usize, [f64; 3]) {
    let stpc = level.stpc().unwrap();
    let map = level.map().unwrap();
    let i = map
        .strats
        .iter()
        .position(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    (i, map.strats[i].position.map(|v| v as f64 / 4096.0))
}

/// A square floor 1 × 1 at y 0.25 around the tile origin, written by hand (FORMAT.md §4: normals
/// ×127, d = 4064 × the plane's distance): surface up, then the edges x ≥ −0.5, z ≥ −0.5,
/// x ≤ 0.5, z ≤ 0.5 with their normals pointing inwards.
pub fn hand_square() -> CollisionPolygon {
    let plane = |normal: [i8; 3], d: i16| CollisionPlane { normal, pad: 0, d };
    CollisionPolygon {
        kind: 1,
        material: 0,
        planes: [
            plane([0, 127, 0], 1016),
            plane([127, 0, 0], -2032),
            plane([0, 0, 127], -2032),
            plane([-127, 0, 0], -2032),
            plane([0, 0, -127], -2032),
        ],
    }
}

/// The first polygon of the model the first tile with collision uses, replaced.
pub fn with_polygon(base: &Level, polygon: CollisionPolygon) -> (Level, usize) {
    let mut level = base.clone();
    let (map, trak) = level.map_and_trak_mut();
    let models = &mut trak.unwrap().models;
    let model = map
        .unwrap()
        .tiles
        .iter()
        .map(|t| t.model_index as usize)
        .find(|&m| models[m].collision_count() > 0)
        .unwrap();
    *models[model].collision.iter_mut().flatten().next().unwrap() = polygon;
    (level, model)
}
