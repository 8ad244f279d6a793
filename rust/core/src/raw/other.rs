//! The small chunks: WFPC (the feature flags) and the loosely described NAME, LNFO and LGHT
//! (FORMAT.md §9).

use binrw::io::{Read, Seek};
use binrw::{binrw, BinResult, Endian};

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::stream::{bad_value, bytes_left, rest, u32_count, ChunkLayout};

/// WFPC: the level's feature flags; they decide which optional blocks exist.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wfpc {
    pub flags: u32,
}

impl ChunkLayout for Wfpc {
    const TAG: Tag = Tag::WFPC;
    const LAST: &'static str = "the flags";
}

/// LNFO: two u32 (meaning unknown).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LevelInfo {
    pub values: [u32; 2],
}

impl ChunkLayout for LevelInfo {
    const TAG: Tag = Tag::LNFO;
    const LAST: &'static str = "the two level-info values";
}

/// NAME: a u32, then the level name.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Name {
    pub prefix: u32,
    /// The name bytes as stored, including any terminator and padding.
    #[br(parse_with = rest)]
    pub bytes: Vec<u8>,
}

impl ChunkLayout for Name {
    const TAG: Tag = Tag::NAME;
    const LAST: &'static str = "the name";
}

impl Name {
    /// The name up to its first NUL, read as Latin-1 (the game is German).
    pub fn text(&self) -> String {
        let end = self
            .bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.bytes.len());
        self.bytes[..end].iter().map(|&b| b as char).collect()
    }
}

/// LGHT: `u32 n`, then n lights. The notes do not say how many words each type has, so the
/// reader takes the layout where every light has the same size, the one that tiles the chunk.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lights {
    #[br(temp)]
    #[bw(try_calc = u32_count(lights.len(), "lights"))]
    light_count: u32,
    #[br(parse_with = lights_of_equal_size(light_count))]
    #[bw(assert(
        lights.iter().all(|l| l.words.len() == lights[0].words.len()),
        BuildError::Inconsistent {
            what: "LGHT".into(),
            problem: "all lights must have the same number of parameters".into(),
        }
    ))]
    pub lights: Vec<Light>,
}

impl ChunkLayout for Lights {
    const TAG: Tag = Tag::LGHT;
    const LAST: &'static str = "the lights";
}

/// One LGHT entry: type and colour, then the type's parameters (direction or position) as u32s.
#[binrw]
#[brw(little)]
#[br(import(words: usize))]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Light {
    pub kind: u8,
    pub colour: [u8; 3],
    #[br(count = words)]
    pub words: Vec<u32>,
}

fn lights_of_equal_size<R: Read + Seek>(
    count: u32,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<Light>> {
    move |r, endian, ()| {
        if count == 0 {
            return Ok(Vec::new());
        }
        let (at, left) = bytes_left(r)?;
        let size = left / count as u64;
        if left % count as u64 != 0 || size < 4 || size % 4 != 0 {
            return Err(bad_value(
                at,
                "light list",
                format!("{count} lights of equal size, a multiple of 4 bytes"),
                format!("{left} bytes"),
            ));
        }
        // `count` lights of `size` bytes are exactly what is left: the count is bounded.
        binrw::helpers::count(count as usize)(r, endian, ((size as usize - 4) / 4,))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::stream::{read_chunk, write_chunk};

    #[test]
    fn lights_take_the_size_that_tiles_the_chunk() {
        let bytes: Vec<u8> = [2u32, 0x0020_4001, 7, 8, 0x0000_ff02, 9, 10]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let lights: Lights = read_chunk(&bytes, 0, ()).unwrap();
        assert_eq!(
            lights.lights[0],
            Light {
                kind: 1,
                colour: [0x40, 0x20, 0],
                words: vec![7, 8],
            }
        );
        assert_eq!(lights.lights[1].colour, [0xff, 0, 0]);
        assert_eq!(write_chunk(&lights, ()).unwrap(), bytes);

        let err = read_chunk::<Lights>(&bytes[..10], 0x20, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT chunk, byte 0x24: light list: expected 2 lights of equal size, a multiple of 4 \
             bytes, found 6 bytes"
        );
        let mut uneven = lights;
        uneven.lights[1].words.pop();
        let err = write_chunk(&uneven, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT: all lights must have the same number of parameters"
        );
    }
}
