//! Note 003's test level made from generated levels: every placeable type on a plate in new grid
//! rows, the player at its edge, the parkour and the goal; the source's tiles and strats kept;
//! `check` finds no new error and the floor test a floor under every strat.

use llamawad::game::check_against;
use llamawad::game::floor::World;
use llamawad::game::strats::Strats;
use llamawad::game::testlevel::{test_level, TestLevelError, TestLevelOptions, MATERIAL_EXIT};
use llamawad::generate::{generate, Size};
use llamawad::Level;

#[test]
fn a_test_level_places_every_type_on_a_plate_and_keeps_the_rules() {
    for size in Size::ALL {
        for seed in 1..=2 {
            let source = generate(seed, size);
            let (level, report) = test_level(&source, &TestLevelOptions::default())
                .unwrap_or_else(|e| panic!("{size} {seed}: {e}"));
            let what = format!("{size} {seed}");

            // Written and read back, it is the level made.
            let bytes = level.to_bytes().unwrap();
            let read = Level::parse(&bytes).unwrap();
            assert_eq!(read, level, "{what}");

            let report_check = check_against(&read, &source);
            let new: Vec<_> = report_check
                .problems
                .iter()
                .filter(|p| !p.pre_existing)
                .collect();
            assert!(
                new.iter()
                    .all(|p| p.severity == llamawad::game::Severity::Warning),
                "{what}: {new:#?}"
            );

            // The source is kept at its indices; only the player moved.
            let (map, old) = (read.map().unwrap(), source.map().unwrap());
            assert_eq!(&map.tiles[..old.tiles.len()], &old.tiles[..], "{what}");
            assert_eq!(&map.parameters[..old.parameters.len()], &old.parameters[..]);
            assert_eq!(map.waypoints, old.waypoints);
            let models = &read.trak().unwrap().models;
            let old_models = &source.trak().unwrap().models;
            assert_eq!(&models[..old_models.len()], &old_models[..]);
            for (i, (s, o)) in map.strats.iter().zip(&old.strats).enumerate() {
                if i == report.player.strat {
                    assert_eq!(s.code_offset, o.code_offset);
                    assert_eq!(s.rotation[1], 1024);
                } else {
                    assert_eq!(s, o, "{what}: strat {i}");
                }
            }
            assert_eq!(
                map.strats.len(),
                old.strats.len() + report.placed.len(),
                "{what}"
            );
            assert_eq!(
                map.strat_pool_extra,
                old.strat_pool_extra + report.placed.len() as u32
            );
            assert_eq!(report.grid_before, [old.width, old.height]);
            assert_eq!(report.grid, [map.width, map.height]);
            assert!(map.height > old.height + 3);

            // Every type the source can place, once on the plate (Coin on the steps too, the
            // door on the goal); cameras and cut scenes left out.
            let names: Vec<&str> = report.placed.iter().map(|p| p.name.as_str()).collect();
            for expected in [
                "LevelDoor",
                "Coin5",
                "CheckPointPost",
                "Health",
                "SmashPot(spawn)",
                "CheatTeleport",
                "Wompy",
            ] {
                assert_eq!(
                    names.iter().filter(|&&n| n == expected).count(),
                    1,
                    "{what}: {expected} in {names:?}"
                );
            }
            assert_eq!(names.iter().filter(|&&n| n == "Coin").count(), 1 + 6);
            assert!(!names
                .iter()
                .any(|n| n.starts_with("Camera") || n.contains("Trigger")));
            let left: Vec<&str> = report.left_out.iter().map(|l| l.name.as_str()).collect();
            assert!(left.contains(&"CameraSide") && left.contains(&"CutSceneTrigger"));
            assert!(left.contains(&"CoinSparkle"), "{left:?}");

            // The strats as `strats` reads them, each on a floor of the new plates.
            let listed = Strats::of(&read, false).unwrap();
            let world = World::of(&read).unwrap();
            let start = &report.player;
            for p in std::iter::once(start).chain(&report.placed) {
                let s = &listed.strats[p.strat];
                assert_eq!(s.position, p.position, "{what}");
                assert!(!s.not_created_at_start);
                let [x, y, z] = s.position;
                let floor = world.probe(x, y, z).floor.unwrap();
                assert!(
                    (floor.height - y).abs() < 1e-3,
                    "{what}: {} {floor:?}",
                    p.name
                );
                assert!(floor.tile as usize >= old.tiles.len());
                let material = if p.name == "LevelDoor" {
                    MATERIAL_EXIT
                } else {
                    0
                };
                assert_eq!(floor.material, material, "{what}: {}", p.name);
                assert!(z >= old.height as f64 + 3.0);
            }
            // The player at the plate's first column, the steps rising by 0.5.
            assert_eq!(start.position[0], report.area[0] as f64 + 0.5);
            let coins: Vec<f64> = report
                .placed
                .iter()
                .filter(|p| p.name == "Coin")
                .map(|p| p.position[1])
                .collect();
            assert_eq!(coins[1..], [0.75, 1.25, 1.75, 2.25, 2.75, 3.25]);
        }
    }
}

#[test]
fn spacing_and_name_are_kept_to() {
    let source = generate(3, Size::Small);
    let options = TestLevelOptions {
        name: Some("testlevel".into()),
        spacing: 5,
    };
    let (level, report) = test_level(&source, &options).unwrap();
    assert_eq!(level.name().unwrap().text(), "testlevel");
    let plate: Vec<[f64; 3]> = report
        .placed
        .iter()
        .filter(|p| p.position[1] == 0.25 && p.name != "Coin")
        .map(|p| p.position)
        .collect();
    assert!(plate.len() >= 2);
    for a in &plate {
        for b in &plate {
            let d = ((a[0] - b[0]).abs(), (a[2] - b[2]).abs());
            assert!(a == b || d.0 >= 5.0 || d.1 >= 5.0, "{a:?} {b:?}");
        }
    }
    for bad in [0, 17] {
        let options = TestLevelOptions {
            name: None,
            spacing: bad,
        };
        let err = test_level(&source, &options).unwrap_err();
        assert_eq!(err, TestLevelError::Spacing { spacing: bad });
        assert!(err.to_string().contains("spacing"), "{err}");
    }
    let options = TestLevelOptions {
        name: Some("a\u{1F999}".into()),
        spacing: 3,
    };
    let err = test_level(&source, &options).unwrap_err();
    assert_eq!(
        err,
        TestLevelError::Name {
            name: "a\u{1F999}".into()
        }
    );
    assert!(err.to_string().contains("Latin-1"), "{err}");
}

#[test]
fn a_level_without_a_player_or_a_flat_floor_is_refused_by_reason() {
    let mut source = generate(1, Size::Tiny);
    let stpc = source.stpc().unwrap().clone();
    let map = source.map_mut().unwrap();
    let llama = map
        .strats
        .iter()
        .position(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    let coin = map
        .strats
        .iter()
        .find(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Coin"))
        .unwrap()
        .code_offset;
    map.strats[llama].code_offset = coin;
    let err = test_level(&source, &TestLevelOptions::default()).unwrap_err();
    assert_eq!(err, TestLevelError::NoPlayer);
    assert!(err.to_string().contains("no strat is the player"), "{err}");

    let mut source = generate(1, Size::Tiny);
    for m in &mut source.trak_mut().unwrap().models {
        for poly in m.collision.iter_mut().flatten() {
            poly.planes[0].normal[0] = 1;
        }
    }
    let err = test_level(&source, &TestLevelOptions::default()).unwrap_err();
    assert_eq!(err, TestLevelError::NoFlatFloor);
    assert!(err.to_string().contains("no flat floor tile"), "{err}");
}

/// A level whose collision was written ×4096, as note 001's tools write it, reaches 0.8 % past
/// each floor's border as the engine reads it: no reach by the one coverage rule, so its plates
/// need no more collision-only tiles than the same level written at the engine's scale (once:
/// 27 plates, 223 such tiles on a tiny level).
#[test]
fn a_level_written_at_either_scale_gets_the_same_test_area() {
    use llamawad::generate::{generate_with, CollisionScales};
    for size in [Size::Tiny, Size::Full] {
        let coverage = |scales| {
            let source = generate_with(1, size, scales);
            let (level, report) = test_level(&source, &TestLevelOptions::default()).unwrap();
            let new_errors = check_against(&level, &source)
                .new_problems()
                .filter(|p| p.severity == llamawad::game::Severity::Error)
                .count();
            assert_eq!(new_errors, 0, "{size} at {scales}");
            report.coverage_tiles
        };
        let engine = coverage(CollisionScales::Engine);
        assert!(engine <= 9, "{size}: {engine}");
        for scales in [CollisionScales::Notes, CollisionScales::Mixed] {
            assert_eq!(coverage(scales), engine, "{size} at {scales}");
        }
    }
}
