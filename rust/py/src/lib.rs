//! Python bindings of `llamawad`, imported as `llamawad._native` and re-exported by the
//! `llamawad` package.
//!
//! A thin layer: each function converts its arguments, runs the core with the GIL released (so
//! Blender's UI and other Python threads keep running), and turns every error of the WAD layer
//! into the one exception `llamawad.WadError`, whose message is the Rust error's message. A glTF
//! the way back refuses raises its subclass `llamawad.ImportRefused`, which also names the node
//! and faces at fault. A panic (a bug) raises `WadError` too, "internal error, please report",
//! naming the input: never pyo3's `PanicException`, a BaseException Blender's operators would
//! not catch.

use std::borrow::Cow;
use std::path::PathBuf;

use llamawad::generate::Size;
use llamawad::gltf::{self as wad_gltf, Gltf, Source};
use llamawad::info::Info;
use llamawad::{Level, WadError as CoreError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

pyo3::create_exception!(
    llamawad,
    WadError,
    PyValueError,
    "A level WAD could not be read or written. The message says where (chunk and byte offset) \
     and why."
);

pyo3::create_exception!(
    llamawad,
    ImportRefused,
    WadError,
    "The glTF cannot become a level. Besides the message, `node` (the glTF node at fault, or \
     None) and `faces` (its triangles at fault, in the order the node's mesh lists them) say \
     what to select."
);

/// Why `gltf_to_wad` failed: a refusal of the glTF (with its culprit), or any other error.
enum ImportFailure {
    Refused(wad_gltf::ImportError),
    Other(String),
}

fn import_failure(py: Python<'_>, failure: ImportFailure) -> PyErr {
    match failure {
        ImportFailure::Other(message) => WadError::new_err(message),
        ImportFailure::Refused(e) => {
            let err = ImportRefused::new_err(e.to_string());
            let value = err.value(py);
            let culprit = value
                .setattr("node", e.node)
                .and_then(|()| value.setattr("faces", e.faces));
            match culprit {
                Ok(()) => err,
                Err(e) => e,
            }
        }
    }
}

/// `py.detach(f)`: runs the core's work with the GIL released, and turns a panic in it into
/// `WadError` naming `input` (what was being read).
fn detach<T: Send>(
    py: Python<'_>,
    input: impl FnOnce() -> String + Send,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| llamawad::catch_panic(input, f))
        .map_err(|e| WadError::new_err(e.to_string()))
}

/// Bytes given to an entry point, named for an internal error's report.
fn bytes_input(what: &str, data: &[u8]) -> String {
    format!(
        "{what} of {} bytes (CRC-32 {:08x})",
        data.len(),
        Source::of(data).crc32
    )
}

fn wad_error(e: impl Into<CoreError>) -> PyErr {
    WadError::new_err(e.into().to_string())
}

/// A level's bytes converted to glTF. Parse and export errors both become `WadError`.
fn convert(data: &[u8]) -> Result<Gltf, String> {
    let level = Level::parse(data).map_err(|e| CoreError::from(e).to_string())?;
    wad_gltf::wad_to_gltf(&level, Source::of(data)).map_err(|e| e.to_string())
}

/// The summary of a level as JSON text, so that Python gets plain dicts and lists.
fn info_json(level: &Level, file_size: usize) -> String {
    serde_json::to_string(&Info::of(level, file_size))
        .expect("Info is plain data with string keys, which JSON can always hold")
}

/// Turns JSON text into Python objects with the standard library's parser: no second
/// serialisation path to keep in step with `Info`.
fn json_to_python<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (json,))
}

#[pymodule]
mod _native {
    use super::*;

    #[pymodule_export]
    use super::WadError;

    /// parse_info(data: bytes) -> dict
    ///
    /// Parses a level WAD and returns its summary (what `llamawad info --json` prints).
    /// Raises WadError if the bytes are not a level this project can read.
    #[pyfunction]
    fn parse_info<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
        let json = detach(
            py,
            || bytes_input("a level", &data),
            || Level::parse(&data).map(|level| info_json(&level, data.len())),
        )?
        .map_err(wad_error)?;
        json_to_python(py, &json)
    }

    /// info_file(path: str | os.PathLike) -> dict
    ///
    /// Reads a level WAD from disk and returns its summary, like parse_info.
    #[pyfunction]
    fn info_file(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
        let json = detach(
            py,
            || path.display().to_string(),
            || {
                let data = llamawad::read_bytes(&path)?;
                let level = Level::parse(&data)?;
                Ok::<_, CoreError>(info_json(&level, data.len()))
            },
        )?
        .map_err(wad_error)?;
        json_to_python(py, &json)
    }

    /// roundtrip(data: bytes) -> bytes
    ///
    /// Parses a level WAD and writes it back. For every file that parses, the result is
    /// byte-identical to the input.
    #[pyfunction]
    fn roundtrip<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = detach(
            py,
            || bytes_input("a level", &data),
            || Ok::<_, CoreError>(Level::parse(&data)?.to_bytes()?),
        )?
        .map_err(wad_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// generate(seed: int, size: str) -> bytes
    ///
    /// A synthetic level WAD, the same for the same seed on every machine. size is "tiny",
    /// "small" or "full"; any other size raises ValueError.
    #[pyfunction]
    fn generate<'py>(py: Python<'py>, seed: u64, size: &str) -> PyResult<Bound<'py, PyBytes>> {
        let size: Size = size.parse().map_err(PyValueError::new_err)?;
        let bytes = detach(
            py,
            || format!("generate(seed {seed}, size {size})"),
            || llamawad::generate::generate(seed, size).to_bytes(),
        )?
        .map_err(wad_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// wad_to_glb(data: bytes) -> tuple[bytes, list[str]]
    ///
    /// Converts a level WAD to glTF 2.0 and returns the binary glTF (.glb) and the conversion's
    /// warnings (e.g. placeholder texture pages). Raises WadError if the level cannot be read or
    /// converted.
    #[pyfunction]
    fn wad_to_glb<'py>(
        py: Python<'py>,
        data: Cow<'_, [u8]>,
    ) -> PyResult<(Bound<'py, PyBytes>, Vec<String>)> {
        let (glb, warnings) = detach(
            py,
            || bytes_input("a level", &data),
            || convert(&data).map(|gltf| (gltf.to_glb(), gltf.warnings)),
        )?
        .map_err(WadError::new_err)?;
        Ok((PyBytes::new(py, &glb), warnings))
    }

    /// wad_to_gltf(data: bytes) -> tuple[str, bytes, list[str]]
    ///
    /// Converts a level WAD to glTF 2.0 and returns the glTF JSON text, its one binary buffer and
    /// the conversion's warnings. The JSON's buffer 0 has no "uri": the caller holds the buffer
    /// (as a GLB does) and reads accessors straight out of it. Raises WadError like wad_to_glb.
    #[pyfunction]
    fn wad_to_gltf<'py>(
        py: Python<'py>,
        data: Cow<'_, [u8]>,
    ) -> PyResult<(String, Bound<'py, PyBytes>, Vec<String>)> {
        let (json, gltf) = detach(
            py,
            || bytes_input("a level", &data),
            || {
                let gltf = convert(&data)?;
                let json = gltf.root.to_string().expect("a glTF document serialises");
                Ok::<_, String>((json, gltf))
            },
        )?
        .map_err(WadError::new_err)?;
        Ok((json, PyBytes::new(py, &gltf.bin), gltf.warnings))
    }

    #[pymodule_export]
    use super::ImportRefused;

    /// gltf_to_wad(base: bytes, gltf: bytes, force: bool = False, directory: str | os.PathLike | None = None) -> tuple[bytes, dict]
    ///
    /// Writes a level from a glTF (.glb bytes, or .gltf JSON bytes whose buffers are files in
    /// `directory`) and the level it was made from (`base`). Returns the new WAD bytes and the
    /// change report (what `llamawad gltf2wad --json` prints). A glTF of the unchanged level gives
    /// bytes identical to the base. A glTF made from another level is refused unless `force`.
    /// Raises ImportRefused (a WadError) when the glTF cannot become a level, with `node` and
    /// `faces` naming the culprit; WadError when the base or the glTF cannot be read.
    #[pyfunction]
    #[pyo3(signature = (base, gltf, force = false, directory = None))]
    fn gltf_to_wad<'py>(
        py: Python<'py>,
        base: Cow<'_, [u8]>,
        gltf: Cow<'_, [u8]>,
        force: bool,
        directory: Option<PathBuf>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
        let input = || {
            format!(
                "{} against {}",
                bytes_input("a glTF", &gltf),
                bytes_input("a base level", &base)
            )
        };
        let result = detach(py, input, || {
            let other = |e: String| ImportFailure::Other(e);
            let level =
                Level::parse(&base).map_err(|e| other(format!("base: {}", CoreError::from(e))))?;
            let doc = wad_gltf::Document::from_slice(&gltf, directory.as_deref())
                .map_err(|e| other(format!("glTF: {e}")))?;
            let options = wad_gltf::ImportOptions {
                force,
                ..Default::default()
            };
            let (written, report) = wad_gltf::gltf_to_wad(&level, &base, &doc, options)
                .map_err(ImportFailure::Refused)?;
            let bytes = written
                .to_bytes()
                .map_err(|e| other(CoreError::from(e).to_string()))?;
            let report = serde_json::to_string(&report).expect("the change report is plain data");
            Ok::<_, ImportFailure>((bytes, report))
        })?;
        let (bytes, report) = result.map_err(|f| import_failure(py, f))?;
        Ok((PyBytes::new(py, &bytes), json_to_python(py, &report)?))
    }
}
