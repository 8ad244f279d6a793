//! The TEXT chunk: palettes, texture pages and the texture table (FORMAT.md §8). Its layout in
//! [`crate::raw::text`] is the level model as it is.

pub use crate::raw::text::{Page, PageKind, Palette, Text, MAX_PAGE_SIDE};
