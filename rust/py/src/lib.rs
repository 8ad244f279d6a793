//! Python bindings of `llamawad`, imported as `llamawad._native` and re-exported by the
//! `llamawad` package.
//!
//! A thin layer: each function converts its arguments, runs the core with the GIL released (so
//! Blender's UI and other Python threads keep running), and turns every error of the WAD layer
//! into the one exception `llamawad.WadError`, whose message is the Rust error's message. A glTF
//! the way back refuses raises its subclass `llamawad.GltfToWadRefused`, which also names the node
//! and faces at fault. A panic (a bug) raises `WadError` too, "internal error, please report",
//! naming the input: never pyo3's `PanicException`, a BaseException Blender's operators would
//! not catch.

use std::borrow::Cow;
use std::path::PathBuf;

use llamawad::game::floor::World;
use llamawad::game::floors::compare_levels;
use llamawad::generate::Size;
use llamawad::gltf::wad_to_gltf::{self as to_gltf, hand_over::hand_over};
use llamawad::gltf::{self as wad_gltf, uv, Gltf, Source};
use llamawad::info::Info;
use llamawad::raw::TextureEntry;
use llamawad::{Level, WadError as CoreError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde::Serialize;

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
     carry `_SOURCE_FACE`: Blender's faces); for the game's rules (`game-rules`) `problems` (dicts as `check` gives \
     them), `sources` (the (tile, glTF node name) pairs of the conversion), `strat_sources` (the \
     (strat, glTF node name) pairs of the strats it changed or added) and the first \
     problem's `tile`, `polygon` and `cell` [x, z]; `refusals`: every refusal of the \
     conversion, this one first, as dicts with `code`, `message`, `node_index`, `object`, `faces` and \
     `source_faces` (every node is tried, so that each culprit is named)."
);

/// Why `gltf_to_wad` or `scene_to_wad` failed: a refusal of the scene (with its culprit), or any
/// other error.
enum ImportFailure {
    Refused(wad_gltf::GltfToWadError),
    Other(String),
}

fn import_failure(py: Python<'_>, failure: ImportFailure) -> PyErr {
    match failure {
        ImportFailure::Other(message) => WadError::new_err(message),
        ImportFailure::Refused(e) => {
            let err = GltfToWadRefused::new_err(e.to_string());
            let value = err.value(py);
            let object = e.object().map(str::to_string);
            let node_index = e.node_index();
            // Every refusal of the conversion, this one first, each with its own culprit.
            let refusals = e
                .each()
                .map(|r| {
                    let d = PyDict::new(py);
                    d.set_item("code", r.code.as_str())?;
                    d.set_item("message", &r.message)?;
                    d.set_item("node_index", r.node_index())?;
                    d.set_item("object", r.object())?;
                    d.set_item("faces", &r.faces)?;
                    d.set_item("source_faces", &r.source_faces)?;
                    Ok(d)
                })
                .collect::<PyResult<Vec<_>>>();
            let (problems, sources, strat_sources) = e
                .broken
                .map(|b| (b.problems, b.sources, b.strat_sources))
                .unwrap_or_default();
            // Where the first broken rule is, in the game's terms.
            let first = problems.first();
            let (tile, polygon, cell) = (
                first.and_then(|p| p.tile),
                first.and_then(|p| p.polygon),
                first.and_then(|p| p.cell),
            );
            let culprit = value
                .setattr("code", e.code.as_str())
                .and_then(|()| value.setattr("message", e.message.clone()))
                .and_then(|()| value.setattr("node_index", node_index))
                .and_then(|()| value.setattr("object", object))
                .and_then(|()| value.setattr("faces", e.faces))
                .and_then(|()| value.setattr("source_faces", e.source_faces))
                .and_then(|()| value.setattr("tile", tile))
                .and_then(|()| value.setattr("polygon", polygon))
                .and_then(|()| value.setattr("cell", cell))
                .and_then(|()| value.setattr("problems", to_python(py, &problems)?))
                .and_then(|()| value.setattr("sources", sources))
                .and_then(|()| value.setattr("strat_sources", strat_sources))
                .and_then(|()| value.setattr("refusals", refusals?));
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

/// The core's plain data (what the command line prints with `--json`) as Python dicts, lists
/// and numbers, field by field: no JSON text between Rust and Python, and one serialisation to
/// keep in step with each type.
fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(PyErr::from)
}

/// A texture entry as the level document lists it (`texture_entries` of the glTF scene extras);
/// the rectangle and the flags are all the texture rule reads.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct EntryItem {
    flags: u16,
    u0: u8,
    u1: u8,
    v0: u8,
    v1: u8,
}

impl EntryItem {
    fn entry(&self) -> TextureEntry {
        TextureEntry {
            flags: self.flags,
            u0: self.u0,
            u1: self.u1,
            v0: self.v0,
            v1: self.v1,
            ..TextureEntry::default()
        }
    }
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

    /// parse_info(data: bytes) -> dict
    ///
    /// Parses a level WAD and returns its summary (what `llamawad info --json` prints).
    /// Raises WadError if the bytes are not a level this project can read.
    #[pyfunction]
    fn parse_info<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
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
    fn info_file(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
        let info = detach(
            py,
            || path.display().to_string(),
            || {
                let data = llamawad::read_bytes(&path)?;
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
    fn read_file<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyBytes>> {
        let data = detach(
            py,
            || path.display().to_string(),
            || llamawad::read_bytes(&path),
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
    fn write_file(py: Python<'_>, path: PathBuf, data: Cow<'_, [u8]>) -> PyResult<()> {
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
            || {
                let gltf = convert(&data)?;
                let glb = gltf.to_glb().map_err(|e| e.to_string())?;
                Ok::<_, String>((glb, gltf.warnings))
            },
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

    /// What wad_to_scene returns.
    type HandOver<'py> = (
        Bound<'py, PyAny>,
        Vec<Bound<'py, PyBytes>>,
        Bound<'py, PyBytes>,
        Vec<Bound<'py, PyBytes>>,
        Vec<String>,
    );

    /// wad_to_scene(data: bytes) -> tuple[dict, list[bytes], bytes, list[bytes], list[str]]
    ///
    /// The level's glTF (as wad_to_gltf makes it) handed over as the add-on's importer reads
    /// it: a dict of plain values (`scene_extras`, `images`, `materials`, `nodes` as one list
    /// per field, and per role `batches` of meshes, see llamawad::gltf::wad_to_gltf::hand_over), the batches'
    /// attribute arrays (little-endian float32 bytes, one per attribute of a batch:
    /// `np.frombuffer` reads them), the nodes' transforms (float32, 10 per node: translation,
    /// rotation x y z w, scale), each image's PNG bytes, and the conversion's warnings. Raises
    /// WadError like wad_to_glb.
    #[pyfunction]
    fn wad_to_scene<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<HandOver<'py>> {
        let (level, warnings) = detach(
            py,
            || bytes_input("a level", &data),
            || {
                let gltf = convert(&data)?;
                let level = hand_over(&gltf).map_err(|e| e.to_string())?;
                let Gltf {
                    root,
                    bin,
                    warnings,
                } = gltf;
                // Freeing the document (thousands of small allocations) takes as long as a
                // tenth of the conversion: another thread does it while Python builds the scene
                // (where no thread can be started, the failed spawn frees it here).
                let document = (root, bin);
                let _ = std::thread::Builder::new().spawn(move || drop(document));
                Ok::<_, String>((level, warnings))
            },
        )?
        .map_err(WadError::new_err)?;
        let bytes = |all: &[Vec<u8>]| all.iter().map(|b| PyBytes::new(py, b)).collect();
        Ok((
            to_python(py, &level.info)?,
            bytes(&level.arrays),
            PyBytes::new(py, &level.transforms),
            bytes(&level.pngs),
            warnings,
        ))
    }

    /// probe(level: bytes, points: list[tuple[float, float, float]]) -> list[dict]
    ///
    /// The game's floor test (FUN_004036d0) at each point (game units: x east, y up, z the grid
    /// row): per point a dict like one line of `llamawad probe --json` (`floor` None or
    /// {height, tile, polygon, material}, `no_floor`, `surface_above`, `candidates`). Raises
    /// WadError if the level cannot be read or has no MAP or TRAK chunk, or for a point that is
    /// not three finite numbers.
    #[pyfunction]
    fn probe<'py>(
        py: Python<'py>,
        level: Cow<'_, [u8]>,
        points: Vec<(f64, f64, f64)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let probes = detach(
            py,
            || bytes_input("a level", &level),
            || {
                let level = Level::parse(&level).map_err(|e| CoreError::from(e).to_string())?;
                let world = World::of(&level).ok_or("the level has no MAP or TRAK chunk")?;
                let probes = points
                    .iter()
                    .enumerate()
                    .map(|(k, &(x, y, z))| {
                        world
                            .probe_point([x, y, z])
                            .map_err(|e| format!("point {k}: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok::<_, String>(probes)
            },
        )?
        .map_err(WadError::new_err)?;
        to_python(py, &probes)
    }

    /// floors(a: bytes, b: bytes, points: int = 2800, seed: int = 1) -> dict
    ///
    /// Drops the floor test from y = 60 at `points` random points of the grid (the same for the
    /// same seed) in both levels and compares: points, both, lost, gained, within_1mm,
    /// within_5mm, max_mm, material_same (what `llamawad floors --json` prints). Raises WadError
    /// for more than 1,000,000 points.
    #[pyfunction]
    #[pyo3(signature = (a, b, points = 2800, seed = 1))]
    fn floors<'py>(
        py: Python<'py>,
        a: Cow<'_, [u8]>,
        b: Cow<'_, [u8]>,
        points: usize,
        seed: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let compared = detach(
            py,
            || {
                format!(
                    "{} and {}",
                    bytes_input("a level", &a),
                    bytes_input("a level", &b)
                )
            },
            || {
                let parse = |d: &[u8]| Level::parse(d).map_err(|e| CoreError::from(e).to_string());
                let (a, b) = (parse(&a)?, parse(&b)?);
                compare_levels(&a, &b, points, seed).map_err(|e| e.to_string())
            },
        )?
        .map_err(WadError::new_err)?;
        to_python(py, &compared)
    }

    /// check(level: bytes, base: bytes | None = None) -> dict
    ///
    /// Every rule of the notes over the level: {"problems": [...], "errors": n, "warnings": n},
    /// each problem with `code`, `severity` ("error" or "warning"), `message` and its culprit
    /// (`tile`, `model`, `polygon`, `face`, `strat`, `cell` [x, z], None where they do not
    /// apply); with a base, problems it already has carry `pre_existing` True. A level the
    /// reader refuses is one error (`unreadable`, or `container`) naming the tile or model the
    /// reader was at. What `llamawad check --json` prints. Raises WadError for bytes that are
    /// no level WAD, or a base that cannot be read.
    #[pyfunction]
    #[pyo3(signature = (level, base = None))]
    fn check<'py>(
        py: Python<'py>,
        level: Cow<'_, [u8]>,
        base: Option<Cow<'_, [u8]>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let report = detach(
            py,
            || bytes_input("a level", &level),
            || {
                let base = base.as_deref().map(Level::parse).transpose()?;
                Ok::<_, CoreError>(llamawad::game::check_bytes(&level, base.as_ref())?)
            },
        )?
        .map_err(wad_error)?;
        to_python(py, &report)
    }

    /// strats(level: bytes) -> dict
    ///
    /// The level's placed strats and every strat type its code names, with whether a new strat
    /// of it can be placed and why not (what `llamawad strats --all --json` prints). Raises
    /// WadError if the level cannot be read or has no MAP chunk.
    #[pyfunction]
    fn strats<'py>(py: Python<'py>, level: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
        let strats = detach(
            py,
            || bytes_input("a level", &level),
            || {
                let level = Level::parse(&level)?;
                Ok::<_, CoreError>(llamawad::game::strats::Strats::of(&level, true)?)
            },
        )?
        .map_err(wad_error)?;
        to_python(py, &strats)
    }

    /// tile_models(level: bytes) -> list[int]
    ///
    /// The TRAK model of each tile of the level's MAP, in tile order: which tiles a problem of a
    /// model concerns. Raises WadError if the level cannot be read or has no MAP chunk.
    #[pyfunction]
    fn tile_models(py: Python<'_>, level: Cow<'_, [u8]>) -> PyResult<Vec<u32>> {
        detach(
            py,
            || bytes_input("a level", &level),
            || {
                let level = Level::parse(&level).map_err(|e| CoreError::from(e).to_string())?;
                let map = level.map().ok_or("the level has no MAP chunk")?;
                Ok::<_, String>(map.tiles.iter().map(|t| t.model_index).collect())
            },
        )?
        .map_err(WadError::new_err)
    }

    /// polygon_outlines(level: bytes, polygons: list[tuple[int, int]]) -> list[dict | None]
    ///
    /// Per (tile, polygon) as `probe` names them: the collision polygon's `corners` in world game
    /// space, its `zone` (the outline the floor test's edge tolerance lets pass) and that
    /// `tolerance` in units; None where the level has no such tile or polygon. Raises WadError
    /// if the level cannot be read.
    #[pyfunction]
    fn polygon_outlines<'py>(
        py: Python<'py>,
        level: Cow<'_, [u8]>,
        polygons: Vec<(usize, usize)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outlines = detach(
            py,
            || bytes_input("a level", &level),
            || {
                let level = Level::parse(&level)?;
                let world = World::of(&level);
                Ok::<_, CoreError>(
                    polygons
                        .iter()
                        .map(|&(t, p)| world.as_ref()?.polygon_outline(t, p))
                        .collect::<Vec<_>>(),
                )
            },
        )?
        .map_err(wad_error)?;
        to_python(py, &outlines)
    }

    /// face_uvs(entries: list[dict], textures: list[int], flags: list[int]) -> tuple[list[float], list[bool]]
    ///
    /// The texture rule (FORMAT.md §3: the engine has no free UVs) for faces with these texture
    /// entries and flags: six numbers a face, the texture coordinates of its three corners in
    /// the order the glTF lists them (origin top-left, what TEXCOORD_0 holds), and whether the
    /// face shows a texture rectangle at all (not for a flat colour or a missing entry, whose
    /// numbers are 0). `entries` as the level document lists them ({flags, u0, u1, v0, v1, …}).
    /// Raises WadError when `textures` and `flags` differ in length.
    #[pyfunction]
    fn face_uvs(
        py: Python<'_>,
        entries: Vec<EntryItem>,
        textures: Vec<i64>,
        flags: Vec<u16>,
    ) -> PyResult<(Vec<f32>, Vec<bool>)> {
        if textures.len() != flags.len() {
            return Err(WadError::new_err(format!(
                "{} texture entries but {} flags: one of each a face",
                textures.len(),
                flags.len()
            )));
        }
        let entries: Vec<TextureEntry> = entries.iter().map(EntryItem::entry).collect();
        detach(
            py,
            || format!("{} faces", textures.len()),
            || uv::faces_uvs(&entries, &textures, &flags),
        )
    }

    /// shown_colours(raw: list[int], flags: list[int] | None = None) -> list[float]
    ///
    /// What the game shows at corners with these raw vertex colours (R + G·256 + B·65536) on
    /// faces with these flags: each byte doubled and clamped, 0x80 full brightness, white where
    /// the face ignores vertex colours (0x4000); four linear floats (RGBA) a corner, as COLOR_0
    /// holds them. Raises WadError when `flags` and `raw` differ in length.
    #[pyfunction]
    #[pyo3(signature = (raw, flags = None))]
    fn shown_colours(py: Python<'_>, raw: Vec<u32>, flags: Option<Vec<u16>>) -> PyResult<Vec<f32>> {
        let flags = flags.unwrap_or_else(|| vec![0; raw.len()]);
        if flags.len() != raw.len() {
            return Err(WadError::new_err(format!(
                "{} colours but {} flags: one of each a corner",
                raw.len(),
                flags.len()
            )));
        }
        detach(
            py,
            || format!("{} colours", raw.len()),
            || to_gltf::shown_colours(&raw, &flags),
        )
    }

    #[pymodule_export]
    use super::GltfToWadRefused;

    #[pymodule_export]
    use super::light::{bake, bake_points, fit_light};

    /// gltf_to_wad(base: bytes, gltf: bytes, force: bool = False, directory: str | os.PathLike | None = None, snap_uvs: bool = False, generate_collision: bool = True) -> tuple[bytes, dict]
    ///
    /// Writes a level from a glTF (.glb bytes, or .gltf JSON bytes whose buffers are files in
    /// `directory`) and the level it was made from (`base`). Returns the new WAD bytes and the
    /// change report (what `llamawad gltf2wad --json` prints). A glTF of the unchanged level gives
    /// bytes identical to the base. A glTF made from another level is refused unless `force`;
    /// faces whose UVs the game cannot show are refused unless `snap_uvs`; new meshes without a
    /// collision mesh get collision from their faces unless `generate_collision` is False.
    /// Raises GltfToWadRefused (a WadError) when the glTF cannot become a level, with `node` and
    /// `faces` naming the culprit; WadError when the base or the glTF cannot be read.
    #[pyfunction]
    #[pyo3(signature = (base, gltf, force = false, directory = None, snap_uvs = false, generate_collision = true))]
    fn gltf_to_wad<'py>(
        py: Python<'py>,
        base: Cow<'_, [u8]>,
        gltf: Cow<'_, [u8]>,
        force: bool,
        directory: Option<PathBuf>,
        snap_uvs: bool,
        generate_collision: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
        let input = || {
            format!(
                "{} against {}",
                bytes_input("a glTF", &gltf),
                bytes_input("a base level", &base)
            )
        };
        let options = wad_gltf::GltfToWadOptions {
            force,
            snap_uvs,
            generate_collision,
            ..Default::default()
        };
        super::written_level(py, input, &base, options, |level, options| {
            let doc = wad_gltf::Document::from_slice(&gltf, directory.as_deref())
                .map_err(|e| format!("glTF: {e}"))?;
            Ok(wad_gltf::gltf_to_wad(level, &base, &doc, options))
        })
    }

    /// scene_to_wad(base: bytes, scene: dict, force: bool = False, snap_uvs: bool = False, generate_collision: bool = True, tile_collision_given: bool = True) -> tuple[bytes, dict]
    ///
    /// What `gltf_to_wad` does with a glTF, done with the same scene handed over as arrays (the
    /// add-on's export: no glTF is written or parsed). `scene` is a dict:
    /// `extras` (the scene extras' `llamawad` object as a dict, or None);
    /// `nodes`, a dict of columns, one entry a node, parents before their children:
    /// `name` (list of str or None), `parent` (int32 buffer, the parent's number or -1),
    /// `matrix` (float32 buffer, 16 a node: the transform in its parent's frame, file space,
    /// column-major), `mesh` (int32 buffer, a mesh number or -1), `extras` (list of dicts or
    /// None: what JSON can hold); `meshes`, a list of dicts: `attributes` (dict of glTF attribute name, as
    /// MAPPING.md names them, to a float32 buffer of per-corner values, three corners a
    /// triangle), `materials` (list of material names or None) and `triangle_materials` (uint32
    /// buffer, each triangle's index into `materials`; empty when all use the first); and, as a
    /// Blender mesh holds them, values by the same names once per point or face:
    /// `point_attributes` with `corner_points` (uint32 buffer, each corner's point) and
    /// `face_attributes` with `triangle_faces` (uint32 buffer, each triangle's face). Buffers are
    /// anything with the buffer protocol (numpy arrays), read without a copy in Python.
    /// Optional: `images`, a list of dicts `name` (str), `width`, `height` (int, 1 to 4096) and
    /// `pixels` (uint8 buffer, width × height × 4: RGBA, rows top first), or `missing` (str:
    /// why there are no pixels, e.g. a file that is gone; a page's image missing keeps the page
    /// with a warning, a new one is refused by material); `material_images`, a
    /// dict of material name to the index of the image in `images` the material shows (its
    /// base colour). A page's material (`page 3 blend 0`) shows its page: an image that differs
    /// from the page is written into it. Any other material's image is a new texture, placed on
    /// new pages (resampled to fit a page when larger), its faces fitted within it.
    /// `tile_collision_given` False says the scene leaves tile collision out: a tile without a
    /// collision node keeps its model's instead of having had it deleted.
    /// Raises GltfToWadRefused for arrays that are wrong (code `unreadable`, naming the node), as
    /// for everything `gltf_to_wad` refuses; WadError when the base cannot be read or `scene`
    /// is not shaped as said.
    #[pyfunction]
    #[pyo3(signature = (base, scene, force = false, snap_uvs = false, generate_collision = true, tile_collision_given = true))]
    fn scene_to_wad<'py>(
        py: Python<'py>,
        base: Cow<'_, [u8]>,
        scene: &Bound<'py, PyAny>,
        force: bool,
        snap_uvs: bool,
        generate_collision: bool,
        tile_collision_given: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
        let arrays = super::scene::scene_arrays(py, scene)?;
        let input = scene_input(&arrays, &base);
        let options = wad_gltf::GltfToWadOptions {
            force,
            snap_uvs,
            generate_collision,
            tile_collision_given,
        };
        super::written_level(py, input, &base, options, |level, options| {
            Ok(wad_gltf::scene_to_wad(level, &base, arrays, options))
        })
    }

    /// check_scene(base: bytes, scene: dict, force: bool = False, snap_uvs: bool = False, generate_collision: bool = True, tile_collision_given: bool = True) -> tuple[dict, dict, list[int]]
    ///
    /// The add-on's Check level: the scene converted as `scene_to_wad` converts it, and what
    /// `check` says of the result against the base, from one conversion and one check. Returns
    /// the change report, the check's report (problems the base has already marked
    /// `pre_existing`) and the TRAK model of each tile of the result. Raises like scene_to_wad.
    #[pyfunction]
    #[pyo3(signature = (base, scene, force = false, snap_uvs = false, generate_collision = true, tile_collision_given = true))]
    fn check_scene<'py>(
        py: Python<'py>,
        base: Cow<'_, [u8]>,
        scene: &Bound<'py, PyAny>,
        force: bool,
        snap_uvs: bool,
        generate_collision: bool,
        tile_collision_given: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Vec<u32>)> {
        let arrays = super::scene::scene_arrays(py, scene)?;
        let input = scene_input(&arrays, &base);
        let options = wad_gltf::GltfToWadOptions {
            force,
            snap_uvs,
            generate_collision,
            tile_collision_given,
        };
        let checked = super::against_base(py, input, &base, options, |level, options| {
            Ok(wad_gltf::scene_to_wad_checked(
                level, &base, arrays, options,
            ))
        })?;
        let tile_models = checked
            .level
            .map()
            .map(|m| m.tiles.iter().map(|t| t.model_index).collect())
            .unwrap_or_default();
        Ok((
            to_python(py, &checked.report)?,
            to_python(py, &checked.check)?,
            tile_models,
        ))
    }

    /// What a conversion of `arrays` against `base` was, for a message about its failure.
    fn scene_input<'a>(
        arrays: &wad_gltf::SceneArrays,
        base: &'a [u8],
    ) -> impl FnOnce() -> String + Send + 'a {
        let (nodes, meshes) = (arrays.nodes.len(), arrays.meshes.len());
        move || {
            format!(
                "a scene of {nodes} nodes and {meshes} meshes against {}",
                bytes_input("a base level", base)
            )
        }
    }
}

/// Runs one conversion of the way back against the base with the GIL released, with the options
/// the Python functions take, and hands the written level's bytes and the change report to
/// Python: a refusal as GltfToWadRefused, the reading of the base or of what `convert` reads (its
/// `Err`) as WadError.
fn written_level<'py>(
    py: Python<'py>,
    input: impl FnOnce() -> String + Send,
    base: &[u8],
    options: wad_gltf::GltfToWadOptions,
    convert: impl FnOnce(
            &Level,
            wad_gltf::GltfToWadOptions,
        ) -> Result<Converted<(Level, wad_gltf::ChangeReport)>, String>
        + Send,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    let (bytes, report) = against_base(py, input, base, options, |level, options| {
        Ok(convert(level, options)?.map(|(written, report)| {
            written
                .to_bytes()
                .map(|bytes| (bytes, report))
                .map_err(|e| CoreError::from(e).to_string())
        }))
    })?
    .map_err(WadError::new_err)?;
    Ok((PyBytes::new(py, &bytes), to_python(py, &report)?))
}

/// One conversion of the way back against the base, read from its bytes, with the GIL released:
/// its refusal as GltfToWadRefused, the reading of the base or of what `convert` reads (its
/// `Err`) as WadError.
fn against_base<T: Send>(
    py: Python<'_>,
    input: impl FnOnce() -> String + Send,
    base: &[u8],
    options: wad_gltf::GltfToWadOptions,
    convert: impl FnOnce(&Level, wad_gltf::GltfToWadOptions) -> Result<Converted<T>, String> + Send,
) -> PyResult<T> {
    let result = detach(py, input, || {
        let other = |e: String| ImportFailure::Other(e);
        let level =
            Level::parse(base).map_err(|e| other(format!("base: {}", CoreError::from(e))))?;
        convert(&level, options)
            .map_err(other)?
            .map_err(ImportFailure::Refused)
    })?;
    result.map_err(|f| import_failure(py, f))
}

/// A conversion of the way back, or its refusal.
type Converted<T> = Result<T, wad_gltf::GltfToWadError>;
