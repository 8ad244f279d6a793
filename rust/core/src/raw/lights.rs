//! LGHT, the level's lights (FORMAT.md §9, §11): the notes leave the word count of each light
//! type open, so a chunk is read by whichever reading explains its bytes exactly.

use binrw::io::{Read, Seek, Write};
use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use serde::Serialize;

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::stream::{bad_value, bytes_left, rest, u32_count, unwritable, ChunkLayout};

/// LGHT: `u32 n`, then n lights (FORMAT.md §9, §11). Note 003 gives type 0 no words and the
/// types 1, 2, … "more u32 (direction/position, z negated)" without saying how many, so the
/// reader tries readings in turn, each only where it reads the chunk exactly: the notes' word
/// counts (type 0 none, types 1 and 2 three), one size for every light, the one set of word
/// counts per type. A chunk none explains fails here and is kept as bytes by the level's reader.
#[derive(Debug, Clone, Default)]
pub struct Lights {
    pub lights: Vec<Light>,
    /// How the chunk's bytes were told apart into lights; no part of the bytes, so two chunks of
    /// the same lights are equal however they were read.
    pub reading: LightReading,
}

impl PartialEq for Lights {
    fn eq(&self, other: &Lights) -> bool {
        self.lights == other.lights
    }
}

impl Eq for Lights {}

impl ChunkLayout for Lights {
    const TAG: Tag = Tag::LGHT;
    const LAST: &'static str = "the lights";
}

/// How an LGHT chunk's lights were told apart (FORMAT.md §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum LightReading {
    /// Made in memory, not read.
    #[default]
    Built,
    /// The notes' word counts: type 0 none, types 1 and 2 three, and no other type. `others`:
    /// other word counts read the chunk too.
    Notes { others: bool },
    /// Every light the same size (the notes' counts do not read the chunk).
    EqualSize,
    /// A set of word counts per type that reads the chunk (neither of the above does): the
    /// only one, or of `others` + 1 the one with the fewest type-0 lights.
    ByType { others: usize },
}

impl LightReading {
    /// What `info` says of it.
    pub fn describe(self) -> String {
        match self {
            LightReading::Built => "lights made, not read",
            LightReading::Notes { others: false } => {
                "read with the notes' word counts (type 0 none, types 1 and 2 three)"
            }
            LightReading::Notes { others: true } => {
                "read with the notes' word counts (type 0 none, types 1 and 2 three), taken \
                 where other word counts read the chunk too"
            }
            LightReading::EqualSize => {
                "read as lights of one size (the notes' word counts do not read the chunk)"
            }
            LightReading::ByType { others: 0 } => {
                "read with the one set of word counts per type that reads the chunk (the notes' \
                 do not, nor one size for every light)"
            }
            LightReading::ByType { others } => {
                return format!(
                    "read with the word counts per type that give the fewest type-0 lights, of \
                     {} sets that read the chunk (the notes' do not, nor one size for every \
                     light)",
                    others + 1
                )
            }
        }
        .to_string()
    }
}

impl BinRead for Lights {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(r: &mut R, endian: Endian, (): ()) -> BinResult<Lights> {
        let count = u32::read_options(r, endian, ())?;
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
        let bytes = rest(r, endian, ())?;
        let (layout, reading) = layout_of(&bytes, count as usize).map_err(|why| {
            bad_value(
                at,
                "light list",
                format!("{count} lights one reading explains"),
                why,
            )
        })?;
        let mut r = binrw::io::Cursor::new(&bytes[..]);
        let mut lights = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let words = match &layout {
                Sizes::Equal(words) => *words,
                Sizes::ByType(words_of) => words_of[bytes[r.position() as usize] as usize],
            };
            lights.push(Light::read_options(&mut r, endian, (words,))?);
        }
        Ok(Lights { lights, reading })
    }
}

impl BinWrite for Lights {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, w: &mut W, endian: Endian, (): ()) -> BinResult<()> {
        light_count(&self.lights)
            .map_err(unwritable)?
            .write_options(w, endian, ())?;
        for light in &self.lights {
            light.write_options(w, endian, ())?;
        }
        Ok(())
    }
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

/// The type bytes the per-type search takes as a light's start. Note 003 counts type 0 (no
/// words) and types 1, 2, …; a small bound keeps the words' bytes from posing as lights of
/// unknown types (a round 20.12 value has a low byte of 0, which poses as a type-0 light, so
/// that type is held to the notes' no words in every reading).
pub const LIGHT_TYPES: std::ops::RangeInclusive<u8> = 0..=15;

/// The notes' word counts (note 003: "u8 type, u8 r, u8 g, u8 b, type 1/2/…: more u32
/// (direction/position, z negated)"): type 0 none, and a direction or a position, three words,
/// for types 1 and 2.
pub const NOTES_LIGHT_WORDS: [(u8, usize); 3] = [(0, 0), (1, 3), (2, 3)];

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

/// The words of each light: one count for all, or a count per type byte.
enum Sizes {
    Equal(usize),
    ByType(Box<[usize; 256]>),
}

/// The search walked more lights than it may ([`SEARCH_STEPS`]).
struct TooMany;

/// Backtracking over the types met in order: a type with a count (the notes', or one tried) has
/// that size, a new type (within [`LIGHT_TYPES`], when `free`) tries 0..=[`MOST_LIGHT_WORDS`]
/// words. Recursion happens only at a new type (at most 16 deep); lights of known types are
/// walked in a loop.
struct Search<'a> {
    bytes: &'a [u8],
    count: usize,
    words_of: [Option<usize>; 256],
    /// Whether a type without a count may take any; if not, it reads nothing.
    free: bool,
    /// The types met so far on the path walked, in order (to name a layout).
    met: Vec<u8>,
    found: Found,
    steps: usize,
}

/// The readings a search found: how many, and of those with the fewest type-0 lights the first
/// and (a tie) the second; no more is kept, however many there are.
#[derive(Default)]
struct Found {
    count: usize,
    best: Option<(usize, Layout)>,
    tie: Option<Layout>,
}

impl Found {
    fn add(&mut self, zeros: usize, layout: Layout) {
        self.count += 1;
        match &self.best {
            Some((fewest, _)) if zeros > *fewest => {}
            Some((fewest, _)) if zeros == *fewest => {
                self.tie.get_or_insert(layout);
            }
            _ => {
                self.best = Some((zeros, layout));
                self.tie = None;
            }
        }
    }
}

impl Search<'_> {
    fn walk(&mut self, at: usize, light: usize, zeros: usize) -> Result<(), TooMany> {
        let mark = self.met.len();
        let result = self.walk_from(at, light, zeros);
        self.met.truncate(mark);
        result
    }

    fn walk_from(
        &mut self,
        mut at: usize,
        mut light: usize,
        mut zeros: usize,
    ) -> Result<(), TooMany> {
        loop {
            let len = self.bytes.len();
            if light == self.count {
                if at == len {
                    let layout = self
                        .met
                        .iter()
                        .map(|&k| (k, self.words_of[k as usize].unwrap_or(0)));
                    self.found.add(zeros, layout.collect());
                }
                return Ok(());
            }
            // Every light left needs its four header bytes.
            if at > len || len - at < 4 * (self.count - light) {
                return Ok(());
            }
            self.steps += 1;
            if self.steps > SEARCH_STEPS {
                return Err(TooMany);
            }
            let kind = self.bytes[at];
            if !LIGHT_TYPES.contains(&kind) {
                return Ok(());
            }
            if !self.met.contains(&kind) {
                self.met.push(kind);
            }
            zeros += usize::from(kind == 0);
            let Some(words) = self.words_of[kind as usize] else {
                if !self.free {
                    return Ok(());
                }
                for words in 0..=MOST_LIGHT_WORDS {
                    self.words_of[kind as usize] = Some(words);
                    self.walk(at + 4 + 4 * words, light + 1, zeros)?;
                }
                self.words_of[kind as usize] = None;
                return Ok(());
            };
            at += 4 + 4 * words;
            light += 1;
        }
    }
}

/// The per-type layouts that read `bytes` (the lights, after the count) exactly, the types of
/// `fixed` held to their counts; other types only when `free`.
fn layouts_by_type(
    bytes: &[u8],
    count: usize,
    fixed: &[(u8, usize)],
    free: bool,
) -> Result<Found, TooMany> {
    let mut words_of = [None; 256];
    for &(kind, words) in fixed {
        words_of[kind as usize] = Some(words);
    }
    let mut search = Search {
        bytes,
        count,
        words_of,
        free,
        met: Vec::new(),
        found: Found::default(),
        steps: 0,
    };
    search.walk(0, 0, 0)?;
    Ok(search.found)
}

fn words_by_type(layout: &Layout) -> Box<[usize; 256]> {
    let mut words_of = Box::new([0; 256]);
    for &(kind, words) in layout {
        words_of[kind as usize] = words;
    }
    words_of
}

/// The reading of the lights after the count (FORMAT.md §11): the notes' word counts, else one
/// size for every light, else a set of word counts per type (of several, the one with the
/// fewest type-0 lights); or why none reads them.
fn layout_of(bytes: &[u8], count: usize) -> Result<(Sizes, LightReading), String> {
    let left = bytes.len();
    // Type 0 has no words in every reading (note 003 gives "more u32" to types 1, 2, …).
    let type_0 = &NOTES_LIGHT_WORDS[..1];
    let equal =
        (count > 0 && left % count == 0 && (left / count) % 4 == 0).then(|| (left / count - 4) / 4);
    let by_type = || layouts_by_type(bytes, count, type_0, true);
    // Only the types the notes give counts for: a word's byte posing as a type of unknown size
    // is no light of the notes' reading.
    if let Ok(Found {
        best: Some((_, notes)),
        ..
    }) = layouts_by_type(bytes, count, &NOTES_LIGHT_WORDS, false)
    {
        let sizes_differ = notes.windows(2).any(|w| w[0].1 != w[1].1);
        let others = (equal.is_some() && sizes_differ) || by_type().map_or(true, |f| f.count > 1);
        return Ok((
            Sizes::ByType(words_by_type(&notes)),
            LightReading::Notes { others },
        ));
    }
    if let Some(words) = equal {
        return Ok((Sizes::Equal(words), LightReading::EqualSize));
    }
    let Ok(found) = by_type() else {
        return Err(format!("{left} bytes with too many readings to search"));
    };
    // A round 20.12 word has a low byte of 0 and poses as a type-0 light of no words: of
    // several readings, the one with the fewest such lights.
    match (found.best, found.tie) {
        (None, _) => Err(format!(
            "{left} bytes: neither the notes' word counts (type 0 none, types 1 and 2 three), \
             nor one size for every light, nor word counts per type (types {}..={}, type 0 none, \
             the others 0..={MOST_LIGHT_WORDS} words) read them exactly",
            LIGHT_TYPES.start(),
            LIGHT_TYPES.end()
        )),
        (Some((zeros, a)), Some(b)) => Err(format!(
            "{left} bytes read by more than one set of word counts per type with as few type-0 \
             lights ({zeros}), none the notes' (type 0 none, types 1 and 2 three): {}; or {}",
            describe(&a),
            describe(&b)
        )),
        (Some((_, one)), None) => Ok((
            Sizes::ByType(words_by_type(&one)),
            LightReading::ByType {
                others: found.count - 1,
            },
        )),
    }
}

fn describe(layout: &Layout) -> String {
    let types: Vec<String> = layout
        .iter()
        .map(|(kind, words)| format!("type {kind} {words} words"))
        .collect();
    types.join(", ")
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
        assert_eq!(lights.reading, LightReading::EqualSize);
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
        // Type 1 of 7 words then lights of type 0 made of round words reads the bytes too; the
        // reading with the fewer type-0 lights is taken.
        assert_eq!(lights.reading, LightReading::ByType { others: 1 });
        assert_eq!(lights.lights[1].colour, [0x60, 0x30, 0]);
        assert_eq!(
            lights.lights[3].words,
            [0x0001_2000, 0x3000, 0xfffe_8000, 0x2000]
        );
        assert_eq!(write_chunk(&lights, ()).unwrap(), bytes);
    }

    #[test]
    fn the_notes_word_counts_are_taken_where_they_read_the_chunk() {
        let kinds = |l: &Lights| -> Vec<(u8, usize)> {
            l.lights.iter().map(|l| (l.kind, l.words.len())).collect()
        };
        // Note 003's own example: a light of type 0 (no words), then a sun of type 1 with a
        // direction of three words. 20 bytes for two lights are no one size; per type, type 0
        // then type 1 of 3 words is the only reading, and it is the notes'.
        let sun = words_to_bytes(&[2, 0x0040_4000, 0x0080_8001, 0xffff_f000, 0x1000, 0x800]);
        let lights: Lights = read_chunk(&sun, 0, ()).unwrap();
        assert_eq!(kinds(&lights), [(0, 0), (1, 3)]);
        assert_eq!(lights.reading, LightReading::Notes { others: false });
        assert_eq!(lights.lights[0].colour, [0x40, 0x40, 0]);
        assert_eq!(write_chunk(&lights, ()).unwrap(), sun);

        // Type 1 with three words then type 0, or type 1 with no words then type 2 with three,
        // or type 1 with one word then type 5 with two: the notes' is taken, and said to be.
        let two = words_to_bytes(&[2, 0x0000_0001, 0x0000_0002, 0x0000_0005, 0, 0]);
        let lights: Lights = read_chunk(&two, 0, ()).unwrap();
        assert_eq!(kinds(&lights), [(1, 3), (0, 0)]);
        assert_eq!(lights.reading, LightReading::Notes { others: true });
        assert!(lights.reading.describe().contains("other word counts read"));

        // Two type-0 lights and a sun, 24 bytes for three: one size (8 bytes) reads them too,
        // the notes' counts come first.
        let three = words_to_bytes(&[3, 0x0010_1000, 0x0020_2000, 0x0030_3001, 0, 0x1000, 0]);
        let lights: Lights = read_chunk(&three, 0, ()).unwrap();
        assert_eq!(kinds(&lights), [(0, 0), (0, 0), (1, 3)]);
        assert_eq!(lights.reading, LightReading::Notes { others: true });
        assert_eq!(write_chunk(&lights, ()).unwrap(), three);
    }

    #[test]
    fn a_chunk_no_reading_explains_or_several_alike_is_refused_with_why() {
        // Type 3 with 0, 1, 2 or 3 words, then type 4, 5 or 7 ending on the chunk's end: four
        // readings, none the notes' (type 3 is not theirs), none with fewer type-0 lights.
        let several = words_to_bytes(&[2, 0x03, 0x04, 0x05, 0x07, 0x07]);
        let err = read_chunk::<Lights>(&several, 0, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT chunk, byte 0x4: light list: expected 2 lights one reading explains, found 20 \
             bytes read by more than one set of word counts per type with as few type-0 lights \
             (0), none the notes' (type 0 none, types 1 and 2 three): type 3 0 words, type 4 3 \
             words; or type 3 1 words, type 5 2 words"
        );
        // Every byte that could start a light says type 1, and no size of type 1 ends on the
        // chunk's end.
        let none = words_to_bytes(&[2, 1, 1, 1, 1, 1]);
        let err = read_chunk::<Lights>(&none, 0, ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LGHT chunk, byte 0x4: light list: expected 2 lights one reading explains, found 20 \
             bytes: neither the notes' word counts (type 0 none, types 1 and 2 three), nor one \
             size for every light, nor word counts per type (types 0..=15, type 0 none, the \
             others 0..=8 words) read them exactly"
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
            ..Lights::default()
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
