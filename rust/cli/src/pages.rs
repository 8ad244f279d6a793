//! `pages` and `set-page`: a level's texture pages as PNG files, and one page written back from
//! one (FORMAT.md §8; every rule is the core's `level::pages`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use llamawad::level::pages::{self, Bit15, PageError, PageUpdate, Shown};
use llamawad::level::text::PageKind;
use llamawad::level::Text;
use llamawad::{read_bytes, read_level_bytes, write_atomically, Level, WadError};

use crate::convert::refuse_overwriting;
use crate::{parse, Result};

/// The file page `index` is written to: numbered so that the files sort in page order.
fn page_file(index: usize) -> String {
    format!("page-{index:03}.png")
}

/// The level's TEXT chunk, or an error naming the file.
fn text_of<'a>(path: &Path, level: &'a mut Level) -> Result<&'a mut Text> {
    level.text_mut().ok_or_else(|| {
        format!(
            "{}: the level has no TEXT chunk, so no pages",
            path.display()
        )
        .into()
    })
}

/// `pages`: every page of `level` as `dir/page-NNN.png`, each said on a line of its own.
pub fn pages(level: &Path, dir: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let bytes = read_level_bytes(level)?;
    let mut parsed = parse(level, &bytes)?;
    let text = text_of(level, &mut parsed)?;
    std::fs::create_dir_all(dir).map_err(|source| WadError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    writeln!(
        out,
        "{} -> {}: {} pages",
        level.display(),
        dir.display(),
        text.pages.len()
    )?;
    for (index, page) in text.pages.iter().enumerate() {
        let path = dir.join(page_file(index));
        refuse_overwriting(&path, &[(level, "the input level")])?;
        let decoded = pages::decode_page(page, &text.palettes, index);
        write_atomically(&path, &pages::encode_png(&decoded.image))?;
        let shown = match decoded.shown {
            Shown::Pixels => "16-bit".to_string(),
            Shown::FirstPalette => "8-bit, shown through the first palette".to_string(),
            Shown::Compressed => {
                "RLE16: a PLACEHOLDER (magenta and black), the compression is not documented"
                    .to_string()
            }
            Shown::Damaged => format!(
                "a PLACEHOLDER (magenta and black): its {} bytes do not hold its pixels",
                page.data.len()
            ),
        };
        writeln!(
            out,
            "  {}  {}×{}  flags {:#x}  {shown}",
            page_file(index),
            page.width,
            page.height,
            page.flags
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How the written opaque pixels of a 16-bit page took bit 15, labelled as the choice it is.
fn bit15_said(bit15: Option<Bit15>) -> String {
    let how = match bit15 {
        Some(Bit15::Clear) => "clear, as most of the page's opaque pixels have it",
        _ => "set (as written unless most of the page's opaque pixels have it clear)",
    };
    format!(
        "opaque pixels written with bit 15, the A of ABGR1555, {how}; how the game reads bit 15 \
         the notes do not say"
    )
}

/// `set-page`: `level` with page `index` taken from the PNG at `image_path`, written to `output`;
/// what became of the page is said, a refusal writes nothing.
pub fn set_page(
    level: &Path,
    index: usize,
    image_path: &Path,
    output: &Path,
    resize: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    refuse_overwriting(
        output,
        &[(level, "the input level"), (image_path, "the image")],
    )?;
    let bytes = read_level_bytes(level)?;
    let mut parsed = parse(level, &bytes)?;
    let text = text_of(level, &mut parsed)?;
    let refused = |e: PageError| format!("{}: {e}", level.display());
    let page = text.pages.get(index).ok_or_else(|| {
        refused(PageError::NoSuchPage {
            page: index,
            pages: text.pages.len(),
        })
    })?;
    let mut image = pages::decode_png(&read_bytes(image_path, llamawad::limits::MAX_GLTF_BYTES)?)
        .map_err(|e| format!("{}: {e}", image_path.display()))?;
    let (width, height) = pages::decode_page(page, &text.palettes, index)
        .image
        .dimensions();
    let (mut said, mut warnings) = (Vec::new(), Vec::new());
    if resize && image.dimensions() != (width, height) {
        said.push(format!(
            "the image ({}×{}) resampled to the page's {width}×{height} (triangle filter)",
            image.width(),
            image.height()
        ));
        image = pages::resample(&image, width, height);
    }
    let pixels = width as usize * height as usize;
    match pages::update_page(page, &text.palettes, index, &image).map_err(refused)? {
        PageUpdate::Unchanged => said.push(format!(
            "page {index} unchanged: the image shows its pixels, so it keeps its bytes"
        )),
        PageUpdate::Changed(changed) => {
            if changed.page.kind() == PageKind::Indexed8 {
                said.push(format!(
                    "page {index} written through the first palette (8-bit): {} of {pixels} \
                     pixels changed, {} moved more than one 5-bit step to the nearest palette \
                     colour",
                    changed.changed, changed.moved
                ));
                if changed.moved > 0 {
                    warnings.push(format!(
                        "{} pixels of page {index} took a palette colour more than one 5-bit step \
                         from the image's (the first palette lacks their colours)",
                        changed.moved
                    ));
                }
            } else {
                said.push(format!(
                    "page {index} written: {} of {pixels} pixels changed",
                    changed.changed
                ));
                said.push(bit15_said(changed.bit15));
            }
            text.pages[index] = changed.page;
        }
    }
    let written = parsed.to_bytes().map_err(WadError::from)?;
    write_atomically(output, &written)?;
    let identical = if written == bytes {
        "byte-identical to the input"
    } else {
        "only the page's pixels differ"
    };
    writeln!(
        out,
        "{} -> {}: {} bytes, {identical}",
        level.display(),
        output.display(),
        written.len()
    )?;
    for line in said {
        writeln!(out, "  {line}")?;
    }
    for warning in warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(ExitCode::SUCCESS)
}
