//! The small chunks: WFPC (the feature flags) and the loosely described NAME and LNFO
//! (FORMAT.md §9). LGHT has a module of its own ([`super::lights`]).

use binrw::binrw;

use crate::container::Tag;
use crate::raw::stream::{rest, ChunkLayout};

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
