//! Every generated level keeps the game's rules (`game::check`), and shows what the notes allow:
//! tiles off the cell centres and turned by any angle, collision shared with neighbouring cells
//! through collision-only tiles, geometry reaching beyond the grid, special surfaces over
//! ordinary ground.

use glam::DVec3;

use super::super::{generate, Size};
use crate::game::cells::{tile_cell, Cell};
use crate::game::coverage::{copies_of, is_collision_only};
use crate::game::floor::{World, MATERIAL_IGNORED, MATERIAL_IGNORED_ALT};
use crate::game::space::to_world;
use crate::game::space::{tile_origin, world_polygon};
use crate::game::Severity;
use crate::level::Level;

/// 50 seeds of each size: no error and no warning. (Needle spikes, the one warning a generated
/// level could honestly carry, have not occurred either; this test would show the first.)
#[test]
fn fifty_seeds_of_every_size_keep_every_rule() {
    for size in Size::ALL {
        for seed in 1..=50 {
            let report = crate::game::check(&generate(seed, size));
            let errors: Vec<_> = report
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{size} seed {seed}: {errors:#?}");
            assert!(
                report.problems.is_empty(),
                "{size} seed {seed}: {:#?}",
                report.problems
            );
        }
    }
}

/// What one level shows of the placements the notes allow.
#[derive(Debug, Default)]
struct Shown {
    off_centre: usize,
    turned: usize,
    /// Listed by the loader under a cell other than the one its origin stands in.
    listed_elsewhere: usize,
    copies: usize,
    /// Tiles whose render geometry reaches more than a unit beyond the grid.
    beyond_grid: usize,
    /// The farthest any vertex lies from its tile's origin across the grid (x or z).
    reach: f64,
}

fn shown(level: &Level) -> Shown {
    let map = level.map().unwrap();
    let models = &level.trak().unwrap().models;
    let (w, h) = (map.width as f64, map.height as f64);
    let mut shown = Shown::default();
    for tile in &map.tiles {
        let model = &models[tile.model_index as usize];
        let [x, _, z] = tile.float.position.map(f64::from);
        let cell = tile_cell(tile, map.width, map.height).expect("inside the grid");
        shown.off_centre += ((x - 0.5).fract() != 0.0 || (-z - 0.5).fract() != 0.0) as usize;
        shown.turned += (tile.float.rotation % 1024 != 0) as usize;
        let stands_in = Cell {
            col: x.floor() as u32,
            row: (-z).floor() as u32,
        };
        shown.listed_elsewhere += (cell != stands_in) as usize;
        shown.copies += is_collision_only(model) as usize;
        let origin = tile_origin(tile);
        let rotation = tile.fixed.rotation[1] as u32;
        let mut beyond = 0.0f64;
        for v in &model.vertices {
            let [vx, vy, vz] = v.position.map(f64::from);
            let p = to_world(origin, DVec3::new(vx, vy, -vz), rotation);
            shown.reach = shown
                .reach
                .max((p.x - origin.x).abs())
                .max((p.z - origin.z).abs());
            beyond = beyond.max(-p.x).max(p.x - w).max(-p.z).max(p.z - h);
        }
        shown.beyond_grid += (beyond > 1.0) as usize;
    }
    shown
}

#[test]
fn levels_show_what_the_notes_allow() {
    for size in [Size::Small, Size::Full] {
        for seed in 1..=5 {
            let level = generate(seed, size);
            let s = shown(&level);
            let what = format!("{size} seed {seed}: {s:?}");
            assert!(s.off_centre > 0 && s.turned > 0, "{what}");
            assert!(s.listed_elsewhere > 0, "{what}");
            assert!(s.copies > 0, "{what}");
            assert!(s.beyond_grid > 0, "{what}");
            // FORMAT.md §5: models may stick out up to ±2.4.
            assert!(s.reach <= 2.4 + 1e-3, "{what}");
        }
    }
}

/// Every collision-only tile is a coverage copy: its polygons are polygons of a tile that
/// reaches into its cell, moved there exactly.
#[test]
fn collision_only_tiles_are_copies_of_the_tiles_reaching_into_their_cell() {
    for (seed, size) in [(1, Size::Small), (2, Size::Small), (1, Size::Full)] {
        let level = generate(seed, size);
        let map = level.map().unwrap();
        let models = &level.trak().unwrap().models;
        let only = |t: &crate::level::Tile| is_collision_only(&models[t.model_index as usize]);
        let owners: Vec<usize> = (0..map.tiles.len())
            .filter(|&i| !only(&map.tiles[i]))
            .collect();
        let copies: Vec<usize> = (0..map.tiles.len())
            .filter(|&i| only(&map.tiles[i]))
            .collect();
        assert!(!copies.is_empty(), "{size} seed {seed}");
        assert_eq!(
            copies_of(map, models, &owners),
            copies,
            "{size} seed {seed}"
        );
    }
}

/// Materials 17 and 18 are special surfaces over ordinary ground: whoever skips one (the player
/// skips 17, strats with the other flag 18, FORMAT.md §4 step 2) finds material 0 just below it
/// (or something standing on it, a rock, higher up).
#[test]
fn special_surfaces_lie_over_ordinary_ground() {
    let mut seen = [0usize; 2];
    for seed in 1..=5 {
        let level = generate(seed, Size::Full);
        let map = level.map().unwrap();
        let world = World::of(&level).unwrap();
        let alternative = World::of(&level).unwrap().with_alternative_material();
        for tile in &map.tiles {
            let model = &level.trak().unwrap().models[tile.model_index as usize];
            for poly in model.collision_polygons() {
                let skipping = match poly.material {
                    MATERIAL_IGNORED => &world,
                    MATERIAL_IGNORED_ALT => &alternative,
                    _ => continue,
                };
                seen[(poly.material - MATERIAL_IGNORED) as usize] += 1;
                let corners = world_polygon(tile, poly);
                let centre = corners.iter().sum::<DVec3>() / corners.len() as f64;
                let probe = skipping.probe(centre.x, centre.y, centre.z);
                let ground = probe.candidates.iter().any(|c| {
                    c.passed
                        && !c.above
                        && c.material == 0
                        && (0.0..0.1).contains(&(centre.y - c.height))
                });
                assert!(ground, "seed {seed}: {centre}: {:#?}", probe.candidates);
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
}
