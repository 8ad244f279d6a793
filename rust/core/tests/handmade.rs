//! Levels written byte by byte here from the notes' layouts, not by the project's writer or
//! generator: what the generator never makes (an empty model, a model without collision, no
//! object models, no strats, no lights, a 2 × 2 grid, the largest model the engine transforms)
//! reads, writes back byte for byte, converts to glTF and back, and passes the check.

mod support {
    pub mod arrays;
}

use llamawad::game::{check, Severity};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::Code;
use llamawad::Level;

/// Little-endian bytes, appended.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}

/// A TRAK model header (FORMAT.md §3): box centre, 8 box corners, counts, pointers 0.
fn model_header(
    out: &mut Bytes,
    vertices: u16,
    faces: u16,
    collision: u16,
    lo: [f32; 3],
    hi: [f32; 3],
) {
    for k in 0..3 {
        out.f32((lo[k] + hi[k]) / 2.0);
    }
    for i in 0..8 {
        out.f32(if i & 1 != 0 { hi[0] } else { lo[0] });
        out.f32(if i & 2 != 0 { hi[1] } else { lo[1] });
        out.f32(if i & 4 != 0 { lo[2] } else { hi[2] });
    }
    out.u16(vertices).u16(faces).u32(0).u32(0);
    out.u16(collision).u16(0).u16(0).u16(0).u32(0);
}

/// A face (28 bytes): flags, corners, texture, 0, its plane.
fn face(out: &mut Bytes, flags: u16, corners: [u16; 3], plane: [f32; 4]) {
    out.u16(flags);
    for c in corners {
        out.u16(c);
    }
    out.u16(0).u16(0);
    for v in plane {
        out.f32(v);
    }
}

/// The WAD: `u32 total` (the file size), then chunks with their tag reversed and `u32 size` of
/// the payload.
fn wad(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (tag, payload) in chunks {
        body.extend(tag.iter().rev());
        body.extend((payload.len() as u32).to_le_bytes());
        body.extend(payload);
    }
    let mut out = ((body.len() + 4) as u32).to_le_bytes().to_vec();
    out.extend(body);
    out
}

/// A 2 × 2 level: model 0 empty (no vertices, faces or collision), model 1 a triangle without
/// collision on the one page; one tile of model 1; no object models, no animations, no strats.
/// `big` makes model 1 the largest a model may be (8,000 vertices, in batches of 256 faces).
fn handmade(big: bool) -> Vec<u8> {
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

    let mut stpc = Bytes::default();
    stpc.u32(0).u32(0).raw(&[0; 16]); // no models, no animations, 16 bytes of code
    let stpc = stpc.0;

    let mut map = Bytes::default();
    map.u32(1).u32(2).u32(2); // one tile, 2 × 2 grid
    map.f32(0.5).f32(0.0).f32(-0.5).u32(0).u32(1).u32(0); // at the centre of cell 0, model 1
    map.u32(0).u32(0).u32(0); // parameters, zones, waypoints
    for z in 0..32 {
        map.u32(if z == 0 { 1 } else { 0 }).i32(0); // zone 0 sees zone 0
    }
    map.u32(0).u32(0).u32(0).u32(0); // every cell in zone 0
    map.i32(0).i32(0).i32(0).i32(2048).i32(0).i32(2048); // the fixed-point copy
    map.u32(1); // model index
    for _ in 0..vertices {
        map.raw(&[0x80, 0x80, 0x80, 0]); // one colour per vertex
    }
    map.u32(0).u32(0); // no strats, poolExtra 0
    map.u16(0);
    let map = map.0;

    wad(&[
        (b"WFPC", wfpc),
        (b"TEXT", text),
        (b"TRAK", trak),
        (b"STPC", stpc),
        (b"MAP ", map),
    ])
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
