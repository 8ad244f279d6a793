//! Strats placed by hand in a handmade level, with their code, parameters and waypoints: read in
//! the game's terms, their types judged placeable or not, and copied, removed and moved through
//! glTF.

mod support {
    pub mod bytes;
    pub mod handmade;
}

use support::handmade::*;

use llamawad::game::strats::{OffsetSource, Strats};
use llamawad::game::testlevel::{test_level, TestLevelOptions};
use llamawad::game::{check, Severity};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::Code;
use llamawad::Level;

#[test]
fn strats_placed_by_hand_read_in_units_degrees_and_names() {
    let bytes = handmade_strats();
    let level = Level::parse(&bytes).unwrap();
    assert!(level.warnings.is_empty(), "{:?}", level.warnings);
    assert_eq!(level.to_bytes().unwrap(), bytes);
    let strats = Strats::of(&level, false).unwrap();
    assert_eq!(strats.types, None);
    assert_eq!(
        (strats.pool_extra, strats.parameter_pool, strats.waypoints),
        (4, 4, 3)
    );
    assert_eq!(strats.strats.len(), 4);

    let coin = &strats.strats[0];
    assert_eq!(coin.index, 0);
    assert_eq!(coin.type_name.as_deref(), Some("Coin"));
    assert_eq!(coin.code_offset, 28);
    assert_eq!(coin.position, [1.5, 0.0, -2.25]);
    assert_eq!(coin.position_fixed, [6144, 0, -9216]);
    assert_eq!(coin.rotation, [0, 1024, 0]);
    assert_eq!(coin.rotation_y_degrees, 90.0);
    assert_eq!(coin.flags, 2);
    assert!(coin.not_created_at_start);
    assert_eq!(coin.parameters, Some(vec![7, 0x1800, u32::MAX]));
    assert_eq!((coin.parameter_index, coin.parameter_count), (1, 3));
    assert_eq!(coin.waypoint, 1);
    assert_eq!(coin.waypoint_chain, [1, 2]);
    assert_eq!(coin.type_fields.variables, 9);
    assert_eq!(coin.type_fields.type_flags, 0x4_0000);

    let llama = &strats.strats[1];
    assert_eq!(llama.type_name.as_deref(), Some("Llama"));
    assert_eq!(llama.position, [0.5, 0.25, 0.5]);
    assert_eq!(llama.rotation_y_degrees, 0.0);
    assert!(!llama.not_created_at_start);
    assert_eq!(llama.parameters, Some(vec![]));
    assert!(llama.waypoint_chain.is_empty());

    let stub = &strats.strats[2];
    assert_eq!(stub.type_name.as_deref(), Some("CoinSparkle(spawn)"));
    assert_eq!(stub.rotation_y_degrees, 180.0);
    assert_eq!(stub.parameters, Some(vec![5]));

    // Into the Coin's name instruction: the code names the next strat (CoinSparkle) within 16
    // words, as `info` has it; its parameters 2..5 and waypoint 5 lie outside.
    let astray = &strats.strats[3];
    assert_eq!(astray.rotation_y_degrees, 270.0);
    assert_eq!(astray.parameters, None);
    assert!(astray.waypoint_chain.is_empty());

    // The check agrees: the last strat's offset, parameters and waypoint are its errors.
    let report = check(&level);
    let strat_problems: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.code.as_str().starts_with("strat"))
        .map(|p| (p.code, p.strat))
        .collect();
    assert_eq!(
        strat_problems,
        [
            (Code::StratCode, Some(3)),
            (Code::StratParameters, Some(3)),
            (Code::StratWaypoint, Some(3)),
        ],
        "{:#?}",
        report.problems
    );
}

#[test]
fn strat_types_placed_by_hand_say_which_can_be_placed() {
    let level = Level::parse(&handmade_strats()).unwrap();
    let strats = Strats::of(&level, true).unwrap();
    assert!(strats.notes.is_empty(), "{:?}", strats.notes);
    let types = strats.types.unwrap();
    let listed: Vec<_> = types
        .iter()
        .map(|t| {
            (
                t.code_offset,
                t.name.as_deref().unwrap_or("?"),
                t.offset_source,
                t.instances,
                t.placeable,
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (8, "Llama", OffsetSource::Placed, 1, true),
            (28, "Coin", OffsetSource::Placed, 1, true),
            (32, "CoinSparkle", OffsetSource::Placed, 1, false),
            (44, "CoinSparkle", OffsetSource::NameInstruction, 0, false),
            (60, "CoinSparkle(spawn)", OffsetSource::Placed, 1, true),
        ]
    );
    let llama = &types[0];
    assert_eq!(llama.why_not, None);
    let fields = llama.type_fields.unwrap();
    assert_eq!(
        (
            fields.variables,
            fields.slots,
            fields.type_flags,
            fields.extra_memory
        ),
        (78, 4, 0x24_8000, 1)
    );
    assert_eq!(llama.first_instance, Some(1));
    let why = types[2].why_not.as_deref().unwrap();
    assert!(why.contains("inside a strat's name instruction"), "{why}");
    let sparkle = &types[3];
    assert_eq!(sparkle.type_fields, None);
    let why = sparkle.why_not.as_deref().unwrap();
    assert!(why.contains("never placed in this level"), "{why}");
    assert!(why.contains("spawn stub at 0x3c"), "{why}");
}

#[test]
fn a_test_level_of_a_level_without_a_flat_floor_is_refused() {
    // Model 1 is a fan of triangles without collision: nothing to build plates of.
    let level = Level::parse(&handmade_strats()).unwrap();
    let err = test_level(&level, &TestLevelOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no flat floor tile"), "{err}");
}

#[test]
fn strats_placed_by_hand_copied_removed_and_moved_through_gltf() {
    let bytes = handmade_strats();
    let base = Level::parse(&bytes).unwrap();
    let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
    let dir = std::env::temp_dir().join(format!("llamawad-handmade-strats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("level.bin"), &gltf.bin).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&gltf.to_gltf_json("level.bin")).unwrap();
    let number = |json: &serde_json::Value, i: usize| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["extras"]["llamawad"] == "strat" && n["extras"]["strat"] == i)
            .unwrap()
    };
    let group = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["extras"]["llamawad"] == "strats")
        .unwrap();
    // The Coin duplicated (Blender's name), the spawn stub's node deleted, the Llama moved 0.25
    // in x.
    let coin = number(&json, 0);
    let mut copy = json["nodes"][coin].clone();
    copy["name"] = serde_json::json!("Coin · strat 000.001");
    let nodes = json["nodes"].as_array_mut().unwrap();
    nodes.push(copy);
    let copy = nodes.len() - 1;
    let stub = number(&json, 2);
    let children = json["nodes"][group]["children"].as_array_mut().unwrap();
    children.retain(|c| c.as_u64() != Some(stub as u64));
    children.push(serde_json::json!(copy));
    let llama = number(&json, 1);
    json["nodes"][llama]["translation"] = serde_json::json!([0.75, 0.25, 0.5]);

    let doc = Document::from_slice(&serde_json::to_vec(&json).unwrap(), Some(&dir)).unwrap();
    let (level, report) = gltf_to_wad(&base, &bytes, &doc, GltfToWadOptions::default()).unwrap();
    assert_eq!(report.strats_added, [4]);
    assert_eq!(report.strats_removed, [2]);
    assert_eq!(report.strats_moved, [1]);
    assert_eq!(report.parameters_appended, 3);
    let out = level.to_bytes().unwrap();
    let read = Level::parse(&out).unwrap();
    let (map, old) = (read.map().unwrap(), base.map().unwrap());
    assert_eq!(map.strat_pool_extra, 5);
    assert_eq!(
        map.parameters,
        [5, 7, 0x1800, u32::MAX, 7, 0x1800, u32::MAX]
    );
    assert_eq!(map.waypoints, old.waypoints);
    assert_eq!(map.strats.len(), 5);
    assert_eq!(map.strats[0], old.strats[0]);
    assert_eq!(map.strats[3], old.strats[3]);
    assert_eq!(map.strats[1].position, [3072, 1024, 2048]);
    assert_eq!(map.strats[2].flags, 2);
    let new = map.strats[4];
    assert_eq!(
        (new.code_offset, new.parameter_count, new.parameter_index),
        (28, 3, 4)
    );
    assert_eq!(
        (
            new.variable_count,
            new.slot_count,
            new.type_flags,
            new.extra_memory
        ),
        (9, 0, 0x4_0000, 0)
    );
    assert_eq!((new.waypoint, new.flags), (1, 2));
    assert_eq!(
        (new.position, new.rotation),
        (old.strats[0].position, old.strats[0].rotation)
    );
    // The check finds no new error: the last strat's errors and the start over no floor are
    // the base's.
    let check = llamawad::game::check_against(&read, &base);
    let new_errors: Vec<_> = check
        .new_problems()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert!(new_errors.is_empty(), "{new_errors:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
