//! The floor test against the notes' crate case (FORMAT.md §4: t1l4m002, cell 57/43, tile 443 =
//! model 129) and against levels built by hand.

use glam::{DVec3, Vec3};

use super::*;
use crate::game::space::to_local;
use crate::geometry::encode_collision_polygon;
use crate::level::{Map, Tile};
use crate::raw::{CollisionPlane, CollisionPolygon};

/// Tile 443's placement: B (57.5, 2.0, 43.5), ry 3072.
const ORIGIN: DVec3 = DVec3::new(57.5, 2.0, 43.5);
const RY: u32 = 3072;

/// A polygon with the given surface plane (normal ×127 and d, tile frame) and edge planes that
/// hold the given world corners (in either order), as the project's encoder makes them.
fn polygon(world: &[DVec3], normal: [i8; 3], d: i16, material: u8) -> CollisionPolygon {
    let mut local: Vec<Vec3> = world
        .iter()
        .map(|&p| to_local(ORIGIN, p, RY).as_vec3())
        .collect();
    let mut poly = encode_collision_polygon(&local, material).expect("a polygon");
    if poly.planes[0].normal[1] < 0 {
        local.reverse();
        poly = encode_collision_polygon(&local, material).expect("a polygon");
    }
    poly.planes[0] = CollisionPlane { normal, pad: 0, d };
    poly
}

/// d of a plane through `world` with the tile-frame normal `n`: round(32·n·P) for P midway
/// between the points' extremes (FORMAT.md §4).
fn d_through(world: &[DVec3], n: [i8; 3]) -> i16 {
    let n = DVec3::from_array(n.map(f64::from));
    let s: Vec<f64> = world
        .iter()
        .map(|&p| n.dot(to_local(ORIGIN, p, RY)))
        .collect();
    let mid = (s.iter().cloned().fold(f64::MAX, f64::min)
        + s.iter().cloned().fold(f64::MIN, f64::max))
        / 2.0;
    (32.0 * mid).round() as i16
}

/// A wall (ny = 0): the floor test skips it, so it only fills polygon numbers.
fn wall() -> CollisionPolygon {
    let corners = [
        Vec3::new(0.5, 0.0, -0.5),
        Vec3::new(0.5, 0.0, 0.5),
        Vec3::new(0.5, 1.0, 0.5),
        Vec3::new(0.5, 1.0, -0.5),
    ];
    encode_collision_polygon(&corners, 0).unwrap()
}

/// Cell 57/43 of t1l4m002 with the two polygons of the note: 2 (the path, ny 0.99) and 15 (the
/// needle triangle along the crate's side, plane (108, 65, 10)/127, corners as published).
pub(crate) fn crate_level() -> (Map, Vec<Model>) {
    let needle = [
        DVec3::new(57.725, 2.553, 43.734),
        DVec3::new(57.750, 2.651, 43.677),
        DVec3::new(57.315, 2.497, 43.729),
    ];
    let needle_normal = [108, 65, 10];
    // The path: height 2.2700 at 57.204 / 43.745 as the note measured, rising 9/126 towards +x
    // (world normal (−9, 126, 0), |n| = 0.995 · 127: "ny 0.99").
    let path_y = |x: f64| 2.27 + 9.0 / 126.0 * (x - 57.204);
    let path: Vec<DVec3> = [(56.9, 44.0), (57.32, 44.0), (57.32, 43.0), (56.9, 43.0)]
        .iter()
        .map(|&(x, z)| DVec3::new(x, path_y(x), z))
        .collect();
    // Its tile-frame normal: world (x, y, z) turns to (z, y, −x) at ry 3072.
    let path_normal = [0, 126, 9];
    let path_d = d_through(&[DVec3::new(57.204, 2.27, 43.745)], path_normal);

    let mut polygons = vec![wall(); 16];
    polygons[2] = polygon(&path, path_normal, path_d, 0);
    polygons[15] = polygon(&needle, needle_normal, d_through(&needle, needle_normal), 0);
    let model = Model {
        collision: [polygons, Vec::new(), Vec::new()],
        ..Model::default()
    };
    let mut models = vec![Model::default(); 129];
    models.push(model);
    let mut map = Map {
        width: 64,
        height: 64,
        ..Map::default()
    };
    // Tiles 0..442 elsewhere, 443 the crate.
    for i in 0..443 {
        map.tiles
            .push(Tile::new([(i % 50) as f32 + 0.5, 0.0, -10.5], 0, 0));
    }
    map.tiles.push(Tile::new([57.5, 2.0, -43.5], RY, 129));
    (map, models)
}

#[test]
fn the_crate_case_of_note_001() {
    let (map, models) = crate_level();
    let world = World::new(&map, &models);
    // (written x y z, winning polygon, its height) from the notes' table; the heights to the
    // 1/2000: the note publishes the needle's corners to 1/1000, which sets its d to about ±1.
    let rows = [
        ((57.204, 2.474, 43.733), 15, 2.4744),
        ((57.204, 2.27, 43.733), 15, 2.4744),
        ((57.204, 2.27, 43.736), 15, 2.4690),
        ((57.204, 2.27, 43.745), 2, 2.2700),
        ((57.15, 2.27, 43.733), 2, 2.2661),
    ];
    for ((x, y, z), polygon, height) in rows {
        let probe = world.probe(x, y, z);
        let floor = probe
            .floor
            .unwrap_or_else(|| panic!("{x} {y} {z}: no floor {probe:#?}"));
        assert_eq!(
            (floor.tile, floor.polygon),
            (443, polygon),
            "{x} {y} {z}: {probe:#?}"
        );
        assert!(
            (floor.height - height).abs() < 5e-4,
            "{x} {y} {z}: {} vs {height}",
            floor.height
        );
    }

    // The boot start: poly 15 passes outside its edges, within the tolerance −95 of ny 65; the
    // path passes too, with dist 0.454, and loses to the higher surface.
    let boot = world.probe(57.204, 2.474, 43.733);
    let needle = boot.candidates.iter().find(|c| c.polygon == 15).unwrap();
    assert_eq!(needle.tolerance, -95);
    assert!(needle.passed);
    // The note's e = (−37, 2005, −72): the same edges (in another order, the order the corners are
    // published in). The edge planes are this project's encoding of the published corners, not
    // the original bytes: the two that decide (just outside the needle) agree to 1/500 of a unit,
    // the far one to 1/100.
    let mut edges = needle.edges.clone();
    edges.sort();
    for ((got, note), slack) in edges.iter().zip([-72, -37, 2005]).zip([10, 10, 40]) {
        assert!(
            (got - note).abs() <= slack,
            "{:?} vs the note's (−37, 2005, −72)",
            needle.edges
        );
    }
    assert!((needle.dist - 0.2498).abs() < 5e-4, "{needle:?}");
    let path = boot.candidates.iter().find(|c| c.polygon == 2).unwrap();
    assert!(path.passed);
    assert!((path.dist - 0.454).abs() < 1e-3, "{path:?}");
    assert_eq!(path.edges.len(), 4);
    // Walls (ny = 0) are skipped, not candidates.
    assert_eq!(boot.candidates.len(), 2);
}

#[test]
fn the_needle_sliver_is_about_a_hundredth_wide() {
    // The notes: at x = 57.204 the sliver is only z 43.7300–43.7402 wide.
    let (map, models) = crate_level();
    let world = World::new(&map, &models);
    let on_needle = |z: f64| world.probe(57.204, 2.27, z).floor.unwrap().polygon == 15;
    let zs: Vec<f64> = (0..400).map(|i| 43.70 + i as f64 * 0.0002).collect();
    let inside: Vec<f64> = zs.iter().copied().filter(|&z| on_needle(z)).collect();
    let (lo, hi) = (inside[0], inside[inside.len() - 1]);
    assert!(
        (lo - 43.7300).abs() < 0.003 && (hi - 43.7402).abs() < 0.003,
        "{lo}..{hi}"
    );
}

#[test]
fn selection_takes_the_highest_surface_within_reach_of_the_feet() {
    // Two flat floors in one tile, 0.2 and 0.5 above the tile origin; the probe's lift is 0.25
    // plus 1/32 of slack.
    let square = |y: f32| {
        let c = [
            Vec3::new(-0.5, y, 0.5),
            Vec3::new(0.5, y, 0.5),
            Vec3::new(0.5, y, -0.5),
            Vec3::new(-0.5, y, -0.5),
        ];
        encode_collision_polygon(&c, 0).unwrap()
    };
    let mut water = square(0.0);
    water.material = MATERIAL_NO_FLOOR;
    let mut special = square(0.4);
    special.material = MATERIAL_IGNORED;
    let model = Model {
        collision: [vec![square(0.2), square(0.5)], vec![special], vec![water]],
        ..Model::default()
    };
    let mut map = Map {
        width: 4,
        height: 4,
        ..Map::default()
    };
    map.tiles.push(Tile::new([1.5, 1.0, -1.5], 0, 0));
    let models = [model];
    let world = World::new(&map, &models);
    // Heights to the 1/1000: d at the 1/4064 scale, read back in 1/4096 steps.
    let floor = |y: f64| {
        world
            .probe(1.3, y, 1.6)
            .floor
            .map(|f| (f.polygon, (f.height * 1000.0).round() / 1000.0))
    };
    assert_eq!(floor(1.2), Some((0, 1.2)), "standing on the lower floor");
    // 0.5 is 0.3 above feet at 1.2: beyond 0.25 + 1/32, so the lower floor stays.
    assert_eq!(floor(1.19), Some((0, 1.2)));
    // At 1.25 the upper floor is 0.25 above: within reach, and higher: the llama steps up.
    assert_eq!(floor(1.25), Some((1, 1.5)));
    assert_eq!(floor(3.0), Some((1, 1.5)));
    // 0.3 below the lower floor only the water plane (0.1 below) is in reach: chosen, then
    // "no floor".
    let probe = world.probe(1.3, 0.9, 1.6);
    assert_eq!(probe.floor, None);
    assert_eq!(probe.no_floor.map(|s| s.polygon), Some(3));
    assert_eq!(
        probe.surface_above.map(|s| s.polygon),
        Some(0),
        "the lowest surface above"
    );
    // Material 0x11 is skipped; with the alternative flag 0x12 would be, and 0x11 counts.
    assert!(probe
        .candidates
        .iter()
        .all(|c| c.material != MATERIAL_IGNORED));
    let alt = World::new(&map, &models).with_alternative_material();
    assert_eq!(alt.probe(1.3, 1.16, 1.6).floor.map(|f| f.polygon), Some(2));
    // Outside the tile's cell nothing is tested, wherever its polygons reach.
    assert_eq!(
        world.probe(2.01, 3.0, 1.6).cell,
        Some(Cell { col: 2, row: 1 })
    );
    assert!(world.probe(2.01, 3.0, 1.6).candidates.is_empty());
    assert_eq!(world.probe(-1.0, 3.0, 1.6).cell, None);
}

/// A point from outside that is not three finite numbers is refused, not probed at cell 0, 0
/// (where NaN lands in fixed point).
#[test]
fn a_point_not_of_finite_numbers_is_refused() {
    let map = Map {
        width: 2,
        height: 2,
        ..Map::default()
    };
    let world = World::new(&map, &[]);
    for point in [
        [f64::NAN; 3],
        [1.0, f64::INFINITY, 1.0],
        [f64::NEG_INFINITY, 0.0, 0.0],
    ] {
        let refused = world.probe_point(point).unwrap_err();
        assert!(refused.to_string().contains("not three finite numbers"));
    }
    assert_eq!(
        world.probe_point([0.5, 1.0, 0.5]).unwrap().cell,
        Some(Cell { col: 0, row: 0 })
    );
}

/// `World::floor` leaves out the polygons whose tolerance zone misses the point: it finds what
/// the whole test finds, at random points and heights of generated levels (tiles turned by any
/// angle among them) and just beside every polygon's corners.
#[test]
fn the_floor_of_the_zones_near_the_point_is_the_floor_of_the_whole_test() {
    use crate::generate::{generate, Size};
    for (seed, size) in [(1, Size::Small), (2, Size::Full), (3, Size::Small)] {
        let level = generate(seed, size);
        let world = World::of(&level).unwrap();
        let map = level.map().unwrap();
        let mut points = crate::game::floors::random_points(map.width, map.height, 3000, seed)
            .unwrap()
            .into_iter()
            .enumerate()
            .map(|(k, [x, _, z])| [x, (k % 40) as f64 * 0.25 - 2.0, z])
            .collect::<Vec<_>>();
        for tile in map.tiles.iter().take(300) {
            let model = &level.trak().unwrap().models[tile.model_index as usize];
            for poly in model.collision_polygons() {
                for corner in crate::game::space::world_polygon(tile, poly) {
                    for (dx, dz) in [(0.01, 0.0), (-0.02, 0.01), (0.0, -0.015)] {
                        points.push([corner.x + dx, corner.y + 0.1, corner.z + dz]);
                    }
                }
            }
        }
        for [x, y, z] in points {
            let probe = world.probe(x, y, z);
            assert_eq!(
                world.floor(x, y, z),
                (probe.floor, probe.no_floor),
                "seed {seed} at {x} {y} {z}"
            );
        }
    }
}
