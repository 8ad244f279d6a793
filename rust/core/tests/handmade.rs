//! Levels written byte by byte here from the notes' layouts, not by the project's writer or
//! generator: what the generator never makes (an empty model, a model without collision, no
//! object models, no strats, no lights, a 2 × 2 grid, the largest model the engine transforms)
//! reads, writes back byte for byte, converts to glTF and back, and passes the check. And strats
//! placed by hand, with their code, parameters and waypoints, read in the game's terms.

mod support {
    pub mod arrays;
    pub mod bytes;
}

use support::bytes::{face, model_header, wad, Bytes};

use llamawad::game::strats::{OffsetSource, Strats};
use llamawad::game::testlevel::{test_level, TestLevelOptions};
use llamawad::game::{check, Severity};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::Code;
use llamawad::Level;

/// What a level places besides its tiles: the STPC payload, MAP's parameter pool (block 3),
/// waypoints (block 5, 34 bytes each) and strats (block 12: poolExtra, 58 bytes each).
struct Objects {
    stpc: Vec<u8>,
    parameters: Vec<u32>,
    waypoints: Vec<Vec<u8>>,
    pool_extra: u32,
    strats: Vec<Vec<u8>>,
    /// The LGHT payload, if the level has the chunk.
    lights: Option<Vec<u8>>,
}

impl Default for Objects {
    /// No object models, no animations, 16 bytes of code; nothing placed.
    fn default() -> Objects {
        let mut stpc = Bytes::default();
        stpc.u32(0).u32(0).raw(&[0; 16]);
        Objects {
            stpc: stpc.0,
            parameters: Vec::new(),
            waypoints: Vec::new(),
            pool_extra: 0,
            strats: Vec::new(),
            lights: None,
        }
    }
}

/// A 2 × 2 level: model 0 empty (no vertices, faces or collision), model 1 a triangle without
/// collision on the one page; one tile of model 1; no object models, no animations, no strats.
/// `big` makes model 1 the largest a model may be (8,000 vertices, in batches of 256 faces).
fn handmade(big: bool) -> Vec<u8> {
    handmade_with(big, Objects::default())
}

/// The level of [`handmade`] with these objects.
fn handmade_with(big: bool, objects: Objects) -> Vec<u8> {
    let wfpc = Bytes::default().u32(0).0.clone();

    let mut text = Bytes::default();
    text.u32(0); // palettes
    text.u32(1).u32(1).u32(4).u32(4); // one 16-bit 4 × 4 page
    for i in 0..16u16 {
        text.u16(0x8000 | i);
    }
    text.u32(1).u16(0).raw(&[0, 0xff]).raw(&[0, 3, 0, 3]); // one entry: page 0, u 0–3, v 0–3
    let text = text.0;

    // Model 1: a fan of triangles at y 0.25 from one corner of the cell to points along the
    // opposite edge (export space).
    let vertices: u16 = if big { 8000 } else { 3 };
    let faces = vertices - 2;
    let mut trak = Bytes::default();
    trak.u32(2);
    model_header(&mut trak, 0, 0, 0, [0.0; 3], [0.0; 3]);
    model_header(
        &mut trak,
        vertices,
        faces,
        0,
        [-0.51, 0.24, -0.51],
        [0.51, 0.26, 0.51],
    );
    let position = |i: u16| {
        if i == 0 {
            [-0.5, 0.25, 0.5]
        } else {
            let t = (i - 1) as f32 / (vertices - 2).max(1) as f32;
            [0.5 - t, 0.25, -0.5]
        }
    };
    for i in 0..vertices {
        let [x, y, z] = position(i);
        trak.f32(x).f32(y).f32(z).f32(0.0).f32(1.0).f32(0.0);
    }
    for f in 0..faces {
        let corners = [0, f + 1, f + 2];
        let [a, b, c] = corners.map(position);
        let (u, v) = (
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let plane = if len > 0.0 {
            let n = n.map(|c| c / len);
            [n[0], n[1], n[2], n[0] * a[0] + n[1] * a[1] + n[2] * a[2]]
        } else {
            [0.0; 4]
        };
        // A new batch every 256 faces (FORMAT.md §3).
        let batch = if f % 256 == 0 { 0x8 } else { 0 };
        face(&mut trak, batch, corners, plane);
    }
    let trak = trak.0;

    let stpc = objects.stpc;

    let mut map = Bytes::default();
    map.u32(1).u32(2).u32(2); // one tile, 2 × 2 grid
    map.f32(0.5).f32(0.0).f32(-0.5).u32(0).u32(1).u32(0); // at the centre of cell 0, model 1
    map.u32(objects.parameters.len() as u32);
    for &p in &objects.parameters {
        map.u32(p);
    }
    map.u32(0); // zones
    map.u32(objects.waypoints.len() as u32);
    for w in &objects.waypoints {
        map.raw(w);
    }
    for z in 0..32 {
        map.u32(if z == 0 { 1 } else { 0 }).i32(0); // zone 0 sees zone 0
    }
    map.u32(0).u32(0).u32(0).u32(0); // every cell in zone 0
    map.i32(0).i32(0).i32(0).i32(2048).i32(0).i32(2048); // the fixed-point copy
    map.u32(1); // model index
    for _ in 0..vertices {
        map.raw(&[0x80, 0x80, 0x80, 0]); // one colour per vertex
    }
    map.u32(objects.strats.len() as u32).u32(objects.pool_extra);
    for s in &objects.strats {
        map.raw(s);
    }
    map.u16(0);
    let map = map.0;

    let mut chunks = vec![
        (b"WFPC", wfpc),
        (b"TEXT", text),
        (b"TRAK", trak),
        (b"STPC", stpc),
        (b"MAP ", map),
    ];
    if let Some(lights) = objects.lights {
        chunks.push((b"LGHT", lights));
    }
    wad(&chunks)
}

#[test]
fn a_handmade_level_reads_as_written_and_writes_back_byte_for_byte() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        assert!(level.warnings.is_empty(), "{:?}", level.warnings);
        let models = &level.trak().unwrap().models;
        assert_eq!(models.len(), 2);
        assert!(models[0].vertices.is_empty() && models[0].faces.is_empty());
        assert_eq!(models[0].collision_count(), 0);
        assert_eq!(models[1].vertices.len(), if big { 8000 } else { 3 });
        assert_eq!(models[1].collision_count(), 0);
        let map = level.map().unwrap();
        assert_eq!((map.width, map.height, map.tiles.len()), (2, 2, 1));
        assert_eq!(map.tiles[0].float.position, [0.5, 0.0, -0.5]);
        assert!(map.strats.is_empty());
        assert!(level.stpc().unwrap().models.is_empty());
        assert_eq!(level.to_bytes().unwrap(), bytes, "big: {big}");
    }
}

#[test]
fn a_handmade_level_goes_through_gltf_unchanged_and_keeps_the_rules() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
        let (back, report) =
            gltf_to_wad(&level, &bytes, &doc, GltfToWadOptions::default()).unwrap();
        assert!(report.is_empty(), "{report:?}");
        assert_eq!(back.to_bytes().unwrap(), bytes);
        // No errors; the one warning: no strat is the player (the level has no strats).
        let report = check(&level);
        let codes: Vec<_> = report
            .problems
            .iter()
            .map(|p| (p.code, p.severity))
            .collect();
        assert_eq!(
            codes,
            [(Code::PlayerStart, Severity::Warning)],
            "{:#?}",
            report.problems
        );
    }
}

#[test]
fn a_handmade_level_is_handed_to_the_add_on_as_its_gltf_holds_it() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let (hand_over, compared) = support::arrays::check_hand_over(&gltf);
        // No strats, no object models: no batch for them, nothing missed.
        assert!(!hand_over.info.batches.contains_key("object_model"));
        assert!(hand_over.info.batches.contains_key("tile"));
        assert!(compared.held > 0, "big: {big}");
    }
}

#[test]
fn one_vertex_more_than_the_engine_transforms_is_an_error() {
    let mut level = Level::parse(&handmade(true)).unwrap();
    let model = &mut level.trak_mut().unwrap().models[1];
    let v = model.vertices[0];
    model.vertices.push(v);
    level.map_mut().unwrap().tiles[0]
        .colours
        .push([0x80, 0x80, 0x80, 0]);
    let report = check(&level);
    assert!(report.problems.iter().any(|p| p.code == Code::VertexLimit
        && p.severity == Severity::Error
        && p.model == Some(1)));
}

/// A strat record (58 bytes, note 003): rotation x/y/z, position 20.12, code offset, parameter
/// count and index, variables, slots, type flags, extra memory, waypoint, 0, flags, 0.
struct Record {
    rotation: [u16; 3],
    position: [i32; 3],
    code: u32,
    parameters: (u32, i32),
    fields: [u32; 4],
    waypoint: i32,
    flags: u16,
}

impl Record {
    fn bytes(&self) -> Vec<u8> {
        let mut b = Bytes::default();
        for r in self.rotation {
            b.u16(r);
        }
        for p in self.position {
            b.i32(p);
        }
        b.u32(self.code)
            .u32(self.parameters.0)
            .i32(self.parameters.1);
        for f in self.fields {
            b.u32(f);
        }
        b.i32(self.waypoint).u32(0).u16(self.flags).u16(0);
        assert_eq!(b.0.len(), 58);
        b.0
    }
}

/// A waypoint (34 bytes, note 003 block 5): next, u32, rotation, position 20.12, u32, u32.
fn waypoint(next: u32, position: [i32; 3]) -> Vec<u8> {
    let mut b = Bytes::default();
    b.u32(next).u32(0).u16(0).u16(0).u16(0);
    for p in position {
        b.i32(p);
    }
    b.u32(0).u32(0);
    assert_eq!(b.0.len(), 34);
    b.0
}

/// STPC without models or animations (code from payload offset 8): `Llama` at 8, `Coin` at 28,
/// `CoinSparkle` at 44 (placed by no strat), a spawn stub at 60 spawning `CoinSparkle`, then the
/// names at 80. A name instruction is `0xd4, 0xea, rel`, the name at (offset after rel) + rel.
fn strat_code() -> Vec<u8> {
    let mut stpc = Bytes::default();
    stpc.u32(0).u32(0);
    let names = b"Llama\0Coin\0CoinSparkle\0";
    let rel = |after_rel: i32, name_at: i32| name_at - after_rel;
    // 8: Llama; rel after 20, name at 80.
    stpc.u32(0xd4)
        .u32(0xea)
        .i32(rel(20, 80))
        .u32(0x12)
        .u32(0xe0);
    // 28: Coin; rel after 40, name at 86.
    stpc.u32(0xd4).u32(0xea).i32(rel(40, 86)).u32(0xe0);
    // 44: CoinSparkle; rel after 56, name at 91.
    stpc.u32(0xd4).u32(0xea).i32(rel(56, 91)).u32(0xe0);
    // 60: push 2; spawn 44; end.
    stpc.u32(0x9c).u32(2).u32(0xb2).u32(44).u32(0xe0);
    assert_eq!(stpc.0.len(), 80);
    stpc.raw(names).raw(&[0; 3]);
    stpc.0
}

/// The handmade level with four strats: a Coin at (1.5, 0, −2.25) turned by 1024, not created at
/// start, with three parameters and a chain of two waypoints; the Llama; the spawn stub; and a
/// strat pointing into the Coin's name instruction, its parameters and waypoint outside the pool.
fn handmade_strats() -> Vec<u8> {
    let llama_fields = [78, 4, 0x24_8000, 1];
    let coin_fields = [9, 0, 0x4_0000, 0];
    let strats = [
        Record {
            rotation: [0, 1024, 0],
            position: [6144, 0, -9216],
            code: 28,
            parameters: (3, 1),
            fields: coin_fields,
            waypoint: 1,
            flags: 2,
        },
        Record {
            rotation: [0, 0, 0],
            position: [2048, 1024, 2048],
            code: 8,
            parameters: (0, -1),
            fields: llama_fields,
            waypoint: -1,
            flags: 0,
        },
        Record {
            rotation: [0, 2048, 0],
            position: [4096, 1024, 4096],
            code: 60,
            parameters: (1, 0),
            fields: [17, 1, 0x8_0000, 0],
            waypoint: -1,
            flags: 0,
        },
        Record {
            rotation: [0, 3072, 0],
            position: [0, 0, 0],
            code: 32,
            parameters: (3, 2),
            fields: coin_fields,
            waypoint: 5,
            flags: 0,
        },
    ];
    handmade_with(
        false,
        Objects {
            stpc: strat_code(),
            parameters: vec![5, 7, 0x1800, u32::MAX],
            waypoints: vec![
                waypoint(0, [0, 0, 0]),
                waypoint(1, [6144, 2048, 9216]),
                waypoint(0, [8192, 2048, 9216]),
            ],
            pool_extra: 4,
            strats: strats.iter().map(Record::bytes).collect(),
            lights: None,
        },
    )
}

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

/// Where the JSON holds an empty list or object outside `extras` (which glTF leaves to the
/// application): the validator's EMPTY_ENTITY.
fn empty_entities(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Array(items) => {
            if items.is_empty() {
                out.push(path.to_string());
            }
            for (i, item) in items.iter().enumerate() {
                empty_entities(item, &format!("{path}/{i}"), out);
            }
        }
        serde_json::Value::Object(fields) => {
            for (key, field) in fields {
                if key != "extras" {
                    empty_entities(field, &format!("{path}/{key}"), out);
                }
            }
        }
        _ => {}
    }
}

/// The handmade level with an LGHT chunk of these bytes.
fn handmade_lights(payload: Vec<u8>) -> Vec<u8> {
    handmade_with(
        false,
        Objects {
            lights: Some(payload),
            ..Objects::default()
        },
    )
}

fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn no_gltf_of_a_handmade_level_holds_an_empty_list() {
    // No lights; lights no reading explains (kept as bytes); a light of type 0 and a sun, read
    // by the notes' word counts. No strats, waypoints or object models in any.
    let cases = [
        ("no LGHT", handmade(false), None),
        (
            "LGHT kept as bytes",
            handmade_lights(words(&[2, 0x100, 0, 0])),
            None,
        ),
        (
            "LGHT of types 0 and 1",
            handmade_lights(words(&[2, 0x0040_4000, 0x0080_8001, 0, 0x1000, 0])),
            Some(2),
        ),
    ];
    for (what, bytes, lights) in cases {
        let level = Level::parse(&bytes).unwrap();
        assert_eq!(level.lights().map(|l| l.lights.len()), lights, "{what}");
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&gltf.to_gltf_json("x.bin")).unwrap();
        let mut empty = Vec::new();
        empty_entities(&json, "", &mut empty);
        assert!(empty.is_empty(), "{what}: empty lists at {empty:?}");
        // The groups are there, without children where they hold nothing.
        let group = |role: &str| {
            json["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["extras"]["llamawad"] == role)
                .unwrap_or_else(|| panic!("{what}: no {role} group"))
                .clone()
        };
        assert_eq!(
            group("lights")["children"].as_array().map(Vec::len),
            lights,
            "{what}"
        );
        assert!(group("strats").get("children").is_none(), "{what}");
        // The way back gives the level byte for byte.
        let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
        let (back, _) = gltf_to_wad(&level, &bytes, &doc, GltfToWadOptions::default()).unwrap();
        assert_eq!(back.to_bytes().unwrap(), bytes, "{what}");
    }
}

/// Where the payload of the chunk `tag` starts in a WAD written by [`wad`].
fn payload_of(bytes: &[u8], tag: &[u8; 4]) -> usize {
    let mut at = 4;
    loop {
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if bytes[at..at + 4].iter().rev().eq(tag.iter()) {
            return at + 8;
        }
        at += 8 + size;
    }
}

fn put(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}

/// The problems of `bytes` with `code`, as (severity, tile, model, face, strat).
type Culprits = Vec<(
    Severity,
    Option<usize>,
    Option<usize>,
    Option<usize>,
    Option<usize>,
)>;

fn culprits(bytes: &[u8], code: Code) -> (Culprits, Vec<String>) {
    let report = check(&Level::parse(bytes).unwrap());
    let found: Vec<_> = report.problems.iter().filter(|p| p.code == code).collect();
    (
        found
            .iter()
            .map(|p| (p.severity, p.tile, p.model, p.face, p.strat))
            .collect(),
        found.iter().map(|p| p.message.clone()).collect(),
    )
}

/// The level converted to glTF (JSON that parses, every number finite: glTF holds no other)
/// and back unchanged gives its bytes.
fn unchanged_through_gltf(bytes: &[u8], what: &str) {
    let level = Level::parse(bytes).unwrap();
    let gltf = wad_to_gltf(&level, Source::of(bytes)).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&gltf.to_gltf_json("x.bin"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Every float accessor's values (a NaN position once made its bounds null).
    for (i, accessor) in json["accessors"].as_array().unwrap().iter().enumerate() {
        if accessor["componentType"] != 5126 {
            continue;
        }
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
        let components = match accessor["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let n = accessor["count"].as_u64().unwrap() as usize * components;
        let finite = gltf.bin[start..start + 4 * n]
            .chunks_exact(4)
            .all(|w| f32::from_le_bytes(w.try_into().unwrap()).is_finite());
        assert!(
            finite,
            "{what}: accessor {i} holds a value that is not finite"
        );
    }
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (back, _) = gltf_to_wad(&level, bytes, &doc, GltfToWadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(back.to_bytes().unwrap(), bytes, "{what}");
}

#[test]
fn floats_the_game_reads_that_are_no_numbers_are_errors_naming_where() {
    let base = handmade(false);
    let trak = payload_of(&base, b"TRAK");
    let map = payload_of(&base, b"MAP ");
    // TRAK: the count, two headers of 0x84 bytes (model 1's at 4 + 0x84), model 0 has no data,
    // then model 1's three vertices of 24 bytes and its face of 28 (plane at +12).
    let header_1 = trak + 4 + 0x84;
    let vertex = move |v: usize| trak + 4 + 2 * 0x84 + 24 * v;
    let face_0 = vertex(3);
    let nan = f32::NAN.to_le_bytes();
    let inf = f32::INFINITY.to_le_bytes();
    /// What is damaged: the bytes put where, the culprit `check` names (tile, model, face) and
    /// words of its message.
    struct Case {
        what: &'static str,
        put: Vec<(usize, [u8; 4])>,
        culprit: (Option<usize>, Option<usize>, Option<usize>),
        words: &'static str,
    }
    let cases = [
        Case {
            what: "vertex position",
            put: vec![(vertex(1) + 4, nan)],
            culprit: (None, Some(1), None),
            words: "TRAK model 1 vertex 1: position [",
        },
        Case {
            what: "vertex normal",
            put: vec![(vertex(2) + 12, inf)],
            culprit: (None, Some(1), None),
            words: "TRAK model 1 vertex 2: normal [inf, 1.0, 0.0]",
        },
        Case {
            what: "the whole box",
            put: (0..27).map(|k| (header_1 + 4 * k, nan)).collect(),
            culprit: (None, Some(1), None),
            words: "TRAK model 1 box: its centre [NaN, NaN, NaN]",
        },
        Case {
            what: "face plane",
            put: vec![(face_0 + 12 + 12, nan)],
            culprit: (None, Some(1), Some(0)),
            words: "TRAK model 1 face 0: its plane [",
        },
        Case {
            what: "tile y",
            // MAP: nTiles, W, H, then tile 0's floats x, y, z.
            put: vec![(map + 12 + 4, nan)],
            culprit: (Some(0), None, None),
            words: "tile 0: its position (block 2) x 0.5, y NaN, z 0.5 is not a finite number",
        },
    ];
    for Case {
        what,
        put: values,
        culprit: (tile, model, face),
        words,
    } in cases
    {
        let mut bytes = base.clone();
        for (at, value) in values {
            put(&mut bytes, at, &value);
        }
        let (found, messages) = culprits(&bytes, Code::NotFinite);
        assert_eq!(
            found,
            [(Severity::Error, tile, model, face, None)],
            "{what}: {messages:?}"
        );
        assert!(messages[0].contains(words), "{what}: {messages:?}");
        // No other problem comes of it (no plane or box compared with a NaN).
        let report = check(&Level::parse(&bytes).unwrap());
        // A tile whose x and z are numbers stands in a cell, which is named too.
        let cells: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.code == Code::NotFinite)
            .map(|p| p.cell)
            .collect();
        assert_eq!(cells, [tile.map(|_| [0, 0])], "{what}");
        let others: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.code != Code::NotFinite && p.code != Code::PlayerStart)
            .collect();
        assert!(others.is_empty(), "{what}: {others:#?}");
        unchanged_through_gltf(&bytes, what);
    }
}

#[test]
fn the_swap_flag_without_wfpc_0x10000_is_a_warning() {
    let mut bytes = handmade(false);
    let map = payload_of(&bytes, b"MAP ");
    assert_eq!(culprits(&bytes, Code::TileSwap).0, []);
    // Tile 0's hasAlt (the sixth field of its floats); WFPC is 0.
    put(&mut bytes, map + 12 + 20, &1u32.to_le_bytes());
    let (found, messages) = culprits(&bytes, Code::TileSwap);
    assert_eq!(
        found,
        [(Severity::Warning, Some(0), None, None, None)],
        "{messages:?}"
    );
    assert!(messages[0].contains("WFPC lacks 0x10000"), "{messages:?}");
    unchanged_through_gltf(&bytes, "hasAlt");
}

#[test]
fn a_tile_no_zone_of_a_cell_sees_is_named_though_an_unused_zone_has_mask_0() {
    let mut bytes = handmade(false);
    let map = payload_of(&bytes, b"MAP ");
    // MAP: header, one tile (24), no parameters, zones or waypoints, then the visibility table
    // of 32 {mask, value}. Every cell is in zone 0; zone 0 sees only zone 1, which no cell is
    // in and whose mask 0 would see everything.
    let table = map + 12 + 24 + 4 + 4 + 4;
    put(&mut bytes, table, &2u32.to_le_bytes());
    let (found, messages) = culprits(&bytes, Code::VisibleZone);
    assert_eq!(
        found,
        [(Severity::Warning, Some(0), None, None, None)],
        "{messages:?}"
    );
    // A cell in zone 1 makes zone 1 a camera's zone: its mask 0 sees the tile.
    let grid = table + 32 * 8;
    put(&mut bytes, grid + 4 * 3, &1u32.to_le_bytes());
    assert_eq!(culprits(&bytes, Code::VisibleZone).0, []);
}

/// [`handmade_strats`] with the record of strat `strat` changed by `edit` (its 58 bytes).
fn with_record(strat: usize, edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut bytes = handmade_strats();
    let strats = Level::parse(&bytes).unwrap().map().unwrap().strats.len();
    // MAP is the last chunk; the strats are its last records, 58 bytes each, then the final
    // u16.
    let at = bytes.len() - 2 - 58 * (strats - strat);
    edit(&mut bytes[at..at + 58]);
    bytes
}

#[test]
fn a_player_start_not_created_at_start_is_an_error() {
    // Strat 1 is the Llama; flag bit 1 at offset 54.
    let bytes = with_record(1, |r| r[54] |= 2);
    let (found, messages) = culprits(&bytes, Code::PlayerStart);
    assert!(
        found.contains(&(Severity::Error, None, None, None, Some(1))),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("strat 1 (Llama) is not created at level start")),
        "{messages:?}"
    );
    let created = culprits(&handmade_strats(), Code::PlayerStart).1;
    assert!(
        !created.iter().any(|m| m.contains("not created")),
        "{created:?}"
    );
    unchanged_through_gltf(&bytes, "Llama not created");
}

#[test]
fn an_always_0_strat_field_that_is_not_is_a_warning() {
    let bytes = with_record(2, |r| r[50] = 7);
    let (found, messages) = culprits(&bytes, Code::StratReserved);
    assert_eq!(
        found,
        [(Severity::Warning, None, None, None, Some(2))],
        "{messages:?}"
    );
    assert!(messages[0].contains("offset 50"), "{messages:?}");
    let bytes = with_record(0, |r| r[56] = 1);
    let (found, messages) = culprits(&bytes, Code::StratReserved);
    assert_eq!(found, [(Severity::Warning, None, None, None, Some(0))]);
    assert!(messages[0].contains("offset 56"), "{messages:?}");
    assert_eq!(culprits(&handmade_strats(), Code::StratReserved).0, []);
    unchanged_through_gltf(&bytes, "always 0");
}

#[test]
fn a_pool_extra_past_what_the_engine_can_allocate_is_an_error() {
    let pool = |value: u32| {
        let mut bytes = handmade_strats();
        let strats = Level::parse(&bytes).unwrap().map().unwrap().strats.len();
        // MAP is the last chunk: u32 nStrats, u32 poolExtra, the records, the final u16.
        let at = bytes.len() - 2 - 58 * strats - 4;
        put(&mut bytes, at, &value.to_le_bytes());
        bytes
    };
    let errors = |bytes: &[u8]| {
        let (found, messages) = culprits(bytes, Code::StratPool);
        (
            found.iter().filter(|p| p.0 == Severity::Error).count(),
            messages,
        )
    };
    assert_eq!(errors(&pool(65_536)).0, 0);
    let (n, messages) = errors(&pool(65_537));
    assert_eq!(n, 1, "{messages:?}");
    let bytes = pool(u32::MAX);
    let (n, messages) = errors(&bytes);
    assert_eq!(n, 1, "{messages:?}");
    assert!(
        messages[0].contains("poolExtra is 4294967295")
            && messages[0].contains("which 32 bits do not hold"),
        "{messages:?}"
    );
    unchanged_through_gltf(&bytes, "poolExtra");
}
