//! Levels written byte by byte from the notes' layouts (not by the project's writer): a 2 × 2
//! level with what it places given, strats placed by hand, and the means to edit their bytes.
// Each test file takes what it needs of these.
#![allow(dead_code)]

use super::bytes::{face, model_header, wad, Bytes};

/// What a level places besides its tiles: the STPC payload, MAP's parameter pool (block 3),
/// waypoints (block 5, 34 bytes each) and strats (block 12: poolExtra, 58 bytes each).
pub struct Objects {
    pub stpc: Vec<u8>,
    pub parameters: Vec<u32>,
    pub waypoints: Vec<Vec<u8>>,
    pub pool_extra: u32,
    pub strats: Vec<Vec<u8>>,
    /// The LGHT payload, if the level has the chunk.
    pub lights: Option<Vec<u8>>,
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
pub fn handmade(big: bool) -> Vec<u8> {
    handmade_with(big, Objects::default())
}

/// The level of [`handmade`] with these objects.
pub fn handmade_with(big: bool, objects: Objects) -> Vec<u8> {
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
pub fn handmade_strats() -> Vec<u8> {
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

/// The handmade level with an LGHT chunk of these bytes.
pub fn handmade_lights(payload: Vec<u8>) -> Vec<u8> {
    handmade_with(
        false,
        Objects {
            lights: Some(payload),
            ..Objects::default()
        },
    )
}

pub fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Where the payload of the chunk `tag` starts in a WAD written by [`wad`].
pub fn payload_of(bytes: &[u8], tag: &[u8; 4]) -> usize {
    let mut at = 4;
    loop {
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if bytes[at..at + 4].iter().rev().eq(tag.iter()) {
            return at + 8;
        }
        at += 8 + size;
    }
}

pub fn put(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}
