//! The scene `scene_to_wad` is handed (the add-on's export): a dict of columns and numpy buffers,
//! taken into the core's [`SceneArrays`](wad_gltf::SceneArrays). Only its shape is checked here;
//! what the arrays say is the core's to check, as for a glTF from a stranger.

use std::collections::BTreeMap;

use llamawad::gltf as wad_gltf;
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;

use crate::WadError;
use llamawad::level::text::MAX_PAGE_SIDE;

/// The scene `scene_to_wad` is given, as its doc says.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct SceneColumns<'py> {
    extras: Option<Bound<'py, PyAny>>,
    nodes: NodeColumns<'py>,
    meshes: Vec<MeshColumns>,
    #[pyo3(default)]
    images: Vec<ImageColumns>,
    #[pyo3(default)]
    material_images: BTreeMap<String, usize>,
    #[pyo3(default)]
    material_extras: BTreeMap<String, Bound<'py, PyAny>>,
}

/// An image: RGBA8 pixels, rows top first.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct ImageColumns {
    name: String,
    width: u32,
    height: u32,
    pixels: PyBuffer<u8>,
    #[pyo3(default)]
    missing: Option<String>,
}

#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct NodeColumns<'py> {
    name: Vec<Option<String>>,
    parent: PyBuffer<i32>,
    matrix: PyBuffer<f32>,
    mesh: PyBuffer<i32>,
    extras: Vec<Option<Bound<'py, PyAny>>>,
}

#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct MeshColumns {
    attributes: BTreeMap<String, PyBuffer<f32>>,
    #[pyo3(default)]
    point_attributes: BTreeMap<String, PyBuffer<f32>>,
    #[pyo3(default)]
    corner_points: Option<PyBuffer<u32>>,
    #[pyo3(default)]
    face_attributes: BTreeMap<String, PyBuffer<f32>>,
    #[pyo3(default)]
    triangle_faces: Option<PyBuffer<u32>>,
    materials: Vec<Option<String>>,
    triangle_materials: PyBuffer<u32>,
}

/// Extras given as Python values (dicts, lists, strings, numbers, booleans, None): what JSON can
/// hold, else WadError naming `what`.
fn json(value: &Bound<'_, PyAny>, what: &str) -> PyResult<serde_json::Value> {
    pythonize::depythonize(value)
        .map_err(|e| WadError::new_err(format!("scene: {what} are not what JSON can hold: {e}")))
}

/// The scene's columns as the core's arrays, each buffer copied once; a dict not shaped as
/// `scene_to_wad` says raises WadError.
pub(crate) fn scene_arrays<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
) -> PyResult<wad_gltf::SceneArrays> {
    // PyO3 says which field failed in the error, and why in its causes.
    let shape = |e: PyErr| {
        let mut message = format!("scene: {e}");
        let mut cause = e.cause(py);
        while let Some(c) = cause {
            message.push_str(&format!(": {c}"));
            cause = c.cause(py);
        }
        WadError::new_err(message)
    };
    let columns: SceneColumns = scene.extract().map_err(shape)?;
    let nodes = &columns.nodes;
    let (parents, matrices, meshes) = (
        nodes.parent.to_vec(py).map_err(shape)?,
        nodes.matrix.to_vec(py).map_err(shape)?,
        nodes.mesh.to_vec(py).map_err(shape)?,
    );
    let count = nodes.name.len();
    let lengths = [
        parents.len(),
        matrices.len() / 16,
        meshes.len(),
        nodes.extras.len(),
    ];
    if lengths.iter().any(|&n| n != count) || matrices.len() % 16 != 0 {
        return Err(WadError::new_err(format!(
            "scene: the node columns disagree: {count} names, {} parents, {} matrix values, {} \
             meshes, {} extras",
            parents.len(),
            matrices.len(),
            meshes.len(),
            nodes.extras.len()
        )));
    }
    // -1 is "none"; any other negative number is a mistake, not a node without one.
    let number = |k: usize, column: &str, v: i32| match v {
        -1 => Ok(None),
        v => usize::try_from(v).map(Some).map_err(|_| {
            WadError::new_err(format!(
                "scene: node {k}: {column} {v} (a number, or -1 for none)"
            ))
        }),
    };
    let nodes = (0..count)
        .map(|k| {
            Ok(wad_gltf::NodeArrays {
                name: nodes.name[k].clone(),
                parent: number(k, "parent", parents[k])?,
                matrix: matrices[16 * k..16 * k + 16]
                    .try_into()
                    .expect("16 values a node, checked above"),
                mesh: number(k, "mesh", meshes[k])?,
                extras: nodes.extras[k]
                    .as_ref()
                    .map(|extras| json(extras, &format!("node {k}'s extras")))
                    .transpose()?,
            })
        })
        .collect::<PyResult<_>>()?;
    let meshes = columns
        .meshes
        .into_iter()
        .map(|mesh| {
            let named = |columns: BTreeMap<String, PyBuffer<f32>>| {
                columns
                    .into_iter()
                    .map(|(name, values)| Ok((name, values.to_vec(py)?)))
                    .collect::<PyResult<_>>()
            };
            let index = |column: Option<PyBuffer<u32>>| {
                column.map_or(Ok(Vec::new()), |values| values.to_vec(py))
            };
            Ok(wad_gltf::MeshArrays {
                attributes: named(mesh.attributes)?,
                point_attributes: named(mesh.point_attributes)?,
                corner_points: index(mesh.corner_points)?,
                face_attributes: named(mesh.face_attributes)?,
                triangle_faces: index(mesh.triangle_faces)?,
                materials: mesh.materials,
                triangle_materials: mesh.triangle_materials.to_vec(py)?,
            })
        })
        .collect::<PyResult<_>>()
        .map_err(shape)?;
    // The core checks each image's size against its bytes before taking its pixels; a buffer
    // is copied only when it is no larger than the largest image read, so that a stranger's
    // huge buffer is refused before it is copied.
    let most = (MAX_PAGE_SIDE as usize).pow(2) * 4;
    let images = columns
        .images
        .into_iter()
        .map(|image| {
            let bytes = image.pixels.item_count();
            let rgba = if bytes <= most {
                image.pixels.to_vec(py)?
            } else {
                return Err(WadError::new_err(format!(
                    "scene: image '{}' has {bytes} bytes, more than an image of \
                     {MAX_PAGE_SIDE}×{MAX_PAGE_SIDE} RGBA pixels, the largest read",
                    image.name
                )));
            };
            Ok(wad_gltf::ImageArrays {
                name: image.name,
                width: image.width,
                height: image.height,
                rgba,
                missing: image.missing,
            })
        })
        .collect::<PyResult<_>>()?;
    Ok(wad_gltf::SceneArrays {
        extras: columns
            .extras
            .as_ref()
            .map(|extras| json(extras, "the scene's extras"))
            .transpose()?,
        nodes,
        meshes,
        images,
        material_images: columns.material_images.into_iter().collect(),
        material_extras: columns
            .material_extras
            .iter()
            .map(|(name, extras)| {
                Ok((
                    name.clone(),
                    json(extras, &format!("material '{name}''s extras"))?,
                ))
            })
            .collect::<PyResult<_>>()?,
    })
}
