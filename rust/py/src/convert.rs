//! The level to glTF or to the add-on's arrays, and a glTF or the add-on's scene back to a level
//! against its base: the core's `gltf::wad_to_gltf` and `gltf::gltf_to_wad`.

use std::borrow::Cow;
use std::path::PathBuf;

use llamawad::gltf::wad_to_gltf::hand_over::hand_over;
use llamawad::gltf::{self as wad_gltf, Gltf, Source};
use llamawad::{Level, WadError as CoreError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::{bytes_input, detach, set_fields, to_python, Failure, GltfToWadRefused};

/// wad_to_glb(data: bytes) -> tuple[bytes, list[str]]
///
/// Converts a level WAD to glTF 2.0 and returns the binary glTF (.glb) and the conversion's
/// warnings (e.g. placeholder texture pages). Raises WadError if the level cannot be read or
/// converted.
#[pyfunction]
pub fn wad_to_glb<'py>(
    py: Python<'py>,
    data: Cow<'_, [u8]>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<String>)> {
    let (glb, warnings) = detach(
        py,
        || bytes_input("a level", &data),
        || {
            let gltf = convert(&data)?;
            let glb = gltf.to_glb().map_err(|e| e.to_string())?;
            Ok::<_, Failure>((glb, gltf.warnings))
        },
    )??;
    Ok((PyBytes::new(py, &glb), warnings))
}

/// wad_to_gltf(data: bytes) -> tuple[str, bytes, list[str]]
///
/// Converts a level WAD to glTF 2.0 and returns the glTF JSON text, its one binary buffer and
/// the conversion's warnings. The JSON's buffer 0 has no "uri": the caller holds the buffer
/// (as a GLB does) and reads accessors straight out of it. Raises WadError like wad_to_glb.
#[pyfunction]
pub fn wad_to_gltf<'py>(
    py: Python<'py>,
    data: Cow<'_, [u8]>,
) -> PyResult<(String, Bound<'py, PyBytes>, Vec<String>)> {
    let (json, gltf) = detach(
        py,
        || bytes_input("a level", &data),
        || {
            let gltf = convert(&data)?;
            let json = gltf.root.to_string().expect("a glTF document serialises");
            Ok::<_, Failure>((json, gltf))
        },
    )??;
    Ok((json, PyBytes::new(py, &gltf.bin), gltf.warnings))
}

/// What wad_to_scene returns.
pub type HandOver<'py> = (
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
pub fn wad_to_scene<'py>(py: Python<'py>, data: Cow<'_, [u8]>) -> PyResult<HandOver<'py>> {
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
            Ok::<_, Failure>((level, warnings))
        },
    )??;
    let bytes = |all: &[Vec<u8>]| all.iter().map(|b| PyBytes::new(py, b)).collect();
    Ok((
        to_python(py, &level.info)?,
        bytes(&level.arrays),
        PyBytes::new(py, &level.transforms),
        bytes(&level.pngs),
        warnings,
    ))
}

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
pub fn gltf_to_wad<'py>(
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
    written_level(py, input, &base, options, |level, options| {
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
/// base colour); `material_extras`, a dict of material name to its extras (a dict: a page's
/// material's say `{"llamawad": "page", "page": 3, "blend": 0, "double_sided": False}`; a
/// material without says its page by its name, `page 3 blend 0`, if at all). A page's
/// material shows its page: an image that differs from the page is written into it. Any other
/// material's image is a new texture, placed on new pages (resampled to fit a page when
/// larger), its faces fitted within it.
/// `tile_collision_given` False says the scene leaves tile collision out: a tile without a
/// collision node keeps its model's instead of having had it deleted.
/// Raises GltfToWadRefused for arrays that are wrong (code `unreadable`, naming the node), as
/// for everything `gltf_to_wad` refuses; WadError when the base cannot be read or `scene`
/// is not shaped as said.
#[pyfunction]
#[pyo3(signature = (base, scene, force = false, snap_uvs = false, generate_collision = true, tile_collision_given = true))]
pub fn scene_to_wad<'py>(
    py: Python<'py>,
    base: Cow<'_, [u8]>,
    scene: &Bound<'py, PyAny>,
    force: bool,
    snap_uvs: bool,
    generate_collision: bool,
    tile_collision_given: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    let options = wad_gltf::GltfToWadOptions {
        force,
        snap_uvs,
        generate_collision,
        tile_collision_given,
    };
    let (arrays, input) = scene_given(py, scene, &base)?;
    written_level(py, input, &base, options, |level, options| {
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
pub fn check_scene<'py>(
    py: Python<'py>,
    base: Cow<'_, [u8]>,
    scene: &Bound<'py, PyAny>,
    force: bool,
    snap_uvs: bool,
    generate_collision: bool,
    tile_collision_given: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Vec<u32>)> {
    let options = wad_gltf::GltfToWadOptions {
        force,
        snap_uvs,
        generate_collision,
        tile_collision_given,
    };
    let (arrays, input) = scene_given(py, scene, &base)?;
    let checked = against_base(py, input, &base, options, |level, options| {
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

/// The scene handed over as the core's arrays, and what names it (with the base) in an internal
/// error's report.
fn scene_given<'a>(
    py: Python<'_>,
    scene: &Bound<'_, PyAny>,
    base: &'a [u8],
) -> PyResult<(wad_gltf::SceneArrays, impl FnOnce() -> String + Send + 'a)> {
    let arrays = crate::scene::scene_arrays(py, scene)?;
    let (nodes, meshes) = (arrays.nodes.len(), arrays.meshes.len());
    let input = move || {
        format!(
            "a scene of {nodes} nodes and {meshes} meshes against {}",
            bytes_input("a base level", base)
        )
    };
    Ok((arrays, input))
}

/// Why `gltf_to_wad` or `scene_to_wad` failed: a refusal of the scene (with its culprit), or any
/// other error.
enum ImportFailure {
    Refused(wad_gltf::GltfToWadError),
    Other(Failure),
}

fn import_failure(py: Python<'_>, failure: ImportFailure) -> PyErr {
    match failure {
        ImportFailure::Other(failure) => failure.into(),
        ImportFailure::Refused(e) => {
            let err = GltfToWadRefused::new_err(e.to_string());
            let value = err.value(py);
            let object = e.object().map(str::to_string);
            let node_index = e.node_index();
            // Every refusal of the conversion, this one first, each with its own culprit and
            // the numbers of its cause.
            let refusals = e
                .each()
                .map(|r| {
                    let d = to_python(py, &r.cause)?.cast_into::<PyDict>()?;
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
            let culprit = value
                .setattr("code", e.code.as_str())
                .and_then(|()| value.setattr("message", e.message.clone()))
                .and_then(|()| value.setattr("node_index", node_index))
                .and_then(|()| value.setattr("object", object))
                .and_then(|()| value.setattr("faces", e.faces))
                .and_then(|()| value.setattr("source_faces", e.source_faces))
                .and_then(|()| set_fields(value.as_any(), &to_python(py, &e.cause)?))
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

/// A level's bytes converted to glTF. Parse and export errors both become `WadError`.
fn convert(data: &[u8]) -> Result<Gltf, Failure> {
    let level = Level::parse(data)?;
    wad_gltf::wad_to_gltf(&level, Source::of(data)).map_err(|e| Failure::from(e.to_string()))
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
        ) -> Result<Converted<(Level, wad_gltf::ChangeReport)>, Failure>
        + Send,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    let (bytes, report) = against_base(py, input, base, options, |level, options| {
        Ok(convert(level, options)?.map(|(written, report)| {
            written
                .to_bytes()
                .map(|bytes| (bytes, report))
                .map_err(|e| Failure::from(CoreError::from(e)))
        }))
    })??;
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
    convert: impl FnOnce(&Level, wad_gltf::GltfToWadOptions) -> Result<Converted<T>, Failure> + Send,
) -> PyResult<T> {
    let result = detach(py, input, || {
        let level =
            Level::parse(base).map_err(|e| ImportFailure::Other(Failure::from(e).of("base")))?;
        convert(&level, options)
            .map_err(ImportFailure::Other)?
            .map_err(ImportFailure::Refused)
    })?;
    result.map_err(|f| import_failure(py, f))
}

/// A conversion of the way back, or its refusal.
type Converted<T> = Result<T, wad_gltf::GltfToWadError>;
