//! glTF → WAD: the round trip through our own GLB and .gltf is byte-identical for every generated
//! level; each edit made in the glTF (its JSON or its binary buffer, as another tool would)
//! arrives in the level and nothing else changes; each refusal names its culprit.

use llamawad::Code;
use std::collections::BTreeMap;

use glam::{Mat4, Quat, Vec3};
use gltf::json::{self, Index};
use llamawad::container::{self, Tag};
use llamawad::game::floor::{test_polygon, World};
use llamawad::game::space::to_fixed;
use llamawad::game::space::world_polygon;
use llamawad::generate::{generate, Size};
use llamawad::geometry::decode_collision_polygon;
use llamawad::gltf::uv::face_uvs;
use llamawad::gltf::{
    wad_to_gltf, ChangeReport, Document, GltfToWadError, GltfToWadOptions, NodeRef, Source,
    TileEdit,
};
use llamawad::level::{Model, Tile};
use llamawad::raw::CollisionPolygon;
use llamawad::Level;

mod doors;
mod support {
    pub mod case;
}

use support::case::{Case, Prim, OPTIONS};

fn temp_dir(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("llamawad-import-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn unchanged(base: &Level, base_bytes: &[u8], doc: &Document) -> Vec<u8> {
    let (level, report) = doors::convert(base, base_bytes, doc, OPTIONS).unwrap();
    assert!(
        report.is_empty() && report.warnings.is_empty(),
        "{report:?}"
    );
    level.to_bytes().unwrap()
}

#[test]
fn round_trip_through_glb_and_gltf_is_byte_identical() {
    let dir = temp_dir("roundtrip");
    for size in Size::ALL {
        for seed in 1..=20 {
            let what = format!("{size} seed {seed}");
            let bytes = generate(seed, size).to_bytes().unwrap();
            let base = Level::parse(&bytes).unwrap();
            let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
            let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
            assert!(
                unchanged(&base, &bytes, &doc) == bytes,
                "{what}: through the GLB"
            );
            // A .gltf whose buffer is a file beside it, named as artists name files: the URI
            // written must lead back to it.
            let bin = format!("Königreich {size} #{seed} 100%.bin");
            std::fs::write(dir.join(&bin), &gltf.bin).unwrap();
            let json = gltf.to_gltf_json(&bin);
            let uri = format!("K%C3%B6nigreich%20{size}%20%23{seed}%20100%25.bin");
            assert!(String::from_utf8_lossy(&json).contains(&format!("\"uri\": \"{uri}\"")));
            let doc = Document::from_slice(&json, Some(&dir)).unwrap();
            assert!(
                unchanged(&base, &bytes, &doc) == bytes,
                "{what}: through the .gltf"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the written level must keep: every chunk but TRAK and MAP byte for byte, the base's
/// models, and every MAP part except the tiles named (and the zones when `zones` is false).
struct Keep<'a> {
    tiles_changed: &'a [usize],
    zones_changed: bool,
}

fn assert_rest_unchanged(case: &Case, level: &Level, bytes: &[u8], keep: Keep) {
    let what = &case.what;
    let before = container::split(&case.bytes).unwrap();
    let after = container::split(bytes).unwrap();
    assert_eq!(
        before.chunks.len(),
        after.chunks.len(),
        "{what}: chunk count"
    );
    for (a, b) in before.chunks.iter().zip(&after.chunks) {
        assert_eq!(a.tag, b.tag, "{what}: chunk order");
        if a.tag != Tag::TRAK && a.tag != Tag::MAP {
            assert!(
                a.payload == b.payload,
                "{what}: chunk {} changed",
                a.tag.name()
            );
        }
    }
    let base_models = case.trak();
    let models = &level.trak().unwrap().models;
    assert!(models.len() >= base_models.len());
    assert!(
        models[..base_models.len()] == *base_models,
        "{what}: the base's models are kept"
    );

    let (old, new) = (case.base.map().unwrap(), level.map().unwrap());
    assert!(new.tiles.len() >= old.tiles.len());
    for (i, (a, b)) in old.tiles.iter().zip(&new.tiles).enumerate() {
        if !keep.tiles_changed.contains(&i) {
            assert!(a == b, "{what}: tile {i} changed");
        }
    }
    assert_eq!((old.width, old.height), (new.width, new.height));
    assert!(
        old.parameters == new.parameters
            && old.zones == new.zones
            && old.waypoints == new.waypoints
    );
    assert!(
        old.strats == new.strats
            && old.paths == new.paths
            && old.strat_pool_extra == new.strat_pool_extra
    );
    assert!(old.view_distance == new.view_distance && old.last == new.last);
    if !keep.zones_changed {
        assert!(
            old.regions == new.regions && old.region_grid == new.region_grid,
            "{what}: zones changed"
        );
    }
    let new_problems: Vec<_> = llamawad::game::check_against(level, &case.base)
        .new_problems()
        .cloned()
        .collect();
    assert!(
        new_problems.is_empty(),
        "{what}: new problems {new_problems:?}"
    );
}

fn only_tiles(tiles: &[usize]) -> Keep<'_> {
    Keep {
        tiles_changed: tiles,
        zones_changed: false,
    }
}

/// A face as a comparable value: flags without the batch bit, texture entry, and its corner
/// positions starting at the first corner.
fn face_key(model: &Model, f: usize) -> (u16, u16, [[u32; 3]; 3]) {
    let face = &model.faces[f];
    // 0.0 and -0.0 are the same position.
    let corner = |k: usize| {
        model.vertices[face.corners[k] as usize]
            .position
            .map(|v| (v + 0.0).to_bits())
    };
    (
        face.flags & !0x8,
        face.texture,
        [corner(0), corner(1), corner(2)],
    )
}

fn face_keys(model: &Model) -> Vec<(u16, u16, [[u32; 3]; 3])> {
    let mut keys: Vec<_> = (0..model.faces.len()).map(|f| face_key(model, f)).collect();
    keys.sort();
    keys
}

/// The tile now has a model of its own (appended after the base's) and every other tile that
/// used its old model keeps that.
fn assert_own_model(case: &Case, level: &Level, tile: usize) -> Model {
    let old = case.tiles()[tile].model_index;
    let new = &level.map().unwrap().tiles[tile];
    assert!(
        new.model_index as usize >= case.trak().len(),
        "{}: tile {tile} has a new model",
        case.what
    );
    assert_eq!(new.float.model, new.model_index);
    for (j, t) in case.tiles().iter().enumerate() {
        if j != tile && t.model_index == old {
            assert_eq!(
                level.map().unwrap().tiles[j].model_index,
                old,
                "{}: tile {j} keeps model {old}",
                case.what
            );
        }
    }
    level.trak().unwrap().models[new.model_index as usize].clone()
}

fn export_y_rotation(rotation: u32) -> Quat {
    Quat::from_rotation_y(rotation as f32 / 4096.0 * std::f32::consts::TAU)
}

#[test]
fn a_moved_tile_moves_and_nothing_else_changes() {
    let mut case = Case::new(2, Size::Small);
    let (tile, other) = case.shared_tile();
    // Onto another tile's cell, which the zones can see.
    let target = case.tiles()[other].float.position;
    let from = case.tiles()[tile].float.position;
    let node = case.tile_node(tile);
    case.gltf.root.nodes[node].translation = Some([target[0], from[1] + 0.5, -target[2]]);
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_moved, vec![tile]);
    assert_eq!(
        (report.models_added, report.tiles_reshaped.len()),
        (0, 0),
        "{report:?}"
    );
    let mut expected = case.tiles()[tile].clone();
    expected.set_placement(
        [target[0], from[1] + 0.5, target[2]],
        expected.float.rotation,
    );
    assert_eq!(level.map().unwrap().tiles[tile], expected);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

#[test]
fn a_moved_door_takes_its_swap_entry_along() {
    // FORMAT.md §6 block 10: a swap entry {cellX, y, cellZ, modelA, modelB} belongs to its tile.
    let (case, door) = (1..=20)
        .find_map(|seed| {
            let case = Case::new(seed, Size::Small);
            let door = case.tiles().iter().position(|t| t.swap.is_some())?;
            Some((case, door))
        })
        .expect("a level with a tile swap");
    let mut case = case;
    let from = case.tiles()[door].clone();
    let [x, y, z] = from.float.position;
    let (dx, dz) = if x + 2.0 < case.base.map().unwrap().width as f32 {
        (2.0, 0.0)
    } else {
        (-2.0, 0.0)
    };
    let node = case.tile_node(door);
    case.gltf.root.nodes[node].translation = Some([x + dx, y + 0.5, -z + dz]);
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_moved, vec![door]);
    let swap = level.map().unwrap().tiles[door].swap.unwrap();
    let old = from.swap.unwrap();
    assert_eq!(
        (swap.cell_x as f32, swap.cell_z),
        (old.cell_x as f32 + dx, old.cell_z)
    );
    assert_eq!(swap.y, ((y + 0.5) * 4096.0) as u32);
    assert_eq!((swap.model_a, swap.model_b), (old.model_a, old.model_b));
    let mut changed = vec![door];
    changed.extend(&report.coverage_freed);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&changed));
}

#[test]
fn a_tile_turned_about_y_turns() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let rotation = case.tiles()[tile].float.rotation;
    let node = case.tile_node(tile);
    let turned = (rotation + 1024) % 4096;
    case.gltf.root.nodes[node].rotation = Some(json::scene::UnitQuaternion(
        export_y_rotation(turned).to_array(),
    ));
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_moved, vec![tile]);
    let new = &level.map().unwrap().tiles[tile];
    assert_eq!(new.float.rotation, turned);
    assert_eq!(new.fixed.rotation, [0, turned as i32, 0]);
    assert_eq!(new.float.position, case.tiles()[tile].float.position);
    assert_eq!(new.colours, case.tiles()[tile].colours);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

/// Points over the floors (up-facing polygons) of a tile, world game space, with the height of
/// the polygon there by the engine's own arithmetic: each polygon's centre and its corners
/// pulled a third of the way in.
fn floor_samples(level: &Level, tile: usize) -> Vec<(f64, f64, f64)> {
    let t = &level.map().unwrap().tiles[tile];
    let model = &level.trak().unwrap().models[t.model_index as usize];
    let mut out = Vec::new();
    for poly in model
        .collision_polygons()
        .filter(|p| p.planes[0].normal[1] > 90)
    {
        let corners = world_polygon(t, poly);
        let centre = corners.iter().copied().sum::<glam::DVec3>() / corners.len() as f64;
        for p in std::iter::once(centre).chain(corners.iter().map(|c| *c + (centre - *c) / 3.0)) {
            let point = [to_fixed(p.x), 0, to_fixed(p.z)].map(i64::from);
            let own = test_polygon(t, poly, point, None).unwrap();
            out.push((p.x, own.height, p.z));
        }
    }
    out
}

/// Every floor sample of `tile` is a floor the engine finds, whichever cell it lies in.
fn assert_floors_found(level: &Level, tile: usize, what: &str) {
    let world = World::of(level).unwrap();
    let samples = floor_samples(level, tile);
    assert!(samples.len() >= 5, "{what}: {} samples", samples.len());
    let lost: Vec<_> = samples
        .iter()
        .filter(|&&(x, h, z)| {
            world
                .probe(x, h + 0.1, z)
                .floor
                .is_none_or(|f| f.height < h - 0.001)
        })
        .collect();
    assert!(
        lost.is_empty(),
        "{what}: {} of {} samples fall through: {lost:?}",
        lost.len(),
        samples.len()
    );
}

#[test]
fn a_tile_moved_off_centre_or_turned_45_degrees_keeps_its_floors_in_every_cell() {
    // FORMAT.md §4 "Cells": the floor test reads only the tiles of the llama's cell; a floor that
    // now reaches into neighbouring cells must be entered there.
    for (dx, dz, turn) in [(0.3, 0.7, 0), (0.0, 0.0, 512), (-0.45, 0.2, 300)] {
        let mut case = Case::new(3, Size::Small);
        let tile = (0..case.tiles().len())
            .find(|&i| {
                let t = &case.tiles()[i];
                let m = case.model_of(i);
                !m.faces.is_empty()
                    && t.swap.is_none()
                    && m.collision_polygons().any(|p| p.planes[0].normal[1] > 120)
            })
            .unwrap();
        let what = format!("moved by ({dx}, {dz}), turned by {turn}");
        let [x, y, z] = case.tiles()[tile].float.position;
        let rotation = (case.tiles()[tile].float.rotation + turn) % 4096;
        let node = case.tile_node(tile);
        case.gltf.root.nodes[node].translation = Some([x + dx, y, -z + dz]);
        case.gltf.root.nodes[node].rotation = Some(json::scene::UnitQuaternion(
            export_y_rotation(rotation).to_array(),
        ));
        let (level, report, bytes) = case.written();
        assert_eq!(report.tiles_moved, vec![tile], "{what}");
        assert!(!report.coverage_tiles.is_empty(), "{what}: {report:?}");
        assert_floors_found(&level, tile, &what);
        let mut changed = vec![tile];
        changed.extend(&report.coverage_freed);
        assert_rest_unchanged(&case, &level, &bytes, only_tiles(&changed));

        // Moved back: the coverage tiles serve no more and go.
        let moved = Level::parse(&bytes).unwrap();
        let mut back = Case::with_base(moved, &format!("{what}, then back"));
        let node = back.tile_node(tile);
        back.gltf.root.nodes[node].translation = Some([x, y, -z]);
        back.gltf.root.nodes[node].rotation = Some(json::scene::UnitQuaternion(
            export_y_rotation(case.tiles()[tile].float.rotation).to_array(),
        ));
        let (level, report, _) = back.written();
        assert_eq!(
            report.coverage_removed,
            back.tiles().len() - case.tiles().len(),
            "{report:?}"
        );
        assert_eq!(
            level.map().unwrap().tiles,
            case.tiles().to_vec(),
            "{what}: the tiles are the base's again"
        );
        assert_floors_found(&level, tile, &what);
    }
}

/// Every tile node's collision child taken off (the add-on's scene before collision is shown).
fn without_tile_collision(case: &mut Case) {
    for n in 0..case.gltf.root.nodes.len() {
        if case.extras(n)["llamawad"] == "tile" {
            case.gltf.root.nodes[n].children = None;
        }
    }
}

#[test]
fn tiles_without_collision_nodes_keep_it_when_the_scene_leaves_tile_collision_out() {
    let mut case = Case::new(2, Size::Small);
    let (tile, other) = case.shared_tile();
    without_tile_collision(&mut case);
    let left_out = GltfToWadOptions {
        tile_collision_given: false,
        ..OPTIONS
    };
    let convert =
        |case: &Case| doors::convert(&case.base, &case.bytes, &case.document(), left_out).unwrap();

    // Unchanged: the base's bytes.
    let (level, report) = convert(&case);
    assert!(report.is_empty(), "{report:?}");
    assert!(level.to_bytes().unwrap() == case.bytes);

    // A moved tile and a reshaped one keep their model's collision.
    let target = case.tiles()[other].float.position;
    let node = case.tile_node(tile);
    case.gltf.root.nodes[node].translation = Some([target[0], target[1] + 0.5, -target[2]]);
    let reshaped = (0..case.tiles().len())
        .find(|&t| {
            t != tile && t != other && {
                let m = case.model_of(t);
                !m.faces.is_empty() && m.collision_count() > 0
            }
        })
        .expect("another tile with faces and collision");
    let node = case.tile_node(reshaped);
    case.edit_mesh(node, |prims| {
        let moved = prims[0].position(0) + Vec3::new(0.0, 0.125, 0.0);
        prims[0].set_position(0, moved);
    });
    let (level, report) = convert(&case);
    assert_eq!(report.tiles_moved, vec![tile]);
    assert_eq!(report.tiles_reshaped, vec![reshaped]);
    assert_eq!(report.collision_polygons_changed, 0, "{report:?}");
    let map = level.map().unwrap();
    let models = &level.trak().unwrap().models;
    assert_eq!(map.tiles[tile].model_index, case.tiles()[tile].model_index);
    let new_model = &models[map.tiles[reshaped].model_index as usize];
    assert_eq!(new_model.collision, case.model_of(reshaped).collision);

    // Where the scene gives tile collision, a tile without it had it deleted: with every tile's
    // gone, the Llama falls at the start.
    let e = doors::convert(&case.base, &case.bytes, &case.document(), OPTIONS).unwrap_err();
    let problems = &e.broken.as_ref().expect("the game's rules").problems;
    assert!(problems.iter().any(|p| p.code == Code::PlayerStart), "{e}");
}

#[test]
fn a_moved_vertex_gives_the_tile_a_model_of_its_own() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base_model = case.model_of(tile).clone();
    let v = base_model.faces[0].corners[0] as usize;
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| {
        for p in prims {
            for c in 0..p.corners() {
                if p.get("_VERTEX")[c] as usize == v {
                    let moved = p.position(c) + Vec3::new(0.0, 0.125, 0.0);
                    p.set_position(c, moved);
                }
            }
        }
    });
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile]);
    assert_eq!(
        report.tile_edits,
        vec![(tile, vec![TileEdit::VerticesMoved])]
    );
    assert_eq!(report.models_added, 1);
    let model = assert_own_model(&case, &level, tile);
    assert_eq!(level.trak().unwrap().models.len(), case.trak().len() + 1);
    // Numbered like the base: the same vertices, only v higher.
    assert_eq!(model.vertices.len(), base_model.vertices.len());
    for (k, (a, b)) in base_model.vertices.iter().zip(&model.vertices).enumerate() {
        let mut expected = a.position;
        if k == v {
            expected[1] += 0.125;
        }
        assert_eq!(b.position, expected, "vertex {k}");
    }
    // The same faces, corners in the same order; planes recomputed where v is a corner.
    assert_eq!(model.faces.len(), base_model.faces.len());
    for (a, b) in base_model.faces.iter().zip(&model.faces) {
        assert_eq!(
            (a.flags, a.corners, a.texture),
            (b.flags, b.corners, b.texture)
        );
        if !a.corners.contains(&(v as u16)) {
            assert_eq!(a.plane, b.plane);
        }
    }
    assert_eq!(model.collision, base_model.collision);
    // The colours are the tile's, vertex for vertex.
    assert_eq!(
        level.map().unwrap().tiles[tile].colours,
        case.tiles()[tile].colours
    );
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

#[test]
fn faces_added_and_removed() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base_model = case.model_of(tile).clone();
    let node = case.tile_node(tile);
    let mut removed = None;
    let mut added = None;
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        // Remove the first triangle; add a copy of the second, lifted by 0.25.
        removed = Some(p.get("_FACE")[0] as usize);
        let t = p.push_copy(1);
        for c in 3 * t..3 * t + 3 {
            let lifted = p.position(c) + Vec3::new(0.0, 0.25, 0.0);
            p.set_position(c, lifted);
            // A new face: no base face or vertex of its own.
            p.get_mut("_FACE")[c] = f32::NAN;
            p.get_mut("_VERTEX")[c] = f32::NAN;
        }
        added = Some(p.get("_FACE")[3] as usize);
        p.retain_triangles(|t| t != 0);
    });
    let (removed, added) = (removed.unwrap(), added.unwrap());
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile]);
    assert_eq!(
        report.tile_edits,
        vec![(tile, vec![TileEdit::FacesAdded, TileEdit::FacesRemoved])]
    );
    let model = assert_own_model(&case, &level, tile);
    let mut expected: Vec<_> = (0..base_model.faces.len())
        .filter(|&f| f != removed)
        .map(|f| face_key(&base_model, f))
        .collect();
    let (flags, texture, corners) = face_key(&base_model, added);
    expected.push((
        flags,
        texture,
        corners.map(|c| {
            let mut p = c.map(f32::from_bits);
            p[1] += 0.25;
            p.map(|v| (v + 0.0).to_bits())
        }),
    ));
    expected.sort();
    assert_eq!(face_keys(&model), expected);
    // The base vertices the remaining faces use, in the base's order, then the new face's three.
    let mut used: Vec<usize> = (0..base_model.faces.len())
        .filter(|&f| f != removed)
        .flat_map(|f| base_model.faces[f].corners.map(usize::from))
        .collect();
    used.sort_unstable();
    used.dedup();
    assert_eq!(model.vertices.len(), used.len() + 3);
    for (k, &v) in used.iter().enumerate() {
        assert_eq!(
            model.vertices[k].position, base_model.vertices[v].position,
            "vertex {k} is base vertex {v}"
        );
    }
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

#[test]
fn a_face_flag_and_a_texture_entry_changed() {
    for what in ["flags", "texture"] {
        let mut case = Case::new(2, Size::Small);
        let (tile, _) = case.shared_tile();
        let base_model = case.model_of(tile).clone();
        let entries = case.base.text().unwrap().entries.len();
        let node = case.tile_node(tile);
        let mut face = 0;
        let mut value = 0u16;
        case.edit_mesh(node, |prims| {
            let p = &mut prims[0];
            face = p.get("_FACE")[3] as usize;
            let (name, v) = match what {
                // Double-sided on, off.
                "flags" => ("_FLAGS", base_model.faces[face].flags ^ 0x0400),
                _ => (
                    "_TEXTURE",
                    ((base_model.faces[face].texture as usize + 1) % entries) as u16,
                ),
            };
            value = v;
            p.get_mut(name)[3..6].fill(v as f32);
        });
        let (level, report, bytes) = case.written();
        assert_eq!(report.tiles_reshaped, vec![tile], "{what}");
        assert_eq!(
            report.tile_edits,
            vec![(tile, vec![TileEdit::Look])],
            "{what}"
        );
        let model = assert_own_model(&case, &level, tile);
        assert_eq!(model.faces.len(), base_model.faces.len());
        assert_eq!(
            model.vertices, base_model.vertices,
            "{what}: vertices and normals kept"
        );
        // The face is the one with the base face's corners.
        let corners = base_model.faces[face].corners;
        let new_face = model.faces.iter().find(|f| f.corners == corners).unwrap();
        match what {
            "flags" => assert_eq!(new_face.flags & !0x8, value & !0x8),
            _ => assert_eq!(new_face.texture, value),
        }
        let mut expected = face_keys(&base_model);
        let k = expected
            .iter()
            .position(|k| *k == face_key(&base_model, face))
            .unwrap();
        match what {
            "flags" => expected[k].0 = value & !0x8,
            _ => expected[k].1 = value,
        }
        expected.sort();
        assert_eq!(face_keys(&model), expected, "{what}");
        assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
    }
}

/// Prim `p`'s triangle `t` moved into a primitive of its own with `material`.
fn move_triangle(prims: &mut Vec<Prim>, p: usize, t: usize, material: Index<json::Material>) {
    let mut moved = prims[p].clone();
    moved.material = Some(material);
    moved.retain_triangles(|k| k == t);
    prims[p].retain_triangles(|k| k != t);
    prims.push(moved);
}

#[test]
fn uv_edits_and_a_page_change_on_a_tile_arrive_and_other_tiles_keep_their_look() {
    let mut case = Case::new(2, Size::Small);
    let (tile, other) = case.shared_tile();
    let base_model = case.model_of(tile).clone();
    let entries = case.base.text().unwrap().entries.clone();
    let node = case.tile_node(tile);
    // Face A: its UVs now show another entry of its page (a face given another face's UVs).
    // Face B: its UVs turned a quarter round within its rectangle, as a second half mirrored.
    // Face C: moved to another page's material, its UVs a rectangle there.
    let materials: Vec<Option<String>> = case
        .gltf
        .root
        .materials
        .iter()
        .map(|m| m.name.clone())
        .collect();
    let page_material = |page: i8| {
        materials
            .iter()
            .position(|m| m.as_deref() == Some(format!("page {page} blend 0").as_str()))
            .map(|m| Index::<json::Material>::new(m as u32))
    };
    let (mut a, mut b, mut c) = (usize::MAX, usize::MAX, usize::MAX);
    let (mut want_a, mut want_b, mut want_c) = (0u16, (0u16, 0u16), 0i8);
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        let faces: Vec<usize> = (0..p.corners() / 3)
            .map(|t| p.get("_FACE")[3 * t] as usize)
            .collect();
        let set_uvs = |p: &mut Prim, t: usize, export: [[f32; 2]; 3]| {
            for (k, file) in [0, 2, 1].into_iter().enumerate() {
                p.get_mut("TEXCOORD_0")[2 * (3 * t + file)..2 * (3 * t + file) + 2]
                    .copy_from_slice(&export[k]);
            }
        };
        let entry_of = |t: usize| entries[base_model.faces[faces[t]].texture as usize];
        a = 0;
        let here = entry_of(a);
        let another = entries
            .iter()
            .position(|e| {
                !e.is_flat_colour()
                    && e.page == here.page
                    && e.blend_mode() == here.blend_mode()
                    && *e != here
            })
            .unwrap() as u16;
        want_a = another;
        let flags_a = base_model.faces[faces[a]].flags;
        set_uvs(p, a, face_uvs(&entries[another as usize], flags_a));
        b = 1;
        let flags_b = 0x0800 | 0x0010 | 0x0020;
        want_b = (base_model.faces[faces[b]].texture, flags_b);
        set_uvs(p, b, face_uvs(&entry_of(b), flags_b));
        c = 2;
        let page = entries
            .iter()
            .find(|e| !e.is_flat_colour() && e.page != here.page && e.blend_mode() == 0)
            .unwrap()
            .page;
        want_c = page;
        let there = entries
            .iter()
            .find(|e| !e.is_flat_colour() && e.page == page && e.blend_mode() == 0)
            .unwrap();
        set_uvs(p, c, face_uvs(there, 0x0800));
        let material = page_material(page).unwrap();
        (a, b, c) = (faces[a], faces[b], faces[c]);
        move_triangle(prims, 0, 2, material);
    });
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile], "{report:?}");
    assert_eq!(report.tile_edits, vec![(tile, vec![TileEdit::Look])]);
    assert_eq!(report.fit.faces_fitted, 3, "{:?}", report.fit);
    assert_eq!(
        report.texture_entries_appended, 0,
        "every rectangle had an entry"
    );
    let model = assert_own_model(&case, &level, tile);
    let face_at = |f: usize| {
        let corners = base_model.faces[f]
            .corners
            .map(|v| base_model.vertices[v as usize].position);
        model
            .faces
            .iter()
            .find(|g| {
                let cs = g.corners.map(|v| model.vertices[v as usize].position);
                corners.iter().all(|c| cs.contains(c))
            })
            .unwrap()
    };
    assert_eq!(face_at(a).texture, want_a);
    let fb = face_at(b);
    assert_eq!(fb.texture, want_b.0);
    // The same UVs shown, from whichever corner the face now starts.
    let shown_b = face_uvs(&entries[fb.texture as usize], fb.flags);
    let drawn_b = face_uvs(&entries[want_b.0 as usize], want_b.1);
    assert!(
        (0..3).any(|r| (0..3).all(|k| shown_b[k] == drawn_b[(k + r) % 3])),
        "{shown_b:?} vs {drawn_b:?}"
    );
    assert_eq!(entries[face_at(c).texture as usize].page, want_c);
    // The tile that shared the model keeps it, and so its look.
    assert_eq!(
        level.map().unwrap().tiles[other].model_index,
        case.tiles()[other].model_index
    );
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));

    // Every material renamed as an artist names them, its extras kept: the extras say the page,
    // so the same faces are fitted on the same pages.
    let materials = &mut case.gltf.root.materials;
    let names: Vec<Option<String>> = materials.iter().map(|m| m.name.clone()).collect();
    for (k, m) in materials.iter_mut().enumerate() {
        m.name = Some(format!("Sand {k}"));
    }
    assert!(case.written().2 == bytes, "renamed materials");
    // A glTF written before materials had extras: the names say the page.
    for (m, name) in case.gltf.root.materials.iter_mut().zip(names) {
        (m.name, m.extras) = (name, None);
    }
    assert!(case.written().2 == bytes, "materials without extras");
}

#[test]
fn a_quad_of_two_faces_whose_uvs_turned_a_quarter_is_cut_anew() {
    // Two triangles of a tile, separate faces sharing an edge (an artist turned their UV island):
    // the game shows the turned rectangle only along the quad's other diagonal, so they are cut
    // there; what it shows is what was drawn.
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let node = case.tile_node(tile);
    let entries = case.base.text().unwrap().entries.clone();
    let mut drawn: Vec<(Vec3, [f32; 2])> = Vec::new();
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        let n = p.corners() / 3;
        let flags = |t: usize| p.get("_FLAGS")[3 * t] as u16;
        let texture = |t: usize| p.get("_TEXTURE")[3 * t] as usize;
        // A first half and a second half of one entry, sharing two corners.
        let (a, b) = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .find(|&(a, b)| {
                flags(a) & 0x830 == 0x800
                    && flags(b) & 0x830 == 0x810
                    && texture(a) == texture(b)
                    && !entries[texture(a)].is_flat_colour()
                    && (0..3)
                        .filter(|&i| (0..3).any(|k| p.position(3 * a + i) == p.position(3 * b + k)))
                        .count()
                        == 2
            })
            .expect("a quad of two halves");
        // The quad's corners around it, with their UVs; each corner gets its neighbour's UV.
        let mut corners: Vec<(Vec3, [f32; 2])> = Vec::new();
        for c in (3 * a..3 * a + 3).chain(3 * b..3 * b + 3) {
            let uv = [p.get("TEXCOORD_0")[2 * c], p.get("TEXCOORD_0")[2 * c + 1]];
            if !corners.iter().any(|(q, _)| *q == p.position(c)) {
                corners.push((p.position(c), uv));
            }
        }
        let centre = corners.iter().map(|c| c.0).sum::<Vec3>() / 4.0;
        let normal = (corners[1].0 - corners[0].0).cross(corners[2].0 - corners[0].0);
        let u = (corners[0].0 - centre).normalize();
        let w = normal.normalize().cross(u);
        corners.sort_by(|x, y| {
            let angle = |q: Vec3| libm::atan2f((q - centre).dot(w), (q - centre).dot(u));
            angle(x.0).total_cmp(&angle(y.0))
        });
        let turned: Vec<(Vec3, [f32; 2])> = (0..4)
            .map(|k| (corners[k].0, corners[(k + 1) % 4].1))
            .collect();
        for c in (3 * a..3 * a + 3).chain(3 * b..3 * b + 3) {
            let uv = turned.iter().find(|(q, _)| *q == p.position(c)).unwrap().1;
            p.get_mut("TEXCOORD_0")[2 * c..2 * c + 2].copy_from_slice(&uv);
        }
        drawn = turned;
    });
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile], "{report:?}");
    assert_eq!(report.fit.faces_fitted, 2, "{:?}", report.fit);
    assert!(report.fit.max_error <= 1e-6, "{:?}", report.fit);
    assert_eq!(report.tiles_fitted, vec![tile]);
    let model = assert_own_model(&case, &level, tile);
    let world = |v: u16| {
        let q = model.vertices[v as usize].position;
        Vec3::new(q[0], q[1], -q[2])
    };
    let in_quad = |v: u16| drawn.iter().any(|(q, _)| (world(v) - *q).length() < 1e-5);
    let quad_faces: Vec<_> = model
        .faces
        .iter()
        .filter(|f| f.corners.iter().all(|&v| in_quad(v)))
        .collect();
    assert_eq!(quad_faces.len(), 2);
    let shown_at = |at: Vec3| -> Vec<[f32; 2]> {
        let mut out = Vec::new();
        for f in &quad_faces {
            let shown = face_uvs(&entries[f.texture as usize], f.flags);
            for (k, &v) in f.corners.iter().enumerate() {
                if (world(v) - at).length() < 1e-5 {
                    out.push(shown[k]);
                }
            }
        }
        out
    };
    // In the tile's frame: the node is at the tile's place, the mesh in its own frame.
    for (at, uv) in &drawn {
        let shown = shown_at(*at);
        assert!(!shown.is_empty());
        assert!(
            shown
                .iter()
                .all(|s| (s[0] - uv[0]).abs() < 1e-6 && (s[1] - uv[1]).abs() < 1e-6),
            "{at}: {shown:?} vs {uv:?}"
        );
    }
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        libm::powf((c + 0.055) / 1.055, 2.4)
    }
}

#[test]
fn painted_vertex_colours_are_halved_into_the_raw_colour() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let model = case.model_of(tile).clone();
    // A vertex of a face that shows its colours.
    let face = model.faces.iter().find(|f| f.flags & 0x4000 == 0).unwrap();
    let v = face.corners[0] as usize;
    let srgb = [200.0f32, 100.0, 50.0];
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| {
        for p in prims {
            for c in 0..p.corners() {
                if p.get("_VERTEX")[c] as usize == v {
                    let colour = srgb.map(|s| srgb_to_linear(s / 255.0));
                    p.get_mut("COLOR_0")[4 * c..4 * c + 3].copy_from_slice(&colour);
                }
            }
        }
    });
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_recoloured, vec![tile], "{report:?}");
    assert_eq!((report.models_added, report.tiles_reshaped.len()), (0, 0));
    let new = &level.map().unwrap().tiles[tile];
    assert_eq!(
        new.model_index,
        case.tiles()[tile].model_index,
        "the model is kept"
    );
    let mut expected = case.tiles()[tile].colours.clone();
    expected[v] = [100, 50, 25, expected[v][3]];
    assert_eq!(new.colours, expected);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

#[test]
fn single_corners_painted_where_a_vertex_is_shared_all_arrive() {
    // Twelve corners painted apart from the other corners of their vertex (Blender's face-corner
    // paint): the game colours vertices, so each such corner gets a vertex of its own.
    let mut case = Case::new(2, Size::Small);
    // A tile with twelve vertices shared by corners of faces that show colours, whose model
    // another tile uses too.
    let shared_corners = |m: &Model| {
        let mut corners = vec![0usize; m.vertices.len()];
        for f in m.faces.iter().filter(|f| f.flags & 0x4000 == 0) {
            for &v in &f.corners {
                corners[v as usize] += 1;
            }
        }
        corners.iter().filter(|&&n| n >= 2).count()
    };
    let tiles = case.tiles().to_vec();
    let (tile, other) = (0..tiles.len())
        .find_map(|i| {
            let m = case.model_of(i);
            let other = (0..tiles.len())
                .find(|&j| j != i && tiles[j].model_index == tiles[i].model_index)?;
            (shared_corners(m) >= 12 && tiles[i].swap.is_none()).then_some((i, other))
        })
        .expect("a shared model with twelve shared vertices");
    let model = case.model_of(tile).clone();
    let node = case.tile_node(tile);
    let colours = case.tiles()[tile].colours.clone();
    let mut painted: Vec<(Vec3, [u8; 3])> = Vec::new();
    case.edit_mesh(node, |prims| {
        // The first corner of vertices that have several corners on faces showing colours.
        let mut corners_of: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for (k, p) in prims.iter().enumerate() {
            for c in 0..p.corners() {
                if p.get("_FLAGS")[c] as u16 & 0x4000 == 0 {
                    corners_of
                        .entry(p.get("_VERTEX")[c] as usize)
                        .or_default()
                        .push((k, c));
                }
            }
        }
        for (i, cs) in corners_of
            .values()
            .filter(|cs| cs.len() >= 2)
            .take(12)
            .enumerate()
        {
            let raw = [40 + 7 * i as u8, 120 - 5 * i as u8, 10 + 3 * i as u8];
            let shown = raw.map(|r| srgb_to_linear(r as f32 * 2.0 / 255.0));
            let (k, c) = cs[0];
            prims[k].get_mut("COLOR_0")[4 * c..4 * c + 3].copy_from_slice(&shown);
            painted.push((prims[k].position(c), raw));
        }
    });
    assert_eq!(painted.len(), 12);
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile], "{report:?}");
    assert_eq!(
        report.tile_edits,
        vec![(tile, vec![TileEdit::ColoursApart])]
    );
    let new = assert_own_model(&case, &level, tile);
    assert_eq!(new.vertices.len(), model.vertices.len() + 12);
    assert_eq!(new.faces.len(), model.faces.len());
    let written = &level.map().unwrap().tiles[tile];
    assert_eq!(
        written.colours.len(),
        new.vertices.len() * (colours.len() / model.vertices.len())
    );
    // Every painted corner's colour is a vertex's there (within a step of the raw byte), and
    // every vertex keeps its bytes where it was not painted.
    for (at, raw) in &painted {
        let found = new.vertices.iter().enumerate().any(|(v, n)| {
            let p = n.position;
            (Vec3::new(p[0], p[1], -p[2]) - *at).length() < 1e-5
                && written.colours[v][..3]
                    .iter()
                    .zip(raw)
                    .all(|(a, b)| a.abs_diff(*b) <= 1)
        });
        assert!(found, "{at}: {raw:?} not found");
    }
    let kept = (0..model.vertices.len())
        .filter(|&v| {
            new.vertices.iter().enumerate().any(|(w, n)| {
                n.position == model.vertices[v].position && written.colours[w] == colours[v]
            })
        })
        .count();
    assert_eq!(
        kept,
        model.vertices.len(),
        "every vertex keeps its colour where it was not painted"
    );
    assert_eq!(
        level.map().unwrap().tiles[other].model_index,
        case.tiles()[other].model_index
    );
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

/// Collision polygons of a model in file order, with their group.
fn polygons(model: &Model) -> Vec<(usize, CollisionPolygon)> {
    model
        .collision
        .iter()
        .enumerate()
        .flat_map(|(g, ps)| ps.iter().map(move |p| (g, *p)))
        .collect()
}

fn assert_corners_near(poly: &CollisionPolygon, expected: &[Vec3], what: &str) {
    let decoded = decode_collision_polygon(poly);
    assert_eq!(decoded.len(), expected.len(), "{what}: corner count");
    for e in expected {
        let nearest = decoded
            .iter()
            .map(|d| (*d - *e).abs().max_element())
            .fold(f32::MAX, f32::min);
        assert!(
            nearest < 0.02,
            "{what}: corner {e} is {nearest} from the polygon's corners {decoded:?}"
        );
    }
}

/// The tile's collision edited; returns the new model after checking what a collision edit keeps.
fn collision_edit(
    case: &mut Case,
    tile: usize,
    edit: impl FnOnce(&mut Prim),
) -> (Model, ChangeReport) {
    let node = case.collision_node(tile);
    case.edit_mesh(node, |prims| edit(&mut prims[0]));
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, vec![tile], "{report:?}");
    let model = assert_own_model(case, &level, tile);
    let base_model = case.model_of(tile);
    assert!(
        model.vertices == base_model.vertices && model.faces == base_model.faces,
        "render geometry kept"
    );
    assert_eq!(
        level.map().unwrap().tiles[tile].colours,
        case.tiles()[tile].colours
    );
    assert_rest_unchanged(case, &level, &bytes, only_tiles(&[tile]));
    (model, report)
}

/// The corners of collision polygon `p` as the glTF shows them.
fn polygon_corners_in(prim: &Prim, p: usize) -> Vec<Vec3> {
    let mut out: Vec<Vec3> = Vec::new();
    for c in 0..prim.corners() {
        if prim.get("_POLYGON")[c] as usize == p
            && !out.iter().any(|o| (*o - prim.position(c)).length() < 1e-5)
        {
            out.push(prim.position(c));
        }
    }
    out
}

#[test]
fn collision_material_changed_keeps_the_planes() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base = polygons(case.model_of(tile));
    let p = 0;
    let (model, report) = collision_edit(&mut case, tile, |prim| {
        for c in 0..prim.corners() {
            if prim.get("_POLYGON")[c] as usize == p {
                prim.get_mut("_MATERIAL")[c] = 16.0;
            }
        }
    });
    assert_eq!(report.collision_polygons_changed, 1);
    assert_eq!(report.tile_edits, vec![(tile, vec![TileEdit::Collision])]);
    let new = polygons(&model);
    assert_eq!(new.len(), base.len());
    for (k, ((g0, a), (g1, b))) in base.iter().zip(&new).enumerate() {
        assert_eq!(g0, g1);
        if k == p {
            assert_eq!(b.material, 16);
            assert_eq!(
                (a.kind, a.planes),
                (b.kind, b.planes),
                "only the material changes"
            );
        } else {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn a_collision_polygon_moved() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base = polygons(case.model_of(tile));
    let p = base.iter().position(|(_, q)| q.kind & 1 != 0).unwrap();
    let lift = Vec3::new(0.05, 0.3, -0.1);
    let mut expected = Vec::new();
    let (model, _) = collision_edit(&mut case, tile, |prim| {
        expected = polygon_corners_in(prim, p)
            .iter()
            .map(|c| *c + lift)
            .collect();
        for c in 0..prim.corners() {
            if prim.get("_POLYGON")[c] as usize == p {
                let moved = prim.position(c) + lift;
                prim.set_position(c, moved);
            }
        }
    });
    let new = polygons(&model);
    assert_eq!(new.len(), base.len());
    for (k, (a, b)) in base.iter().zip(&new).enumerate() {
        if k == p {
            assert_eq!(a.0, b.0, "group kept");
            assert_eq!(b.1.material, a.1.material);
            assert_eq!(b.1.kind & 1, 1, "still a quad");
            assert_corners_near(&b.1, &expected, "moved polygon");
        } else {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn a_collision_polygon_added_and_one_deleted() {
    // Added: a triangle that names no polygon, above the tile.
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base = polygons(case.model_of(tile));
    let corners = [
        Vec3::new(-0.4, 1.5, -0.4),
        Vec3::new(-0.4, 1.5, 0.4),
        Vec3::new(0.4, 1.6, 0.0),
    ];
    let (model, report) = collision_edit(&mut case, tile, |prim| {
        let t = prim.push_copy(0);
        for (k, c) in (3 * t..3 * t + 3).enumerate() {
            prim.set_position(c, corners[k]);
            prim.get_mut("_POLYGON")[c] = f32::NAN;
            prim.get_mut("_MATERIAL")[c] = 17.0;
            prim.get_mut("_KIND")[c] = 0.0;
            prim.get_mut("_GROUP")[c] = 1.0;
        }
    });
    assert_eq!(report.collision_polygons_changed, 1);
    let new = polygons(&model);
    assert_eq!(new.len(), base.len() + 1);
    let added: Vec<_> = new.iter().filter(|p| !base.contains(p)).collect();
    assert_eq!(added.len(), 1);
    let (group, poly) = added[0];
    assert_eq!((*group, poly.material, poly.kind & 1), (1, 17, 0));
    assert_corners_near(poly, &corners, "added polygon");
    assert!(base.iter().all(|p| new.contains(p)), "the others kept");

    // Deleted: every triangle of one polygon removed.
    let mut case = Case::new(2, Size::Small);
    let p = 1;
    let (model, report) = collision_edit(&mut case, tile, |prim| {
        let polygon = prim.get("_POLYGON").to_vec();
        prim.retain_triangles(|t| polygon[3 * t] as usize != p);
    });
    assert_eq!(report.collision_polygons_changed, 1);
    let mut expected = base.clone();
    expected.remove(p);
    assert_eq!(polygons(&model), expected);
}

#[test]
fn tiles_edited_alike_share_their_new_model() {
    // The collision mesh all tiles of a model share, edited once: one new model for all of them.
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let model_index = case.tiles()[tile].model_index;
    let node = case.collision_node(tile);
    let users = case.edit_shared_mesh(node, |prims| {
        let p = &mut prims[0];
        for c in 0..p.corners() {
            if p.get("_POLYGON")[c] as usize == 0 {
                p.get_mut("_MATERIAL")[c] = 18.0;
            }
        }
    });
    let sharing: Vec<usize> = (0..case.tiles().len())
        .filter(|&i| case.tiles()[i].model_index == model_index)
        .collect();
    assert!(sharing.len() > 1 && users.len() == sharing.len());
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_reshaped, sharing);
    assert_eq!(report.models_added, 1);
    let tiles = &level.map().unwrap().tiles;
    let new_index = tiles[tile].model_index;
    assert_eq!(new_index as usize, case.trak().len());
    assert!(sharing.iter().all(|&i| tiles[i].model_index == new_index));
    let model = &level.trak().unwrap().models[new_index as usize];
    assert_eq!(polygons(model)[0].1.material, 18);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&sharing));
}

#[test]
fn blender_style_added_collision_face_with_polygon_number_zero() {
    // Blender gives a face the user adds the attribute value 0: a quad far from polygon 0 that
    // says it is polygon 0 is a polygon of its own.
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let base = polygons(case.model_of(tile));
    let quad = [
        Vec3::new(-0.3, 2.0, -0.3),
        Vec3::new(-0.3, 2.0, 0.3),
        Vec3::new(0.3, 2.0, 0.3),
        Vec3::new(0.3, 2.0, -0.3),
    ];
    let (model, _) = collision_edit(&mut case, tile, |prim| {
        for tri in [[0, 1, 2], [0, 2, 3]] {
            let t = prim.push_copy(0);
            for (k, c) in (3 * t..3 * t + 3).enumerate() {
                prim.set_position(c, quad[tri[k]]);
                for name in ["_POLYGON", "_MATERIAL", "_KIND", "_GROUP"] {
                    prim.get_mut(name)[c] = 0.0;
                }
            }
        }
    });
    let new = polygons(&model);
    assert_eq!(new.len(), base.len() + 1);
    assert!(
        base.iter().all(|p| new.contains(p)),
        "polygon 0 and the others kept"
    );
    let added = new.iter().find(|p| !base.contains(p)).unwrap();
    assert_eq!(added.1.kind & 1, 1, "one quad");
    assert_corners_near(&added.1, &quad, "added quad");
}

#[test]
fn zone_of_a_cell_and_a_zone_mask_changed() {
    let mut case = Case::new(2, Size::Small);
    let map = case.base.map().unwrap().clone();
    // A cell given the zone of another cell (which some mask sees).
    let cell = map
        .region_grid
        .iter()
        .position(|&z| z != map.region_grid[0])
        .unwrap();
    let zone = map.region_grid[0];
    let node = case.find_node("zones", None);
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        for c in 0..p.corners() {
            if p.get("_CELL")[c] as usize == cell {
                p.get_mut("_ZONE")[c] = zone as f32;
            }
        }
    });
    let region = 5;
    let mask = map.regions[region].mask | 0x8000_0001;
    case.edit_scene_extras(|ours| ours["regions"][region]["mask"] = mask.into());
    let (level, report, bytes) = case.written();
    assert_eq!(
        (report.cells_rezoned, report.zone_masks_changed),
        (1, 1),
        "{report:?}"
    );
    let new = level.map().unwrap();
    let mut grid = map.region_grid.clone();
    grid[cell] = zone;
    assert_eq!(new.region_grid, grid);
    let mut regions = map.regions;
    regions[region].mask = mask;
    assert_eq!(new.regions, regions);
    assert!(report.tiles_moved.is_empty() && report.models_added == 0);
    assert_rest_unchanged(
        &case,
        &level,
        &bytes,
        Keep {
            tiles_changed: &[],
            zones_changed: true,
        },
    );
}

#[test]
fn a_deleted_tile_keeps_its_index_and_points_at_an_empty_model() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let node = case.tile_node(tile);
    let group = case.tiles_group();
    case.gltf.root.nodes[group]
        .children
        .as_mut()
        .unwrap()
        .retain(|c| c.value() != node);
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_emptied, vec![tile]);
    let new = &level.map().unwrap().tiles[tile];
    assert_eq!(level.map().unwrap().tiles.len(), case.tiles().len());
    let empty = &level.trak().unwrap().models[new.model_index as usize];
    assert!(new.model_index as usize >= case.trak().len());
    assert!(empty.vertices.is_empty() && empty.faces.is_empty() && empty.collision_count() == 0);
    assert!(new.colours.is_empty());
    assert_eq!(
        new.float.position,
        case.tiles()[tile].float.position,
        "it stays where it was"
    );
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[tile]));
}

#[test]
fn a_level_the_game_would_break_on_is_refused_with_every_error() {
    // The floor under the Llama's start deleted: the llama would fall at the start (FORMAT.md §6:
    // the player starts where the Llama strat stands).
    let mut case = Case::new(2, Size::Small);
    let map = case.base.map().unwrap();
    let stpc = case.base.stpc().unwrap();
    let llama = map
        .strats
        .iter()
        .position(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    let [x, y, z] = map.strats[llama].position.map(|v| v as f64 / 4096.0);
    let world = World::of(&case.base).unwrap();
    let under: Vec<usize> = world
        .probe(x, y, z)
        .candidates
        .iter()
        .filter(|c| c.passed && !c.above)
        .map(|c| c.tile as usize)
        .collect();
    assert!(!under.is_empty());
    let group = case.tiles_group();
    for &tile in &under {
        let node = case.tile_node(tile);
        case.gltf.root.nodes[group]
            .children
            .as_mut()
            .unwrap()
            .retain(|c| c.value() != node);
    }
    let e = case.refused();
    let problems = &e.broken.as_ref().expect("the game's rules").problems;
    let start = problems
        .iter()
        .find(|p| p.code == Code::PlayerStart)
        .unwrap_or_else(|| panic!("{e}: {:?}", problems));
    assert_eq!(start.strat, Some(llama));
    assert!(problems
        .iter()
        .all(|p| p.severity == llamawad::game::Severity::Error));
    assert!(
        e.to_string().contains("falls at the start") || problems.len() > 1,
        "{e}"
    );
}

#[test]
fn a_duplicated_tile_node_is_appended_as_a_new_tile() {
    // With its collision child copied too, and without (Blender's Shift D copies the selected
    // tile only): either way the copy keeps its model and so its collision.
    for with_collision in [true, false] {
        let mut case = Case::new(2, Size::Small);
        let (tile, other) = case.shared_tile();
        let node = case.tile_node(tile);
        let mut copy = case.gltf.root.nodes[node].clone();
        // A node has one parent: the collision child is copied, or left out.
        let children: Vec<_> = copy.children.take().unwrap_or_default();
        if with_collision {
            let copied_children: Vec<_> = children
                .iter()
                .map(|c| {
                    let child = case.gltf.root.nodes[c.value()].clone();
                    case.gltf.root.push(child)
                })
                .collect();
            copy.children = Some(copied_children);
        }
        let target = case.tiles()[other].float.position;
        copy.translation = Some([target[0], target[1] + 1.0, -target[2]]);
        let copy = case.gltf.root.push(copy);
        let group = case.tiles_group();
        case.gltf.root.nodes[group]
            .children
            .as_mut()
            .unwrap()
            .push(copy);

        let (level, report, bytes) = case.written();
        let n = case.tiles().len();
        assert_eq!(report.tiles_added, vec![n], "{with_collision}");
        assert_eq!(report.models_added, 0, "the copy uses the same model");
        let tiles = &level.map().unwrap().tiles;
        assert_eq!(tiles.len(), n + 1);
        let original = &case.tiles()[tile];
        let mut expected = Tile::new(
            [target[0], target[1] + 1.0, target[2]],
            original.float.rotation,
            original.model_index,
        );
        expected.colours = original.colours.clone();
        assert_eq!(tiles[n], expected);
        assert!(case.model_of(tile).collision_count() > 0);
        assert_rest_unchanged(&case, &level, &bytes, only_tiles(&[]));
    }
}

// ---------------------------------------------------------------------------------------------
// Refusals: each names the node (and the faces) at fault.

fn assert_names(
    e: &GltfToWadError,
    case: &Case,
    node: usize,
    faces: Option<&[usize]>,
    words: &[&str],
) {
    let text = e.to_string();
    assert_eq!(e.node, Some(node_ref(case, node)), "{text}");
    assert!(text.contains(&node_label(case, node)), "{text}");
    if let Some(faces) = faces {
        assert_eq!(e.faces, faces, "{text}");
    }
    for w in words {
        assert!(text.contains(w), "{text}: should say {w}");
    }
}

fn node_label(case: &Case, node: usize) -> String {
    format!("'{}'", case.gltf.root.nodes[node].name.as_deref().unwrap())
}

/// The glTF node `node` as a refusal names it: by its index among the glTF's nodes.
fn node_ref(case: &Case, node: usize) -> NodeRef {
    NodeRef {
        index: Some(node),
        name: case.gltf.root.nodes[node].name.clone(),
    }
}

#[test]
fn refused_a_model_over_8000_vertices() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        // 2,700 new triangles, every corner a vertex of its own.
        for k in 0..2700 {
            let t = p.push_copy(0);
            for (j, c) in (3 * t..3 * t + 3).enumerate() {
                let x = (k % 60) as f32 / 100.0 - 0.3;
                let z = (k / 60) as f32 / 100.0 - 0.3;
                let corner = [
                    Vec3::new(x, 3.0, z),
                    Vec3::new(x, 3.0, z + 0.005),
                    Vec3::new(x + 0.005, 3.0, z),
                ][j];
                p.set_position(c, corner);
                p.get_mut("_VERTEX")[c] = f32::NAN;
                p.get_mut("_FACE")[c] = f32::NAN;
            }
        }
    });
    let e = case.refused();
    assert_names(&e, &case, node, None, &["vertices", "8000"]);
}

#[test]
fn refused_a_model_over_65535_faces() {
    // Reachable within 8,000 vertices: the same triangle many times over.
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| {
        let p = &mut prims[0];
        let first = p.corners() / 3;
        for _ in 0..66_000 {
            p.push_copy(0);
        }
        p.get_mut("_FACE")[3 * first..].fill(f32::NAN);
        p.get_mut("_VERTEX")[3 * first..].fill(f32::NAN);
    });
    let e = case.refused();
    assert_names(&e, &case, node, Some(&[]), &["faces", "at most 65,535"]);
}

#[test]
fn refused_a_collision_polygon_more_than_8_units_from_its_tile() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let cnode = case.collision_node(tile);
    let mut faces = Vec::new();
    case.edit_mesh(cnode, |prims| {
        let p = &mut prims[0];
        for c in 0..p.corners() {
            if p.get("_POLYGON")[c] as usize == 1 {
                let far = p.position(c) + Vec3::new(0.0, 9.0, 0.0);
                p.set_position(c, far);
                if c % 3 == 0 {
                    faces.push(c / 3);
                }
            }
        }
    });
    let e = case.refused();
    assert_names(
        &e,
        &case,
        case.tile_node(tile),
        Some(&faces),
        &["polygon 1", "8 units"],
    );
}

#[test]
fn refused_a_tile_outside_the_grid_and_a_tile_turned_about_x_or_z() {
    let case0 = Case::new(2, Size::Small);
    let (tile, _) = case0.shared_tile();
    let node = case0.tile_node(tile);

    let mut case = Case::new(2, Size::Small);
    let t = case.gltf.root.nodes[node].translation.unwrap();
    case.gltf.root.nodes[node].translation = Some([-3.0, t[1], t[2]]);
    assert_names(
        &case.refused(),
        &case,
        node,
        Some(&[]),
        &["outside", "grid"],
    );

    let mut case = Case::new(2, Size::Small);
    let (w, h) = (
        case.base.map().unwrap().width,
        case.base.map().unwrap().height,
    );
    case.gltf.root.nodes[node].translation = Some([t[0], t[1], h as f32 + 0.5]);
    assert_names(
        &case.refused(),
        &case,
        node,
        Some(&[]),
        &["outside", &format!("{w}×{h}")],
    );

    for axis in [Vec3::X, Vec3::Z] {
        let mut case = Case::new(2, Size::Small);
        let q = Quat::from_axis_angle(axis, 0.3);
        case.gltf.root.nodes[node].rotation = Some(json::scene::UnitQuaternion(q.to_array()));
        assert_names(
            &case.refused(),
            &case,
            node,
            Some(&[]),
            &["turned about x or z"],
        );
    }
}

#[test]
fn refused_a_texture_entry_out_of_range() {
    let mut case = Case::new(2, Size::Small);
    let (tile, _) = case.shared_tile();
    let entries = case.base.text().unwrap().entries.len();
    let node = case.tile_node(tile);
    let mut faces = Vec::new();
    case.edit_mesh(node, |prims| {
        // Triangle 2 of the mesh (the mesh's triangles are its primitives' in order).
        let p = &mut prims[0];
        p.get_mut("_TEXTURE")[6..9].fill(entries as f32);
        faces.push(2);
    });
    let e = case.refused();
    assert_names(
        &e,
        &case,
        node,
        Some(&faces),
        &[
            &format!("texture entry {entries} does not exist"),
            &format!("0 to {}", entries - 1),
        ],
    );
}

#[test]
fn refused_a_non_planar_and_a_degenerate_collision_polygon() {
    let case0 = Case::new(2, Size::Small);
    let (tile, _) = case0.shared_tile();
    let quad = polygons(case0.model_of(tile))
        .iter()
        .position(|(_, p)| p.kind & 1 != 0)
        .unwrap();

    // A quad with one corner lifted by 0.1.
    let mut case = Case::new(2, Size::Small);
    let cnode = case.collision_node(tile);
    let mut faces = Vec::new();
    case.edit_mesh(cnode, |prims| {
        let p = &mut prims[0];
        let corners = polygon_corners_in(p, quad);
        // The corner only one of the two triangles has.
        let lonely = *corners
            .iter()
            .find(|q| {
                (0..p.corners())
                    .filter(|&c| {
                        p.get("_POLYGON")[c] as usize == quad
                            && (p.position(c) - **q).length() < 1e-5
                    })
                    .count()
                    == 1
            })
            .unwrap();
        for c in 0..p.corners() {
            if p.get("_POLYGON")[c] as usize == quad {
                if (p.position(c) - lonely).length() < 1e-5 {
                    p.set_position(c, lonely + Vec3::new(0.0, 0.1, 0.0));
                }
                if c % 3 == 0 {
                    faces.push(c / 3);
                }
            }
        }
    });
    let e = case.refused();
    assert_names(
        &e,
        &case,
        case.tile_node(tile),
        Some(&faces),
        &[
            &format!("collision polygon {quad}"),
            "do not lie in one plane",
        ],
    );

    // The same quad with its corners on one line: the two corners each triangle has alone
    // moved onto the diagonal.
    let mut case = Case::new(2, Size::Small);
    let mut faces = Vec::new();
    case.edit_mesh(cnode, |prims| {
        let p = &mut prims[0];
        let cs: Vec<usize> = (0..p.corners())
            .filter(|&c| p.get("_POLYGON")[c] as usize == quad)
            .collect();
        assert_eq!(cs.len(), 6, "a quad is two triangles");
        let positions: Vec<Vec3> = cs.iter().map(|&c| p.position(c)).collect();
        let count = |q: Vec3| {
            positions
                .iter()
                .filter(|&&o| (o - q).length() < 1e-5)
                .count()
        };
        let shared: Vec<Vec3> = positions
            .iter()
            .copied()
            .filter(|&q| count(q) == 2)
            .collect();
        let (a, b) = (
            shared[0],
            shared
                .iter()
                .copied()
                .find(|q| (*q - shared[0]).length() > 1e-5)
                .unwrap(),
        );
        let mut lonely: Vec<Vec3> = Vec::new();
        for &q in &positions {
            if count(q) == 1 && !lonely.iter().any(|l| (*l - q).length() < 1e-5) {
                lonely.push(q);
            }
        }
        assert_eq!(lonely.len(), 2);
        for (k, &c) in cs.iter().enumerate() {
            if let Some(j) = lonely
                .iter()
                .position(|l| (*l - positions[k]).length() < 1e-5)
            {
                p.set_position(c, a + (b - a) * [0.25, 0.75][j]);
            }
            if c % 3 == 0 {
                faces.push(c / 3);
            }
        }
    });
    let e = case.refused();
    assert_names(
        &e,
        &case,
        case.tile_node(tile),
        Some(&faces),
        &[
            &format!("collision polygon {quad}"),
            "do not enclose an area",
        ],
    );
}

#[test]
fn refused_a_gltf_of_another_level_unless_forced() {
    let case = Case::new(2, Size::Small);
    // The same level with one zone value changed: another file.
    let mut other = case.base.clone();
    other.map_mut().unwrap().regions[7].value += 1;
    let other_bytes = other.to_bytes().unwrap();
    let doc = case.document();
    let e = doors::convert(&other, &other_bytes, &doc, OPTIONS).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("another level") && text.contains(&format!("{} bytes", case.bytes.len())),
        "{text}"
    );
    assert!(text.contains("force"), "{text}");
    let forced = GltfToWadOptions {
        force: true,
        ..OPTIONS
    };
    let (level, report) = doors::convert(&other, &other_bytes, &doc, forced).unwrap();
    assert!(
        report.warnings.iter().any(|w| w.contains("forced")),
        "{report:?}"
    );
    // The glTF's zone table wins: the level is the one the glTF was made from.
    assert_eq!(report.zone_masks_changed, 1);
    assert!(level.to_bytes().unwrap() == case.bytes);
}

// ---------------------------------------------------------------------------------------------
// A tile's faces moved as a whole (Blender: an applied scale, a turn or a move of the whole mesh
// in Edit Mode) take its collision along, whether or not the scene gives it; vertices moved one
// by one leave it where it was. Faces of two tiles in one mesh (Blender's Join) stay their own
// tiles' (issue 21).

/// A tile node's world transform (tile nodes are children of the identity `Tiles` node).
fn node_world(case: &Case, node: usize) -> Mat4 {
    let n = &case.gltf.root.nodes[node];
    let t = Vec3::from(n.translation.unwrap_or([0.0; 3]));
    let r = n
        .rotation
        .as_ref()
        .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0));
    Mat4::from_rotation_translation(r, t)
}

fn transform_prims(prims: &mut [Prim], m: Mat4) {
    for p in prims {
        for c in 0..p.corners() {
            let moved = m.transform_point3(p.position(c));
            p.set_position(c, moved);
        }
    }
}

fn tag_tile(prims: &mut [Prim], tile: usize) {
    for p in prims {
        let n = p.corners();
        p.attributes
            .insert("_TILE".to_string(), (1, vec![tile as f32; n]));
    }
}

/// Takes a node out of the scene (its parent no longer lists it): what deleting its object does.
fn detach(case: &mut Case, node: usize) {
    let index = Index::<json::Node>::new(node as u32);
    for n in &mut case.gltf.root.nodes {
        if let Some(children) = n.children.as_mut() {
            children.retain(|c| *c != index);
        }
    }
}

/// A tile with faces and collision, no swap, and exactly one floor (an up-facing polygon): where
/// it is, the floor test can only find that floor of it.
fn tile_with_one_floor(case: &Case, skip: &[usize]) -> usize {
    (0..case.tiles().len())
        .find(|&i| {
            let m = case.model_of(i);
            !skip.contains(&i)
                && !m.faces.is_empty()
                && case.tiles()[i].swap.is_none()
                && m.collision_polygons()
                    .filter(|p| p.planes[0].normal[1] > 0)
                    .count()
                    == 1
                && m.collision_polygons().any(|p| p.planes[0].normal[1] > 120)
        })
        .unwrap_or_else(|| panic!("{}: no tile with one floor", case.what))
}

/// Points of the base floor of `tile` (its centre and corners pulled a quarter in), tile frame.
fn base_floor_points(case: &Case, tile: usize) -> Vec<Vec3> {
    let poly = case
        .model_of(tile)
        .collision_polygons()
        .find(|p| p.planes[0].normal[1] > 120)
        .unwrap();
    let corners = decode_collision_polygon(poly);
    let centre = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
    std::iter::once(centre)
        .chain(corners.iter().map(|c| *c + (centre - *c) / 4.0))
        .collect()
}

/// The engine's floor test finds a floor at every `expected` world point (file space), within the
/// plane encoding's 2 mm.
fn assert_floor_at(level: &Level, expected: &[Vec3], what: &str) {
    assert_floor_at_or_above(level, expected, None, what);
}

/// The same where other tiles may reach over the floor: a floor of `own` tiles at every point, or
/// a higher one of another tile (the floor test takes the highest within reach of the feet).
fn assert_floor_at_or_above(level: &Level, expected: &[Vec3], own: Option<&[usize]>, what: &str) {
    let world = World::of(level).unwrap();
    for p in expected {
        let (x, y, z) = (p.x as f64, p.y as f64, p.z as f64);
        let found = world.probe(x, y + 0.1, z).floor;
        let right = found.as_ref().is_some_and(|f| {
            let mine = own.is_none_or(|own| own.contains(&(f.tile as usize)));
            (f.height - y).abs() < 0.002 || (!mine && f.height > y)
        });
        assert!(
            right,
            "{what}: floor at ({x:.3}, {z:.3}) should be {y:.4}, the engine finds {found:?}"
        );
    }
}

#[test]
fn a_mesh_scaled_as_a_whole_takes_its_collision_along_shown_or_not() {
    // Scaled 1.5 across, 1.25 up and raised 0.25 (Ctrl+A of a scale, then a move in Edit Mode):
    // the floor the llama stands on is where the faces now are.
    let scaled = Mat4::from_translation(Vec3::new(0.0, 0.25, 0.0))
        * Mat4::from_scale(Vec3::new(1.5, 1.25, 1.5));
    for shown in [false, true] {
        let mut case = Case::new(2, Size::Small);
        let tile = tile_with_one_floor(&case, &[]);
        let what = format!("collision shown: {shown}");
        if !shown {
            without_tile_collision(&mut case);
        }
        let node = case.tile_node(tile);
        case.edit_mesh(node, |prims| transform_prims(prims, scaled));
        let (level, report) = case.converted(shown);
        assert_eq!(report.tiles_reshaped, vec![tile], "{what}");
        assert_eq!(report.collision_followed, vec![tile], "{what}");
        assert!(report.collision_kept.is_empty(), "{what}");
        let frame = node_world(&case, node);
        let expected: Vec<Vec3> = base_floor_points(&case, tile)
            .into_iter()
            .map(|p| frame.transform_point3(scaled.transform_point3(p)))
            .collect();
        assert_floor_at(&level, &expected, &what);
    }
}

#[test]
fn a_mirrored_mesh_keeps_its_floor_facing_up() {
    let mirrored = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let mut case = Case::new(2, Size::Small);
    let tile = tile_with_one_floor(&case, &[]);
    without_tile_collision(&mut case);
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| transform_prims(prims, mirrored));
    let (level, report) = case.converted(false);
    assert_eq!(report.collision_followed, vec![tile]);
    let frame = node_world(&case, node);
    let expected: Vec<Vec3> = base_floor_points(&case, tile)
        .into_iter()
        .map(|p| frame.transform_point3(mirrored.transform_point3(p)))
        .collect();
    assert_floor_at(&level, &expected, "mirrored");
}

#[test]
fn a_mesh_moved_and_turned_as_a_whole_is_the_tile_moved_with_its_model() {
    let mut case = Case::new(2, Size::Small);
    let tile = tile_with_one_floor(&case, &[]);
    let node = case.tile_node(tile);
    let frame = node_world(&case, node);
    // In the tile's frame: a quarter turn about the vertical, then 2 across and 0.5 up.
    let edit = Mat4::from_translation(Vec3::new(2.0, 0.5, 1.0))
        * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2);
    case.edit_mesh(node, |prims| transform_prims(prims, edit));
    let (level, report, bytes) = case.written();
    assert_eq!(report.tiles_moved, vec![tile]);
    assert!(
        report.tiles_reshaped.is_empty() && report.models_added == 0,
        "{report:?}"
    );
    let placed = frame * edit;
    let t = &level.map().unwrap().tiles[tile];
    let base = &case.tiles()[tile];
    let origin = placed.w_axis.truncate();
    assert!(
        (Vec3::from(t.float.position) - Vec3::new(origin.x, origin.y, -origin.z)).length() < 1e-4
    );
    assert_eq!(t.float.rotation, (base.float.rotation + 1024) % 4096);
    assert_eq!(t.model_index, base.model_index);
    let mut changed = vec![tile];
    changed.extend(&report.coverage_freed);
    changed.extend(&report.coverage_tiles);
    assert_rest_unchanged(&case, &level, &bytes, only_tiles(&changed));
}

#[test]
fn vertices_moved_one_by_one_leave_the_collision_where_it_was_and_say_so() {
    let mut case = Case::new(2, Size::Small);
    let tile = tile_with_one_floor(&case, &[]);
    without_tile_collision(&mut case);
    let node = case.tile_node(tile);
    case.edit_mesh(node, |prims| {
        let moved = prims[0].position(0) + Vec3::new(0.0, 0.3, 0.0);
        prims[0].set_position(0, moved);
    });
    let (level, report) = case.converted(false);
    assert_eq!(report.tiles_reshaped, vec![tile]);
    assert_eq!(report.collision_kept, vec![tile]);
    assert!(report.collision_followed.is_empty());
    let model =
        &level.trak().unwrap().models[level.map().unwrap().tiles[tile].model_index as usize];
    assert_eq!(model.collision, case.model_of(tile).collision);
}

/// Tile `a`'s faces put into tile `b`'s node (in `b`'s frame, each face saying its tile), and
/// `a`'s node gone: Blender's Join with `b` active. With `collision`, `a`'s collision node stays
/// in the scene on its own with its transform in `a` (Join clears the parent of the removed
/// object's children, which leaves them at the origin).
fn join(case: &mut Case, a: usize, b: usize, collision: bool) {
    let (node_a, node_b) = (case.tile_node(a), case.tile_node(b));
    let to_b = node_world(case, node_b).inverse() * node_world(case, node_a);
    let mut joined = case.prims(node_a);
    transform_prims(&mut joined, to_b);
    tag_tile(&mut joined, a);
    case.edit_mesh(node_b, |prims| {
        tag_tile(prims, b);
        prims.extend(joined);
    });
    detach(case, node_a);
    if collision {
        let c = case.collision_node(a);
        case.gltf.root.nodes[node_a].children = None;
        case.gltf.root.scenes[0].nodes.push(Index::new(c as u32));
    }
}

#[test]
fn two_tiles_joined_stay_two_tiles_where_they_are() {
    for shown in [false, true] {
        let mut case = Case::new(2, Size::Small);
        let a = tile_with_one_floor(&case, &[]);
        let b = tile_with_one_floor(&case, &[a]);
        if !shown {
            without_tile_collision(&mut case);
        }
        join(&mut case, a, b, shown);
        let (level, report) = case.converted(shown);
        assert!(report.is_empty(), "collision shown: {shown}: {report:?}");
        assert!(
            level.to_bytes().unwrap() == case.bytes,
            "collision shown: {shown}"
        );
    }
}

#[test]
fn two_tiles_joined_and_moved_move_together_with_their_floors() {
    let mut case = Case::new(2, Size::Small);
    let a = tile_with_one_floor(&case, &[]);
    let b = tile_with_one_floor(&case, &[a]);
    without_tile_collision(&mut case);
    join(&mut case, a, b, false);
    let node_b = case.tile_node(b);
    let shift = Vec3::new(1.0, 0.5, 2.0);
    let before = node_world(&case, node_b);
    case.gltf.root.nodes[node_b].translation = Some((before.w_axis.truncate() + shift).to_array());
    let (level, report) = case.converted(false);
    assert_eq!(report.tiles_moved, vec![a.min(b), a.max(b)], "{report:?}");
    assert_eq!(report.models_added, 0, "{report:?}");
    let tiles = &level.map().unwrap().tiles;
    for t in [a, b] {
        let base = &case.tiles()[t];
        let [x, y, z] = base.float.position;
        let expected = Vec3::new(x + shift.x, y + shift.y, z - shift.z);
        assert!(
            (Vec3::from(tiles[t].float.position) - expected).length() < 1e-4,
            "tile {t}"
        );
        assert_eq!(tiles[t].model_index, base.model_index);
        let frame = tile_frame_of(&case, t);
        let expected: Vec<Vec3> = base_floor_points(&case, t)
            .into_iter()
            .map(|p| frame.transform_point3(p) + shift)
            .collect();
        assert_floor_at(&level, &expected, &format!("tile {t}"));
    }
}

/// Where a base tile stands, file space, from its MAP record.
fn tile_frame_of(case: &Case, tile: usize) -> Mat4 {
    tile_frame_of_tile(&case.tiles()[tile])
}

#[test]
fn joined_then_separated_tiles_are_the_tiles_they_were() {
    // Separate gives the piece the active object's properties: a node of tile b holding only
    // tile a's faces is tile a, not a copy of b.
    let mut case = Case::new(2, Size::Small);
    let a = tile_with_one_floor(&case, &[]);
    let b = tile_with_one_floor(&case, &[a]);
    without_tile_collision(&mut case);
    let (node_a, node_b) = (case.tile_node(a), case.tile_node(b));
    let to_b = node_world(&case, node_b).inverse() * node_world(&case, node_a);
    let mut piece = case.gltf.root.nodes[node_b].clone();
    piece.name = Some(format!("{}.001", piece.name.unwrap()));
    piece.children = None;
    let piece = case.gltf.root.push(piece);
    let group = case.tiles_group();
    case.gltf.root.nodes[group]
        .children
        .as_mut()
        .unwrap()
        .push(piece);
    let mut faces = case.prims(node_a);
    transform_prims(&mut faces, to_b);
    tag_tile(&mut faces, a);
    case.set_prims(piece.value(), faces);
    detach(&mut case, node_a);
    let (level, report) = case.converted(false);
    assert!(report.is_empty(), "{report:?}");
    assert!(level.to_bytes().unwrap() == case.bytes);
}

/// The cell (col, row) of a point, file space: the nearest inside a `w`×`h` grid.
fn cell_of(p: Vec3, (w, h): (u32, u32)) -> (i64, i64) {
    (
        (p.x.floor() as i64).clamp(0, w as i64 - 1),
        (p.z.floor() as i64).clamp(0, h as i64 - 1),
    )
}

#[test]
fn faces_moved_far_from_their_cell_are_drawn_by_tiles_of_the_cells_they_lie_in() {
    // One face moved 5 units across (a detail, so the collision stays), and the whole mesh
    // scaled 6 times (so the collision follows): either way faces lie beyond the 2.4 units the
    // original levels' models reach, and the tile's cell would draw them from afar.
    let far_face = Vec3::new(5.0, 0.0, 0.0);
    let scaled = Mat4::from_scale(Vec3::new(6.0, 1.0, 6.0));
    for detail in [true, false] {
        let what = if detail {
            "one face moved"
        } else {
            "scaled 6 times"
        };
        let mut case = Case::new(2, Size::Small);
        let tile = tile_with_one_floor(&case, &[]);
        without_tile_collision(&mut case);
        let node = case.tile_node(tile);
        let frame = node_world(&case, node);
        case.edit_mesh(node, |prims| {
            if detail {
                for c in 0..3 {
                    let moved = prims[0].position(c) + far_face;
                    prims[0].set_position(c, moved);
                }
            } else {
                transform_prims(prims, scaled);
            }
        });
        let world_faces: Vec<Vec3> = case
            .prims(node)
            .iter()
            .flat_map(|p| {
                (0..p.corners() / 3).map(move |t| {
                    (p.position(3 * t) + p.position(3 * t + 1) + p.position(3 * t + 2)) / 3.0
                })
            })
            .map(|c| frame.transform_point3(c))
            .collect();
        let (level, report) = case.converted(false);
        assert_eq!(report.tiles_retiled, vec![tile], "{what}: {report:?}");
        assert!(!report.tiles_added.is_empty(), "{what}");
        let map = level.map().unwrap();
        let models = &level.trak().unwrap().models;
        assert!(
            models[map.tiles[tile].model_index as usize]
                .faces
                .is_empty(),
            "{what}"
        );
        // Every face is drawn by a new tile of the cell its centre lies over.
        let mut drawn = 0;
        for &t in &report.tiles_added {
            let placed = &map.tiles[t];
            let model = &models[placed.model_index as usize];
            let [x, _, z] = placed.float.position;
            let grid = (map.width, map.height);
            let cell = cell_of(Vec3::new(x, 0.0, -z), grid);
            for f in &model.faces {
                let centre = f
                    .corners
                    .iter()
                    .map(|&v| Vec3::from(model.vertices[v as usize].position))
                    .sum::<Vec3>()
                    / 3.0;
                let world = tile_frame_of_tile(placed)
                    .transform_point3(Vec3::new(centre.x, centre.y, -centre.z));
                assert_eq!(cell_of(world, grid), cell, "{what}: tile {t}");
                drawn += 1;
            }
        }
        assert_eq!(drawn, world_faces.len(), "{what}: every face drawn once");
        // The floor is where the faces say: kept for a detail, scaled with them.
        let expected: Vec<Vec3> = base_floor_points(&case, tile)
            .into_iter()
            .map(|p| {
                frame.transform_point3(if detail {
                    p
                } else {
                    scaled.transform_point3(p)
                })
            })
            // Outside the grid the engine tests no tiles at all.
            .filter(|p| {
                (0.0..map.width as f32).contains(&p.x) && (0.0..map.height as f32).contains(&p.z)
            })
            .collect();
        assert!(expected.len() >= 3, "{what}");
        let own: Vec<usize> = report
            .tiles_added
            .iter()
            .chain(&report.coverage_tiles)
            .copied()
            .collect();
        assert_floor_at_or_above(&level, &expected, Some(&own), what);
        assert_eq!(report.collision_kept.contains(&tile), detail, "{what}");
        assert_eq!(report.collision_followed.contains(&tile), !detail, "{what}");
    }
}

fn tile_frame_of_tile(t: &Tile) -> Mat4 {
    let [x, y, z] = t.float.position;
    Mat4::from_rotation_translation(export_y_rotation(t.float.rotation), Vec3::new(x, y, -z))
}

#[test]
fn a_tile_joined_into_a_new_mesh_stays_that_tile() {
    // Join with a mesh of the artist's active: the result is a mesh without a role of ours whose
    // faces still say their tile.
    let mut case = Case::new(2, Size::Small);
    let a = tile_with_one_floor(&case, &[]);
    without_tile_collision(&mut case);
    let node_a = case.tile_node(a);
    let mut faces = case.prims(node_a);
    tag_tile(&mut faces, a);
    let mut mesh = case.gltf.root.nodes[node_a].clone();
    mesh.name = Some("Cube".to_string());
    mesh.extras = None;
    mesh.children = None;
    let mesh = case.gltf.root.push(mesh);
    let group = case.tiles_group();
    case.gltf.root.nodes[group]
        .children
        .as_mut()
        .unwrap()
        .push(mesh);
    case.set_prims(mesh.value(), faces);
    detach(&mut case, node_a);
    let (level, report) = case.converted(false);
    assert!(report.is_empty(), "{report:?}");
    assert!(level.to_bytes().unwrap() == case.bytes);
}

#[test]
fn a_node_without_a_name_is_named_by_its_index() {
    // A tool finds the culprit by the glTF node's index: the refusal carries it and no name, and
    // the message says "node N" (through both doors, each numbering the nodes it was given).
    let mut case = Case::new(2, Size::Small);
    let node = case.tile_node(3);
    case.gltf.root.nodes[node].name = None;
    case.gltf.root.nodes[node].scale = Some([1.5, 1.5, 1.5]);
    let e = case.refused();
    let unnamed = NodeRef {
        index: Some(node),
        name: None,
    };
    assert_eq!((e.code, e.node.clone()), (Code::TileScaled, Some(unnamed)));
    assert_eq!(e.object(), None);
    assert!(
        e.to_string()
            .starts_with(&format!("node {node}: is scaled")),
        "{e}"
    );
}

#[test]
fn a_refusal_names_every_culprit_not_the_first() {
    // Three tiles scaled: each is tried and named, in node order, each with its own words.
    let mut case = Case::new(2, Size::Small);
    let tiles: Vec<usize> = (3..6).collect();
    for &t in &tiles {
        let node = case.tile_node(t);
        case.gltf.root.nodes[node].scale = Some([1.5, 1.5, 1.5]);
    }
    let e = case.refused();
    let named: Vec<Option<NodeRef>> = e.each().map(|r| r.node.clone()).collect();
    let expected: Vec<Option<NodeRef>> = tiles
        .iter()
        .map(|&t| Some(node_ref(&case, case.tile_node(t))))
        .collect();
    assert_eq!(named, expected);
    assert!(e.each().all(|r| r.code == Code::TileScaled), "{e}");
    assert!(e.to_string().ends_with("(and 2 more refusals)"), "{e}");
}
