//! The small chunks: WFPC (the feature flags) and the loosely described NAME, LNFO and LGHT
//! (FORMAT.md §9).

use binrw::io::{Read, Seek};
use binrw::{binrw, BinRead, BinResult, Endian};

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

/// LGHT: `u32 n`, then n lights (FORMAT.md §9, §11). The notes give each type "more u32" without
/// saying how many, so the reader takes the layout where every light has the same size when
/// that tiles the chunk, and otherwise the one set of word counts per type that reads it
/// exactly; a chunk neither explains fails here and is kept as bytes by the level's reader.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lights {
    #[br(temp)]
    #[bw(try_calc = light_count(lights))]
    light_count: u32,
    #[br(parse_with = lights_by_layout(light_count))]
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

/// The most words a type is taken to have when the reader searches per-type sizes. The notes
/// name a direction or a position (three words); the project's generator adds a fourth; twice
/// that leaves room for a radius, a cone or a second colour without letting a search through a
/// long chunk find readings made of nothing but guesses.
pub const MOST_LIGHT_WORDS: usize = 8;

/// The type bytes the per-type search takes as a light's start. The notes count types from 1
/// ("type 1/2/…"); a small bound keeps the words' bytes from posing as lights: a round 20.12
/// value has a low byte of 0, and without the bound almost any chunk of a few lights has dozens
/// of readings.
pub const LIGHT_TYPES: std::ops::RangeInclusive<u8> = 1..=15;

/// Lights walked before the per-type search gives up: a chunk of a few lights is read at once,
/// and a crafted chunk of many types cannot keep the reader busy.
const SEARCH_STEPS: usize = 1 << 20;

/// The light count, once lights of a kind agree on their number of words: the reader finds a
/// type's size only by that agreement, so a chunk breaking it would not read back.
fn light_count(lights: &[Light]) -> Result<u32, BuildError> {
    let mut words_of: [Option<(usize, usize)>; 256] = [None; 256];
    for (i, l) in lights.iter().enumerate() {
        match words_of[l.kind as usize] {
            Some((first, n)) if n != l.words.len() => {
                return Err(BuildError::Inconsistent {
                    what: format!("LGHT light {i}"),
                    problem: format!(
                        "it has {} words, light {first} of the same type {} has {n}; lights \
                         of a type have as many words as each other (FORMAT.md §9)",
                        l.words.len(),
                        l.kind
                    ),
                });
            }
            Some(_) => {}
            None => words_of[l.kind as usize] = Some((i, l.words.len())),
        }
    }
    u32_count(lights.len(), "lights")
}

/// Word counts per type, in the order the types are first met.
type Layout = Vec<(u8, usize)>;

/// Why no single layout reads a chunk.
enum NoLayout {
    None,
    Several(Layout, Layout),
    TooMany,
}

/// Backtracking over the types met in order: a known type's lights have its size, a new type
/// (within [`LIGHT_TYPES`]) tries 0..=[`MOST_LIGHT_WORDS`] words. Recursion happens only at a new type (at most 256
/// deep); lights of known types are walked in a loop.
struct Search<'a> {
    bytes: &'a [u8],
    count: usize,
    words_of: [Option<usize>; 256],
    met: Vec<u8>,
    found: Vec<Layout>,
    steps: usize,
}

impl Search<'_> {
    fn walk(&mut self, mut at: usize, mut light: usize) -> Result<(), NoLayout> {
        loop {
            let len = self.bytes.len();
            if light == self.count {
                if at == len {
                    let layout = self
                        .met
                        .iter()
                        .map(|&k| (k, self.words_of[k as usize].unwrap_or(0)));
                    self.found.push(layout.collect());
                }
                return Ok(());
            }
            // Every light left needs its four header bytes.
            if at > len || len - at < 4 * (self.count - light) {
                return Ok(());
            }
            self.steps += 1;
            if self.steps > SEARCH_STEPS {
                return Err(NoLayout::TooMany);
            }
            let kind = self.bytes[at];
            if !LIGHT_TYPES.contains(&kind) {
                return Ok(());
            }
            let Some(words) = self.words_of[kind as usize] else {
                self.met.push(kind);
                for words in 0..=MOST_LIGHT_WORDS {
                    self.words_of[kind as usize] = Some(words);
                    self.walk(at + 4 + 4 * words, light + 1)?;
                    if self.found.len() > 1 {
                        break;
                    }
                }
                self.words_of[kind as usize] = None;
                self.met.pop();
                return Ok(());
            };
            at += 4 + 4 * words;
            light += 1;
        }
    }
}

/// The one per-type layout that reads `bytes` (the lights, after the count) exactly.
fn layout_by_type(bytes: &[u8], count: usize) -> Result<Layout, NoLayout> {
    let mut search = Search {
        bytes,
        count,
        words_of: [None; 256],
        met: Vec::new(),
        found: Vec::new(),
        steps: 0,
    };
    search.walk(0, 0)?;
    let mut found = search.found.into_iter();
    match (found.next(), found.next()) {
        (Some(one), None) => Ok(one),
        (Some(a), Some(b)) => Err(NoLayout::Several(a, b)),
        _ => Err(NoLayout::None),
    }
}

fn describe(layout: &Layout) -> String {
    let types: Vec<String> = layout
        .iter()
        .map(|(kind, words)| format!("type {kind} {words} words"))
        .collect();
    types.join(", ")
}

fn lights_by_layout<R: Read + Seek>(
    count: u32,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<Light>> {
    move |r, endian, ()| {
        let (at, left) = bytes_left(r)?;
        let count = count as u64;
        // Every light has at least its four header bytes: the count is bounded by what is left.
        if count * 4 > left {
            return Err(bad_value(
                at,
                "light list",
                format!("{count} lights of at least 4 bytes"),
                format!("{left} bytes"),
            ));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let size = left / count;
        if left % count == 0 && size % 4 == 0 {
            return binrw::helpers::count(count as usize)(r, endian, ((size as usize - 4) / 4,));
        }
        let bytes = rest(r, endian, ())?;
        let layout = layout_by_type(&bytes, count as usize).map_err(|why| {
            let found = match why {
                NoLayout::None => format!(
                    "{left} bytes no equal size and no word counts per type (types {}..={}, \
                     0..={MOST_LIGHT_WORDS} words) read exactly",
                    LIGHT_TYPES.start(),
                    LIGHT_TYPES.end()
                ),
                NoLayout::Several(a, b) => {
                    format!(
                        "{left} bytes read by more than one: {}; or {}",
                        describe(&a),
                        describe(&b)
                    )
                }
                NoLayout::TooMany => format!("{left} bytes with too many readings to search"),
            };
            bad_value(
                at,
                "light list",
                format!("{count} lights one reading explains"),
                found,
            )
        })?;
        let words_of = |kind: u8| {
            layout
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or(0, |(_, w)| *w)
        };
        let mut r = binrw::io::Cursor::new(&bytes[..]);
        let mut lights = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let kind = bytes[r.position() as usize];
            lights.push(Light::read_options(&mut r, endian, (words_of(kind),))?);
        }
        Ok(lights)
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
            "LGHT chunk, byte 0x24: light list: expected 2 lights of at least 4 bytes, found 6 \
             bytes"
        );
        // A count past what the bytes hold is refused before anything is allocated.
        let huge = [u32::MAX, 0x0020_4001];
        let err = read_chunk::<Lights>(&words_to_bytes(&huge), 0, ()).unwrap_err();
        assert!(err
            .to_string()
            .contains("4294967295 lights of at least 4 bytes"));
    }

    fn words_to_bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn lights_of_different_sizes_by_type_are_read_when_one_reading_explains_them() {
        // A direction of three words for type 1, a position and radius for type 2: 72 bytes for
        // four lights do not tile into equal sizes. Round 20.12 words, whose low byte 0 is no
        // light's type.
        let bytes = words_to_bytes(&[
            4,
            0x8090_a001,
            0x0000_0800,
            0xffff_f000,
            0x0000_0b50,
            0x0030_6002,
            0x0000_5000,
            0x0000_1800,
            0xffff_9000,
            0x0000_4000,
            0x00ff_ff01,
            0x0000_0000,
            0x0000_1000,
            0x0000_0000,
            0x0040_8002,
            0x0001_2000,
            0x0000_3000,
            0xfffe_8000,
            0x0000_2000,
        ]);
        let lights: Lights = read_chunk(&bytes, 0, ()).unwrap();
        let sizes: Vec<(u8, usize)> = lights
            .lights
            .iter()
            .map(|l| (l.kind, l.words.len()))
            .collect();
        assert_eq!(sizes, [(1, 3), (2, 4), (1, 3), (2, 4)]);
        assert_eq!(lights.lights[1].colour, [0x60, 0x30, 0]);
        assert_eq!(
            lights.lights[3].words,
            [0x0001_2000, 0x3000, 0xfffe_8000, 0x2000]
        );
        assert_eq!(write_chunk(&lights, ()).unwrap(), bytes);
    }

    #[test]
    fn a_chunk_no_single_reading_explains_is_refused_with_why() {
        // Type 1 with no words then type 2 with three, or type 1 with one word then type 5 with
        // two: both read the 20 bytes exactly.
        let two = words_to_bytes(&[2, 0x0000_0001, 0x0000_0002, 0x0000_0005, 0, 0]);
        let err = read_chunk::<Lights>(&two, 0, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT chunk, byte 0x4: light list: expected 2 lights one reading explains, found 20 \
             bytes read by more than one: type 1 0 words, type 2 3 words; or type 1 1 words, \
             type 5 2 words"
        );
        // Every byte that could start a light says type 1, and no size of type 1 ends on the
        // chunk's end.
        let none = words_to_bytes(&[2, 1, 1, 1, 1, 1]);
        let err = read_chunk::<Lights>(&none, 0, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT chunk, byte 0x4: light list: expected 2 lights one reading explains, found 20 \
             bytes no equal size and no word counts per type (types 1..=15, 0..=8 words) read \
             exactly"
        );
    }

    #[test]
    fn lights_of_a_type_must_agree_on_their_words_to_be_written() {
        let light = |kind: u8, words: usize| Light {
            kind,
            colour: [1, 2, 3],
            words: vec![0x1000; words],
        };
        let mixed = Lights {
            lights: vec![light(1, 3), light(2, 4), light(1, 3)],
        };
        let bytes = write_chunk(&mixed, ()).unwrap();
        assert_eq!(bytes.len(), 4 + 16 + 20 + 16);
        let mut uneven = mixed;
        uneven.lights[2].words.pop();
        let err = write_chunk(&uneven, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT light 2: it has 2 words, light 0 of the same type 1 has 3; lights of a type have \
             as many words as each other (FORMAT.md §9)"
        );
    }
}
