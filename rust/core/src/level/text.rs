//! The TEXT chunk: palettes, texture pages and the texture table (note 001 §7).

use crate::error::{BuildError, ParseError};
use crate::level::model::u32_count;
use crate::raw::TextureEntry;
use crate::reader::{Reader, Writer};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Palette {
    /// The palette's first u32 (meaning unknown).
    pub header: u32,
    /// n colours, ABGR1555.
    pub colours: Vec<u16>,
    /// n bytes after the colours (meaning unknown).
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

/// The largest page side read: the notes are certain that pages are 256×256, and a side is
/// checked before anything is allocated for the page's image.
pub const MAX_PAGE_SIDE: u32 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    pub flags: u32,
    pub width: u32,
    pub height: u32,
    /// The pixel data as stored: w·h·2 bytes, w·h bytes, or (RLE16) the compressed bytes without
    /// their length prefix.
    pub data: Vec<u8>,
}

impl Page {
    pub fn kind(&self) -> PageKind {
        if self.flags & 0x80 != 0 {
            PageKind::Rle16
        } else if self.flags != 0 {
            PageKind::Direct16
        } else {
            PageKind::Indexed8
        }
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

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    pub palettes: Vec<Palette>,
    pub pages: Vec<Page>,
    pub entries: Vec<TextureEntry>,
    /// Bytes after the texture table (40 in the village level; meaning unknown).
    pub trailing: Vec<u8>,
}

impl Text {
    pub fn parse(r: &mut Reader) -> Result<Text, ParseError> {
        let count = r.u32("number of palettes")?;
        // A palette takes at least 8 bytes, which bounds the count before anything is allocated.
        let count = r.check_count(count as u64, 8, "palettes")?;
        let mut palettes = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("palette {i}");
            let header = r.u32(&what)?;
            let n = r.u32(&what)? as u64;
            r.check_count(n, 3, &what)?;
            let colours = r.u16s(n, &what)?;
            let extra = r.bytes(n as usize, &what)?.to_vec();
            palettes.push(Palette {
                header,
                colours,
                extra,
            });
        }

        let count = r.u32("number of pages")?;
        let count = r.check_count(count as u64, 12, "pages")?;
        let mut pages = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("page {i}");
            let flags = r.u32(&what)?;
            let mut side = |name: &str| {
                let at = r.position();
                let value = r.u32(&what)?;
                if (1..=MAX_PAGE_SIDE).contains(&value) {
                    Ok(value)
                } else {
                    Err(r.bad_value(
                        at,
                        format!("{what}: {name}"),
                        format!("1 to {MAX_PAGE_SIDE} pixels (pages are 256×256)"),
                        value,
                    ))
                }
            };
            let width = side("width")?;
            let height = side("height")?;
            let mut page = Page {
                flags,
                width,
                height,
                data: Vec::new(),
            };
            let pixels = width as u64 * height as u64;
            page.data = match page.kind() {
                PageKind::Rle16 => {
                    let len = r.u32(&format!("{what}: compressed length"))?;
                    r.counted_bytes(len as u64, 1, &format!("{what}: compressed pixels"))?
                }
                PageKind::Direct16 => r.counted_bytes(pixels, 2, &format!("{what}: pixels"))?,
                PageKind::Indexed8 => r.counted_bytes(pixels, 1, &format!("{what}: pixels"))?,
            }
            .to_vec();
            pages.push(page);
        }

        let entries = r.counted_records("texture entries")?;
        let trailing = r.rest().to_vec();
        Ok(Text {
            palettes,
            pages,
            entries,
            trailing,
        })
    }

    pub fn write(&self, w: &mut Writer) -> Result<(), BuildError> {
        w.u32(u32_count(self.palettes.len(), "palettes")?);
        for (i, p) in self.palettes.iter().enumerate() {
            if p.extra.len() != p.colours.len() {
                return Err(BuildError::Inconsistent {
                    what: format!("palette {i}"),
                    problem: format!(
                        "{} colours but {} extra bytes; the file stores one of each per entry",
                        p.colours.len(),
                        p.extra.len()
                    ),
                });
            }
            w.u32(p.header);
            w.u32(u32_count(p.colours.len(), "palette colours")?);
            w.u16s(&p.colours);
            w.raw(&p.extra);
        }
        w.u32(u32_count(self.pages.len(), "pages")?);
        for (i, page) in self.pages.iter().enumerate() {
            let pixels = page.width as u64 * page.height as u64;
            let expected = match page.kind() {
                PageKind::Rle16 => None,
                PageKind::Direct16 => Some(pixels * 2),
                PageKind::Indexed8 => Some(pixels),
            };
            if let Some(n) = expected.filter(|&n| n != page.data.len() as u64) {
                return Err(BuildError::Inconsistent {
                    what: format!("page {i}"),
                    problem: format!(
                        "{}×{} needs {n} bytes of pixels, the page has {}",
                        page.width,
                        page.height,
                        page.data.len()
                    ),
                });
            }
            w.u32(page.flags);
            w.u32(page.width);
            w.u32(page.height);
            if page.kind() == PageKind::Rle16 {
                w.u32(u32_count(page.data.len(), "compressed page")?);
            }
            w.raw(&page.data);
        }
        w.u32(u32_count(self.entries.len(), "texture entries")?);
        w.records(&self.entries);
        w.raw(&self.trailing);
        Ok(())
    }
}
