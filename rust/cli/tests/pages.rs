//! `pages` and `set-page` from the command line, on generated levels (16-bit pages, an 8-bit
//! page and an RLE16 page): every page out as a PNG, one page back in with nothing else changed,
//! and what is refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use image::{Rgba, RgbaImage};
use llamawad::container::{self, Tag};
use llamawad::generate::{generate, Size};
use llamawad::level::pages::{decode_page, decode_png, encode_png, resample, rgba_to_abgr1555};
use llamawad::level::text::PageKind;
use llamawad::Level;

mod support;
use support::{llamawad as run, refused, stdout, Dir};

/// A generated tiny level written into `dir`: seed 1 has an 8-bit page, seed 2 an RLE16 page,
/// each after two 16-bit pages.
fn level_in(dir: &Dir, seed: u64) -> (PathBuf, Level) {
    let level = generate(seed, Size::Tiny);
    let path = dir.write("level.wad", &level.to_bytes().unwrap());
    (path, level)
}

fn page_of(level: &Level, kind: PageKind) -> usize {
    let text = level.text().unwrap();
    text.pages.iter().position(|p| p.kind() == kind).unwrap()
}

fn shown(level: &Level, page: usize) -> RgbaImage {
    let text = level.text().unwrap();
    decode_page(&text.pages[page], &text.palettes, page).image
}

/// `set-page [extra] LEVEL PAGE IMAGE OUT`, the image written as a PNG beside the level.
fn set_page(
    dir: &Dir,
    level: &Path,
    page: &str,
    image: &RgbaImage,
    extra: &[&str],
) -> (Output, PathBuf) {
    let png = dir.write("image.png", &encode_png(image));
    let out = dir.0.join("out.wad");
    let mut args = vec!["set-page"];
    args.extend(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .args(&args)
        .arg(level)
        .arg(page)
        .arg(&png)
        .arg(&out)
        .output()
        .unwrap();
    (output, out)
}

/// A square of pure blue: far from the generated pages' earth colours.
fn paint(image: &mut RgbaImage, at: u32, side: u32) {
    for y in at..at + side {
        for x in at..at + side {
            image.put_pixel(x, y, Rgba([0, 0, 255, 255]));
        }
    }
}

#[test]
fn pages_writes_every_page_as_a_png_named_by_its_index() {
    for (seed, special, said) in [
        (
            1,
            PageKind::Indexed8,
            "8-bit, shown through the first palette",
        ),
        (2, PageKind::Rle16, "RLE16: a PLACEHOLDER"),
    ] {
        let dir = Dir::new(&format!("pages-{seed}"));
        let (wad, level) = level_in(&dir, seed);
        // A folder that does not exist yet, two deep.
        let out_dir = dir.0.join("new").join("pages");
        let text = stdout(&run(&["pages"], &[&wad, &out_dir]));
        let pages = level.text().unwrap().pages.len();
        assert!(
            text.starts_with(&format!(
                "{} -> {}: {pages} pages\n",
                wad.display(),
                out_dir.display()
            )),
            "{text}"
        );
        let mut names: Vec<String> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let expected: Vec<String> = (0..pages).map(|i| format!("page-{i:03}.png")).collect();
        assert_eq!(names, expected);
        for (i, name) in names.iter().enumerate() {
            let png = std::fs::read(out_dir.join(name)).unwrap();
            assert_eq!(decode_png(&png).unwrap(), shown(&level, i), "{name}");
        }
        let special = page_of(&level, special);
        let line = text
            .lines()
            .find(|l| {
                l.trim_start()
                    .starts_with(&format!("page-{special:03}.png"))
            })
            .unwrap();
        assert!(line.contains(said), "{line}");
        assert_eq!(text.matches("PLACEHOLDER").count(), (seed == 2) as usize);
    }
}

/// The chunks of two files: every chunk but TEXT byte for byte, and in TEXT only page `page`'s
/// pixels differ.
fn only_the_page_differs(before: &[u8], after: &[u8], page: usize) {
    let (a, b) = (
        container::split(before).unwrap(),
        container::split(after).unwrap(),
    );
    assert_eq!(a.convention, b.convention);
    assert_eq!(a.trailing, b.trailing);
    assert_eq!(a.chunks.len(), b.chunks.len());
    for (x, y) in a.chunks.iter().zip(&b.chunks) {
        assert_eq!((x.tag, x.padding), (y.tag, y.padding));
        if x.tag != Tag::TEXT {
            assert!(x.payload == y.payload, "{} differs", x.tag);
        }
    }
    let (a, b) = (Level::parse(before).unwrap(), Level::parse(after).unwrap());
    let (a, b) = (a.text().unwrap(), b.text().unwrap());
    assert_eq!(a.palettes, b.palettes);
    assert_eq!(a.entries, b.entries);
    assert_eq!(a.trailing, b.trailing);
    assert_eq!(a.pages.len(), b.pages.len());
    for (i, (x, y)) in a.pages.iter().zip(&b.pages).enumerate() {
        assert_eq!((x.flags, x.width, x.height), (y.flags, y.width, y.height));
        assert_eq!(x.data == y.data, i != page, "page {i}");
    }
}

#[test]
fn set_page_writes_one_pages_pixels_and_nothing_else() {
    let dir = Dir::new("set-page-16");
    let (wad, level) = level_in(&dir, 1);
    let mut image = shown(&level, 1);
    paint(&mut image, 10, 20);
    let (out, written) = set_page(&dir, &wad, "1", &image, &[]);
    let text = stdout(&out);
    assert!(
        text.contains("page 1 written: 400 of 65536 pixels changed"),
        "{text}"
    );
    let before = std::fs::read(&wad).unwrap();
    let after = std::fs::read(&written).unwrap();
    only_the_page_differs(&before, &after, 1);
    // The page shows the image, at its precision; the pixels not painted keep their values.
    let new_level = Level::parse(&after).unwrap();
    let now = shown(&new_level, 1);
    for (x, y, pixel) in image.enumerate_pixels() {
        assert_eq!(
            rgba_to_abgr1555(now.get_pixel(x, y).0),
            rgba_to_abgr1555(pixel.0)
        );
    }
    let (old, new) = (
        &level.text().unwrap().pages[1].data,
        &new_level.text().unwrap().pages[1].data,
    );
    let differing = old
        .chunks_exact(2)
        .zip(new.chunks_exact(2))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 400);
}

#[test]
fn set_page_with_the_pages_own_image_gives_the_levels_bytes() {
    // A 16-bit page, and the RLE16 page's placeholder.
    for (seed, kind) in [(1, PageKind::Direct16), (2, PageKind::Rle16)] {
        let dir = Dir::new(&format!("set-page-same-{seed}"));
        let (wad, level) = level_in(&dir, seed);
        let page = page_of(&level, kind);
        let (out, written) = set_page(&dir, &wad, &page.to_string(), &shown(&level, page), &[]);
        let text = stdout(&out);
        assert!(text.contains("byte-identical to the input"), "{text}");
        assert!(text.contains(&format!("page {page} unchanged")), "{text}");
        assert_eq!(
            std::fs::read(&written).unwrap(),
            std::fs::read(&wad).unwrap()
        );
    }
}

#[test]
fn set_page_writes_an_8_bit_page_through_the_first_palette_and_says_what_moved() {
    let dir = Dir::new("set-page-8");
    let (wad, level) = level_in(&dir, 1);
    let page = page_of(&level, PageKind::Indexed8);
    let mut image = shown(&level, page);
    paint(&mut image, 0, 8);
    let (out, written) = set_page(&dir, &wad, &page.to_string(), &image, &[]);
    let text = stdout(&out);
    // The palette is of earth colours: every blue pixel moves more than a step.
    assert!(
        text.contains(&format!(
            "page {page} written through the first palette (8-bit): 64 of 65536 pixels changed, 64 moved"
        )),
        "{text}"
    );
    assert!(text.contains("warning: 64 pixels of page"), "{text}");
    let before = std::fs::read(&wad).unwrap();
    only_the_page_differs(&before, &std::fs::read(&written).unwrap(), page);
}

#[test]
fn set_page_refuses_a_changed_rle16_page_by_name() {
    let dir = Dir::new("set-page-rle");
    let (wad, level) = level_in(&dir, 2);
    let page = page_of(&level, PageKind::Rle16);
    let mut image = shown(&level, page);
    paint(&mut image, 100, 1);
    let (out, written) = set_page(&dir, &wad, &page.to_string(), &image, &[]);
    refused(&out, &format!("page {page} is RLE16-compressed"));
    assert!(!written.exists());
}

#[test]
fn set_page_refuses_another_size_unless_asked_to_resize() {
    let dir = Dir::new("set-page-size");
    let (wad, level) = level_in(&dir, 1);
    let larger = resample(&shown(&level, 0), 512, 384);
    let (out, written) = set_page(&dir, &wad, "0", &larger, &[]);
    refused(&out, "page 0 is 256×256 pixels, the image 512×384");
    assert!(!written.exists());
    let (out, written) = set_page(&dir, &wad, "0", &larger, &["--resize"]);
    let text = stdout(&out);
    assert!(
        text.contains("the image (512×384) resampled to the page's 256×256"),
        "{text}"
    );
    Level::parse(&std::fs::read(written).unwrap()).unwrap();
}

#[test]
fn set_page_refuses_its_own_level_as_output_a_missing_page_and_what_is_no_png() {
    let dir = Dir::new("set-page-refusals");
    let (wad, level) = level_in(&dir, 1);
    let png = dir.write("image.png", &encode_png(&shown(&level, 0)));
    let out = run(&["set-page"], &[&wad, Path::new("0"), &png, &wad]);
    refused(&out, "is the input level, which is never overwritten");
    assert_eq!(
        std::fs::read(&wad).unwrap(),
        level.to_bytes().unwrap(),
        "the level is untouched"
    );
    let (out, written) = set_page(&dir, &wad, "3", &shown(&level, 0), &[]);
    refused(&out, "page 3 does not exist: the level has 3 pages");
    assert!(!written.exists());
    let not_png = dir.write("not.png", b"no PNG at all");
    let out = run(
        &["set-page"],
        &[&wad, Path::new("0"), &not_png, &dir.0.join("out.wad")],
    );
    refused(&out, "not a PNG this tool reads");
}

/// A page's 16-bit pixel values.
fn values16(level: &Level, page: usize) -> Vec<u16> {
    let data = &level.text().unwrap().pages[page].data;
    data.chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// `set-page` writes the painted opaque pixels with bit 15 set when most of the page's opaque
/// pixels have it set, clear when most have it clear, and says which; the pixels not painted
/// keep their values.
#[test]
fn set_page_writes_bit_15_of_opaque_pixels_as_most_of_the_page_has_it() {
    for (mostly_set, said) in [
        (
            true,
            "opaque pixels written with bit 15, the A of ABGR1555, set",
        ),
        (
            false,
            "with bit 15, the A of ABGR1555, clear, as most of the page's",
        ),
    ] {
        let dir = Dir::new(&format!("set-page-bit15-{mostly_set}"));
        let mut level = generate(1, Size::Tiny);
        // Bit 15 set on 9 of every 10 opaque pixels, or on 1 of every 10.
        let page = &mut level.text_mut().unwrap().pages[1];
        for (i, px) in page.data.chunks_exact_mut(2).enumerate() {
            let p = u16::from_le_bytes([px[0], px[1]]) & 0x7fff;
            let set = (i % 10 != 0) == mostly_set;
            let p = if p != 0 && set { p | 0x8000 } else { p };
            px.copy_from_slice(&p.to_le_bytes());
        }
        let wad = dir.write("level.wad", &level.to_bytes().unwrap());
        let mut image = shown(&level, 1);
        paint(&mut image, 10, 20);
        let (out, written) = set_page(&dir, &wad, "1", &image, &[]);
        let text = stdout(&out);
        assert!(text.contains(said), "{text}");
        assert!(text.contains("how the game reads bit 15 the notes do not say"));
        let new_level = Level::parse(&std::fs::read(&written).unwrap()).unwrap();
        let (old, new) = (values16(&level, 1), values16(&new_level, 1));
        for (i, (&was, &now)) in old.iter().zip(&new).enumerate() {
            let (x, y) = (i as u32 % 256, i as u32 / 256);
            if (10..30).contains(&x) && (10..30).contains(&y) {
                assert_eq!(now, if mostly_set { 0xfc00 } else { 0x7c00 }, "({x}, {y})");
            } else {
                assert_eq!(now, was, "({x}, {y})");
            }
        }
    }
}
