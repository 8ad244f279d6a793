//! New geometry: a mesh that belongs to no tile becomes new tiles split by cell and height band,
//! with texture entries fitted to its UVs and collision entered into every cell it covers.

use glam::Vec3;
use gltf::json::{
    self,
    mesh::{Mode, Primitive, Semantic},
    validation::Checked::Valid,
    Index,
};
use llamawad::game::cells::tile_cell;
use llamawad::game::check_against;
use llamawad::game::floor::World;
use llamawad::game::floors::{compare_floors, random_points};
use llamawad::generate::{generate, generate_with, CollisionScales, Size};
use llamawad::geometry::decode_collision_polygon;
use llamawad::gltf::uv::face_uvs;
use llamawad::gltf::{
    wad_to_gltf, ChangeReport, Document, Gltf, GltfToWadOptions, NodeRef, Source,
};
use llamawad::raw::{face_flags, TextureEntry};
use llamawad::Code;
use llamawad::Level;

mod doors;

/// Adds a mesh node (file-space triangles, optional UVs and material) to scene 0.
fn add_mesh(
    gltf: &mut Gltf,
    name: &str,
    positions: &[[f32; 3]],
    uvs: Option<&[[f32; 2]]>,
    material: Option<Index<json::Material>>,
    parent: Option<Index<json::Node>>,
) -> Index<json::Node> {
    add_mesh_with(gltf, name, positions, uvs, material, parent, &[])
}

/// `add_mesh` with custom per-corner attributes (`("_SOURCE_FACE", values)`).
fn add_mesh_with(
    gltf: &mut Gltf,
    name: &str,
    positions: &[[f32; 3]],
    uvs: Option<&[[f32; 2]]>,
    material: Option<Index<json::Material>>,
    parent: Option<Index<json::Node>>,
    scalars: &[(&str, &[f32])],
) -> Index<json::Node> {
    let flat: Vec<f32> = positions.iter().flatten().copied().collect();
    let mut attributes = std::collections::BTreeMap::new();
    for (name, values) in scalars {
        attributes.insert(
            Valid(Semantic::Extras(name.trim_start_matches('_').to_string())),
            gltf.push_floats(values, 1, false),
        );
    }
    attributes.insert(Valid(Semantic::Positions), gltf.push_floats(&flat, 3, true));
    if let Some(uvs) = uvs {
        let flat: Vec<f32> = uvs.iter().flatten().copied().collect();
        attributes.insert(
            Valid(Semantic::TexCoords(0)),
            gltf.push_floats(&flat, 2, false),
        );
    }
    let mesh = gltf.root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(name.to_string()),
        primitives: vec![Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: None,
            material,
            mode: Valid(Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });
    let node = gltf.root.push(json::Node {
        name: Some(name.to_string()),
        mesh: Some(mesh),
        ..Default::default()
    });
    match parent {
        Some(p) => gltf.root.nodes[p.value()]
            .children
            .get_or_insert_with(Vec::new)
            .push(node),
        None => gltf.root.scenes[0].nodes.push(node),
    }
    node
}

fn convert(
    base: &Level,
    gltf: &Gltf,
    options: GltfToWadOptions,
) -> Result<(Level, ChangeReport), llamawad::gltf::GltfToWadError> {
    let bytes = base.to_bytes().unwrap();
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    doors::convert(base, &bytes, &doc, options)
}

/// A page material of the export and a texture entry on that page.
fn page_material(gltf: &Gltf, level: &Level) -> (Index<json::Material>, usize) {
    let m = gltf
        .root
        .materials
        .iter()
        .position(|m| {
            m.name
                .as_deref()
                .is_some_and(|n| n.starts_with("page ") && n.ends_with("blend 0"))
        })
        .unwrap();
    let page: i8 = gltf.root.materials[m]
        .name
        .as_ref()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let entry = level
        .text()
        .unwrap()
        .entries
        .iter()
        .position(|e| !e.is_flat_colour() && e.page == page && e.blend_mode() == 0)
        .unwrap();
    (Index::new(m as u32), entry)
}

/// A level converted to glTF, ready for a new mesh textured like its own faces: the level, its
/// glTF, the material of a page (blend mode 0), one of that page's texture entries and that
/// entry's record.
fn new_mesh_base(base: Level) -> (Level, Gltf, Index<json::Material>, usize, TextureEntry) {
    let bytes = base.to_bytes().unwrap();
    let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
    let (material, entry) = page_material(&gltf, &base);
    let entry_record = base.text().unwrap().entries[entry];
    (base, gltf, material, entry, entry_record)
}

/// A plate of 1×1 quads over cells [x0, x0+n) × [z0, z0+n) at height y, each showing `entry`.
fn plate(
    x0: f32,
    z0: f32,
    n: usize,
    y: f32,
    entry: &llamawad::raw::TextureEntry,
) -> (Vec<[f32; 3]>, Vec<[f32; 2]>) {
    let mut out = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in 0..n {
            push_quad(&mut out, [x0 + i as f32, y, z0 + j as f32], 1.0, entry);
        }
    }
    out
}

/// A size × size quad from corner `at` (file space, the smallest x and z) showing `entry`: the
/// notes' floor plate's two halves (export corners 0,1,2 / 3,2,1), in file space (z negated,
/// corners 0, 2, 1).
fn push_quad(
    (positions, uvs): &mut (Vec<[f32; 3]>, Vec<[f32; 2]>),
    [x, y, z]: [f32; 3],
    size: f32,
    entry: &TextureEntry,
) {
    let first = face_uvs(entry, face_flags::QUAD_HALF);
    let second = face_uvs(entry, face_flags::QUAD_HALF | face_flags::SECOND_HALF);
    let e = [
        [x + size, y, z + size],
        [x, y, z + size],
        [x + size, y, z],
        [x, y, z],
    ];
    for (tri, rule) in [([0usize, 1, 2], first), ([3, 2, 1], second)] {
        for k in [0, 2, 1] {
            positions.push(e[tri[k]]);
            uvs.push(rule[k]);
        }
    }
}

fn tile_world(level: &Level, tile: usize) -> Vec<[Vec3; 3]> {
    let map = level.map().unwrap();
    let t = &map.tiles[tile];
    let model = &level.trak().unwrap().models[t.model_index as usize];
    let [x, y, z] = t.float.position;
    model
        .faces
        .iter()
        .map(|f| {
            f.corners.map(|c| {
                let p = model.vertices[c as usize].position;
                Vec3::new(x + p[0], y + p[1], -(z + p[2]))
            })
        })
        .collect()
}

#[test]
fn a_plate_becomes_one_tile_per_cell_with_fitted_entries_and_collision() {
    let (base, mut gltf, material, entry, entry_record) = new_mesh_base(generate(2, Size::Small));
    let (positions, uvs) = plate(1.0, 1.0, 2, 3.0, &entry_record);
    add_mesh(
        &mut gltf,
        "Plate",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );

    let options = GltfToWadOptions {
        generate_collision: true,
        ..Default::default()
    };
    let (level, report) = convert(&base, &gltf, options).unwrap();
    let before = base.map().unwrap().tiles.len();
    assert_eq!(report.tiles_added, (before..before + 4).collect::<Vec<_>>());
    assert_eq!(report.fit.faces_fitted, 8);
    assert_eq!(
        report.texture_entries_appended, 0,
        "the quads show an existing entry"
    );
    assert!(report.fit.max_error <= 1e-6);
    let new_problems: Vec<_> = llamawad::game::check_against(&level, &base)
        .new_problems()
        .cloned()
        .collect();
    assert!(new_problems.is_empty(), "{new_problems:?}");

    let map = level.map().unwrap();
    let mut covered_cells = Vec::new();
    for tile in before..before + 4 {
        let t = &map.tiles[tile];
        covered_cells.push(
            tile_cell(t, map.width, map.height)
                .unwrap()
                .index(map.width) as u32,
        );
        let model = &level.trak().unwrap().models[t.model_index as usize];
        assert_eq!(model.faces.len(), 2);
        assert!(model.faces.iter().all(|f| f.texture as usize == entry));
        assert_eq!(t.colours.len(), model.vertices.len());
        // The tile's faces are where the glTF put them.
        for tri in tile_world(&level, tile) {
            for c in tri {
                assert!(
                    positions
                        .iter()
                        .any(|p| (Vec3::from(*p) - c).abs().max_element() < 1e-5),
                    "{c}"
                );
            }
        }
        // Collision from the upward faces, in this tile's frame, on the plate.
        assert!(model.collision_count() >= 1);
        for poly in model.collision_polygons() {
            for c in decode_collision_polygon(poly) {
                assert!(
                    (t.float.position[1] + c.y - 3.0).abs() < 0.02,
                    "collision corner at {}",
                    c.y
                );
            }
        }
    }
    covered_cells.sort_unstable();
    covered_cells.dedup();
    assert_eq!(covered_cells.len(), 4);

    // Written and read back, the level is the same.
    let written = level.to_bytes().unwrap();
    assert_eq!(Level::parse(&written).unwrap(), level);
}

#[test]
fn uvs_without_an_entry_get_a_new_one() {
    let (base, mut gltf, material, entry, _) = new_mesh_base(generate(3, Size::Tiny));
    let mut odd = base.text().unwrap().entries[entry];
    (odd.u0, odd.u1, odd.v0, odd.v1) = (3, 200, 17, 30);
    let (positions, uvs) = plate(0.0, 0.0, 1, 1.0, &odd);
    add_mesh(
        &mut gltf,
        "Odd",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    assert_eq!(report.texture_entries_appended, 1);
    let entries = &level.text().unwrap().entries;
    let appended = entries.last().unwrap();
    assert_eq!(
        (appended.u0, appended.u1, appended.v0, appended.v1),
        (3, 200, 17, 30)
    );
    assert_eq!(entries.len(), base.text().unwrap().entries.len() + 1);
    assert!(report.fit.max_error < 1e-6);
}

#[test]
fn a_tall_mesh_is_split_into_height_bands() {
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(generate(2, Size::Small));
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for level_y in [0.0f32, 7.0, 14.0, 21.0] {
        let (p, u) = plate(2.0, 2.0, 1, level_y, &entry_record);
        positions.extend(p);
        uvs.extend(u);
    }
    add_mesh(
        &mut gltf,
        "Tower",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let (level, report) = convert(
        &base,
        &gltf,
        GltfToWadOptions {
            generate_collision: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(report.tiles_added.len(), 4, "one tile per band");
    // Bands of 6 units centred on the mesh's origin (y 0): each plate's tile stands within half
    // a band of it, so its collision is well within the planes' reach of about 8 units.
    for &t in &report.tiles_added {
        let tile_y = level.map().unwrap().tiles[t].float.position[1];
        assert!(tile_y.rem_euclid(6.0) == 0.0, "{tile_y}");
        let faces = tile_world(&level, t);
        assert!(
            faces.iter().flatten().all(|c| (c.y - tile_y).abs() <= 3.0),
            "{tile_y}: {faces:?}"
        );
    }
}

#[test]
fn a_given_collision_mesh_is_entered_into_every_cell_it_covers() {
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(generate(2, Size::Small));
    let (positions, uvs) = plate(4.0, 4.0, 1, 2.0, &entry_record);
    let node = add_mesh(
        &mut gltf,
        "Step",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    // One collision triangle reaching over three cells: (4,4), (5,4) and (4,5).
    let collision = [[4.2, 2.0, 4.2], [4.2, 2.0, 5.8], [5.8, 2.0, 4.2]];
    add_mesh(&mut gltf, "collision", &collision, None, None, Some(node));
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    let map = level.map().unwrap();
    let models = &level.trak().unwrap().models;
    let holds_collision =
        |t: &usize| models[map.tiles[*t].model_index as usize].collision_count() > 0;
    let cell_of = |t: usize| {
        let c = tile_cell(&map.tiles[t], map.width, map.height).unwrap();
        (c.col, c.row)
    };
    // The polygon lives in the plate's tile of the cell its centre lies over, and is entered into
    // the two other cells through collision-only tiles.
    let homes: Vec<_> = report
        .tiles_added
        .iter()
        .filter(|t| holds_collision(t))
        .collect();
    assert_eq!(homes.len(), 1);
    assert_eq!(cell_of(*homes[0]), (4, 4));
    let mut covered: Vec<_> = report.coverage_tiles.iter().map(|&t| cell_of(t)).collect();
    covered.sort_unstable();
    assert_eq!(covered, [(4, 5), (5, 4)]);
    assert!(report
        .coverage_tiles
        .iter()
        .all(|&t| models[map.tiles[t].model_index as usize].faces.is_empty()));
    // The engine stands on the triangle at its height in all three cells, and not beside it.
    let world = World::of(&level).unwrap();
    for (x, z) in [(4.5, 4.5), (5.2, 4.4), (4.4, 5.2), (4.3, 5.6), (5.6, 4.3)] {
        let floor = world.probe(x, 2.5, z).floor.unwrap();
        assert!((floor.height - 2.0).abs() < 1e-3, "{x} {z}: {floor:?}");
    }
    let beside = world.probe(5.5, 2.5, 5.5).floor;
    assert!(
        beside.is_none_or(|f| (f.height - 2.0).abs() > 1e-3),
        "{beside:?}"
    );
}

#[test]
fn new_faces_outside_the_grid_belong_to_the_nearest_cell_inside() {
    // FORMAT.md §5: tile models reach up to ±2.4 beyond their cell; only the tile must lie inside
    // the grid. A plate 3 units west of the grid becomes a tile in the edge cell.
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(generate(2, Size::Tiny));
    let (positions, uvs) = plate(-3.0, 0.0, 1, 0.0, &entry_record);
    add_mesh(
        &mut gltf,
        "Stray",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    let map = level.map().unwrap();
    assert_eq!(report.tiles_added.len(), 1);
    let tile = &map.tiles[report.tiles_added[0]];
    let cell = tile_cell(tile, map.width, map.height).unwrap();
    assert_eq!((cell.col, cell.row), (0, 0));
    let model = &level.trak().unwrap().models[tile.model_index as usize];
    assert_eq!(model.faces.len(), 2);
    // Its faces stay where they were drawn: export space x − 3..−2 around the tile origin 0.5.
    let xs: Vec<f32> = model
        .vertices
        .iter()
        .map(|v| v.position[0] + tile.float.position[0])
        .collect();
    assert!(xs.iter().all(|&x| (-3.0..=-2.0).contains(&x)), "{xs:?}");
    let problems: Vec<_> = check_against(&level, &base)
        .new_problems()
        .cloned()
        .collect();
    assert!(
        problems
            .iter()
            .all(|p| p.severity != llamawad::game::Severity::Error),
        "{problems:?}"
    );
}

/// Every tile node stripped of its tile: the whole level comes back as new geometry.
fn retiled(level: &Level) -> Gltf {
    let bytes = level.to_bytes().unwrap();
    let mut gltf = wad_to_gltf(level, Source::of(&bytes)).unwrap();
    for node in &mut gltf.root.nodes {
        let is_tile = node
            .extras
            .as_ref()
            .is_some_and(|e| e.get().contains("\"llamawad\":\"tile\""));
        if is_tile {
            node.extras = None;
        }
    }
    gltf
}

#[test]
fn a_fully_retiled_level_keeps_its_triangles_and_collision() {
    let base = generate(5, Size::Small);
    let gltf = retiled(&base);
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    let base_map = base.map().unwrap();
    assert_eq!(report.tiles_emptied.len(), base_map.tiles.len());
    let faces = |level: &Level, tiles: std::ops::Range<usize>| -> usize {
        let map = level.map().unwrap();
        tiles
            .map(|t| {
                level.trak().unwrap().models[map.tiles[t].model_index as usize]
                    .faces
                    .len()
            })
            .sum()
    };
    let before = faces(&base, 0..base_map.tiles.len());
    let after = faces(
        &level,
        base_map.tiles.len()..level.map().unwrap().tiles.len(),
    );
    assert_eq!(after, before, "every triangle comes back");
    // Every polygon comes back: the base's (coverage tiles aside, which the conversion makes
    // anew) within the new tiles' (coverage tiles aside; more where a tile without collision got
    // it from its faces).
    let collision = |level: &Level, tiles: &[usize]| -> usize {
        let map = level.map().unwrap();
        tiles
            .iter()
            .map(|&t| {
                level.trak().unwrap().models[map.tiles[t].model_index as usize].collision_count()
            })
            .sum()
    };
    let all: Vec<usize> = (0..base_map.tiles.len()).collect();
    let copies = llamawad::game::coverage::copies_of(base_map, &base.trak().unwrap().models, &all);
    assert!(
        !copies.is_empty(),
        "the generator enters polygons into the cells they reach"
    );
    let owners: Vec<usize> = all
        .iter()
        .copied()
        .filter(|t| !copies.contains(t))
        .collect();
    let new: Vec<usize> = report
        .tiles_added
        .iter()
        .copied()
        .filter(|t| !report.coverage_tiles.contains(t))
        .collect();
    assert!(collision(&level, &new) >= collision(&base, &owners));
    let new_problems: Vec<_> = llamawad::game::check_against(&level, &base)
        .new_problems()
        .cloned()
        .collect();
    assert!(
        new_problems.is_empty(),
        "{:?}",
        &new_problems[..new_problems.len().min(5)]
    );
}

/// The floor test dropped at 2,800 random points (FORMAT.md §4's measure) finds a floor in both
/// levels wherever it finds one in `base`, at least 99.9 % of them within 1 mm.
fn assert_same_floors(base: &Level, level: &Level, seed: u64, what: &str) {
    let map = base.map().unwrap();
    let points = random_points(map.width, map.height, 2800, seed).unwrap();
    let floors = compare_floors(
        &World::of(base).unwrap(),
        &World::of(level).unwrap(),
        &points,
    );
    assert_eq!(floors.lost, 0, "{what}: {floors:?}");
    assert!(
        floors.within_1mm as f64 >= 0.999 * floors.both as f64 && floors.both > 1000,
        "{what}: {floors:?}"
    );
}

#[test]
fn retiled_levels_come_back_and_the_engine_finds_the_same_floors() {
    // Every tile role stripped, as a glTF from another tool arrives: the whole level is new
    // geometry, at either plane scale. Edge tiles reach beyond the grid; nothing is refused, the
    // floor test at 2,800 random points finds the same floors (FORMAT.md §4's measure), and the
    // level stays the size of the original: pieces that are a model of the level after their
    // turn share it, and no collision-only tile enters a polygon a cell holds already.
    let levels = [(Size::Small, 1..=6), (Size::Full, 1..=2)]
        .into_iter()
        .flat_map(|(size, seeds)| seeds.map(move |seed| (size, seed)));
    for (size, seed) in levels {
        for scales in [
            CollisionScales::Engine,
            CollisionScales::Notes,
            CollisionScales::Mixed,
        ] {
            let what = format!("{size} seed {seed} at {scales}");
            let base = generate_with(seed, size, scales);
            // Collision as the level has it: tiles without collision stay without.
            let options = GltfToWadOptions {
                generate_collision: false,
                ..GltfToWadOptions::default()
            };
            let (level, _) = convert(&base, &retiled(&base), options)
                .unwrap_or_else(|e| panic!("{what}: refused: {e}"));
            let bytes = level.to_bytes().unwrap();
            let level = Level::parse(&bytes).unwrap();
            assert_same_floors(&base, &level, seed, &what);
            let ratio = bytes.len() as f64 / base.to_bytes().unwrap().len() as f64;
            assert!(ratio <= 1.2, "{what}: {ratio:.3} times the bytes");
            let errors: Vec<_> = check_against(&level, &base)
                .new_problems()
                .filter(|p| p.severity == llamawad::game::Severity::Error)
                .cloned()
                .collect();
            assert!(
                errors.is_empty(),
                "{what}: {:?}",
                &errors[..errors.len().min(3)]
            );
        }
    }
}

/// The rectangle of an entry turned `turn` quarter turns and mirrored or not, as the UVs of a
/// quad's corners in order around it.
fn oriented(e: &llamawad::raw::TextureEntry, turn: usize, mirrored: bool) -> [[f32; 2]; 4] {
    let (u0, u1) = (e.u0 as f32 / 256.0, (e.u1 as f32 + 1.0) / 256.0);
    let (v0, v1) = (e.v0 as f32 / 256.0, (e.v1 as f32 + 1.0) / 256.0);
    let mut corners = [[u0, v0], [u1, v0], [u1, v1], [u0, v1]];
    if mirrored {
        corners.reverse();
    }
    [0, 1, 2, 3].map(|k| corners[(k + turn) % 4])
}

#[test]
fn quads_show_their_uvs_in_every_orientation_and_share_equal_entries() {
    // Every rectangle in 4 turns × 2 mirrorings, on quads cut along their first diagonal as a
    // tool fans them: the game shows each orientation along one diagonal only, so half of them
    // are cut anew. Rectangles the level has are shared; new ones appended once.
    let (base, mut gltf, material, entry, _) = new_mesh_base(generate(2, Size::Small));
    let existing = base.text().unwrap().entries[entry];
    let fresh = llamawad::raw::TextureEntry {
        u0: 3,
        u1: 60,
        v0: 100,
        v1: 141,
        ..existing
    };
    let thin = llamawad::raw::TextureEntry {
        u0: 200,
        u1: 255,
        v0: 7,
        v1: 9,
        ..existing
    };
    let (mut positions, mut uvs, mut source) = (Vec::new(), Vec::new(), Vec::new());
    let mut quad = 0;
    for rect in [existing, fresh, thin] {
        for turn in 0..4 {
            for mirrored in [false, true] {
                let (x, z) = ((quad % 8) as f32 + 0.5, (quad / 8) as f32 + 0.5);
                // Corners around the quad, counter-clockwise seen from above (file space), at y 9.
                let p = [
                    [x, 9.0, z],
                    [x, 9.0, z + 0.8],
                    [x + 0.8, 9.0, z + 0.8],
                    [x + 0.8, 9.0, z],
                ];
                let uv = oriented(&rect, turn, mirrored);
                for k in [0, 1, 2, 0, 2, 3] {
                    positions.push(p[k]);
                    uvs.push(uv[k]);
                    source.push(quad as f32);
                }
                quad += 1;
            }
        }
    }
    add_mesh_with(
        &mut gltf,
        "Orientations",
        &positions,
        Some(&uvs),
        Some(material),
        None,
        &[("_SOURCE_FACE", &source)],
    );
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    assert_eq!(report.fit.faces_fitted, 48);
    assert!(report.fit.max_error <= 1.0 / 256.0, "{:?}", report.fit);
    let entries = &level.text().unwrap().entries;
    assert_eq!(
        report.texture_entries_appended, 2,
        "fresh and thin, once each"
    );
    assert_eq!(&entries[entries.len() - 2..], &[fresh, thin]);
    // What the game shows at every corner, against the UVs drawn there.
    let drawn: Vec<([u32; 3], [f32; 2])> = positions
        .iter()
        .zip(&uvs)
        .map(|(p, uv)| (p.map(f32::to_bits), *uv))
        .collect();
    let map = level.map().unwrap();
    let mut corners_checked = 0;
    for &t in &report.tiles_added {
        let tile = &map.tiles[t];
        let model = &level.trak().unwrap().models[tile.model_index as usize];
        for face in &model.faces {
            let shown = face_uvs(&entries[face.texture as usize], face.flags);
            for (corner, shown) in face.corners.iter().zip(shown) {
                let v = model.vertices[*corner as usize].position;
                let world = [
                    v[0] + tile.float.position[0],
                    v[1] + tile.float.position[1],
                    -(v[2] + tile.float.position[2]),
                ];
                let want = drawn
                    .iter()
                    .filter(|(p, _)| {
                        p.map(f32::from_bits)
                            .iter()
                            .zip(&world)
                            .all(|(a, b)| (a - b).abs() < 1e-4)
                    })
                    .map(|(_, uv)| *uv)
                    .collect::<Vec<_>>();
                assert!(!want.is_empty());
                // Quads do not share corners here: the one UV drawn at this corner.
                assert!(
                    want.iter().any(|w| (w[0] - shown[0]).abs() <= 1.0 / 256.0
                        && (w[1] - shown[1]).abs() <= 1.0 / 256.0),
                    "shown {shown:?}, drawn {want:?}"
                );
                corners_checked += 1;
            }
        }
    }
    assert_eq!(corners_checked, 48 * 3);
}

#[test]
fn uvs_that_are_no_rectangle_half_are_refused_by_face_or_snapped() {
    let (base, mut gltf, material, _, _) = new_mesh_base(generate(2, Size::Small));
    let positions = [
        [3.2, 9.0, 3.2],
        [3.2, 9.0, 3.9],
        [3.9, 9.0, 3.5],
        [4.2, 9.0, 4.2],
        [4.2, 9.0, 4.9],
        [4.9, 9.0, 4.9],
    ];
    let uvs = [
        [0.1, 0.1],
        [0.12, 0.4],
        [0.3, 0.15],
        [0.5, 0.5],
        [0.5, 0.75],
        [0.75, 0.75],
    ];
    let sheared = add_mesh(
        &mut gltf,
        "Sheared",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let e = convert(&base, &gltf, GltfToWadOptions::default()).unwrap_err();
    let node = NodeRef {
        index: Some(sheared.value()),
        name: Some("Sheared".to_string()),
    };
    assert_eq!(
        (e.node.clone(), e.faces.clone()),
        (Some(node), vec![0]),
        "{e}"
    );
    assert!(
        e.to_string().contains("no half of a texture rectangle"),
        "{e}"
    );
    let snap = GltfToWadOptions {
        snap_uvs: true,
        ..GltfToWadOptions::default()
    };
    let (_, report) = convert(&base, &gltf, snap).unwrap();
    assert_eq!(report.uv_snapped, vec![("Sheared".to_string(), 0)]);
    assert!(report.fit.max_error > 1.0 / 256.0);
}

#[test]
fn a_new_mesh_without_collision_gets_floors_and_walls_from_its_faces() {
    // A 2 × 2 plate at y 3 with a wall along its west side; its faces carry collision material 16
    // (exit floor). Without a collision mesh of its own it gets collision made from its faces,
    // the quads as quads, entered into the cells they cover.
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(generate(2, Size::Small));
    let (mut positions, mut uvs) = plate(4.0, 4.0, 2, 3.0, &entry_record);
    let wall = [
        [4.0, 3.0, 4.0],
        [4.0, 3.0, 6.0],
        [4.0, 4.0, 6.0],
        [4.0, 4.0, 4.0],
    ];
    for k in [0, 1, 2, 0, 2, 3] {
        positions.push(wall[k]);
        uvs.push(uvs[k]);
    }
    let source: Vec<f32> = (0..positions.len()).map(|c| (c / 6) as f32).collect();
    let materials = vec![16.0; positions.len()];
    add_mesh_with(
        &mut gltf,
        "Terrace",
        &positions,
        Some(&uvs),
        Some(material),
        None,
        &[("_SOURCE_FACE", &source), ("_MATERIAL", &materials)],
    );
    let (level, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    assert_eq!(report.collision_generated, vec!["Terrace".to_string()]);
    let map = level.map().unwrap();
    let models = &level.trak().unwrap().models;
    let polygons: Vec<_> = report
        .tiles_added
        .iter()
        .flat_map(|&t| {
            models[map.tiles[t].model_index as usize]
                .collision_polygons()
                .copied()
        })
        .collect();
    assert_eq!(polygons.len(), 5, "four floor quads and the wall");
    assert!(
        polygons.iter().all(|p| p.kind & 1 == 1 && p.material == 16),
        "{polygons:?}"
    );
    assert_eq!(
        polygons
            .iter()
            .filter(|p| p.planes[0].normal[1] == 0)
            .count(),
        1,
        "the wall"
    );
    let world = World::of(&level).unwrap();
    for (x, z) in [(4.5, 4.5), (5.5, 4.5), (4.5, 5.5), (5.5, 5.5), (4.02, 5.98)] {
        let floor = world.probe(x, 3.2, z).floor.unwrap();
        assert!(
            (floor.height - 3.0).abs() < 1e-3 && floor.material == 16,
            "{x} {z}: {floor:?}"
        );
    }
    // Without: no collision, and a warning names the mesh.
    let off = GltfToWadOptions {
        generate_collision: false,
        ..GltfToWadOptions::default()
    };
    let (level, report) = convert(&base, &gltf, off).unwrap();
    assert!(report.collision_generated.is_empty());
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("node 'Terrace' has no collision")),
        "{:?}",
        report.warnings
    );
    let map = level.map().unwrap();
    assert!(report
        .tiles_added
        .iter()
        .all(
            |&t| level.trak().unwrap().models[map.tiles[t].model_index as usize].collision_count()
                == 0
        ));
}

/// A 4×4-unit plate over cells from (x0, z0) at height y, cut into n×n quads, quad (i, j)
/// showing the one-texel rectangle (i, j) of `entry`'s page: every quad needs an entry of its own.
fn fine_plate(
    x0: f32,
    z0: f32,
    n: usize,
    y: f32,
    entry: &TextureEntry,
) -> (Vec<[f32; 3]>, Vec<[f32; 2]>) {
    let size = 4.0 / n as f32;
    let mut out = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in 0..n {
            let texel = TextureEntry {
                u0: i as u8,
                u1: i as u8,
                v0: j as u8,
                v1: j as u8,
                ..*entry
            };
            let at = [x0 + i as f32 * size, y, z0 + j as f32 * size];
            push_quad(&mut out, at, size, &texel);
        }
    }
    out
}

#[test]
fn many_new_texture_entries_are_warned_of_and_past_the_u16_limit_refused_by_name() {
    // Faces cut smaller than their texture each show a rectangle of their own (issue 21: 7,744
    // entries from one subdivided tile went unnoticed).
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(generate(2, Size::Small));
    let (positions, uvs) = fine_plate(2.0, 2.0, 12, 3.0, &entry_record);
    add_mesh(
        &mut gltf,
        "Fine plate",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let (_, report) = convert(&base, &gltf, GltfToWadOptions::default()).unwrap();
    assert_eq!(
        report.texture_entries_by_object["Fine plate"], 144,
        "{report:?}"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.starts_with("Fine plate: its faces added 144 texture entries")),
        "{:?}",
        report.warnings
    );

    // A level whose table is 100 entries short of what a face's u16 can name: 144 more are past
    // it.
    let mut full = generate(2, Size::Small);
    let text = full.text_mut().unwrap();
    let filler = TextureEntry {
        flags: 1,
        ..text.entries[0]
    };
    let short = 65_536 - 100 - text.entries.len();
    text.entries.extend(std::iter::repeat_n(filler, short));
    let (base, mut gltf, material, _, entry_record) = new_mesh_base(full);
    let (positions, uvs) = fine_plate(2.0, 2.0, 12, 3.0, &entry_record);
    add_mesh(
        &mut gltf,
        "Finest plate",
        &positions,
        Some(&uvs),
        Some(material),
        None,
    );
    let e = convert(&base, &gltf, GltfToWadOptions::default()).unwrap_err();
    assert_eq!(e.code, Code::TextureEntryLimit, "{e}");
    // Entries are counted by object: the refusal knows the node by its name alone.
    let node = e.node.clone().unwrap();
    assert_eq!((node.index, e.object()), (None, Some("Finest plate")));
    assert!(e.message.contains("need 65580 texture entries"), "{e}");
    assert!(e.message.contains("at most 65536"), "{e}");
    // The same numbers as fields.
    assert_eq!((e.cause.count, e.cause.limit), (Some(65580), Some(65536)));
}

/// The level with decoration the llama passes through: over every sixth tile that has faces and
/// collision, a copy of its faces 0.1 higher on a model without collision (a low plinth, the
/// notes' "walls without collision"), appended as tiles of their own. What our generator never
/// makes, and what two held-out levels are full of.
fn decorated(mut level: Level) -> Level {
    let (trak, map) = {
        let (map, trak) = level.map_and_trak_mut();
        (trak.unwrap(), map.unwrap())
    };
    let mut added = Vec::new();
    for tile in map.tiles.iter().filter(|t| t.swap.is_none()).step_by(6) {
        let model = &trak.models[tile.model_index as usize];
        if model.faces.is_empty() || model.collision_count() == 0 {
            continue;
        }
        let mut plinth = model.clone();
        plinth.collision = Default::default();
        let [x, y, z] = tile.float.position;
        let mut placed = llamawad::level::Tile::new(
            [x, y + 0.1, z],
            tile.float.rotation,
            (trak.models.len() + added.len()) as u32,
        );
        placed.colours = tile.colours.clone();
        added.push((plinth, placed));
    }
    assert!(added.len() > 10, "{} decorations", added.len());
    for (plinth, placed) in added {
        trak.models.push(plinth);
        map.tiles.push(placed);
    }
    Level::parse(&level.to_bytes().unwrap()).unwrap()
}

#[test]
fn decoration_without_collision_stays_without_when_a_level_is_retiled() {
    // Every tile role stripped, collision made for new meshes (the default): a tile without
    // collision comes back without, so the llama stands where it stood (issue 21 §4: a plinth
    // given collision from its faces lifted the floor by up to 0.12 on two held-out levels).
    for seed in 1..=3 {
        let base = decorated(generate(seed, Size::Small));
        let errors: Vec<_> = check_against(&base, &generate(seed, Size::Small))
            .new_problems()
            .filter(|p| p.severity == llamawad::game::Severity::Error)
            .cloned()
            .collect();
        assert!(
            errors.is_empty(),
            "seed {seed}: the decorated level is valid: {errors:?}"
        );
        let (level, report) = convert(&base, &retiled(&base), GltfToWadOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: refused: {e}"));
        assert!(
            report.collision_generated.is_empty(),
            "seed {seed}: {:?}",
            report.collision_generated
        );
        let level = Level::parse(&level.to_bytes().unwrap()).unwrap();
        assert_same_floors(&base, &level, seed, &format!("seed {seed}"));
    }
}

/// The level with every seventh tile that has faces turned by an odd angle (300/4096 of a
/// turn) and moved off its cell's centre, written by the way back (which enters the turned
/// polygons into every cell they reach): a level of a shape the generator never makes.
fn turned(level: Level) -> Level {
    let bytes = level.to_bytes().unwrap();
    let mut gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
    let map = level.map().unwrap();
    let models = &level.trak().unwrap().models;
    let mut turned = 0;
    for node in &mut gltf.root.nodes {
        let Some(extras) = node.extras.as_ref() else {
            continue;
        };
        let e: serde_json::Value = serde_json::from_str(extras.get()).unwrap();
        if e["llamawad"] != "tile" {
            continue;
        }
        let tile = &map.tiles[e["tile"].as_u64().unwrap() as usize];
        let i = e["tile"].as_u64().unwrap();
        if i % 7 != 3 || tile.swap.is_some() || models[tile.model_index as usize].faces.is_empty() {
            continue;
        }
        let angle = (tile.float.rotation + 300) as f32 / 4096.0 * std::f32::consts::TAU;
        node.rotation = Some(json::scene::UnitQuaternion(
            glam::Quat::from_rotation_y(angle).to_array(),
        ));
        let t = node.translation.unwrap();
        node.translation = Some([t[0] + 0.2, t[1], t[2] + 0.3]);
        turned += 1;
    }
    assert!(turned > 10, "{turned} tiles turned");
    let (written, _) = convert(&level, &gltf, GltfToWadOptions::default())
        .unwrap_or_else(|e| panic!("the turned level is refused: {e}"));
    Level::parse(&written.to_bytes().unwrap()).unwrap()
}

#[test]
fn a_level_with_tiles_turned_by_odd_angles_and_decoration_keeps_its_floors_when_retiled() {
    for seed in 1..=3 {
        let base = decorated(turned(generate(seed, Size::Small)));
        let (level, _) = convert(&base, &retiled(&base), GltfToWadOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: refused: {e}"));
        let level = Level::parse(&level.to_bytes().unwrap()).unwrap();
        assert_same_floors(
            &base,
            &level,
            seed,
            &format!("seed {seed}, turned and decorated"),
        );
    }
}
