//! A level's bytes: read, written, summarised, generated.

use std::borrow::Cow;
use std::path::PathBuf;

use llamawad::generate::{CollisionScales, Size};
use llamawad::info::Info;
use llamawad::{Level, WadError as CoreError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{bytes_input, detach, to_python, wad_error, Failure, WadError};

/// parse_info(data: bytes) -> dict
///
/// Parses a level WAD and returns its summary (what `llamawad info --json` prints).
/// Raises WadError if the bytes are not a level this project can read.
#[pyfunction]
pub fn parse_info<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
    let info = detach(
        py,
        || bytes_input("a level", &data),
        || Level::parse(&data).map(|level| Info::of(&level, data.len())),
    )?
    .map_err(wad_error)?;
    to_python(py, &info)
}

/// info_file(path: str | os.PathLike) -> dict
///
/// Reads a level WAD from disk and returns its summary, like parse_info.
#[pyfunction]
pub fn info_file(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
    let info = detach(
        py,
        || path.display().to_string(),
        || {
            let data = llamawad::read_level_bytes(&path)?;
            let level = Level::parse(&data)?;
            Ok::<_, CoreError>(Info::of(&level, data.len()))
        },
    )?
    .map_err(wad_error)?;
    to_python(py, &info)
}

/// read_file(path: str | os.PathLike) -> bytes
///
/// A whole regular file, as the command line reads its inputs: anything else (a folder, a
/// device such as /dev/zero, a pipe) is refused before it is opened.
#[pyfunction]
pub fn read_file<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyBytes>> {
    let data = detach(
        py,
        || path.display().to_string(),
        || llamawad::read_bytes(&path, llamawad::limits::MAX_GLTF_BYTES),
    )?
    .map_err(wad_error)?;
    Ok(PyBytes::new(py, &data))
}

/// write_file(path: str | os.PathLike, data: bytes) -> None
///
/// Writes a file as the command line writes its outputs: a temporary beside it, on the disk
/// before it is renamed into place, with the permissions of the file it replaces (a new file
/// gets the umask's); other writers of the folder wait. What is no regular file (a folder, a
/// device, a pipe) or read-only is refused, and then nothing is written.
#[pyfunction]
pub fn write_file(py: Python<'_>, path: PathBuf, data: Cow<'_, [u8]>) -> PyResult<()> {
    detach(
        py,
        || path.display().to_string(),
        || llamawad::write_atomically(&path, &data),
    )?
    .map_err(wad_error)
}

/// roundtrip(data: bytes) -> bytes
///
/// Parses a level WAD and writes it back. For every file that parses, the result is
/// byte-identical to the input.
#[pyfunction]
pub fn roundtrip<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = detach(
        py,
        || bytes_input("a level", &data),
        || Ok::<_, CoreError>(Level::parse(&data)?.to_bytes()?),
    )?
    .map_err(wad_error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// generate(seed: int, size: str, collision_scale: str = "4064") -> bytes
///
/// A synthetic level WAD, the same for the same seed on every machine. size is "tiny",
/// "small" or "full"; collision_scale the scale its tile models' collision planes are written
/// at: "4064" (the engine's), "4096" (note 001's wording, as other tools write it) or "mixed";
/// any other size or scale raises ValueError.
#[pyfunction]
#[pyo3(signature = (seed, size, collision_scale = "4064"))]
pub fn generate<'py>(
    py: Python<'py>,
    seed: u64,
    size: &str,
    collision_scale: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let size: Size = size.parse().map_err(PyValueError::new_err)?;
    let scales: CollisionScales = collision_scale.parse().map_err(PyValueError::new_err)?;
    let bytes = detach(
        py,
        || format!("generate(seed {seed}, size {size}, collision scale {scales})"),
        || llamawad::generate::generate_with(seed, size, scales).to_bytes(),
    )?
    .map_err(wad_error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// tile_models(level: bytes) -> list[int]
///
/// The TRAK model of each tile of the level's MAP, in tile order: which tiles a problem of a
/// model concerns. Raises WadError if the level cannot be read or has no MAP chunk.
#[pyfunction]
pub fn tile_models(py: Python<'_>, level: Cow<'_, [u8]>) -> PyResult<Vec<u32>> {
    detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            let map = level.map().ok_or("the level has no MAP chunk")?;
            Ok::<_, Failure>(map.tiles.iter().map(|t| t.model_index).collect())
        },
    )?
    .map_err(PyErr::from)
}

/// RGBA8 bytes (rows top first) as an image, or ValueError when they are not `width` ×
/// `height` pixels.
fn rgba_image(width: u32, height: u32, rgba: &[u8]) -> PyResult<llamawad::level::pages::RgbaImage> {
    llamawad::level::pages::rgba_image(width, height, rgba.to_vec()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{} bytes of RGBA, but a {width}×{height} image has {}",
            rgba.len(),
            width as u64 * height as u64 * 4
        ))
    })
}

/// encode_png(width: int, height: int, rgba: bytes) -> bytes
///
/// An image (RGBA8, rows top first) as a PNG file's bytes, as `pages` writes a page's and the
/// glTF holds them. ValueError when rgba is not width × height pixels.
#[pyfunction]
pub fn encode_png<'py>(
    py: Python<'py>,
    width: u32,
    height: u32,
    rgba: Cow<'_, [u8]>,
) -> PyResult<Bound<'py, PyBytes>> {
    let image = rgba_image(width, height, &rgba)?;
    let png = detach(
        py,
        || format!("encode_png({width}×{height})"),
        || llamawad::level::pages::encode_png(&image),
    )?;
    Ok(PyBytes::new(py, &png))
}

/// png_matches(png: bytes, width: int, height: int, rgba: bytes) -> bool
///
/// Whether the PNG shows the image (RGBA8, rows top first) as a page would hold both: the same
/// size, and every pixel the same at a page's precision (5 bits a channel, transparent or not),
/// so that either written into a page gives the same page. Raises WadError naming why for bytes
/// that are no PNG the tool reads; ValueError when rgba is not width × height pixels.
#[pyfunction]
pub fn png_matches(
    py: Python<'_>,
    png: Cow<'_, [u8]>,
    width: u32,
    height: u32,
    rgba: Cow<'_, [u8]>,
) -> PyResult<bool> {
    use llamawad::level::pages::{decode_png, same_at_page_precision};
    let image = rgba_image(width, height, &rgba)?;
    detach(
        py,
        || bytes_input("a PNG", &png),
        || decode_png(&png).map(|file| same_at_page_precision(&file, &image)),
    )?
    .map_err(|e| WadError::new_err(e.to_string()))
}

/// pages(level: bytes) -> list[dict]
///
/// Every texture page of the level, in page order, as `llamawad pages` lists them: `page` (its
/// number), `width`, `height`, `flags` and `shown`, how its image shows it: "16-bit" (its own
/// pixels), "8-bit" (through the first palette, which the notes do not say is the page's) or
/// "RLE16" (a placeholder: the compression is not documented, so the page cannot be written).
/// A level without a TEXT chunk has none. Raises WadError if the level cannot be read.
#[pyfunction]
pub fn pages<'py>(py: Python<'py>, level: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
    use llamawad::level::text::PageKind;

    #[derive(serde::Serialize)]
    struct PageItem {
        page: usize,
        width: u32,
        height: u32,
        flags: u32,
        shown: &'static str,
    }
    let listed = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            let pages = level.text().map_or(&[][..], |text| &text.pages);
            Ok::<_, CoreError>(
                pages
                    .iter()
                    .enumerate()
                    .map(|(index, page)| PageItem {
                        page: index,
                        width: page.width,
                        height: page.height,
                        flags: page.flags,
                        // (A page whose bytes do not hold its pixels is refused by the reader.)
                        shown: match page.kind() {
                            PageKind::Direct16 => "16-bit",
                            PageKind::Indexed8 => "8-bit",
                            PageKind::Rle16 => "RLE16",
                        },
                    })
                    .collect::<Vec<_>>(),
            )
        },
    )?
    .map_err(wad_error)?;
    to_python(py, &listed)
}

/// decode_png(png: bytes, width: int | None = None, height: int | None = None) -> tuple[int, int, bytes]
///
/// A PNG file's image as RGBA8 (rows top first): its width, height and pixels. Given a width
/// and height other than its own, the image is resampled to them first, as `llamawad set-page
/// --resize` resamples an image to its page's size (triangle filter, each axis on its own).
/// Raises WadError naming why for bytes that are no PNG the tool reads, or one larger than
/// 4,096 pixels a side; ValueError for a width or height of 0.
#[pyfunction]
#[pyo3(signature = (png, width = None, height = None))]
pub fn decode_png<'py>(
    py: Python<'py>,
    png: Cow<'_, [u8]>,
    width: Option<u32>,
    height: Option<u32>,
) -> PyResult<(u32, u32, Bound<'py, PyBytes>)> {
    use llamawad::level::pages::{decode_png, resample};

    if width == Some(0) || height == Some(0) {
        return Err(PyValueError::new_err("an image is at least 1 pixel a side"));
    }
    let image = detach(
        py,
        || bytes_input("a PNG", &png),
        || {
            decode_png(&png).map(|image| {
                let size = (
                    width.unwrap_or(image.width()),
                    height.unwrap_or(image.height()),
                );
                if size == image.dimensions() {
                    image
                } else {
                    resample(&image, size.0, size.1)
                }
            })
        },
    )?
    .map_err(|e| WadError::new_err(e.to_string()))?;
    Ok((
        image.width(),
        image.height(),
        PyBytes::new(py, image.as_raw()),
    ))
}
