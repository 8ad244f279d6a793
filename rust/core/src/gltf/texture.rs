//! Texture pages as images (FORMAT.md §8): ABGR1555 with pixel 0 transparent; 8-bit pages
//! through the first palette; RLE16 pages, whose compression is not documented, as a marked
//! placeholder.

use image::{ImageEncoder, RgbaImage};

use crate::level::text::{PageKind, Text, MAX_PAGE_SIDE};

/// One ABGR1555 pixel (R = bits 0–4) as RGBA8; 0 is transparent.
pub fn abgr1555_to_rgba(p: u16) -> [u8; 4] {
    let expand = |v: u16| {
        let v = (v & 31) as u8;
        (v << 3) | (v >> 2)
    };
    let alpha = if p == 0 { 0 } else { 255 };
    [expand(p), expand(p >> 5), expand(p >> 10), alpha]
}

/// A page decoded for display, and what a user should know about it.
pub struct PageImage {
    pub image: RgbaImage,
    pub has_transparency: bool,
    /// Set when the image is not the page's real pixels.
    pub note: Option<String>,
}

pub fn decode_page(text: &Text, index: usize) -> PageImage {
    let page = &text.pages[index];
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
        return PageImage {
            image: placeholder(),
            has_transparency: false,
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
    let (image, note) = match page.kind() {
        PageKind::Direct16 => {
            let mut it = page
                .data
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]));
            (from_abgr(&mut it), None)
        }
        PageKind::Indexed8 => {
            let palette = text
                .palettes
                .first()
                .map(|p| p.colours.as_slice())
                .unwrap_or(&[]);
            let mut it = page
                .data
                .iter()
                .map(|&i| palette.get(i as usize).copied().unwrap_or(0));
            let note = format!(
                "page {index} is 8-bit paletted: shown with the first palette, as the notes do \
                 not say which palette a page uses"
            );
            (from_abgr(&mut it), Some(note))
        }
        PageKind::Rle16 => (
            placeholder(),
            Some(format!(
                "page {index} is RLE16-compressed, a format the notes do not document: shown as a \
                 magenta placeholder, its bytes are kept unchanged"
            )),
        ),
    };
    let has_transparency = image.pixels().any(|p| p.0[3] == 0);
    PageImage {
        image,
        has_transparency,
        note,
    }
}

/// Magenta and black squares: unmistakably not a real texture. Always 256×256, a page's size
/// in the game (texture coordinates are fractions of the page, whatever its size says).
fn placeholder() -> RgbaImage {
    RgbaImage::from_fn(256, 256, |x, y| {
        if ((x / 16) + (y / 16)) % 2 == 0 {
            image::Rgba([255, 0, 255, 255])
        } else {
            image::Rgba([0, 0, 0, 255])
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abgr1555_channels() {
        assert_eq!(abgr1555_to_rgba(0), [0, 0, 0, 0]);
        assert_eq!(abgr1555_to_rgba(0x001f), [255, 0, 0, 255]);
        assert_eq!(abgr1555_to_rgba(0x03e0), [0, 255, 0, 255]);
        assert_eq!(abgr1555_to_rgba(0x7c00), [0, 0, 255, 255]);
        assert_eq!(abgr1555_to_rgba(0x8000), [0, 0, 0, 255]);
    }
}
