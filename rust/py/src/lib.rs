//! Python bindings of `llamawad`, imported as `llamawad._native` and re-exported by the
//! `llamawad` package.
//!
//! A thin layer: each function converts its arguments, runs the core with the GIL released (so
//! Blender's UI and other Python threads keep running), and turns every error of the WAD layer
//! into the one exception `llamawad.WadError`, whose message is the Rust error's message. Bytes
//! that are not a level raise its subclass `llamawad.WadParseError`, which also carries where
//! and why as fields; a glTF the way back refuses raises its subclass `llamawad.GltfToWadRefused`,
//! which also names the node and faces at fault and the numbers of its cause. A panic (a bug)
//! raises `WadError` too, "internal error, please report", naming the input: never pyo3's
//! `PanicException`, a BaseException Blender's operators would not catch.
//!
//! By what they ask of the core: `level` (a level's bytes read, written, summarised, generated),
//! `convert` (WAD → glTF or the add-on's arrays, and back against a base), `game` (the floor
//! test, `check`, strats, the texture rule, shown colours), `light` (bake, fit); `scene` takes
//! the add-on's scene apart into the core's arrays.

use llamawad::gltf::Source;
use llamawad::{ParseError, WadError as CoreError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde::Serialize;

mod convert;
mod game;
mod level;
mod light;
mod scene;

pyo3::create_exception!(
    llamawad,
    WadError,
    PyValueError,
    "A level WAD could not be read or written. The message says where (chunk and byte offset) \
     and why."
);

pyo3::create_exception!(
    llamawad,
    WadParseError,
    WadError,
    "The bytes are not a level this project can read. Besides the message, the fields say where \
     and why, never to be parsed from the message: `kind` (`truncated`, `count-too-large`, \
     `bad-value`, `trailing-bytes`, `not-a-wad`, `missing-chunk`); where in the file: `chunk` \
     (the chunk tag as the notes spell it, `TRAK`, `MAP`, or `container`; for `missing-chunk` \
     the chunk missing), `offset` (the absolute byte offset), `tile` and `model` (the MAP tile \
     or TRAK model being read, or found at fault); and by kind `what` (what was being read), \
     `needed` and `available` (bytes), `count` and `element_size` (entries a count says, and \
     their size; for `trailing-bytes` the bytes left over), `expected` and `found`, `reason` \
     and `needed_by`. A field the kind does not have is None."
);

pyo3::create_exception!(
    llamawad,
    GltfToWadRefused,
    WadError,
    "The glTF (or the scene handed over as arrays) cannot become a level. Besides the message, the fields say what to select and \
     why, never to be parsed from the message: `message` (what is wrong and what to do, \
     without the culprit the string of the exception puts before it), `code` (short and stable: `no-uvs`, \
     `no-material`, `uvs-not-rectangle`, `tile-outside-grid`, `game-rules`, …), `node_index` \
     (the node's index among the glTF's nodes, or among the nodes handed to `scene_to_wad`; None \
     when no node is named, or only by its name) and `object` (the node's name as the tool that \
     wrote it gave it, the Blender object; None when no node is named or it has no name), \
     `faces` (its triangles at fault, in the order the node's mesh lists them) and \
     `source_faces` (the same as the faces of the tool that wrote the glTF, where its triangles \
     carry `_SOURCE_FACE`: Blender's faces); the numbers the message quotes (None where it \
     quotes none): `tile`, `model` (TRAK), `object_model` (STPC), `polygon`, `strat`, \
     `waypoint`, `light`, `zone`, `page`, `image`, `cell` (column, row), `grid` (width, \
     height), `count` and `limit` (how many, and the most a level holds), `field` (the custom \
     property whose value does not fit) and `value` (a whole number that does not fit); for \
     the game's rules (`game-rules`) the first problem's `tile`, `model`, `polygon`, `strat` \
     and `cell`, and `problems` (dicts as `check` gives them), `sources` (the (tile, glTF node \
     name) pairs of the conversion) and `strat_sources` (the (strat, glTF node name) pairs of \
     the strats it changed or added); `refusals`: every refusal of the conversion, this one \
     first, as dicts with `code`, `message`, `node_index`, `object`, `faces`, `source_faces` \
     and the numbers of its cause (every node is tried, so that each culprit is named)."
);

/// An error of the core on its way to Python, kept typed until it is raised with the GIL held:
/// a parse error raises WadParseError with its fields, any other error WadError with its words.
enum Failure {
    Parse { words: String, error: ParseError },
    Said(String),
}

impl Failure {
    /// The same failure said of `what` (`base`: the base level could not be read).
    fn of(self, what: &str) -> Failure {
        match self {
            Failure::Parse { words, error } => Failure::Parse {
                words: format!("{what}: {words}"),
                error,
            },
            Failure::Said(words) => Failure::Said(format!("{what}: {words}")),
        }
    }
}

impl From<ParseError> for Failure {
    fn from(error: ParseError) -> Failure {
        Failure::Parse {
            words: error.to_string(),
            error,
        }
    }
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Failure {
        match e {
            CoreError::Parse(error) => error.into(),
            other => Failure::Said(other.to_string()),
        }
    }
}

impl From<String> for Failure {
    fn from(words: String) -> Failure {
        Failure::Said(words)
    }
}

impl From<&str> for Failure {
    fn from(words: &str) -> Failure {
        Failure::Said(words.to_string())
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Said(words) => WadError::new_err(words),
            Failure::Parse { words, error } => Python::attach(|py| {
                let err = WadParseError::new_err(words);
                // Every field the stub promises is there: the kind's, and None for the others.
                let value = err.value(py);
                let fields = PARSE_FIELDS
                    .iter()
                    .try_for_each(|name| value.setattr(*name, py.None()))
                    .and_then(|()| set_fields(value.as_any(), &to_python(py, &error)?));
                match fields {
                    Ok(()) => err,
                    Err(e) => e,
                }
            }),
        }
    }
}

/// Every field of WadParseError: the location's and those of every kind of parse error.
const PARSE_FIELDS: &[&str] = &[
    "kind",
    "chunk",
    "offset",
    "tile",
    "model",
    "what",
    "needed",
    "available",
    "count",
    "element_size",
    "expected",
    "found",
    "reason",
    "needed_by",
];

/// Each item of `fields` (a dict the core's data became) as an attribute of the exception.
fn set_fields(exception: &Bound<'_, PyAny>, fields: &Bound<'_, PyAny>) -> PyResult<()> {
    fields
        .cast::<PyDict>()?
        .iter()
        .try_for_each(|(name, value)| exception.setattr(name.cast::<PyString>()?, value))
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

/// Each of `list` as a `T` (a dict of named items): one that is none raises WadError naming it
/// (`what[k]`) with pyo3's reason, as the stubs promise, not a bare KeyError or TypeError.
fn items<'py, T>(what: &str, list: &[Bound<'py, PyAny>]) -> PyResult<Vec<T>>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    list.iter()
        .enumerate()
        .map(|(k, item)| {
            item.extract::<T>()
                .map_err(|e| WadError::new_err(format!("{what}[{k}]: {}", e.into())))
        })
        .collect()
}

fn wad_error(e: impl Into<CoreError>) -> PyErr {
    Failure::from(e.into()).into()
}

/// The core's plain data (what the command line prints with `--json`) as Python dicts, lists
/// and numbers, field by field: no JSON text between Rust and Python, and one serialisation to
/// keep in step with each type.
fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(PyErr::from)
}

#[pymodule]
mod _native {
    use super::*;

    #[pymodule_export]
    use super::WadError;

    /// CODES: dict[str, str]: what each problem and refusal code means (llamawad::Code, the one
    /// table of them), for tools that decide by code, never by a message's wording.
    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let codes = PyDict::new(m.py());
        for code in llamawad::Code::ALL {
            codes.set_item(code.as_str(), code.meaning())?;
        }
        m.add("CODES", codes)
    }

    #[pymodule_export]
    use super::WadParseError;

    #[pymodule_export]
    use super::GltfToWadRefused;

    #[pymodule_export]
    use super::level::{
        decode_png, encode_png, generate, info_file, pages, parse_info, png_matches, read_file,
        roundtrip, tile_models, write_file,
    };

    #[pymodule_export]
    use super::convert::{
        check_scene, gltf_to_wad, scene_to_wad, wad_to_glb, wad_to_gltf, wad_to_scene,
    };

    #[pymodule_export]
    use super::game::{
        check, face_uvs, floors, polygon_outlines, probe, shown_colours, strat_table, strats,
        test_level,
    };

    #[pymodule_export]
    use super::light::{bake, bake_points, fit_light, LightFitting};
}
