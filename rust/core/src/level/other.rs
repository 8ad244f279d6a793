//! The small, loosely described chunks: NAME, LNFO and LGHT (note 003, "Other chunks").
//!
//! Their layouts are only sketched in the notes, so a payload that does not fit is kept verbatim
//! with a warning instead of failing the whole level.

use crate::container::RawChunk;
use crate::error::{BuildError, ParseError};
use crate::level::model::u32_count;
use crate::level::ChunkBody;
use crate::reader::{Reader, Writer};

/// Parses a loosely described chunk, or keeps it verbatim with a warning.
pub(crate) fn parse_loose<T>(
    c: &RawChunk,
    warnings: &mut Vec<String>,
    parse: impl Fn(&mut Reader) -> Result<T, ParseError>,
    wrap: impl Fn(T) -> ChunkBody,
) -> ChunkBody {
    let tag = c.tag.name();
    let mut r = Reader::new(c.payload, c.offset, &tag);
    match parse(&mut r) {
        Ok(v) => wrap(v),
        Err(e) => {
            warnings.push(format!("{e}; the {} chunk is kept verbatim", c.tag));
            ChunkBody::Raw(c.payload.to_vec())
        }
    }
}

/// NAME: a u32, then the level name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Name {
    pub prefix: u32,
    /// The name bytes as stored, including any terminator and padding.
    pub bytes: Vec<u8>,
}

impl Name {
    pub fn parse(r: &mut Reader) -> Result<Name, ParseError> {
        Ok(Name {
            prefix: r.u32("name prefix")?,
            bytes: r.rest().to_vec(),
        })
    }

    pub fn write(&self, w: &mut Writer) {
        w.u32(self.prefix);
        w.raw(&self.bytes);
    }

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

pub(crate) fn parse_level_info(r: &mut Reader) -> Result<[u32; 2], ParseError> {
    let v = [r.u32("level info")?, r.u32("level info")?];
    r.expect_end("the two level-info values")?;
    Ok(v)
}

/// One LGHT entry: type and colour, then the type's parameters (direction or position) as u32s.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Light {
    pub kind: u8,
    pub colour: [u8; 3],
    pub words: Vec<u32>,
}

/// LGHT: `u32 n`, then n lights. The notes do not say how many words each type has, so the
/// reader takes the layout where every light has the same size, the one that tiles the chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lights {
    pub lights: Vec<Light>,
}

impl Lights {
    pub fn parse(r: &mut Reader) -> Result<Lights, ParseError> {
        let count = r.u32("number of lights")? as usize;
        let rest = r.remaining();
        if count == 0 {
            r.expect_end("an empty light list")?;
            return Ok(Lights::default());
        }
        let at = r.position();
        if rest % count != 0 || rest / count < 4 || (rest / count) % 4 != 0 {
            return Err(r.bad_value(
                at,
                "light list",
                format!("{count} lights of equal size, a multiple of 4 bytes"),
                format!("{rest} bytes"),
            ));
        }
        let words_per_light = (rest / count - 4) / 4;
        let mut lights = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("light {i}");
            let [kind, r_, g, b] = r.array(&what)?;
            lights.push(Light {
                kind,
                colour: [r_, g, b],
                words: r.u32s(words_per_light as u64, &what)?,
            });
        }
        Ok(Lights { lights })
    }

    pub fn write(&self, w: &mut Writer) -> Result<(), BuildError> {
        w.u32(u32_count(self.lights.len(), "lights")?);
        if let Some(first) = self.lights.first() {
            if self
                .lights
                .iter()
                .any(|l| l.words.len() != first.words.len())
            {
                return Err(BuildError::Inconsistent {
                    what: "LGHT".into(),
                    problem: "all lights must have the same number of parameters".into(),
                });
            }
        }
        for l in &self.lights {
            w.u8(l.kind);
            w.raw(&l.colour);
            w.u32s(&l.words);
        }
        Ok(())
    }
}
