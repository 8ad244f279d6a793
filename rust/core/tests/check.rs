//! `check` against the notes' checklists (notes 001–003): valid levels corrupted one rule at a
//! time, written, read back and checked; each broken rule is found with its culprit, and what the
//! notes allow is not reported.

use llamawad::game::floor::World;
use llamawad::game::{check, Problem};
use llamawad::generate::{generate, Size};
use llamawad::level::ChunkBody;
use llamawad::Level;

/// The level written and read back, as `check` meets it in a file.
fn reread(level: &Level) -> Level {
    Level::parse(&level.to_bytes().expect("writable")).expect("readable")
}

/// The problems of the written level.
fn problems(level: &Level) -> Vec<Problem> {
    check(&reread(level)).problems
}

fn set_wfpc(level: &mut Level, flags: u32) {
    for chunk in &mut level.chunks {
        if let ChunkBody::Flags(f) = &mut chunk.body {
            *f = flags;
        }
    }
}

/// The index of the player's strat and where it stands, in game units.
fn the_llama(level: &Level) -> (usize, [f64; 3]) {
    let stpc = level.stpc().unwrap();
    let map = level.map().unwrap();
    let i = map
        .strats
        .iter()
        .position(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    (i, map.strats[i].position.map(|v| v as f64 / 4096.0))
}

/// Note 001, floor test step 2: the player skips 0x11, or 0x12 *instead* with the flag
/// 0x8000000 (note 002: WFPC 0x8000000). Only the skipped one under the start is an error.
#[test]
fn the_start_is_refused_only_on_the_material_the_players_floor_test_skips() {
    let base = generate(2, Size::Tiny);
    let (_, [x, y, z]) = the_llama(&base);
    let floor = World::of(&base).unwrap().probe(x, y, z).floor.unwrap();
    let model = base.map().unwrap().tiles[floor.tile as usize].model_index as usize;
    for (material, wfpc_flag, refused) in [
        (18, false, false),
        (17, false, true),
        (18, true, true),
        (17, true, false),
    ] {
        let mut level = base.clone();
        let flags = level.wfpc() & !0x800_0000 | if wfpc_flag { 0x800_0000 } else { 0 };
        set_wfpc(&mut level, flags);
        let polygon = level.trak_mut().unwrap().models[model]
            .collision
            .iter_mut()
            .flatten()
            .nth(floor.polygon as usize)
            .unwrap();
        polygon.material = material;
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == "player-start-material")
            .map(|p| (p.tile, p.polygon))
            .collect();
        let expected = if refused {
            vec![(Some(floor.tile as usize), Some(floor.polygon as usize))]
        } else {
            vec![]
        };
        assert_eq!(
            found, expected,
            "material {material}, WFPC flag {wfpc_flag}"
        );
    }
}
