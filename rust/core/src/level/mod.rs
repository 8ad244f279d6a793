//! The level model: every chunk of a level WAD, typed where the notes describe it, verbatim where
//! they do not. `Level::parse` and `Level::to_bytes` are exact inverses for every file that parses.

pub mod map;
pub mod model;
pub mod other;
pub mod pages;
pub mod stpc;
pub mod text;

use crate::container::{self, ChunkOut, Convention, Tag};
use crate::error::{BuildError, ParseError};
use crate::raw::other::{LevelInfo, Wfpc};
use crate::raw::stream::{read_chunk, write_chunk};

pub use map::{Map, Tile};
pub use model::{Model, ObjectModel, Trak};
pub use other::{Light, LightReading, Lights, Name};
pub use stpc::Stpc;
pub use text::Text;

/// A chunk's payload, typed where the project understands it.
// A level has one of each chunk, so the size of the large variants costs nothing worth boxing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkBody {
    /// WFPC: the level's feature flags; they decide which optional blocks exist.
    Flags(u32),
    Name(Name),
    /// LNFO: two u32 (meaning unknown).
    LevelInfo([u32; 2]),
    Lights(Lights),
    Text(Text),
    Trak(Trak),
    Stpc(Stpc),
    Map(Map),
    /// Any chunk the project does not model, or a loosely described one whose bytes did not fit
    /// the notes' layout.
    Raw(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub tag: Tag,
    pub body: ChunkBody,
    /// Padding found after the chunk (kept when the chunk keeps its length).
    pub padding: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub convention: Convention,
    pub chunks: Vec<Chunk>,
    /// Bytes after the last chunk.
    pub trailing: Vec<u8>,
    /// Where the reader had to choose between readings or keep a chunk verbatim, it says so here.
    pub warnings: Vec<String>,
}

macro_rules! chunk_accessors {
    ($($get:ident, $get_mut:ident, $variant:ident, $ty:ty;)*) => {$(
        pub fn $get(&self) -> Option<&$ty> {
            self.chunks.iter().find_map(|c| match &c.body {
                ChunkBody::$variant(x) => Some(x),
                _ => None,
            })
        }
        pub fn $get_mut(&mut self) -> Option<&mut $ty> {
            self.chunks.iter_mut().find_map(|c| match &mut c.body {
                ChunkBody::$variant(x) => Some(x),
                _ => None,
            })
        }
    )*};
}

impl Level {
    chunk_accessors! {
        text, text_mut, Text, Text;
        trak, trak_mut, Trak, Trak;
        stpc, stpc_mut, Stpc, Stpc;
        map, map_mut, Map, Map;
        name, name_mut, Name, Name;
        lights, lights_mut, Lights, Lights;
    }

    /// MAP and TRAK at once, for edits that change tiles and models together.
    pub fn map_and_trak_mut(&mut self) -> (Option<&mut Map>, Option<&mut Trak>) {
        let (mut map, mut trak) = (None, None);
        for chunk in &mut self.chunks {
            match &mut chunk.body {
                ChunkBody::Map(m) if map.is_none() => map = Some(m),
                ChunkBody::Trak(t) if trak.is_none() => trak = Some(t),
                _ => {}
            }
        }
        (map, trak)
    }

    /// WFPC flags (0 when the level has no WFPC chunk).
    pub fn wfpc(&self) -> u32 {
        self.chunks
            .iter()
            .find_map(|c| match c.body {
                ChunkBody::Flags(f) => Some(f),
                _ => None,
            })
            .unwrap_or(0)
    }

    pub fn parse(data: &[u8]) -> Result<Level, ParseError> {
        let raw = container::split(data)?;
        let mut warnings = Vec::new();

        let wfpc_chunk = raw.chunks.iter().find(|c| c.tag == Tag::WFPC);
        let wfpc = match wfpc_chunk {
            Some(c) => {
                let wfpc: Wfpc = read_chunk(c.payload, c.offset, ())?;
                Some(wfpc.flags)
            }
            None => None,
        };
        let need_wfpc = |by: &str| {
            wfpc.ok_or_else(|| ParseError::MissingChunk {
                chunk: "WFPC".into(),
                needed_by: by.into(),
            })
        };

        // MAP needs the vertex counts of the TRAK models, wherever TRAK stands in the file.
        let mut trak = None;
        if let Some(c) = raw.chunks.iter().find(|c| c.tag == Tag::TRAK) {
            trak = Some(read_chunk::<Trak>(c.payload, c.offset, ())?);
        }

        let mut chunks = Vec::with_capacity(raw.chunks.len());
        let mut trak_slot = trak;
        let mut wfpc_slot = wfpc;
        for c in &raw.chunks {
            let body = match c.tag {
                Tag::WFPC => match wfpc_slot.take() {
                    Some(flags) => ChunkBody::Flags(flags),
                    // A second WFPC chunk is not a level the notes describe: keep it verbatim.
                    None => ChunkBody::Raw(c.payload.to_vec()),
                },
                Tag::TRAK => match trak_slot.take() {
                    Some(t) => ChunkBody::Trak(t),
                    // A second TRAK chunk is not a level the notes describe: keep it verbatim.
                    None => ChunkBody::Raw(c.payload.to_vec()),
                },
                Tag::TEXT => ChunkBody::Text(read_chunk(c.payload, c.offset, ())?),
                Tag::STPC => {
                    let (stpc, warning) = Stpc::parse(c.payload, c.offset, need_wfpc("STPC")?)?;
                    warnings.extend(warning);
                    ChunkBody::Stpc(stpc)
                }
                Tag::MAP => {
                    let trak = chunks
                        .iter()
                        .find_map(|c: &Chunk| match &c.body {
                            ChunkBody::Trak(t) => Some(t),
                            _ => None,
                        })
                        .or(trak_slot.as_ref())
                        .ok_or_else(|| ParseError::MissingChunk {
                            chunk: "TRAK".into(),
                            needed_by: "MAP (vertex colours per model vertex)".into(),
                        })?;
                    let counts: Vec<usize> = trak.models.iter().map(|m| m.vertices.len()).collect();
                    let ctx = map::MapContext {
                        wfpc: need_wfpc("MAP")?,
                        model_vertex_counts: &counts,
                    };
                    let (map, warning) = Map::parse(c.payload, c.offset, &ctx)?;
                    warnings.extend(warning);
                    ChunkBody::Map(map)
                }
                Tag::NAME => other::parse_loose(c, &mut warnings, ChunkBody::Name),
                Tag::LNFO => other::parse_loose(c, &mut warnings, |info: LevelInfo| {
                    ChunkBody::LevelInfo(info.values)
                }),
                Tag::LGHT => other::parse_loose(c, &mut warnings, ChunkBody::Lights),
                _ => ChunkBody::Raw(c.payload.to_vec()),
            };
            chunks.push(Chunk {
                tag: c.tag,
                body,
                padding: c.padding.to_vec(),
            });
        }
        if !raw.trailing.is_empty() {
            warnings.push(format!(
                "{} bytes after the last chunk are not a chunk; kept verbatim",
                raw.trailing.len()
            ));
        }
        Ok(Level {
            convention: raw.convention,
            chunks,
            trailing: raw.trailing.to_vec(),
            warnings,
        })
    }

    /// Writes the level; the total length is recomputed.
    pub fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
        let payloads = self.payloads()?;
        let outs: Vec<ChunkOut> = self
            .chunks
            .iter()
            .zip(&payloads)
            .map(|(c, p)| ChunkOut {
                tag: c.tag,
                payload: p,
                padding: &c.padding,
            })
            .collect();
        let bytes = container::join(self.convention, &outs, &self.trailing);
        u32::try_from(bytes.len()).map_err(|_| BuildError::TooMany {
            what: "bytes in the WAD".into(),
            count: bytes.len() as u64,
            max: u32::MAX as u64,
        })?;
        Ok(bytes)
    }

    /// Every chunk's payload as the writer produces it, in file order.
    pub fn payloads(&self) -> Result<Vec<Vec<u8>>, BuildError> {
        let wfpc = self.wfpc();
        let counts: Vec<usize> = self
            .trak()
            .map(|t| t.models.iter().map(|m| m.vertices.len()).collect())
            .unwrap_or_default();
        let ctx = map::MapContext {
            wfpc,
            model_vertex_counts: &counts,
        };
        self.chunks
            .iter()
            .map(|chunk| match &chunk.body {
                ChunkBody::Flags(flags) => write_chunk(&Wfpc { flags: *flags }, ()),
                ChunkBody::Name(n) => write_chunk(n, ()),
                ChunkBody::LevelInfo(values) => write_chunk(&LevelInfo { values: *values }, ()),
                ChunkBody::Lights(l) => write_chunk(l, ()),
                ChunkBody::Text(t) => write_chunk(t, ()),
                ChunkBody::Trak(t) => write_chunk(t, ()),
                ChunkBody::Stpc(s) => write_chunk(s, ()),
                ChunkBody::Map(m) => m.to_bytes(&ctx),
                ChunkBody::Raw(b) => Ok(b.clone()),
            })
            .collect()
    }
}
