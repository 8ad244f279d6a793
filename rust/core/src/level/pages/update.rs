//! An image written back into its page: unchanged, changed, or refused (FORMAT.md §8).

use std::collections::HashMap;

use image::RgbaImage;

use super::{
    decode_page, first_palette, pixels16, rgba_to_abgr1555, Bit15, Decoded, PageError, Shown,
};
use crate::level::text::{Page, Palette};

/// What an image makes of its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageUpdate {
    /// The image shows the page's pixels: the page keeps its bytes.
    Unchanged,
    Changed(ChangedPage),
}

/// A page with an image's pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedPage {
    /// The page with its new pixels (flags and size as they were).
    pub page: Page,
    /// Pixels whose value changed.
    pub changed: usize,
    /// Of those, on an 8-bit page: pixels whose nearest palette colour lies more than one 5-bit
    /// step from the image's in some channel, or is transparent where the image is opaque or
    /// the other way round. 0 on a 16-bit page, which holds every colour the page can show.
    pub moved: usize,
    /// On a 16-bit page, how the changed opaque pixels took bit 15: [`Bit15::of_page`] of the
    /// page as it was. None on an 8-bit page, whose pixels are palette indices.
    pub bit15: Option<Bit15>,
}

/// Writes `image` into page `index` (`page`, the level's `palettes`), comparing it with the page
/// as [`decode_page`] shows it, pixel by pixel at the page's precision (as ABGR1555: the low
/// three bits of a channel, the colour of a transparent pixel and alpha within 0–127 or 128–255
/// are no change). An image showing the page is [`PageUpdate::Unchanged`]. Otherwise every pixel
/// the image shows unchanged keeps its stored value (bit 15 of a 16-bit pixel, an 8-bit pixel's
/// index where the palette repeats a colour), and every changed pixel is encoded: on a 16-bit
/// page by [`rgba_to_abgr1555`], an opaque one with bit 15 as [`Bit15::of_page`] says (set
/// unless most of the page's opaque pixels have it clear), on an 8-bit page as the nearest colour
/// of the first palette (opaque pixels never take a transparent colour; a transparent pixel takes
/// the palette's transparent colour, or when it has none the opaque colour nearest to the pixel's
/// RGB, moved).
/// Refused: an image of another size than the page's image, a changed image of an RLE16 page or
/// of one whose bytes do not hold its pixels, an opaque pixel on an 8-bit page whose palette has
/// no opaque colour.
pub fn update_page(
    page: &Page,
    palettes: &[Palette],
    index: usize,
    image: &RgbaImage,
) -> Result<PageUpdate, PageError> {
    let Decoded {
        image: shown,
        shown: how,
        ..
    } = decode_page(page, palettes, index);
    if shown.dimensions() != image.dimensions() {
        return Err(PageError::SizeDiffers {
            page: index,
            page_size: shown.dimensions().into(),
            image_size: image.dimensions().into(),
        });
    }
    // The image's pixel values, None where they are the page's.
    let wanted: Vec<Option<u16>> = shown
        .pixels()
        .zip(image.pixels())
        .map(|(was, now)| {
            let now = rgba_to_abgr1555(now.0);
            (now != rgba_to_abgr1555(was.0)).then_some(now)
        })
        .collect();
    let changed = wanted.iter().flatten().count();
    if changed == 0 {
        return Ok(PageUpdate::Unchanged);
    }
    let (data, moved, bit15) = match how {
        Shown::Pixels => {
            let bit15 = Bit15::of_page(pixels16(&page.data));
            let data = pixels16(&page.data)
                .zip(&wanted)
                .flat_map(|(was, now)| now.map_or(was, |p| bit15.apply(p)).to_le_bytes())
                .collect();
            (data, 0, Some(bit15))
        }
        Shown::FirstPalette => {
            let mut nearest = Nearest::new(first_palette(palettes), index);
            let mut data = page.data.clone();
            for ((stored, now), pixel) in data.iter_mut().zip(&wanted).zip(image.pixels()) {
                if now.is_some() {
                    *stored = nearest.index_of(pixel.0)?;
                }
            }
            (data, nearest.moved, None)
        }
        Shown::Compressed => return Err(PageError::Compressed { page: index }),
        Shown::Damaged => {
            return Err(PageError::Damaged {
                page: index,
                size: [page.width, page.height],
                bytes: page.data.len(),
            })
        }
    };
    Ok(PageUpdate::Changed(ChangedPage {
        page: Page {
            data,
            ..page.clone()
        },
        changed,
        moved,
        bit15,
    }))
}

/// The nearest palette colour of a pixel, remembered per colour (an image has far fewer colours
/// than pixels), and how many pixels moved further than a step.
struct Nearest<'a> {
    /// The colours an 8-bit index can name.
    colours: &'a [u16],
    page: usize,
    /// By the pixel's opaque ABGR1555 value and whether it is transparent.
    found: HashMap<(u16, bool), (u8, bool)>,
    moved: usize,
}

impl<'a> Nearest<'a> {
    fn new(palette: &'a [u16], page: usize) -> Nearest<'a> {
        Nearest {
            colours: &palette[..palette.len().min(256)],
            page,
            found: HashMap::new(),
            moved: 0,
        }
    }

    fn index_of(&mut self, [r, g, b, a]: [u8; 4]) -> Result<u8, PageError> {
        let key = (rgba_to_abgr1555([r, g, b, 255]), a < 128);
        let (index, moved) = match self.found.get(&key) {
            Some(&found) => found,
            None => {
                let found = self.search(key.0, key.1)?;
                self.found.insert(key, found);
                found
            }
        };
        self.moved += moved as usize;
        Ok(index)
    }

    /// The palette index of a pixel and whether it moved. A transparent pixel takes the first
    /// transparent colour (0); without one, the opaque colour nearest to its RGB, moved. An opaque
    /// pixel takes the nearest opaque colour (squared distance of the 5-bit channels; the first
    /// of equals), moved when more than one step away in a channel.
    fn search(&self, opaque: u16, transparent: bool) -> Result<(u8, bool), PageError> {
        if transparent {
            if let Some(i) = self.colours.iter().position(|&c| c == 0) {
                return Ok((i as u8, false));
            }
        }
        // Bit 15 is no part of a colour (OPAQUE_BLACK is black).
        let channels = |p: u16| [p & 31, (p >> 5) & 31, (p >> 10) & 31];
        let target = channels(opaque);
        self.colours
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .map(|(i, &c)| {
                let c = channels(c);
                let distance: u32 = (0..3)
                    .map(|k| (c[k].abs_diff(target[k]) as u32).pow(2))
                    .sum();
                let far = transparent || (0..3).any(|k| c[k].abs_diff(target[k]) > 1);
                (distance, i, far)
            })
            .min_by_key(|&(distance, i, _)| (distance, i))
            .map(|(_, i, far)| (i as u8, far))
            .ok_or(PageError::NoOpaqueColour { page: self.page })
    }
}
