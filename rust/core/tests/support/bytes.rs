//! Levels written byte by byte from the notes' layouts (FORMAT.md §1, §3), not by the project's
//! writer: the little-endian pieces hand-made test levels are built from.

/// Little-endian bytes, appended.
#[derive(Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}

/// A TRAK model header (FORMAT.md §3): box centre, 8 box corners, counts, pointers 0.
pub fn model_header(
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
pub fn face(out: &mut Bytes, flags: u16, corners: [u16; 3], plane: [f32; 4]) {
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
pub fn wad(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
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
