//! The strats of generated levels in the game's terms (`game::strats`): what the generator
//! placed (its types, counts, type fields, parameters and waypoint chains), the types its code
//! names, and the type × level table over a folder.

use llamawad::Code;
use std::collections::BTreeMap;

use llamawad::game::check;
use llamawad::game::strats::{OffsetSource, StratTable, Strats};
use llamawad::generate::{generate, Size};
use llamawad::info::Info;

/// The generator's placed types: (name, instances in a tiny, small and full level, parameters,
/// waypoints in the chain).
const PLACED: [(&str, [usize; 3], usize, usize); 11] = [
    ("Llama", [1, 1, 1], 0, 0),
    ("LevelDoor", [1, 1, 1], 2, 0),
    ("Coin", [3, 20, 110], 0, 0),
    ("Coin5", [1, 3, 12], 1, 0),
    ("CheckPointPost", [1, 2, 5], 1, 0),
    ("Health", [1, 3, 8], 0, 0),
    ("SmashPot(spawn)", [1, 4, 14], 1, 0),
    ("CameraSide", [1, 2, 6], 3, 4),
    ("CheatTeleport", [1, 1, 1], 0, 0),
    ("Wompy", [1, 1, 2], 0, 3),
    ("CutSceneTrigger", [1, 1, 3], 2, 0),
];
/// Named in its code, placed at no offset of their own.
const UNPLACED: [&str; 4] = ["SmashPot", "CheckPointHead", "SmashPotPiece", "CoinSparkle"];

#[test]
fn generated_strats_are_what_the_generator_placed() {
    for (column, size) in Size::ALL.into_iter().enumerate() {
        for seed in 1..=3 {
            let level = generate(seed, size);
            let map = level.map().unwrap();
            let strats = Strats::of(&level, false).unwrap();
            assert_eq!(strats.strats.len(), map.strats.len());
            assert_eq!(strats.pool_extra, map.strat_pool_extra);
            assert_eq!(strats.parameter_pool, map.parameters.len());
            for (i, (s, record)) in strats.strats.iter().zip(&map.strats).enumerate() {
                let name = s.type_name.as_deref().unwrap();
                let &(_, _, parameters, waypoints) = PLACED.iter().find(|p| p.0 == name).unwrap();
                assert_eq!(s.index, i);
                assert_eq!(s.position_fixed, record.position);
                for k in 0..3 {
                    assert_eq!(s.position[k] * 4096.0, record.position[k] as f64);
                }
                assert_eq!(
                    s.rotation_y_degrees,
                    record.rotation[1] as f64 * 360.0 / 4096.0
                );
                assert!(s.rotation_y_degrees < 360.0);
                assert_eq!(s.parameters.as_ref().unwrap().len(), parameters, "{name}");
                assert_eq!(s.waypoint_chain.len(), waypoints, "{name}");
                if let Some(&last) = s.waypoint_chain.last() {
                    assert_eq!(map.waypoints[last].next, 0);
                    assert_eq!(s.waypoint_chain[0] as i32, s.waypoint);
                }
                // Only a Coin5 is ever hidden at the start.
                assert!(!s.not_created_at_start || name == "Coin5");
            }
            let info = Info::of(&level, 0);
            let mut by_name = BTreeMap::new();
            for s in &strats.strats {
                *by_name
                    .entry(s.type_name.clone().unwrap())
                    .or_insert(0usize) += 1;
            }
            assert_eq!(by_name, info.strat_types);
            for (name, counts, _, _) in PLACED {
                assert_eq!(by_name[name], counts[column], "{name}, {size}");
            }
        }
    }
}

#[test]
fn generated_types_are_the_placed_and_the_named() {
    for seed in 1..=3 {
        let level = generate(seed, Size::Small);
        let strats = Strats::of(&level, true).unwrap();
        assert!(strats.notes.is_empty(), "{:?}", strats.notes);
        let types = strats.types.unwrap();
        assert_eq!(types.len(), PLACED.len() + UNPLACED.len());
        assert!(types
            .windows(2)
            .all(|w| w[0].code_offset < w[1].code_offset));
        let map = level.map().unwrap();
        for t in &types {
            let name = t.name.as_deref().unwrap();
            if let Some((_, counts, _, _)) = PLACED.iter().find(|p| p.0 == name) {
                assert_eq!(t.offset_source, OffsetSource::Placed);
                assert_eq!(t.instances, counts[1], "{name}");
                assert!(t.placeable && t.why_not.is_none(), "{name}");
                let first = &map.strats[t.first_instance.unwrap()];
                assert_eq!(first.code_offset, t.code_offset);
                assert_eq!(t.type_fields.unwrap().variables, first.variable_count);
                assert!(t.differing_instances.is_empty());
            } else {
                assert!(UNPLACED.contains(&name), "{name}");
                assert_eq!(t.offset_source, OffsetSource::NameInstruction);
                assert_eq!((t.instances, t.placeable), (0, false));
                assert_eq!(t.type_fields, None);
                let why = t.why_not.as_deref().unwrap();
                assert!(why.contains("note 003 rule 4"), "{why}");
                // The pot is placed through its spawn stub only.
                assert_eq!(why.contains("spawn stub"), name == "SmashPot", "{why}");
            }
        }
        // The player's type fields (note 003: nvars 78, flags 0x248000).
        let llama = types.iter().find(|t| t.name.as_deref() == Some("Llama"));
        let fields = llama.unwrap().type_fields.unwrap();
        assert_eq!((fields.variables, fields.type_flags), (78, 0x24_8000));
        // What the check calls a strat start is what the list calls placeable.
        assert!(!check(&level)
            .problems
            .iter()
            .any(|p| p.code == Code::StratCode || p.code == Code::StratTypeFields));
    }
}

#[test]
fn a_strat_given_other_type_fields_is_named_by_its_type() {
    let mut level = generate(4, Size::Tiny);
    let map = level.map_mut().unwrap();
    let coins: Vec<usize> = (0..map.strats.len())
        .filter(|&i| map.strats[i].code_offset == map.strats[2].code_offset)
        .collect();
    assert!(coins.len() >= 2);
    map.strats[coins[1]].variable_count += 1;
    let types = Strats::of(&level, true).unwrap().types.unwrap();
    let coin = types.iter().find(|t| t.name.as_deref() == Some("Coin"));
    let coin = coin.unwrap();
    assert_eq!(coin.first_instance, Some(coins[0]));
    assert_eq!(coin.differing_instances, [coins[1]]);
    assert!(coin.placeable);
}

#[test]
fn a_level_without_map_has_no_strats_and_one_without_stpc_no_names() {
    let mut level = generate(5, Size::Tiny);
    let strats = level.map().unwrap().strats.len();
    level
        .chunks
        .retain(|c| c.tag != llamawad::container::Tag::STPC);
    let read = Strats::of(&level, true).unwrap();
    assert_eq!(read.strats.len(), strats);
    assert!(read.strats.iter().all(|s| s.type_name.is_none()));
    let types = read.types.unwrap();
    assert!(types.iter().all(|t| !t.placeable && t.name.is_none()));
    assert!(read.notes[0].contains("no STPC chunk"), "{:?}", read.notes);

    level
        .chunks
        .retain(|c| c.tag != llamawad::container::Tag::MAP);
    let err = Strats::of(&level, false).unwrap_err().to_string();
    assert!(err.contains("MAP chunk is needed by the strats"), "{err}");
}

#[test]
fn the_table_counts_every_type_in_every_level_and_names_what_it_skipped() {
    let dir = std::env::temp_dir().join(format!("llamawad-strat-table-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub.wad")).unwrap();
    std::fs::create_dir_all(dir.join("inner")).unwrap();
    let tiny = generate(1, Size::Tiny);
    let small = generate(2, Size::Small);
    std::fs::write(dir.join("B.WAD"), tiny.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("a.wad"), small.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("inner/c.wad"), tiny.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("notes.txt"), b"not a level").unwrap();
    std::fs::write(dir.join("zz.wad"), b"\x10\0\0\0garbage").unwrap();
    let mut no_map = tiny.clone();
    no_map
        .chunks
        .retain(|c| c.tag != llamawad::container::Tag::MAP);
    std::fs::write(dir.join("m.wad"), no_map.to_bytes().unwrap()).unwrap();

    let table = StratTable::of_folder(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // Names sort upper case first; subfolders are not read.
    assert_eq!(table.levels, ["B.WAD", "a.wad"]);
    let skipped: Vec<_> = table.skipped.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(skipped, ["m.wad", "sub.wad", "zz.wad"]);
    assert!(table.skipped[0].reason.contains("no MAP chunk"));
    assert!(table.skipped[1].reason.contains("not a regular file"));
    assert!(table.skipped[2].reason.contains("not a level WAD"));
    assert_eq!(table.types.len(), PLACED.len());
    for row in &table.types {
        let (_, counts, _, _) = PLACED.iter().find(|p| p.0 == row.name).unwrap();
        assert_eq!(row.counts, [counts[0], counts[1]], "{}", row.name);
        assert_eq!(row.total, counts[0] + counts[1]);
        assert_eq!(row.levels, 2);
    }
}
