//! Texture pages as glTF images: each page as [`crate::level::pages`] shows it, and whether it has
//! transparent pixels (its materials' alpha mode).

use image::RgbaImage;

use crate::level::pages;
use crate::level::text::Text;

/// A page decoded for display, and what a user should know about it.
pub struct PageImage {
    pub image: RgbaImage,
    pub has_transparency: bool,
    /// Set when the image is not the page's real pixels.
    pub note: Option<String>,
}

/// Page `index` of `text` (which must have it) as an image.
pub fn decode_page(text: &Text, index: usize) -> PageImage {
    let decoded = pages::decode_page(&text.pages[index], &text.palettes, index);
    let has_transparency = decoded.image.pixels().any(|p| p.0[3] == 0);
    PageImage {
        image: decoded.image,
        has_transparency,
        note: decoded.note,
    }
}
