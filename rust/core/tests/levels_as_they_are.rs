//! Levels our writer did not make: collision written at note 001's "d ×4096" (as its own tools
//! write it), at the engine's d/4064, and both in one level (FORMAT.md §4 "Plane scale"). Such a
//! level passes the check when it is valid, and an edit changes only what was edited: a tile
//! turned in place, deleted beside full cells or moved into the next cell, each read back with
//! the floor test in the cells around the edited one. (A scale applied, a join and modifiers are
//! edits of Blender's: tests/blender/test_addon_whole_edits.py makes them on such levels.)

mod support {
    pub mod bytes;
}

use gltf::json;
use llamawad::game::cells::{tile_cell, Cell, CellLists};
use llamawad::game::check;
use llamawad::game::check_against;
use llamawad::game::floor::World;
use llamawad::game::plane_scale::{LevelScale, Verdict};
use llamawad::generate::{generate_with, CollisionScales, Size};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, ChangeReport, Document, Gltf, GltfToWadOptions};
use llamawad::gltf::{GltfToWadError, Source};
use llamawad::Level;
use support::bytes::{face, model_header, wad, Bytes};

/// A hand-built grid of floor tiles, every cell one tile of a flat 1 × 1 floor at y 0.25 whose
/// collision quad is written by hand: model 1 at ×4096 (surface d 1024, borders ±2048, as note
/// 001's tools write it), model 2 at the engine's scale (1016, ±2032), model 3 as model 2 but
/// its floor reaching 0.025 into the cell east of it (a sliver past the edge tolerance);
/// `model(col, row)` says which a cell's tile uses. Model 0 draws and collides nothing. No
/// strats.
fn hand_floors(width: u32, height: u32, model: impl Fn(u32, u32) -> u32) -> Vec<u8> {
    let mut text = Bytes::default();
    text.u32(0); // palettes
    text.u32(1).u32(1).u32(4).u32(4); // one 16-bit 4 × 4 page
    for i in 0..16u16 {
        text.u16(0x8000 | i);
    }
    text.u32(1).u16(0).raw(&[0, 0xff]).raw(&[0, 3, 0, 3]);

    let mut trak = Bytes::default();
    trak.u32(4);
    model_header(&mut trak, 0, 0, 0, [0.0; 3], [0.0; 3]);
    for _ in 0..3 {
        model_header(&mut trak, 4, 2, 1, [-0.51, 0.24, -0.51], [0.51, 0.26, 0.51]);
    }
    // (surface d, the edges' d: south, east, north, west)
    let reaching_east = -((0.525f64 * 4064.0).round() as i16);
    for (surface, [south, east, north, west]) in [
        (1024i16, [-2048i16; 4]),
        (1016, [-2032; 4]),
        (1016, [-2032, reaching_east, -2032, -2032]),
    ] {
        // Export space (z negated against game space), faces seen from above.
        for [x, z] in [[-0.5, -0.5], [-0.5, 0.5], [0.5, 0.5], [0.5, -0.5f32]] {
            trak.f32(x).f32(0.25).f32(z).f32(0.0).f32(1.0).f32(0.0);
        }
        face(&mut trak, 0x808, [0, 1, 2], [0.0, 1.0, 0.0, 0.25]);
        face(&mut trak, 0x810, [0, 2, 3], [0.0, 1.0, 0.0, 0.25]);
        // Game space: the surface, then the edges with their normals pointing inwards.
        trak.raw(&[1, 0]);
        for (normal, d) in [
            ([0i8, 127, 0], surface),
            ([0, 0, -127], south),
            ([-127, 0, 0], east),
            ([0, 0, 127], north),
            ([127, 0, 0], west),
        ] {
            trak.raw(&normal.map(|n| n as u8))
                .raw(&[0])
                .raw(&d.to_le_bytes());
        }
    }

    let cells: Vec<(u32, u32)> = (0..height)
        .flat_map(|row| (0..width).map(move |col| (col, row)))
        .collect();
    let model = |&(col, row): &(u32, u32)| model(col, row);
    let mut map = Bytes::default();
    map.u32(cells.len() as u32).u32(width).u32(height);
    for c in &cells {
        let (x, z) = (c.0 as f32 + 0.5, c.1 as f32 + 0.5);
        map.f32(x).f32(0.0).f32(-z).u32(0).u32(model(c)).u32(0);
    }
    map.u32(0).u32(0).u32(0); // parameters, zone records, waypoints
    for z in 0..32 {
        map.u32(if z == 0 { 1 } else { 0 }).i32(0);
    }
    for _ in &cells {
        map.u32(0);
    }
    for &(col, row) in &cells {
        let (x, z) = (col as i32 * 4096 + 2048, row as i32 * 4096 + 2048);
        map.i32(0).i32(0).i32(0).i32(x).i32(0).i32(z);
    }
    for c in &cells {
        map.u32(model(c));
    }
    for _ in &cells {
        for _ in 0..4 {
            map.raw(&[0x80, 0x80, 0x80, 0]);
        }
    }
    map.u32(0).u32(0).u16(0); // no strats

    let mut stpc = Bytes::default();
    stpc.u32(0).u32(0).raw(&[0; 16]);
    wad(&[
        (b"WFPC", Bytes::default().u32(0).0.clone()),
        (b"TEXT", text.0),
        (b"TRAK", trak.0),
        (b"STPC", stpc.0),
        (b"MAP ", map.0),
    ])
}

/// The model of a hand-built level's cell (column, row).
type CellModel = fn(u32, u32) -> u32;

/// The levels of this file: hand-built grids at each scale and mixed, and generated levels of
/// each scale, small and full.
fn levels() -> Vec<(String, Level)> {
    let mut out = Vec::new();
    let scales: [(&str, CellModel); 3] = [
        ("×4096", |_, _| 1),
        ("×4064", |_, _| 2),
        ("mixed", |col, row| 1 + (col + row) % 2),
    ];
    for (name, model) in scales {
        let bytes = hand_floors(6, 5, model);
        out.push((format!("hand-built {name}"), Level::parse(&bytes).unwrap()));
    }
    for scales in [
        CollisionScales::Notes,
        CollisionScales::Engine,
        CollisionScales::Mixed,
    ] {
        for (size, seed) in [(Size::Small, 1), (Size::Small, 2), (Size::Full, 1)] {
            out.push((
                format!("{size} seed {seed} at {scales}"),
                generate_with(seed, size, scales),
            ));
        }
    }
    out
}

#[test]
fn levels_written_at_either_scale_or_both_pass_the_check_and_say_their_scale() {
    for (what, level) in levels() {
        let report = check(&level);
        let errors: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.severity == llamawad::game::Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{what}: {errors:#?}");
        let scale = LevelScale::of(&level);
        let expected = if what.contains("4096") {
            Verdict::Notes
        } else if what.contains("4064") {
            Verdict::Engine
        } else {
            Verdict::Mixed
        };
        assert_eq!(scale.verdict, expected, "{what}: {scale:?}");
    }
}

/// A level and the glTF of it, edited as a tool would.
struct Edit {
    what: String,
    base: Level,
    bytes: Vec<u8>,
    gltf: Gltf,
}

impl Edit {
    fn of(what: &str, level: &Level) -> Edit {
        let bytes = level.to_bytes().unwrap();
        let base = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
        Edit {
            what: what.to_string(),
            base,
            bytes,
            gltf,
        }
    }

    fn extras(&self, node: usize) -> serde_json::Value {
        self.gltf.root.nodes[node]
            .extras
            .as_ref()
            .map(|e| serde_json::from_str(e.get()).unwrap())
            .unwrap_or_default()
    }

    fn node(&self, role: &str, tile: Option<usize>) -> usize {
        (0..self.gltf.root.nodes.len())
            .find(|&n| {
                let e = self.extras(n);
                e["llamawad"] == role && tile.is_none_or(|t| e["tile"] == t)
            })
            .unwrap_or_else(|| panic!("{}: no {role} node for {tile:?}", self.what))
    }

    fn turn(&mut self, tile: usize, by: u32) {
        let rotation = (self.base.map().unwrap().tiles[tile].float.rotation + by) % 4096;
        let node = self.node("tile", Some(tile));
        let angle = rotation as f32 / 4096.0 * std::f32::consts::TAU;
        self.gltf.root.nodes[node].rotation = Some(json::scene::UnitQuaternion(
            glam::Quat::from_rotation_y(angle).to_array(),
        ));
    }

    fn shift(&mut self, tile: usize, dx: f32, dz: f32) {
        let [x, y, z] = self.base.map().unwrap().tiles[tile].float.position;
        let node = self.node("tile", Some(tile));
        self.gltf.root.nodes[node].translation = Some([x + dx, y, -z + dz]);
    }

    fn delete(&mut self, tile: usize) {
        let (node, group) = (self.node("tile", Some(tile)), self.node("tiles", None));
        self.gltf.root.nodes[group]
            .children
            .as_mut()
            .unwrap()
            .retain(|c| c.value() != node);
    }

    fn convert(&self) -> Result<(Level, ChangeReport), GltfToWadError> {
        let doc = Document::from_slice(&self.gltf.to_glb().unwrap(), None).unwrap();
        let options = GltfToWadOptions {
            generate_collision: false,
            ..GltfToWadOptions::default()
        };
        let (level, report) = gltf_to_wad(&self.base, &self.bytes, &doc, options)?;
        Ok((Level::parse(&level.to_bytes().unwrap()).unwrap(), report))
    }

    fn written(&self) -> (Level, ChangeReport) {
        self.convert()
            .unwrap_or_else(|e| panic!("{}: refused: {e}", self.what))
    }
}

/// A floor tile with faces and collision, no swap, alone in its cell, whose eight neighbour
/// cells each hold a tile with a floor.
fn tile_among_full_cells(level: &Level) -> Option<usize> {
    let map = level.map()?;
    let models = &level.trak()?.models;
    let lists = CellLists::of(map);
    let has_floor = |t: u32| {
        models[map.tiles[t as usize].model_index as usize]
            .collision_polygons()
            .any(|p| p.planes[0].normal[1] > 100)
    };
    (0..map.tiles.len()).find(|&i| {
        let tile = &map.tiles[i];
        let model = &models[tile.model_index as usize];
        let Some(cell) = tile_cell(tile, map.width, map.height) else {
            return false;
        };
        tile.swap.is_none()
            && !model.faces.is_empty()
            && has_floor(i as u32)
            && lists.tiles(cell).len() == 1
            && neighbours(cell, map.width, map.height).len() == 8
            && neighbours(cell, map.width, map.height)
                .iter()
                .all(|&c| lists.tiles(c).iter().any(|&t| has_floor(t)))
    })
}

fn neighbours(cell: Cell, width: u32, height: u32) -> Vec<Cell> {
    let mut out = Vec::new();
    for dr in -1i64..=1 {
        for dc in -1i64..=1 {
            let (col, row) = (cell.col as i64 + dc, cell.row as i64 + dr);
            if (dr, dc) != (0, 0)
                && (0..width as i64).contains(&col)
                && (0..height as i64).contains(&row)
            {
                out.push(Cell {
                    col: col as u32,
                    row: row as u32,
                });
            }
        }
    }
    out
}

/// The floor test dropped at 8 × 8 points of each cell, clear of its sides by the edge
/// tolerance's width: (points with a floor before and none after, points whose floor moved
/// by more than 1 mm).
fn floors_changed(before: &Level, after: &Level, cells: &[Cell]) -> (usize, usize) {
    let (a, b) = (World::of(before).unwrap(), World::of(after).unwrap());
    let (mut lost, mut moved) = (0, 0);
    for cell in cells {
        for i in 0..8 {
            for j in 0..8 {
                let x = cell.col as f64 + 0.03 + 0.94 * i as f64 / 7.0;
                let z = cell.row as f64 + 0.03 + 0.94 * j as f64 / 7.0;
                match (a.probe(x, 60.0, z).floor, b.probe(x, 60.0, z).floor) {
                    (Some(_), None) => lost += 1,
                    (Some(f), Some(g)) if (f.height - g.height).abs() > 0.001 => moved += 1,
                    _ => {}
                }
            }
        }
    }
    (lost, moved)
}

/// Every tile but `tiles` is the base's, no tile is added, and no new problem is found.
fn changed_only(edit: &Edit, level: &Level, tiles: &[usize]) {
    let what = &edit.what;
    let (old, new) = (edit.base.map().unwrap(), level.map().unwrap());
    assert_eq!(old.tiles.len(), new.tiles.len(), "{what}: tiles added");
    for (i, (a, b)) in old.tiles.iter().zip(&new.tiles).enumerate() {
        assert!(tiles.contains(&i) || a == b, "{what}: tile {i} changed");
    }
    let problems: Vec<_> = check_against(level, &edit.base)
        .new_problems()
        .cloned()
        .collect();
    assert!(problems.is_empty(), "{what}: {problems:#?}");
}

#[test]
fn a_tile_turned_in_place_changes_only_that_tile() {
    for (what, level) in levels() {
        let Some(tile) = tile_among_full_cells(&level) else {
            panic!("{what}: no tile among full cells")
        };
        let mut edit = Edit::of(&what, &level);
        edit.turn(tile, 1024);
        let (written, report) = edit.written();
        assert_eq!(report.tiles_moved, [tile], "{what}");
        assert_eq!(
            (report.coverage_tiles.len(), report.models_added),
            (0, 0),
            "{what}: {report:?}"
        );
        changed_only(&edit, &written, &[tile]);
        assert!(written.trak() == edit.base.trak(), "{what}: TRAK changed");
        let t = &written.map().unwrap().tiles[tile];
        assert_eq!(
            t.model_index,
            edit.base.map().unwrap().tiles[tile].model_index
        );
        let map = written.map().unwrap();
        let cell = tile_cell(t, map.width, map.height).unwrap();
        let around = neighbours(cell, map.width, map.height);
        assert_eq!(
            floors_changed(&edit.base, &written, &around),
            (0, 0),
            "{what}"
        );
    }
}

#[test]
fn a_tile_deleted_beside_full_cells_is_accepted_and_changes_only_that_tile() {
    for (what, level) in levels() {
        let tile = tile_among_full_cells(&level).unwrap();
        let mut edit = Edit::of(&what, &level);
        edit.delete(tile);
        let (written, report) = edit.written();
        assert_eq!(report.tiles_emptied, [tile], "{what}");
        assert!(report.coverage_tiles.is_empty(), "{what}: {report:?}");
        changed_only(&edit, &written, &[tile]);
        // At most the empty model the deleted tile now names.
        let (before, after) = (
            &edit.base.trak().unwrap().models,
            &written.trak().unwrap().models,
        );
        assert!(after.len() <= before.len() + 1 && after[..before.len()] == before[..]);
        let map = written.map().unwrap();
        let cell = tile_cell(&map.tiles[tile], map.width, map.height).unwrap();
        let around = neighbours(cell, map.width, map.height);
        assert_eq!(
            floors_changed(&edit.base, &written, &around),
            (0, 0),
            "{what}"
        );
    }
}

#[test]
fn a_tile_moved_into_the_next_cell_is_accepted_and_keeps_the_floors_around() {
    for (what, level) in levels() {
        let tile = tile_among_full_cells(&level).unwrap();
        let map = level.map().unwrap();
        let cell = tile_cell(&map.tiles[tile], map.width, map.height).unwrap();

        let mut moved = Edit::of(&what, &level);
        moved.shift(tile, 1.0, 0.0);
        let (written, report) = moved.written();
        assert_eq!(report.tiles_moved, [tile], "{what}");
        changed_only(&moved, &written, &[tile]);
        // The cells around both, but the two: their floors are the others' still.
        let next = Cell {
            col: cell.col + 1,
            row: cell.row,
        };
        let around: Vec<Cell> = neighbours(cell, map.width, map.height)
            .into_iter()
            .chain(neighbours(next, map.width, map.height))
            .filter(|&c| c != cell && c != next)
            .collect();
        assert_eq!(
            floors_changed(&moved.base, &written, &around),
            (0, 0),
            "{what}"
        );
    }
}

#[test]
fn a_refusal_names_the_tile_whose_edit_made_the_problem() {
    // Tile 8 (cell 2, 1) reaches 0.025 east into cell 3, 1: past the edge tolerance, over the
    // floor of tile 9 there. Deleting tile 9, or moving it away, leaves the sliver over nothing.
    let bytes = hand_floors(6, 5, |col, row| if (col, row) == (2, 1) { 3 } else { 2 });
    let level = Level::parse(&bytes).unwrap();
    assert_eq!(check(&level).errors, 0);
    let mut deleted = Edit::of("tile 9 deleted", &level);
    deleted.delete(9);
    let mut moved = Edit::of("tile 9 moved", &level);
    moved.shift(9, 0.0, 2.0);
    for (edit, what) in [(deleted, "deleted"), (moved, "moved")] {
        let refusal = edit.convert().unwrap_err();
        let problems = &refusal.broken.as_ref().unwrap().problems;
        let first = &problems[0];
        assert_eq!(
            (first.tile, first.cell, first.cause),
            (Some(8), Some([3, 1]), Some(9)),
            "{}: {problems:#?}",
            edit.what
        );
        assert!(
            first
                .message
                .ends_with(&format!("(cell 3, 1 is where tile 9 was {what})")),
            "{}",
            first.message
        );
        // The node shown is the edited tile's, where it still has one.
        let node = refusal.node.as_ref().and_then(|n| n.name.clone());
        match what {
            "moved" => assert_eq!(node.as_deref(), Some("tile 0009 · model 2")),
            _ => assert_eq!(node, None, "{refusal}"),
        }
    }
}
