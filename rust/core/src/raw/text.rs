//! The TEXT chunk (FORMAT.md §8): `u32 n`, n palettes; `u32 n`, n pages; `u32 n`, n texture
//! entries; then bytes the notes do not describe.

use binrw::io::{Read, Seek};
use binrw::{binrw, BinResult, Endian};

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::stream::{
    bad_value, elements, records, records_of_at_least, rest, u32_count, write_elements, ChunkLayout,
};
use crate::raw::TextureEntry;

#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    #[br(temp)]
    #[bw(try_calc = u32_count(palettes.len(), "palettes"))]
    palette_count: u32,
    // A palette takes at least 8 bytes, which bounds the count before anything is allocated.
    #[br(parse_with = elements(palette_count, 8, "palette"))]
    #[bw(write_with = write_elements("palette"))]
    pub palettes: Vec<Palette>,
    #[br(temp)]
    #[bw(try_calc = u32_count(pages.len(), "pages"))]
    page_count: u32,
    #[br(parse_with = elements(page_count, 12, "page"))]
    #[bw(write_with = write_elements("page"))]
    pub pages: Vec<Page>,
    #[br(temp)]
    #[bw(try_calc = u32_count(entries.len(), "texture entries"))]
    entry_count: u32,
    #[br(parse_with = records(entry_count, "texture entries"))]
    pub entries: Vec<TextureEntry>,
    /// Bytes after the texture table (40 in the village level; meaning unknown).
    #[br(parse_with = rest)]
    pub trailing: Vec<u8>,
}

impl ChunkLayout for Text {
    const TAG: Tag = Tag::TEXT;
    const LAST: &'static str = "the texture table";
}

/// A palette: its header, `u32 n`, n colours, then a byte per colour.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Palette {
    /// The palette's first u32 (meaning unknown).
    pub header: u32,
    #[br(temp)]
    #[bw(try_calc = u32_count(colours.len(), "colours"))]
    colour_count: u32,
    /// n colours, ABGR1555.
    #[br(parse_with = records_of_at_least(colour_count, 3, "colours"))]
    pub colours: Vec<u16>,
    /// n bytes after the colours (meaning unknown).
    #[br(parse_with = records(colour_count, "bytes after the colours"))]
    #[bw(assert(
        extra.len() == colours.len(),
        BuildError::Inconsistent {
            what: "colours".into(),
            problem: format!(
                "{} colours but {} extra bytes; the file stores one of each per entry",
                colours.len(),
                extra.len()
            ),
        }
    ))]
    pub extra: Vec<u8>,
}

/// How a page's pixels are stored, from its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PageKind {
    /// flags & 0x80: run-length compressed, format not documented; kept as bytes.
    Rle16,
    /// flags ≠ 0: w·h ABGR1555 pixels.
    Direct16,
    /// flags = 0: w·h palette indices.
    Indexed8,
}

impl PageKind {
    fn of(flags: u32) -> PageKind {
        if flags & 0x80 != 0 {
            PageKind::Rle16
        } else if flags != 0 {
            PageKind::Direct16
        } else {
            PageKind::Indexed8
        }
    }
}

/// The largest page side read: the notes are certain that pages are 256×256, and a side is
/// checked before anything is allocated for the page's image.
pub const MAX_PAGE_SIDE: u32 = 4096;

/// A texture page: flags, width, height, then its pixels (an RLE16 page: `u32 n` and n bytes).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    pub flags: u32,
    #[br(parse_with = page_side("width"))]
    pub width: u32,
    #[br(parse_with = page_side("height"))]
    pub height: u32,
    #[br(temp, if(PageKind::of(flags) == PageKind::Rle16))]
    #[bw(
        if(PageKind::of(*flags) == PageKind::Rle16),
        try_calc = u32_count(data.len(), "compressed pixels")
    )]
    compressed_len: u32,
    /// The pixel data as stored: w·h·2 bytes, w·h bytes, or (RLE16) the compressed bytes without
    /// their length prefix.
    #[br(parse_with = records(
        pixel_bytes(flags, width, height).unwrap_or(compressed_len.into()),
        "pixels"
    ))]
    #[bw(assert(
        pixel_bytes(*flags, *width, *height).is_none_or(|n| n == data.len() as u64),
        BuildError::Inconsistent {
            what: "pixels".into(),
            problem: format!(
                "{width}×{height} needs {:?} bytes of pixels, the page has {}",
                pixel_bytes(*flags, *width, *height),
                data.len()
            ),
        }
    ))]
    pub data: Vec<u8>,
}

impl Page {
    pub fn kind(&self) -> PageKind {
        PageKind::of(self.flags)
    }

    /// Bytes the page takes in the file: flags, width and height, an RLE16 page's length, its
    /// pixels.
    pub fn stored_size(&self) -> usize {
        let length = if self.kind() == PageKind::Rle16 { 4 } else { 0 };
        12 + length + self.data.len()
    }

    /// Pixel `(x, y)` of a 16-bit page, row 0 at the top.
    pub fn pixel16(&self, x: u32, y: u32) -> Option<u16> {
        if self.kind() != PageKind::Direct16 || x >= self.width || y >= self.height {
            return None;
        }
        let i = 2 * (y as usize * self.width as usize + x as usize);
        Some(u16::from_le_bytes([self.data[i], self.data[i + 1]]))
    }
}

/// The bytes of pixels of an uncompressed page; None for an RLE16 page.
fn pixel_bytes(flags: u32, width: u32, height: u32) -> Option<u64> {
    let pixels = width as u64 * height as u64;
    match PageKind::of(flags) {
        PageKind::Rle16 => None,
        PageKind::Direct16 => Some(pixels * 2),
        PageKind::Indexed8 => Some(pixels),
    }
}

fn page_side<R: Read + Seek>(
    what: &'static str,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<u32> {
    move |r, endian, ()| {
        let at = r.stream_position()?;
        let value = <u32 as binrw::BinRead>::read_options(r, endian, ())?;
        if (1..=MAX_PAGE_SIDE).contains(&value) {
            Ok(value)
        } else {
            Err(bad_value(
                at,
                what,
                format!("1 to {MAX_PAGE_SIDE} pixels (pages are 256×256)"),
                value,
            ))
        }
    }
}
