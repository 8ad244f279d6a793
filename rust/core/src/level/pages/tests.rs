//! The page codec on pages built here by hand (not by the generator): 16-bit, 8-bit with a
//! palette that repeats a colour and has a transparent one, RLE16 and damaged pages.

use image::{Rgba, RgbaImage};

use super::*;
use crate::level::text::{Page, Palette, Text};

fn page16(width: u32, height: u32, pixel: impl Fn(u32, u32) -> u16) -> Page {
    let data = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .flat_map(|(x, y)| pixel(x, y).to_le_bytes())
        .collect();
    Page {
        flags: 0x9,
        width,
        height,
        data,
    }
}

fn values16(page: &Page) -> Vec<u16> {
    pixels16(&page.data).collect()
}

fn changed(update: Result<PageUpdate, PageError>) -> ChangedPage {
    match update {
        Ok(PageUpdate::Changed(c)) => c,
        other => panic!("expected a changed page, got {other:?}"),
    }
}

#[test]
fn abgr1555_channels() {
    assert_eq!(abgr1555_to_rgba(0), [0, 0, 0, 0]);
    assert_eq!(abgr1555_to_rgba(0x001f), [255, 0, 0, 255]);
    assert_eq!(abgr1555_to_rgba(0x03e0), [0, 255, 0, 255]);
    assert_eq!(abgr1555_to_rgba(0x7c00), [0, 0, 255, 255]);
    assert_eq!(abgr1555_to_rgba(0x8000), [0, 0, 0, 255]);
}

/// Every value a page stores but those with bit 15 and a colour (0x8001..): 0, the 32,767
/// colours, and opaque black.
#[test]
fn decoding_then_encoding_gives_back_every_value() {
    for p in (0..=0x7fffu16).chain([OPAQUE_BLACK]) {
        assert_eq!(rgba_to_abgr1555(abgr1555_to_rgba(p)), p, "{p:#06x}");
    }
    // With bit 15 and a colour, the colour comes back and bit 15 is left to the stored pixel.
    assert_eq!(rgba_to_abgr1555(abgr1555_to_rgba(0x8421)), 0x0421);
}

#[test]
fn encoding_rounds_to_the_nearest_step_and_keeps_opaque_pixels_opaque() {
    assert_eq!(rgba_to_abgr1555([255, 255, 255, 255]), 0x7fff);
    // 4/255 is nearer 0 than 8/255 (one step); 5/255 nearer one step.
    assert_eq!(rgba_to_abgr1555([4, 0, 0, 255]), OPAQUE_BLACK);
    assert_eq!(rgba_to_abgr1555([5, 0, 0, 255]), 0x0001);
    assert_eq!(rgba_to_abgr1555([0, 0, 0, 255]), OPAQUE_BLACK);
    assert_eq!(rgba_to_abgr1555([0, 0, 0, 128]), OPAQUE_BLACK);
    assert_eq!(rgba_to_abgr1555([255, 255, 255, 127]), 0);
    assert_eq!(rgba_to_abgr1555([0, 0, 0, 0]), 0);
    // Each 8-bit value goes to the 5-bit value whose expansion is nearest.
    for v in 0..=255u8 {
        let five = rgba_to_abgr1555([v, 255, 255, 255]) & 31;
        let back = abgr1555_to_rgba(five | 0x7fe0)[0];
        for other in 0..32u16 {
            let o = abgr1555_to_rgba(other | 0x7fe0)[0];
            assert!(v.abs_diff(back) <= v.abs_diff(o), "{v}: {back} vs {o}");
        }
    }
}

#[test]
fn an_image_showing_the_page_leaves_it_unchanged() {
    let page = page16(4, 2, |x, _| [0, 0x8000, 0x8421, 0x7fff][x as usize]);
    let mut image = decode_page(&page, &[], 0).image;
    assert_eq!(
        update_page(&page, &[], 0, &image),
        Ok(PageUpdate::Unchanged)
    );
    // What the page cannot hold is no change: the low bits, a transparent pixel's colour, alpha.
    image.put_pixel(3, 0, Rgba([254, 253, 252, 200]));
    image.put_pixel(0, 1, Rgba([90, 10, 200, 3]));
    assert_eq!(
        update_page(&page, &[], 0, &image),
        Ok(PageUpdate::Unchanged)
    );
}

#[test]
fn a_changed_16_bit_page_keeps_the_stored_values_of_unchanged_pixels() {
    // Bit 15 set on colours: decoding drops it, and the unchanged pixels keep it.
    let page = page16(3, 3, |x, y| 0x8000 | (x + 3 * y + 1) as u16);
    let mut image = decode_page(&page, &[], 2).image;
    image.put_pixel(1, 1, Rgba([255, 0, 0, 255]));
    image.put_pixel(2, 2, Rgba([0, 0, 0, 0]));
    image.put_pixel(0, 0, Rgba([0, 0, 0, 255]));
    let c = changed(update_page(&page, &[], 2, &image));
    assert_eq!((c.changed, c.moved, c.bit15), (3, 0, Some(Bit15::Set)));
    let mut expected = values16(&page);
    expected[4] = 0x801f;
    expected[8] = 0;
    expected[0] = OPAQUE_BLACK;
    assert_eq!(values16(&c.page), expected);
    assert_eq!(
        (c.page.flags, c.page.width, c.page.height),
        (page.flags, 3, 3)
    );
    assert_eq!(decode_page(&c.page, &[], 2).image, {
        let mut shown = decode_page(&page, &[], 2).image;
        shown.put_pixel(1, 1, Rgba([255, 0, 0, 255]));
        shown.put_pixel(2, 2, Rgba([0, 0, 0, 0]));
        shown.put_pixel(0, 0, Rgba([0, 0, 0, 255]));
        shown
    });
}

/// Pixels `(x, 0)` of a 4×4 page set to red, green, blue, black and transparent: their values.
fn paint_row(page: &Page) -> (ChangedPage, [u16; 5]) {
    let mut image = decode_page(page, &[], 0).image;
    let colours = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [0, 0, 0, 255],
        [9, 9, 9, 0],
    ];
    for (i, c) in colours.iter().enumerate() {
        image.put_pixel(i as u32 % 4, i as u32 / 4 + 2, Rgba(*c));
    }
    let c = changed(update_page(page, &[], 0, &image));
    let v = values16(&c.page);
    (c, [v[8], v[9], v[10], v[11], v[12]])
}

/// Written opaque pixels take bit 15 as most of the page's opaque pixels have it: set where
/// most have it set (and where as many have it clear, and on a page with no opaque pixel, and
/// opaque black, 0x8000, is not counted), clear only where most have it clear. Black is 0x8000
/// and transparent 0 either way.
#[test]
fn written_opaque_pixels_take_bit_15_as_most_of_the_pages_opaque_pixels_have_it() {
    let values = |set: usize, clear: usize, other: u16| {
        move |x: u32, y: u32| {
            let i = (y * 4 + x) as usize;
            if i < set {
                0x8000 | ((i as u16 + 1) * 33)
            } else if i < set + clear {
                (i as u16 + 1) * 33
            } else {
                other
            }
        }
    };
    let set = [0x801f, 0x83e0, 0xfc00, OPAQUE_BLACK, 0];
    let clear = [0x001f, 0x03e0, 0x7c00, OPAQUE_BLACK, 0];
    for (what, page, want) in [
        (
            "mostly set",
            page16(4, 4, values(5, 2, 0)),
            (Bit15::Set, set),
        ),
        (
            "mostly clear",
            page16(4, 4, values(2, 5, 0)),
            (Bit15::Clear, clear),
        ),
        (
            "as many each way",
            page16(4, 4, values(3, 3, 0)),
            (Bit15::Set, set),
        ),
        // Opaque black has bit 15 whichever way: eight of them are no majority for "set".
        (
            "clear, and black",
            page16(4, 4, values(0, 3, OPAQUE_BLACK)),
            (Bit15::Clear, clear),
        ),
        ("all transparent", page16(4, 4, |_, _| 0), (Bit15::Set, set)),
    ] {
        assert_eq!(Bit15::of_page(values16(&page)), want.0, "{what}");
        let (c, written) = paint_row(&page);
        assert_eq!((c.bit15, written), (Some(want.0), want.1), "{what}");
        // Decoded, the written pixels are the colours painted, whatever bit 15.
        let shown = decode_page(&c.page, &[], 0).image;
        assert_eq!(shown.get_pixel(0, 2).0, [255, 0, 0, 255], "{what}");
        assert_eq!(shown.get_pixel(3, 2).0, [0, 0, 0, 255], "{what}");
        // The pixels not painted keep their values, bit 15 and all.
        assert_eq!(values16(&c.page)[..8], values16(&page)[..8], "{what}");
    }
}

/// An image that shows a page is no change, whichever way the page keeps bit 15: the colours
/// are compared, bit 15 never.
#[test]
fn an_image_showing_the_page_is_unchanged_whatever_its_bit_15() {
    for bits in [0x8000u16, 0] {
        let page = page16(16, 16, |x, y| bits | (x * 16 + y + 1) as u16);
        let image = decode_page(&page, &[], 0).image;
        assert_eq!(
            update_page(&page, &[], 0, &image),
            Ok(PageUpdate::Unchanged)
        );
    }
}

/// A palette with a transparent colour (0), a colour twice (indices 2 and 3), pure red, and
/// opaque black; the page uses index 3 of the repeated colour.
fn paletted() -> (Page, Vec<Palette>) {
    let colours = vec![0x7fff, 0, 0x0210, 0x0210, 0x001f, OPAQUE_BLACK];
    let palettes = vec![
        Palette {
            header: 7,
            extra: vec![0; colours.len()],
            colours,
        },
        // A second palette is never used.
        Palette {
            header: 0,
            colours: vec![0x7c00; 4],
            extra: vec![0; 4],
        },
    ];
    let page = Page {
        flags: 0,
        width: 3,
        height: 2,
        data: vec![3, 1, 4, 0, 5, 9],
    };
    (page, palettes)
}

#[test]
fn an_8_bit_page_is_written_through_the_first_palette() {
    let (page, palettes) = paletted();
    let shown = decode_page(&page, &palettes, 5);
    assert_eq!(shown.shown, Shown::FirstPalette);
    // Index 9 lies past the palette: transparent, as decoding shows it.
    assert_eq!(shown.image.get_pixel(2, 1).0, [0, 0, 0, 0]);
    assert_eq!(
        update_page(&page, &palettes, 5, &shown.image),
        Ok(PageUpdate::Unchanged)
    );

    let mut image = shown.image.clone();
    // Exactly a palette colour, near one (a step off in green), far from any (blue: black is
    // nearest), transparent, and the unchanged pixels (index 3 of the repeated colour, index 9
    // past the palette) stay.
    image.put_pixel(1, 0, Rgba([255, 0, 0, 255]));
    image.put_pixel(2, 0, Rgba([132, 140, 0, 255]));
    image.put_pixel(0, 1, Rgba([0, 0, 255, 255]));
    image.put_pixel(1, 1, Rgba([200, 200, 200, 10]));
    let c = changed(update_page(&page, &palettes, 5, &image));
    assert_eq!(c.page.data, vec![3, 4, 2, 5, 1, 9]);
    assert_eq!((c.changed, c.moved), (4, 1), "only the blue pixel moved");
    assert_eq!(c.page.flags, 0);
}

#[test]
fn an_8_bit_pixel_moves_to_an_opaque_colour_only_when_it_must() {
    // No transparent colour: a transparent pixel takes the colour nearest its RGB, moved.
    let colours = vec![0x7fff, 0x001f];
    let palettes = vec![Palette {
        header: 0,
        extra: vec![0; 2],
        colours,
    }];
    let page = Page {
        flags: 0,
        width: 2,
        height: 1,
        data: vec![0, 0],
    };
    let mut image = decode_page(&page, &palettes, 0).image;
    image.put_pixel(0, 0, Rgba([250, 0, 0, 0]));
    // Opaque black is nearest red, never a transparent colour.
    image.put_pixel(1, 0, Rgba([0, 0, 0, 255]));
    let c = changed(update_page(&page, &palettes, 0, &image));
    assert_eq!((c.page.data, c.moved), (vec![1, 1], 2));

    // Only transparent colours: an opaque pixel cannot be written.
    let palettes = vec![Palette {
        header: 0,
        extra: vec![0],
        colours: vec![0],
    }];
    let mut image = decode_page(&page, &palettes, 4).image;
    image.put_pixel(0, 0, Rgba([1, 2, 3, 255]));
    assert_eq!(
        update_page(&page, &palettes, 4, &image),
        Err(PageError::NoOpaqueColour { page: 4 })
    );
    // No palette at all: everything shows transparent, and an opaque pixel is refused too.
    assert_eq!(
        update_page(&page, &[], 4, &image),
        Err(PageError::NoOpaqueColour { page: 4 })
    );
}

#[test]
fn an_rle16_page_is_kept_while_its_placeholder_is_unchanged_and_refused_by_name_otherwise() {
    let page = Page {
        flags: 0x81,
        width: 256,
        height: 256,
        data: vec![1, 2, 3],
    };
    let shown = decode_page(&page, &[], 6);
    assert_eq!(shown.shown, Shown::Compressed);
    assert!(shown.note.unwrap().contains("page 6 is RLE16"));
    assert_eq!(
        update_page(&page, &[], 6, &shown.image),
        Ok(PageUpdate::Unchanged)
    );
    let mut image = shown.image;
    image.put_pixel(100, 100, Rgba([0, 255, 0, 255]));
    let refused = update_page(&page, &[], 6, &image).unwrap_err();
    assert_eq!(refused, PageError::Compressed { page: 6 });
    assert!(refused
        .to_string()
        .starts_with("page 6 is RLE16-compressed"));
}

#[test]
fn a_damaged_page_shows_the_placeholder_and_is_never_written() {
    let page = Page {
        flags: 1,
        width: 4,
        height: 4,
        data: vec![0; 7],
    };
    let shown = decode_page(&page, &[], 1);
    assert_eq!(
        (shown.shown, shown.image.dimensions()),
        (Shown::Damaged, (256, 256))
    );
    assert_eq!(
        update_page(&page, &[], 1, &shown.image),
        Ok(PageUpdate::Unchanged)
    );
    let refused = update_page(&page, &[], 1, &RgbaImage::new(256, 256));
    assert_eq!(
        refused,
        Err(PageError::Damaged {
            page: 1,
            size: [4, 4],
            bytes: 7
        })
    );
}

#[test]
fn an_image_of_another_size_is_refused_naming_both_sizes() {
    let page = page16(256, 256, |_, _| 0x1234);
    let refused = update_page(&page, &[], 3, &RgbaImage::new(512, 256)).unwrap_err();
    assert_eq!(
        refused,
        PageError::SizeDiffers {
            page: 3,
            page_size: [256, 256],
            image_size: [512, 256]
        }
    );
    assert!(refused.to_string().contains("256×256") && refused.to_string().contains("512×256"));
    // Resampled to the page's size, each axis on its own, it is written.
    let image = resample(&decode_page(&page, &[], 3).image, 512, 256);
    let back = resample(&image, 256, 256);
    assert_eq!(update_page(&page, &[], 3, &back), Ok(PageUpdate::Unchanged));
}

#[test]
fn an_image_larger_than_a_page_is_fitted_keeping_its_aspect() {
    let (image, warning) = fit_to_page(RgbaImage::new(256, 100));
    assert_eq!((image.dimensions(), warning), ((256, 100), None));
    let (image, warning) = fit_to_page(RgbaImage::new(1000, 300));
    assert_eq!(image.dimensions(), (256, 77));
    let warning = warning.unwrap();
    assert!(
        warning.contains("1000×300") && warning.contains("256×77"),
        "{warning}"
    );
    let (image, _) = fit_to_page(RgbaImage::new(3, 4000));
    assert_eq!(image.dimensions(), (1, 256));
}

#[test]
fn images_are_compared_at_the_pages_precision() {
    let a = RgbaImage::from_fn(3, 2, |x, y| Rgba([x as u8 * 80, y as u8 * 90, 7, 255]));
    let mut b = a.clone();
    assert!(same_at_page_precision(&a, &b));
    // The low three bits, and a transparent pixel's colour and alpha, are no difference.
    b.put_pixel(0, 0, Rgba([2, 1, 5, 200]));
    assert!(same_at_page_precision(&a, &b));
    let mut c = b.clone();
    c.put_pixel(2, 1, Rgba([160, 90, 7, 100]));
    assert!(!same_at_page_precision(&a, &c));
    let mut d = b.clone();
    d.put_pixel(1, 1, Rgba([88, 90, 7, 255]));
    assert!(!same_at_page_precision(&a, &d));
    assert!(!same_at_page_precision(&a, &RgbaImage::new(2, 3)));
}

#[test]
fn png_bytes_come_back_as_the_image_and_oversized_ones_are_refused_unread() {
    let image = RgbaImage::from_fn(5, 3, |x, y| Rgba([x as u8 * 40, y as u8 * 80, 7, 255]));
    assert_eq!(decode_png(&encode_png(&image)), Ok(image));
    assert!(matches!(
        decode_png(b"not a png"),
        Err(PageError::Png { .. })
    ));
    // A header claiming 5000 × 1 pixels: refused before its pixels are allocated.
    let wide = encode_png(&RgbaImage::new(MAX_PAGE_SIDE + 1, 1));
    let refused = decode_png(&wide).unwrap_err();
    assert!(refused.to_string().contains("4096×4096"), "{refused}");
}

#[test]
fn the_packer_fills_a_page_before_opening_the_next() {
    let sixteen = vec![[64, 64]; 16];
    let placed = pack(&sixteen, 3).unwrap();
    assert!(placed.iter().all(|p| p.page == 3));
    assert_no_overlap(&placed);
    let placed = pack(&[[64, 64]; 17], 3).unwrap();
    assert_eq!(placed.iter().filter(|p| p.page == 4).count(), 1);
    // In the given order, with their sizes; a whole page, then what is left beside a tall one.
    let placed = pack(&[[10, 20], [256, 256], [236, 200], [20, 30]], 0).unwrap();
    assert_eq!(
        placed[1],
        Placement {
            page: 0,
            x: 0,
            y: 0,
            width: 256,
            height: 256
        }
    );
    assert_eq!((placed[2].page, placed[2].x, placed[2].y), (1, 0, 0));
    assert_eq!((placed[3].page, placed[3].x, placed[3].y), (1, 236, 0));
    assert_eq!((placed[0].page, placed[0].x, placed[0].y), (1, 0, 200));
    assert_eq!(pack(&[], 5), Ok(vec![]));
}

#[test]
fn packed_rectangles_never_overlap_and_stay_on_their_page() {
    let mut rng = crate::rng::Rng::new(7);
    let sizes: Vec<[u32; 2]> = (0..400)
        .map(|_| [1 + rng.below(120) as u32, 1 + rng.below(120) as u32])
        .collect();
    let placed = pack(&sizes, 0).unwrap();
    assert_no_overlap(&placed);
    for (p, size) in placed.iter().zip(&sizes) {
        assert_eq!([p.width, p.height], *size);
    }
    // Pages are filled before the next is opened: all but the last hold more than half a page.
    let last = placed.iter().map(|p| p.page).max().unwrap();
    for page in 0..last {
        let area: u32 = placed
            .iter()
            .filter(|p| p.page == page)
            .map(|p| p.width * p.height)
            .sum();
        assert!(area > PAGE_SIDE * PAGE_SIDE / 2, "page {page}: {area}");
    }
}

fn assert_no_overlap(placed: &[Placement]) {
    for (i, a) in placed.iter().enumerate() {
        assert!(
            a.x + a.width <= PAGE_SIDE && a.y + a.height <= PAGE_SIDE,
            "{a:?}"
        );
        for b in &placed[i + 1..] {
            let apart = a.page != b.page
                || a.x + a.width <= b.x
                || b.x + b.width <= a.x
                || a.y + a.height <= b.y
                || b.y + b.height <= a.y;
            assert!(apart, "{a:?} overlaps {b:?}");
        }
    }
}

#[test]
fn the_packer_refuses_sizes_outside_a_page_and_pages_past_127() {
    assert_eq!(
        pack(&[[4, 4], [0, 4]], 0),
        Err(PageError::ImageSize {
            image: 1,
            size: [0, 4]
        })
    );
    assert_eq!(
        pack(&[[257, 4]], 0),
        Err(PageError::ImageSize {
            image: 0,
            size: [257, 4]
        })
    );
    // Page 127 is the last an i8 names.
    assert_eq!(pack(&[[256, 256]], 127).unwrap()[0].page, 127);
    let refused = pack(&[[256, 256]; 2], 127).unwrap_err();
    assert_eq!(refused, PageError::TooManyPages { count: 129 });
    assert!(refused.to_string().contains("129 texture pages"));
}

#[test]
fn new_pages_take_the_flags_most_of_the_levels_16_bit_pages_have() {
    let mut text = Text::default();
    assert_eq!(new_page_flags(&text), DEFAULT_PAGE_FLAGS);
    for flags in [0x81, 0, 0x9, 0x1, 0x9, 0x81, 0x81] {
        text.pages.push(Page {
            flags,
            ..Page::default()
        });
    }
    assert_eq!(new_page_flags(&text), 0x9);
    text.pages.push(Page {
        flags: 0x1,
        ..Page::default()
    });
    assert_eq!(new_page_flags(&text), 0x1, "of equals, the smallest");
}

#[test]
fn added_images_are_on_new_pages_where_the_placements_say() {
    let mut text = Text::default();
    text.pages.push(page16(256, 256, |_, _| 0x7fff));
    text.pages[0].flags = 0x21;
    let a = RgbaImage::from_fn(100, 50, |x, y| Rgba([x as u8, y as u8 * 5, 200, 255]));
    let b = RgbaImage::from_fn(600, 300, |x, _| {
        Rgba([0, 0, 0, if x % 2 == 0 { 255 } else { 0 }])
    });
    let added = add_pages(&mut text, vec![a.clone(), b]).unwrap();
    assert_eq!(text.pages.len(), 2);
    assert_eq!(text.pages[1].flags, 0x21);
    assert_eq!(added.warnings.len(), 1);
    assert!(added.warnings[0].starts_with("image 1: an image of 600×300"));
    let [pa, pb] = [added.placements[0], added.placements[1]];
    assert_eq!((pb.width, pb.height), (256, 128));
    // A new page's opaque pixels have bit 15 set (it has no pixels of its own to follow), its
    // transparent ones are 0.
    let stored = values16(&text.pages[1]);
    assert!(stored.iter().any(|&p| p != 0));
    assert!(stored.iter().all(|&p| p == 0 || p & 0x8000 != 0));
    let shown = decode_page(&text.pages[1], &[], 1).image;
    for (x, y, pixel) in a.enumerate_pixels() {
        let at = shown.get_pixel(pa.x + x, pa.y + y).0;
        assert_eq!(rgba_to_abgr1555(at), rgba_to_abgr1555(pixel.0));
    }
    // Outside the images the new page is transparent.
    let covered = |x: u32, y: u32| {
        [pa, pb]
            .iter()
            .any(|p| (p.x..p.x + p.width).contains(&x) && (p.y..p.y + p.height).contains(&y))
    };
    assert!(shown
        .enumerate_pixels()
        .all(|(x, y, p)| covered(x, y) || p.0[3] == 0));

    // Refused: the text stays as it was.
    let before = text.clone();
    let refused = add_pages(&mut text, vec![a, RgbaImage::new(0, 3000)]);
    assert_eq!(
        refused,
        Err(PageError::ImageSize {
            image: 1,
            size: [0, 3000]
        })
    );
    assert_eq!(text, before);
}
