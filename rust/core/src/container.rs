//! The WAD container (FORMAT.md §1): `u32 total`, then chunks `{tag reversed, u32 size,
//! payload}` back to back.
//!
//! The conventions the notes do not pin down (what `total` and `size` count, padding between
//! chunks, bytes after the last chunk) are detected by trying every candidate and taking the one
//! that tiles the file exactly; the writer keeps what was found.

use serde::Serialize;
use std::fmt;

use crate::error::{Location, ParseError};

/// What a parse error's location names when the container itself is at fault.
pub const CONTAINER: &str = "container";

/// A chunk tag as the notes spell it (`TRAK`); stored reversed in the file (`KART`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag(pub [u8; 4]);

impl Tag {
    pub const WFPC: Tag = Tag(*b"WFPC");
    pub const NAME: Tag = Tag(*b"NAME");
    pub const LNFO: Tag = Tag(*b"LNFO");
    pub const LGHT: Tag = Tag(*b"LGHT");
    pub const TEXT: Tag = Tag(*b"TEXT");
    pub const TRAK: Tag = Tag(*b"TRAK");
    pub const STPC: Tag = Tag(*b"STPC");
    pub const MAP: Tag = Tag(*b"MAP ");

    pub fn from_file_bytes(b: [u8; 4]) -> Tag {
        Tag([b[3], b[2], b[1], b[0]])
    }

    pub fn file_bytes(self) -> [u8; 4] {
        let b = self.0;
        [b[3], b[2], b[1], b[0]]
    }

    /// Tags are four printable ASCII characters; anything else is not a chunk header.
    fn is_plausible(self) -> bool {
        self.0.iter().all(|c| (0x20..0x7f).contains(c))
    }

    pub fn name(self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name().trim_end())
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag({:?})", self.name())
    }
}

impl Serialize for Tag {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name().trim_end())
    }
}

/// What the leading `u32 total` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TotalLength {
    FileSize,
    FileSizeMinus4,
}

/// The container conventions found in a file and kept when it is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Convention {
    pub total: TotalLength,
    /// Whether a chunk's `size` counts its own 8-byte header.
    pub size_includes_header: bool,
    /// Chunks start at multiples of this (1 = no padding).
    pub alignment: u32,
}

impl Convention {
    /// The convention this project writes for levels it creates from nothing.
    pub const DEFAULT: Convention = Convention {
        total: TotalLength::FileSize,
        size_includes_header: false,
        alignment: 1,
    };
}

/// One chunk as it sits in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct RawChunk<'a> {
    pub tag: Tag,
    /// Absolute file offset of the payload.
    pub offset: u64,
    pub payload: &'a [u8],
    /// Bytes between the end of the payload and the next chunk (empty for the last chunk).
    pub padding: &'a [u8],
}

#[derive(Debug, Clone, PartialEq)]
pub struct RawWad<'a> {
    pub convention: Convention,
    pub chunks: Vec<RawChunk<'a>>,
    /// Bytes after the last chunk that are not a chunk.
    pub trailing: &'a [u8],
}

/// A chunk header whose size runs past the end of the file: where it is, its tag, the payload
/// bytes it claims and those that are left.
type Overrun = (usize, Tag, u64, u64);

const ALIGNMENTS: [u32; 3] = [1, 2, 4];

/// At most this many chunks are read (a documented cap, the notes give none): the game's levels
/// have about fifteen, and every chunk is a record of its own in memory (a million empty ones
/// once took 480 MB).
pub const MAX_CHUNKS: usize = 1024;

/// Splits a file into chunks, detecting the container convention.
pub fn split(data: &[u8]) -> Result<RawWad<'_>, ParseError> {
    let wad = split_any(data)?;
    if wad.chunks.len() > MAX_CHUNKS {
        return Err(container_error(
            "the number of chunks",
            format!("at most {MAX_CHUNKS} (the game's levels have about 15)"),
            wad.chunks.len(),
        ));
    }
    Ok(wad)
}

/// A value of the container itself that is not what a level has.
fn container_error(what: &str, expected: String, found: impl ToString) -> ParseError {
    ParseError::BadValue {
        at: Location {
            chunk: CONTAINER.to_string(),
            ..Location::default()
        },
        what: what.to_string(),
        expected,
        found: found.to_string(),
    }
}

/// [`split`] whatever the number of chunks.
fn split_any(data: &[u8]) -> Result<RawWad<'_>, ParseError> {
    if data.len() < 4 {
        return Err(ParseError::NotAWad {
            reason: format!("{} bytes is too short for the length field", data.len()),
        });
    }
    let total = u32::from_le_bytes(data[0..4].try_into().expect("4 bytes")) as u64;
    let file_size = data.len() as u64;
    let total_kind = if total == file_size {
        TotalLength::FileSize
    } else if total + 4 == file_size {
        TotalLength::FileSizeMinus4
    } else {
        // Chunks that fill the file exactly make it a WAD whose length field is wrong.
        let tiled = [false, true].into_iter().any(|size_includes_header| {
            ALIGNMENTS.into_iter().any(|alignment| {
                let convention = Convention {
                    size_includes_header,
                    alignment,
                    ..Convention::DEFAULT
                };
                let (wad, overrun) = walk(data, convention);
                !wad.chunks.is_empty() && wad.trailing.is_empty() && overrun.is_none()
            })
        });
        if tiled {
            return Err(container_error(
                "the WAD's length field",
                format!("the file's size ({file_size}) or 4 less"),
                total,
            ));
        }
        return Err(ParseError::NotAWad {
            reason: format!(
                "the length field says {total} bytes but the file has {file_size} \
                 (truncated or not a WAD)"
            ),
        });
    };

    // Candidates in order of preference; the first that tiles the file with no bytes left over
    // wins. Otherwise the one with the fewest left over, as long as it found a chunk at all.
    let mut best: Option<(RawWad, Option<Overrun>)> = None;
    for size_includes_header in [false, true] {
        for alignment in ALIGNMENTS {
            let convention = Convention {
                total: total_kind,
                size_includes_header,
                alignment,
            };
            let (wad, overrun) = walk(data, convention);
            if wad.chunks.is_empty() {
                continue;
            }
            if wad.trailing.is_empty() {
                return Ok(wad);
            }
            if best
                .as_ref()
                .is_none_or(|(b, _)| wad.trailing.len() < b.trailing.len())
            {
                best = Some((wad, overrun));
            }
        }
    }
    match best {
        // Bytes after the last chunk are kept, but not a chunk cut short: that is a damaged
        // file, not a shorter level.
        Some((_, Some((at, tag, needed, available)))) => Err(ParseError::Truncated {
            at: Location {
                chunk: tag.to_string(),
                offset: at as u64,
                ..Location::default()
            },
            what: format!("the {tag} chunk's payload"),
            needed,
            available,
        }),
        Some((wad, None)) => Ok(wad),
        None => Err(ParseError::NotAWad {
            reason: "no chunk header found after the length field".to_string(),
        }),
    }
}

/// The chunks of a file under one convention, up to the first bytes that are not a whole chunk.
fn walk(data: &[u8], convention: Convention) -> (RawWad<'_>, Option<Overrun>) {
    let mut chunks: Vec<RawChunk> = Vec::new();
    let align = convention.alignment as usize;
    // `end` is where the last chunk's payload ends; padding only counts as padding when another
    // chunk follows it, otherwise it belongs to the trailing bytes.
    let mut end = 4usize;
    let mut pos = 4usize;
    let mut overrun = None;
    while let Some(header) = data.get(pos..pos + 8) {
        let tag = Tag::from_file_bytes(header[0..4].try_into().expect("4 bytes"));
        let size = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes")) as usize;
        if !tag.is_plausible() {
            break;
        }
        let payload_len = if convention.size_includes_header {
            match size.checked_sub(8) {
                Some(n) => n,
                None => break,
            }
        } else {
            size
        };
        let start = pos + 8;
        let Some(payload_end) = start.checked_add(payload_len).filter(|&e| e <= data.len()) else {
            overrun = Some((start, tag, payload_len as u64, (data.len() - start) as u64));
            break;
        };
        if let Some(previous) = chunks.last_mut() {
            previous.padding = &data[end..pos];
        }
        chunks.push(RawChunk {
            tag,
            offset: start as u64,
            payload: &data[start..payload_end],
            padding: &[],
        });
        end = payload_end;
        pos = end.next_multiple_of(align);
    }
    (
        RawWad {
            convention,
            chunks,
            trailing: &data[end..],
        },
        overrun,
    )
}

/// A chunk to be written: the tag, its payload and the padding found after it when it was read.
pub struct ChunkOut<'a> {
    pub tag: Tag,
    pub payload: &'a [u8],
    pub padding: &'a [u8],
}

/// Writes chunks back with the given convention; `total` is recomputed.
pub fn join(convention: Convention, chunks: &[ChunkOut], trailing: &[u8]) -> Vec<u8> {
    let len_hint: usize = 4
        + chunks
            .iter()
            .map(|c| 8 + c.payload.len() + c.padding.len())
            .sum::<usize>()
        + trailing.len();
    let mut out = Vec::with_capacity(len_hint);
    out.extend_from_slice(&[0; 4]);
    let align = convention.alignment as usize;
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            let pad = out.len().next_multiple_of(align) - out.len();
            // The padding bytes found in the file are kept when they still fit; a chunk that
            // changed length is padded with zeros.
            let previous = chunks[i - 1].padding;
            if previous.len() == pad {
                out.extend_from_slice(previous);
            } else {
                out.resize(out.len() + pad, 0);
            }
        }
        out.extend_from_slice(&chunk.tag.file_bytes());
        let size = chunk.payload.len()
            + if convention.size_includes_header {
                8
            } else {
                0
            };
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(chunk.payload);
    }
    out.extend_from_slice(trailing);
    let total = match convention.total {
        TotalLength::FileSize => out.len(),
        TotalLength::FileSizeMinus4 => out.len() - 4,
    };
    out[0..4].copy_from_slice(&(total as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(convention: Convention, chunks: &[(&[u8; 4], &[u8])], trailing: &[u8]) -> Vec<u8> {
        let outs: Vec<ChunkOut> = chunks
            .iter()
            .map(|(t, p)| ChunkOut {
                tag: Tag(**t),
                payload: p,
                padding: &[],
            })
            .collect();
        join(convention, &outs, trailing)
    }

    #[test]
    fn tags_are_stored_reversed() {
        let bytes = build(Convention::DEFAULT, &[(b"TRAK", &[1, 2, 3])], &[]);
        assert_eq!(&bytes[4..8], b"KART");
        assert_eq!(&bytes[0..4], &(bytes.len() as u32).to_le_bytes());
    }

    #[test]
    fn every_convention_is_detected_and_kept() {
        let chunks: &[(&[u8; 4], &[u8])] = &[(b"WFPC", &[1, 0, 0, 0]), (b"NAME", &[5, 6, 7])];
        for total in [TotalLength::FileSize, TotalLength::FileSizeMinus4] {
            for size_includes_header in [false, true] {
                for alignment in ALIGNMENTS {
                    let conv = Convention {
                        total,
                        size_includes_header,
                        alignment,
                    };
                    let bytes = build(conv, chunks, &[]);
                    let wad = split(&bytes).unwrap();
                    assert_eq!(wad.chunks.len(), 2, "{conv:?}");
                    assert_eq!(wad.chunks[1].payload, &[5, 6, 7], "{conv:?}");
                    let outs: Vec<ChunkOut> = wad
                        .chunks
                        .iter()
                        .map(|c| ChunkOut {
                            tag: c.tag,
                            payload: c.payload,
                            padding: c.padding,
                        })
                        .collect();
                    assert_eq!(join(wad.convention, &outs, wad.trailing), bytes, "{conv:?}");
                }
            }
        }
    }

    #[test]
    fn trailing_bytes_are_kept() {
        let bytes = build(
            Convention::DEFAULT,
            &[(b"WFPC", &[1, 0, 0, 0])],
            &[0xff, 0xfe],
        );
        let wad = split(&bytes).unwrap();
        assert_eq!(wad.trailing, &[0xff, 0xfe]);
    }

    #[test]
    fn wrong_total_is_refused() {
        let mut bytes = build(Convention::DEFAULT, &[(b"WFPC", &[1, 0, 0, 0])], &[]);
        bytes.pop();
        let err = split(&bytes).unwrap_err();
        assert!(
            err.to_string()
                .contains("length field says 16 bytes but the file has 15"),
            "{err}"
        );
    }
}
