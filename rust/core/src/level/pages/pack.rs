//! New images placed on new pages (FORMAT.md §8): a shelf packer and the pages it fills.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use image::RgbaImage;

use super::{fit_to_page, rgba_to_abgr1555, Bit15, PageError, PAGE_SIDE};
use crate::level::text::{Page, PageKind, Text};
use crate::limits::MAX_PAGES;

/// Where an image lies: its page, its top-left pixel and its size (a texture entry's rectangle
/// is `u0 = x`, `u1 = x + width − 1`, `v0 = y`, `v1 = y + height − 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub page: usize,
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// The flags of a new page when the level has no 16-bit page of its own: any value but 0
/// without 0x80 reads as a 16-bit page (note 001 §7); the notes give no other bit a meaning, and
/// 0x1 is the smallest such value.
pub const DEFAULT_PAGE_FLAGS: u32 = 0x1;

/// The flags of a new 16-bit page: those most of the level's own 16-bit pages have (of equally
/// common values the smallest), whatever the unknown bits mean to the game, or
/// [`DEFAULT_PAGE_FLAGS`].
pub fn new_page_flags(text: &Text) -> u32 {
    let mut counts = BTreeMap::<u32, usize>::new();
    for page in text.pages.iter().filter(|p| p.kind() == PageKind::Direct16) {
        *counts.entry(page.flags).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(flags, n)| (n, Reverse(flags)))
        .map_or(DEFAULT_PAGE_FLAGS, |(flags, _)| flags)
}

/// A row of images across a page.
struct Shelf {
    y: u32,
    height: u32,
    /// Pixels taken from the left.
    used: u32,
}

/// Places rectangles of `sizes` (width, height: 1 to [`PAGE_SIDE`]) on new pages numbered from
/// `first_page` (the level's page count), a placement per rectangle in their order. Shelf
/// packing, first fit by decreasing height: the tallest rectangles first, each on the first
/// shelf of the last page with room, else on a new shelf below, else on a new page. Refused: a
/// size outside 1 to 256, and more pages than texture entries can name (`MAX_PAGES`, counting
/// the level's).
pub fn pack(sizes: &[[u32; 2]], first_page: usize) -> Result<Vec<Placement>, PageError> {
    let side = 1..=PAGE_SIDE;
    if let Some(image) = sizes
        .iter()
        .position(|[w, h]| !side.contains(w) || !side.contains(h))
    {
        return Err(PageError::ImageSize {
            image,
            size: sizes[image],
        });
    }
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (Reverse(sizes[i][1]), Reverse(sizes[i][0]), i));
    let mut placed = Vec::with_capacity(sizes.len());
    let mut page = first_page;
    let mut shelves: Vec<Shelf> = Vec::new();
    for i in order {
        let [width, height] = sizes[i];
        // Shelves come in decreasing height: each earlier one is tall enough.
        let shelf = match shelves.iter().position(|s| s.used + width <= PAGE_SIDE) {
            Some(k) => k,
            None => {
                let top = shelves.last().map_or(0, |s| s.y + s.height);
                if shelves.is_empty() || top + height > PAGE_SIDE {
                    if !shelves.is_empty() {
                        page += 1;
                    }
                    shelves.clear();
                }
                let y = shelves.last().map_or(0, |_| top);
                shelves.push(Shelf { y, height, used: 0 });
                shelves.len() - 1
            }
        };
        let s = &mut shelves[shelf];
        placed.push((
            i,
            Placement {
                page,
                x: s.used,
                y: s.y,
                width,
                height,
            },
        ));
        s.used += width;
    }
    let count = if placed.is_empty() {
        first_page
    } else {
        page + 1
    };
    if count > MAX_PAGES {
        return Err(PageError::TooManyPages { count });
    }
    placed.sort_by_key(|&(i, _)| i);
    Ok(placed.into_iter().map(|(_, p)| p).collect())
}

/// New images on new pages of `text`, in [`pack`]'s placements, returned per image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedPages {
    pub placements: Vec<Placement>,
    /// Images resampled to fit a page, each named by its number and both sizes.
    pub warnings: Vec<String>,
}

/// Puts `images` on new 16-bit pages appended to `text` ([`new_page_flags`]; pixels by
/// [`rgba_to_abgr1555`], opaque ones with bit 15 set: a new page has no pixels of its own to
/// follow, [`Bit15`]; the rest of a page transparent): an image larger than a page is
/// resampled to fit first ([`fit_to_page`]). `text` is left as it was when [`pack`] refuses.
pub fn add_pages(text: &mut Text, images: Vec<RgbaImage>) -> Result<AddedPages, PageError> {
    let mut warnings = Vec::new();
    let images: Vec<RgbaImage> = images
        .into_iter()
        .enumerate()
        .map(|(i, image)| {
            let (image, warning) = fit_to_page(image);
            warnings.extend(warning.map(|w| format!("image {i}: {w}")));
            image
        })
        .collect();
    let sizes: Vec<[u32; 2]> = images.iter().map(|i| i.dimensions().into()).collect();
    let first = text.pages.len();
    let placements = pack(&sizes, first)?;
    let count = placements.iter().map(|p| p.page + 1 - first).max();
    let side = PAGE_SIDE as usize;
    let mut pixels = vec![vec![0u16; side * side]; count.unwrap_or(0)];
    for (image, at) in images.iter().zip(&placements) {
        let page = &mut pixels[at.page - first];
        for (x, y, pixel) in image.enumerate_pixels() {
            page[(at.y + y) as usize * side + (at.x + x) as usize] =
                Bit15::Set.apply(rgba_to_abgr1555(pixel.0));
        }
    }
    let flags = new_page_flags(text);
    text.pages.extend(pixels.into_iter().map(|pixels| Page {
        flags,
        width: PAGE_SIDE,
        height: PAGE_SIDE,
        data: pixels.iter().flat_map(|p| p.to_le_bytes()).collect(),
    }));
    Ok(AddedPages {
        placements,
        warnings,
    })
}
