//! The on-disk layouts of a level, each declared once with binrw and used both to read and to
//! write: the fixed-size records (`records.rs`, re-exported here), then one file per chunk.
//! Counts and sizes exist only in the file (`#[br(temp)]`, computed on write), so a count cannot
//! disagree with the data it counts. The level model in [`crate::level`] is built from these in
//! one place.

mod records;
pub(crate) mod stream;

pub mod lights;
pub mod map;
pub mod model;
pub mod other;
pub mod stpc;
pub mod text;

pub use records::*;
