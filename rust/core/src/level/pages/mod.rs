//! Texture pages as RGBA images and back (FORMAT.md §8): the one place that knows how a page's
//! pixels look. ABGR1555 (R in bits 0–4) with pixel 0 transparent; 8-bit pages through the first
//! palette (which palette a page uses the notes do not say); RLE16 pages, whose compression is
//! not documented, as a marked placeholder that is never written back.
//!
//! An image goes back into its page by [`update_page`], which compares it with the page as
//! [`decode_page`] shows it, at the page's own precision: an image that shows the page's pixels
//! leaves the page's bytes as they are. New images go into new pages by [`add_pages`].

mod pack;
mod update;

pub use pack::{add_pages, new_page_flags, pack, AddedPages, Placement, DEFAULT_PAGE_FLAGS};
pub use update::{update_page, ChangedPage, PageUpdate};

use image::ImageEncoder;
/// The images pages are shown as: RGBA8, rows top first.
pub use image::RgbaImage;

use crate::level::text::{Page, PageKind, Palette, MAX_PAGE_SIDE};
use crate::limits::MAX_PAGES;

/// A page's side in the game: pages are 256×256 (note 001 §1, certain), and texture coordinates
/// are page pixels / 256 whatever a page's header says (note 001 §3).
pub const PAGE_SIDE: u32 = 256;

/// The filter images are resampled with: Triangle (bilinear) has no ringing, so a hard edge or
/// the border of a transparent area stays where it was once alpha is cut at 128, where Lanczos3
/// would leave halos.
const RESAMPLE_FILTER: image::imageops::FilterType = image::imageops::FilterType::Triangle;

/// An opaque pixel whose colour rounds to 0 (black) is written as this, whichever way the page
/// keeps bit 15 ([`Bit15`]): 0 is the transparent pixel, and bit 15 (the A of ABGR1555) is the
/// one bit that leaves the colour as it is. Decoding reads every value but 0 as opaque and
/// ignores bit 15, as the notes' rule says ("0 = transparent").
pub const OPAQUE_BLACK: u16 = 0x8000;

/// Bit 15 of a 16-bit pixel: the A of ABGR1555 (note 001 §7). How the engine reads it the notes
/// do not say; pages of levels made by other tools have it set on nearly every opaque pixel. So
/// written opaque pixels have it set, unless the page's own opaque pixels mostly have it clear,
/// when they follow the page (FORMAT-DECISIONS §4, FORMAT.md §8). Transparent pixels are 0
/// either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bit15 {
    Set,
    Clear,
}

impl Bit15 {
    /// The way a page's written opaque pixels take bit 15, from its stored values: clear when
    /// more of its opaque pixels have it clear than set, else set (also for a page with no
    /// opaque pixel). Opaque black ([`OPAQUE_BLACK`]) has bit 15 whichever way a page is
    /// written, and is not counted.
    pub fn of_page(values: impl IntoIterator<Item = u16>) -> Bit15 {
        let (mut set, mut clear) = (0usize, 0usize);
        for p in values {
            match p {
                0 | OPAQUE_BLACK => {}
                p if p & 0x8000 != 0 => set += 1,
                _ => clear += 1,
            }
        }
        if clear > set {
            Bit15::Clear
        } else {
            Bit15::Set
        }
    }

    /// `p` (as [`rgba_to_abgr1555`] gives it) with bit 15 this way on an opaque pixel; 0 stays
    /// transparent and opaque black keeps bit 15.
    pub fn apply(self, p: u16) -> u16 {
        match (self, p) {
            (_, 0) => 0,
            (Bit15::Set, p) => p | 0x8000,
            (Bit15::Clear, p) => p,
        }
    }
}

/// Why a page's image could not be written, or a new image placed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("page {page} does not exist: the level has {pages} pages")]
    NoSuchPage { page: usize, pages: usize },
    #[error(
        "page {page} is {}×{} pixels, the image {}×{}: give an image of the page's size, or have \
         it resampled to that size",
        page_size[0], page_size[1], image_size[0], image_size[1]
    )]
    SizeDiffers {
        page: usize,
        page_size: [u32; 2],
        image_size: [u32; 2],
    },
    #[error(
        "page {page} is RLE16-compressed, a format the notes do not document: a changed image \
         cannot be written into it (only the unchanged placeholder, which keeps its bytes)"
    )]
    Compressed { page: usize },
    #[error(
        "page {page} ({}×{}, {bytes} bytes) does not hold its pixels: a changed image cannot be \
         written into it (only the unchanged placeholder, which keeps its bytes)",
        size[0], size[1]
    )]
    Damaged {
        page: usize,
        size: [u32; 2],
        bytes: usize,
    },
    #[error(
        "page {page} is 8-bit, but the first palette (the one its pixels are shown through) has \
         no opaque colour to write the image's opaque pixels with"
    )]
    NoOpaqueColour { page: usize },
    #[error(
        "{count} texture pages, but a texture entry names its page with a signed byte: at most \
         {MAX_PAGES} (pages 0 to 127)"
    )]
    TooManyPages { count: usize },
    #[error(
        "image {image} is {}×{} pixels: a page holds images of 1 to {PAGE_SIDE} pixels a side",
        size[0], size[1]
    )]
    ImageSize { image: usize, size: [u32; 2] },
    #[error(
        "not a PNG this tool reads ({reason}); images of at most {MAX_PAGE_SIDE}×{MAX_PAGE_SIDE} \
         pixels are read"
    )]
    Png { reason: String },
}

/// One ABGR1555 pixel (R = bits 0–4) as RGBA8; 0 is transparent, every other value opaque
/// (bit 15 is not part of the colour).
pub fn abgr1555_to_rgba(p: u16) -> [u8; 4] {
    let expand = |v: u16| {
        let v = (v & 31) as u8;
        (v << 3) | (v >> 2)
    };
    let alpha = if p == 0 { 0 } else { 255 };
    [expand(p), expand(p >> 5), expand(p >> 10), alpha]
}

/// One RGBA8 pixel as ABGR1555, bit 15 aside: alpha below 128 is the transparent pixel 0; an
/// opaque pixel takes each channel's nearest 5-bit value, (v·31 + 127) / 255, the inverse of
/// [`abgr1555_to_rgba`]'s expansion, so a decoded pixel encodes to the value it came from; bit 15
/// clear, except that an opaque black pixel, which would be 0, is [`OPAQUE_BLACK`]. This is the
/// pixel at the page's precision (what "unchanged" compares); a written pixel takes bit 15 by
/// [`Bit15::apply`].
pub fn rgba_to_abgr1555([r, g, b, a]: [u8; 4]) -> u16 {
    if a < 128 {
        return 0;
    }
    let five = |v: u8| (v as u16 * 31 + 127) / 255;
    match five(r) | five(g) << 5 | five(b) << 10 {
        0 => OPAQUE_BLACK,
        p => p,
    }
}

/// RGBA8 bytes, rows top first, as a `width` × `height` image; None when they are not
/// 4 · width · height bytes.
pub fn rgba_image(width: u32, height: u32, rgba: Vec<u8>) -> Option<RgbaImage> {
    let wanted = width as u64 * height as u64 * 4;
    (rgba.len() as u64 == wanted)
        .then(|| RgbaImage::from_raw(width, height, rgba))
        .flatten()
}

/// Whether two images show the same page pixels: the same size, and every pixel the same at
/// the page's precision ([`rgba_to_abgr1555`]: 5 bits a channel, transparent or not), so that
/// either written into a page gives the same page.
pub fn same_at_page_precision(a: &RgbaImage, b: &RgbaImage) -> bool {
    a.dimensions() == b.dimensions()
        && a.pixels()
            .zip(b.pixels())
            .all(|(p, q)| rgba_to_abgr1555(p.0) == rgba_to_abgr1555(q.0))
}

/// How a page's image shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A 16-bit page's own pixels.
    Pixels,
    /// An 8-bit page through the first palette.
    FirstPalette,
    /// An RLE16 page: the placeholder.
    Compressed,
    /// A page whose bytes do not hold its pixels (one built in memory; the reader refuses such
    /// a file): the placeholder.
    Damaged,
}

/// A page decoded for display, and what a user should know about it.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub image: RgbaImage,
    pub shown: Shown,
    /// Set when the image is not the page's 16-bit pixels.
    pub note: Option<String>,
}

/// Page `index` as an image: row 0 at the top, 8-bit pages through the first of `palettes`
/// (an index past its colours is transparent), RLE16 and damaged pages as the placeholder.
pub fn decode_page(page: &Page, palettes: &[Palette], index: usize) -> Decoded {
    let (w, h) = (page.width, page.height);
    let pixels = w as usize * h as usize;
    let bytes_per_pixel = match page.kind() {
        PageKind::Direct16 => Some(2),
        PageKind::Indexed8 => Some(1),
        PageKind::Rle16 => None,
    };
    // The parser guarantees this for pages read from a file; a page built in memory may break it,
    // and an image is never allocated for more pixels than the page's bytes hold.
    let holds_its_pixels = (1..=MAX_PAGE_SIDE).contains(&w)
        && (1..=MAX_PAGE_SIDE).contains(&h)
        && bytes_per_pixel.is_none_or(|n| page.data.len() == n * pixels);
    if !holds_its_pixels {
        return Decoded {
            image: placeholder(),
            shown: Shown::Damaged,
            note: Some(format!(
                "page {index} ({w}×{h}, {} bytes) does not hold its pixels: shown as a magenta \
                 placeholder, its bytes are kept unchanged",
                page.data.len()
            )),
        };
    }
    let from_abgr = |values: &mut dyn Iterator<Item = u16>| {
        let mut image = RgbaImage::new(w, h);
        for (dst, p) in image.pixels_mut().zip(values) {
            dst.0 = abgr1555_to_rgba(p);
        }
        image
    };
    match page.kind() {
        PageKind::Direct16 => Decoded {
            image: from_abgr(&mut pixels16(&page.data)),
            shown: Shown::Pixels,
            note: None,
        },
        PageKind::Indexed8 => {
            let palette = first_palette(palettes);
            let mut it = page
                .data
                .iter()
                .map(|&i| palette.get(i as usize).copied().unwrap_or(0));
            Decoded {
                image: from_abgr(&mut it),
                shown: Shown::FirstPalette,
                note: Some(format!(
                    "page {index} is 8-bit paletted: shown with the first palette, as the notes \
                     do not say which palette a page uses"
                )),
            }
        }
        PageKind::Rle16 => Decoded {
            image: placeholder(),
            shown: Shown::Compressed,
            note: Some(format!(
                "page {index} is RLE16-compressed, a format the notes do not document: shown as \
                 a magenta placeholder, its bytes are kept unchanged"
            )),
        },
    }
}

/// The colours 8-bit pages are shown through (FORMAT.md §8: the first palette; none when the
/// level has no palette, which shows every pixel transparent).
fn first_palette(palettes: &[Palette]) -> &[u16] {
    palettes.first().map_or(&[], |p| p.colours.as_slice())
}

/// A 16-bit page's pixel values, row by row.
fn pixels16(data: &[u8]) -> impl Iterator<Item = u16> + '_ {
    data.chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// Magenta and black squares: unmistakably not a real texture. Always a page's size in the game
/// (texture coordinates are fractions of the page, whatever its header says).
fn placeholder() -> RgbaImage {
    RgbaImage::from_fn(PAGE_SIDE, PAGE_SIDE, |x, y| {
        if ((x / 16) + (y / 16)) % 2 == 0 {
            image::Rgba([255, 0, 255, 255])
        } else {
            image::Rgba([0, 0, 0, 255])
        }
    })
}

/// `image` resampled to `width` × `height` (with [`RESAMPLE_FILTER`]): to a page's size, each
/// axis on its own, since a texture entry addresses its page by fractions of each side.
pub fn resample(image: &RgbaImage, width: u32, height: u32) -> RgbaImage {
    image::imageops::resize(image, width, height, RESAMPLE_FILTER)
}

/// An image no larger than a page: one past [`PAGE_SIDE`] on a side is resampled to fit, keeping
/// its aspect (with [`RESAMPLE_FILTER`]), and the warning names both sizes.
pub fn fit_to_page(image: RgbaImage) -> (RgbaImage, Option<String>) {
    let (w, h) = image.dimensions();
    let longest = w.max(h);
    // An empty image has nothing to resample ([`pack`] refuses it).
    if longest <= PAGE_SIDE || w.min(h) == 0 {
        return (image, None);
    }
    let scaled = |v: u32| {
        let v = (v as u64 * PAGE_SIDE as u64 + longest as u64 / 2) / longest as u64;
        v.clamp(1, PAGE_SIDE as u64) as u32
    };
    let (fw, fh) = (scaled(w), scaled(h));
    let warning = format!(
        "an image of {w}×{h} pixels is larger than a page ({PAGE_SIDE}×{PAGE_SIDE}): resampled to \
         {fw}×{fh} (triangle filter)"
    );
    (resample(&image, fw, fh), Some(warning))
}

/// PNG bytes, compressed for speed: a level's pages are converted on every import.
pub fn encode_png(image: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Sub,
    )
    .write_image(
        image.as_raw(),
        image.width(),
        image.height(),
        image::ExtendedColorType::Rgba8,
    )
    .expect("encoding a PNG into memory cannot fail");
    out
}

/// A PNG as RGBA8 (any bit depth and colour type the PNG decoder reads). Its size is checked
/// before its pixels are allocated: at most [`MAX_PAGE_SIDE`] a side, the largest page side the
/// reader takes, sixteen times a page's.
pub fn decode_png(bytes: &[u8]) -> Result<RgbaImage, PageError> {
    let png = |e: image::ImageError| PageError::Png {
        reason: e.to_string(),
    };
    let mut reader =
        image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_PAGE_SIDE);
    limits.max_image_height = Some(MAX_PAGE_SIDE);
    reader.limits(limits);
    Ok(reader.decode().map_err(png)?.to_rgba8())
}

#[cfg(test)]
mod tests;
