use glam::Vec3;

use super::*;
use crate::game::floor::{test_polygon, World};
use crate::game::space::{tile_origin, to_world};
use crate::geometry::{encode_collision_polygon, PlaneScale};

/// A floor tile's model: one quad over the unit square around the origin at `y`, plus a wall on
/// its +x side.
fn floor_model(y: f32) -> Model {
    let quad = [
        Vec3::new(-0.5, y, 0.5),
        Vec3::new(0.5, y, 0.5),
        Vec3::new(0.5, y, -0.5),
        Vec3::new(-0.5, y, -0.5),
    ];
    let wall = [
        Vec3::new(0.5, 0.0, -0.5),
        Vec3::new(0.5, 0.0, 0.5),
        Vec3::new(0.5, 1.0, 0.5),
        Vec3::new(0.5, 1.0, -0.5),
    ];
    Model {
        collision: [
            vec![encode_collision_polygon(&quad, 0).unwrap()],
            Vec::new(),
            vec![encode_collision_polygon(&wall, 0).unwrap()],
        ],
        ..Model::default()
    }
}

fn map_with(tiles: Vec<Tile>) -> Map {
    Map {
        width: 8,
        height: 8,
        tiles,
        ..Map::default()
    }
}

fn square(x0: f64, z0: f64, size: f64) -> Vec<DVec3> {
    [(0.0, 0.0), (size, 0.0), (size, size), (0.0, size)]
        .iter()
        .map(|&(dx, dz)| DVec3::new(x0 + dx, 0.0, z0 + dz))
        .collect()
}

fn cell(col: u32, row: u32) -> Cell {
    Cell { col, row }
}

#[test]
fn depth_is_how_far_a_polygon_lies_in_from_the_sides_of_a_cell() {
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
    assert!(near(depth(&square(2.0, 3.0, 1.0), cell(2, 3)), 1.0));
    assert!(near(depth(&square(2.3, 3.0, 1.0), cell(3, 3)), 0.3));
    assert!(near(depth(&square(2.3, 3.7, 1.0), cell(3, 4)), 0.3));
    assert!(near(depth(&square(2.02, 3.0, 1.0), cell(3, 3)), 0.02));
    assert_eq!(depth(&square(2.0, 3.0, 1.0), cell(4, 3)), None);
    // A wall (a line seen from above) along a border lies in neither cell.
    let wall = vec![
        DVec3::new(3.0, 0.0, 3.2),
        DVec3::new(3.0, 0.0, 3.8),
        DVec3::new(3.0, 1.0, 3.8),
        DVec3::new(3.0, 1.0, 3.2),
    ];
    assert!(near(depth(&wall, cell(3, 3)), 0.0));
    assert!(near(depth(&wall, cell(2, 3)), 0.0));
}

/// A flat floor quad over the unit square around the tile origin, as a tool writes it by hand
/// at either scale: surface at 0.25 (d 1024 or 1016), borders at ±0.5 (d 2048 or 2032).
fn hand_floor(scale: PlaneScale) -> CollisionPolygon {
    let steps = scale.steps();
    let d = |v: f64| (v * steps).round() as i16;
    let plane = |normal: [i8; 3], d: i16| crate::raw::CollisionPlane { normal, pad: 0, d };
    CollisionPolygon {
        kind: crate::raw::COLLISION_QUAD,
        material: 0,
        planes: [
            plane([0, 127, 0], d(0.25)),
            plane([0, 0, -127], -d(0.5)),
            plane([-127, 0, 0], -d(0.5)),
            plane([0, 0, 127], -d(0.5)),
            plane([127, 0, 0], -d(0.5)),
        ],
    }
}

fn one_polygon(poly: CollisionPolygon) -> Model {
    Model {
        collision: [vec![poly], Vec::new(), Vec::new()],
        ..Model::default()
    }
}

#[test]
fn a_floor_ending_on_its_cell_border_reaches_nowhere_at_either_scale() {
    // At ×4096 the engine finds the floor 3.9 mm past each border: the scale alone explains it.
    for scale in [PlaneScale::Engine, PlaneScale::Notes] {
        let model = one_polygon(hand_floor(scale));
        for rotation in [0, 1024, 2048, 3072] {
            let tile = Tile::new([3.5, 1.0, -3.5], rotation, 0);
            assert_eq!(
                reaches(&tile, &model, 8, 8),
                [],
                "{scale} turned {rotation}"
            );
        }
    }
    let engine = world_polygon(
        &Tile::new([3.5, 1.0, -3.5], 0, 0),
        &hand_floor(PlaneScale::Notes),
    );
    let past = engine.iter().map(|p| p.x).fold(f64::MIN, f64::max) - 4.0;
    assert!((past - 0.5 * 32.0 / 4064.0).abs() < 1e-4, "{past}");
}

#[test]
fn past_the_edge_tolerance_a_floor_needs_a_floor_then_one_as_high_and_a_wall_entering() {
    let floor = one_polygon(hand_floor(PlaneScale::Engine));
    let at = |dx: f32| {
        reaches(&Tile::new([3.5 + dx, 1.0, -3.5], 0, 0), &floor, 8, 8)
            .iter()
            .map(|r| (r.cell, r.need))
            .collect::<Vec<_>>()
    };
    // The flat floor's edge tolerance is 64/4064 = 0.0157.
    assert_eq!(at(0.012), []);
    assert_eq!(at(0.022), [(cell(4, 3), Need::AnyFloor)]);
    assert_eq!(at(0.1), [(cell(4, 3), Need::AsHigh)]);
    let wall = one_polygon(
        encode_collision_polygon(
            &[
                Vec3::new(0.0, 0.0, -0.3),
                Vec3::new(0.0, 0.0, 0.3),
                Vec3::new(0.0, 1.0, 0.3),
                Vec3::new(0.0, 1.0, -0.3),
            ],
            0,
        )
        .unwrap(),
    );
    let wall_at = |dx: f32| reaches(&Tile::new([3.5 + dx, 1.0, -3.5], 0, 0), &wall, 8, 8);
    assert_eq!(wall_at(0.5), [], "a wall along a border is in neither cell");
    assert_eq!(wall_at(0.52), [], "a wall within a sliver");
    let entered: Vec<_> = wall_at(0.55).iter().map(|r| (r.cell, r.need)).collect();
    assert_eq!(entered, [(cell(4, 3), Need::Entered)]);
}

#[test]
fn translated_planes_give_the_engine_the_same_heights() {
    // A slope, so that heights change along x and z, on tiles turned every way and off-centre.
    let slope = [
        Vec3::new(-0.5, 0.1, 0.5),
        Vec3::new(0.5, 0.4, 0.5),
        Vec3::new(0.5, 0.6, -0.5),
        Vec3::new(-0.5, 0.3, -0.5),
    ];
    let poly = encode_collision_polygon(&slope, 0).unwrap();
    for rotation in [0, 1024, 2048, 3072] {
        for (x, z) in [(3.5, 3.5), (3.8, 3.2), (4.2, 3.9)] {
            let owner = Tile::new([x, 1.0, -z], rotation, 0);
            for target in [cell(5, 1), cell(2, 3), cell(0, 7)] {
                let copy = copy_placement(&owner, target, 1);
                assert_eq!(tile_cell(&copy, 8, 8), Some(target));
                let moved = translate(&poly, frame_offset(&owner, &copy)).unwrap();
                // Every world point over the polygon, probed through either tile: the engine's
                // numbers agree exactly.
                for (u, v) in [(0.0, 0.0), (0.3, -0.2), (-0.45, 0.45), (0.52, 0.1)] {
                    let p = to_world(tile_origin(&owner), DVec3::new(u, 0.0, v), rotation);
                    let probe = [p.x, 2.0, p.z].map(|c| crate::game::space::to_fixed(c) as i64);
                    let a = test_polygon(&owner, &poly, probe, Some(0x11)).unwrap();
                    let b = test_polygon(&copy, &moved, probe, Some(0x11)).unwrap();
                    assert_eq!(
                        a, b,
                        "rotation {rotation}, tile at {x}, {z}, copy in {target:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn an_off_centre_tile_gets_copies_where_it_reaches_and_loses_them_when_moved_back() {
    let models = vec![floor_model(0.25)];
    let mut map = map_with(vec![Tile::new([3.5, 1.0, -3.5], 0, 0)]);
    let mut models = models;
    // Centred: the quad covers its own cell only; the wall on its border covers nothing.
    let change = rebuild(&mut map, &mut models, &[0], &[]).unwrap();
    assert!(change.copies.is_empty());
    assert_eq!(map.tiles.len(), 1);

    // Moved by (+0.3, +0.7): the quad now lies over four cells.
    map.tiles[0].set_placement([3.8, 1.0, -4.2], 0);
    assert_eq!(tile_cell(&map.tiles[0], 8, 8), Some(cell(3, 3)));
    let change = rebuild(&mut map, &mut models, &[0], &[]).unwrap();
    assert_eq!(change.copies, [1, 2, 3]);
    let cells: Vec<Cell> = map.tiles[1..]
        .iter()
        .map(|t| tile_cell(t, 8, 8).unwrap())
        .collect();
    assert_eq!(cells, [cell(4, 3), cell(3, 4), cell(4, 4)]);
    assert!(map.tiles[1..]
        .iter()
        .all(|t| is_collision_only(&models[t.model_index as usize])));
    // Every spot of the quad is a floor at its height, whichever cell the llama is in.
    let world = World::new(&map, &models);
    for i in 0..20 {
        for j in 0..20 {
            let (x, z) = (3.3 + 0.05 * i as f64 + 0.025, 3.7 + 0.05 * j as f64 + 0.025);
            let floor = world.probe(x, 1.5, z).floor;
            assert!(
                floor.is_some_and(|f| (f.height - 1.25).abs() < 1e-3),
                "{x} {z}: {floor:?}"
            );
        }
    }
    // The copies are recognised as the tile's, and moving back frees them: all three were the
    // last tiles, so they go.
    assert_eq!(copies_of(&map, &models, &[0]), [1, 2, 3]);
    let stale = copies_of(&map, &models, &[0]);
    map.tiles[0].set_placement([3.5, 1.0, -3.5], 0);
    let change = rebuild(&mut map, &mut models, &[0], &stale).unwrap();
    assert_eq!((change.copies.len(), change.removed), (0, 3));
    assert_eq!(map.tiles.len(), 1);
}

#[test]
fn freed_slots_are_reused_and_kept_when_not_at_the_end() {
    let mut models = vec![floor_model(0.25)];
    let mut map = map_with(vec![Tile::new([3.8, 1.0, -3.5], 0, 0)]);
    rebuild(&mut map, &mut models, &[0], &[]).unwrap();
    assert_eq!(map.tiles.len(), 2, "one copy east");
    // A tile after the copy: the copy's slot can no longer go when it is freed.
    map.tiles.push(Tile::new([6.5, 0.0, -6.5], 0, 0));
    let stale = copies_of(&map, &models, &[0]);
    assert_eq!(stale, [1]);
    map.tiles[0].set_placement([3.5, 1.0, -3.5], 0);
    let change = rebuild(&mut map, &mut models, &[0], &stale).unwrap();
    assert_eq!((change.freed.clone(), change.removed), (vec![1], 0));
    let empty = &models[map.tiles[1].model_index as usize];
    assert_eq!(empty.collision_count() + empty.faces.len(), 0);
    // Moved again: the emptied slot holds the new copy.
    map.tiles[0].set_placement([3.5, 1.0, -3.8], 0);
    let change = rebuild(&mut map, &mut models, &[0], &[]).unwrap();
    assert_eq!(change.copies, [3], "a free slot is only one given as stale");
}
