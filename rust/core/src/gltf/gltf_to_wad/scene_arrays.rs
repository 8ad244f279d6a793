//! A scene handed over as arrays instead of a glTF (the Blender add-on's export): nodes with
//! their names, parents, local transforms and extras, meshes as per-corner attribute arrays named
//! as the glTF mapping names them (MAPPING.md). They may come from anyone, so they are checked
//! like a file from a stranger before the conversion reads them: parents before their children
//! and no deeper than a glTF may nest, indices that name what exists, transforms and attribute
//! values that are finite numbers, every array as long as its corners need.

use crate::codes::Code;
use glam::{Mat4, Vec3};
use image::RgbaImage;
use rustc_hash::FxHashMap;

use super::error::GltfToWadError;
use super::scene::{ImageData, MaterialImage, Node, Scene};
use crate::gltf::material::Material;
use crate::gltf::read::{
    extras_json, is_mapping_attribute, spelled_out, Document, ReadError, Triangles,
    MAX_MESH_TRIANGLES, MAX_NODE_DEPTH,
};
use crate::level::text::MAX_PAGE_SIDE;

/// The scene: what a glTF's level scene says, as arrays.
#[derive(Debug, Clone, Default)]
pub struct SceneArrays {
    /// Our extras of the scene: the object a glTF's scene extras hold under `llamawad`
    /// (`source`, `regions`, …).
    pub extras: Option<serde_json::Value>,
    pub nodes: Vec<NodeArrays>,
    pub meshes: Vec<MeshArrays>,
    /// The images materials show.
    pub images: Vec<ImageArrays>,
    /// (material name, index into `images`): the base-colour image each material shows. A
    /// page's material shows its page's image; any other material's image is a new texture.
    pub material_images: Vec<(String, usize)>,
    /// (material name, extras): what a glTF material's extras say, by the name the meshes give
    /// it (a page's material: `{"llamawad": "page", "page": 3, "blend": 0, …}`). A material
    /// without says its page in its name, if at all (`material.rs`).
    pub material_extras: Vec<(String, serde_json::Value)>,
}

/// An image: RGBA, 8 bits a channel, rows top first (as a page's, and a glTF's image).
#[derive(Debug, Clone)]
pub struct ImageArrays {
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
    /// Why the tool handing the image over has no pixels for it (its file is gone), if so: the
    /// image is then one this tool does not read, as a glTF's image by URI (a page keeps its
    /// pixels, a new texture is refused by material), and its size and bytes are not looked at.
    pub missing: Option<String>,
}

/// A node, as a glTF node would be.
#[derive(Debug, Clone)]
pub struct NodeArrays {
    pub name: Option<String>,
    /// Its parent's index among the nodes: a parent comes before its children.
    pub parent: Option<usize>,
    /// Its transform in its parent's frame, file space, column-major (a glTF node's `matrix`).
    pub matrix: [f32; 16],
    /// Its mesh's index among the meshes.
    pub mesh: Option<usize>,
    /// Its extras (`{"llamawad": "tile", "tile": 12, …}`).
    pub extras: Option<serde_json::Value>,
}

/// A mesh: triangles, three corners each. Values may be given per corner, or once per point
/// (a Blender vertex) or face and spread over the corners by index, as a Blender mesh holds
/// them: a tile's mesh is handed over without first being spread in Python, which costs more
/// than the rest of an export.
#[derive(Debug, Clone, Default)]
pub struct MeshArrays {
    /// Per-corner values by the mapping's names: `POSITION` (three a corner), `NORMAL` (three),
    /// `TEXCOORD_0` (two), `COLOR_0` (three or four) and the custom attributes such as `_FLAGS`
    /// or `_RGB_0` (one).
    pub attributes: Vec<(String, Vec<f32>)>,
    /// Values by the same names once per point (`COLOR_0`: four), a corner's at its point.
    pub point_attributes: Vec<(String, Vec<f32>)>,
    /// Each corner's point.
    pub corner_points: Vec<u32>,
    /// Values by the same names once per face, a triangle's at its face.
    pub face_attributes: Vec<(String, Vec<f32>)>,
    /// Each triangle's face.
    pub triangle_faces: Vec<u32>,
    /// The names of the materials the triangles use (None: a slot without a material); what
    /// each says is in the scene's `material_extras`.
    pub materials: Vec<Option<String>>,
    /// Each triangle's material, an index into `materials`; empty when every triangle has the
    /// first (or none, when there is no material).
    pub triangle_materials: Vec<u32>,
}

/// Why arrays cannot be read: refused like a glTF that cannot be read.
fn unreadable(node: Option<&Node>, message: String) -> GltfToWadError {
    match node {
        Some(n) => GltfToWadError::node(&n.culprit(), message),
        None => GltfToWadError::level(message),
    }
    .code(Code::Unreadable)
}

impl Scene<'static> {
    /// The scene of arrays, every node checked; a mesh's faults are told when a node reads it, as
    /// a glTF's are.
    pub(super) fn of_arrays(arrays: SceneArrays) -> Result<Scene<'static>, GltfToWadError> {
        let SceneArrays {
            extras,
            nodes,
            meshes,
            images,
            material_images,
            material_extras,
        } = arrays;
        let images = images
            .into_iter()
            .map(checked_image)
            .collect::<Result<Vec<_>, _>>()?;
        if let Some((material, image)) = material_images.iter().find(|(_, i)| *i >= images.len()) {
            return Err(unreadable(
                None,
                format!(
                    "material '{material}' shows image {image}, but there are {} images",
                    images.len()
                ),
            ));
        }
        // Our own object, as the tool keeps it: nothing a glTF exporter made of it to undo.
        if extras.as_ref().is_some_and(|value| !value.is_object()) {
            return Err(unreadable(
                None,
                "the scene's extras are not a JSON object".into(),
            ));
        }
        let count = nodes.len();
        let mut checked: Vec<Node> = Vec::with_capacity(count);
        let mut depth = vec![0usize; count];
        let mut roots = Vec::new();
        for (index, given) in nodes.into_iter().enumerate() {
            let mut node = Node {
                index,
                name: given.name,
                extras: given.extras.map(spelled_out),
                parent: None,
                children: Vec::new(),
                world: Mat4::IDENTITY,
                mesh: None,
            };
            let refuse = |node: &Node, message: String| Err(unreadable(Some(node), message));
            if let Some(m) = given.mesh {
                if m >= meshes.len() {
                    let n = meshes.len();
                    return refuse(&node, format!("names mesh {m}, but there are {n} meshes"));
                }
                node.mesh = Some(m);
            }
            let local = Mat4::from_cols_array(&given.matrix);
            let parent_world = match given.parent {
                None => {
                    roots.push(index);
                    depth[index] = 1;
                    Mat4::IDENTITY
                }
                Some(p) if p < index => {
                    depth[index] = depth[p] + 1;
                    checked[p].children.push(index);
                    checked[p].world
                }
                Some(p) => {
                    return refuse(
                        &node,
                        format!("names node {p} as its parent: a parent comes before its children"),
                    )
                }
            };
            if depth[index] > MAX_NODE_DEPTH {
                return refuse(
                    &node,
                    format!(
                        "is nested {} nodes deep; at most {MAX_NODE_DEPTH} are read",
                        depth[index]
                    ),
                );
            }
            node.world = parent_world * local;
            if !local.is_finite() || !node.world.is_finite() {
                return refuse(
                    &node,
                    "its transform is not made of finite numbers (or overflows in its parents' frame)"
                        .into(),
                );
            }
            checked.push(node);
        }
        // Walked as a glTF's nodes are: depth first from the roots, children in order.
        let mut order = Vec::with_capacity(count);
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(checked[i].children.iter().rev());
        }
        let mut slots: Vec<Option<Node>> = checked.into_iter().map(Some).collect();
        let walked = order
            .into_iter()
            .map(|i| slots[i].take().expect("each node is walked once"))
            .collect();
        let extras_of: FxHashMap<String, serde_json::Value> = material_extras
            .into_iter()
            .map(|(name, extras)| (name, spelled_out(extras)))
            .collect();
        let material =
            |name: Option<&str>| Material::read(name, name.and_then(|n| extras_of.get(n)));
        let meshes = meshes
            .into_iter()
            .map(|mesh| mesh_triangles(mesh, &material))
            .collect();
        let mut scene = Scene::of_checked_arrays(walked, extras, count, meshes);
        scene.images = images;
        scene.material_images = material_images
            .into_iter()
            .map(|(name, image)| MaterialImage {
                page: material(Some(&name)).page,
                name,
                image,
            })
            .collect();
        Ok(scene)
    }
}

/// An image's pixels, its size checked against its bytes and against the largest page side the
/// reader takes (as a PNG's is) before they are taken.
fn checked_image(image: ImageArrays) -> Result<ImageData<'static>, GltfToWadError> {
    let ImageArrays {
        name,
        width,
        height,
        rgba,
        missing,
    } = image;
    if let Some(why) = missing {
        return Ok(ImageData::Unread(format!(
            "image '{name}' has no pixels: {why}"
        )));
    }
    let sides = 1..=MAX_PAGE_SIDE;
    let wanted = width as usize * height as usize * 4;
    if !sides.contains(&width) || !sides.contains(&height) || rgba.len() != wanted {
        return Err(unreadable(
            None,
            format!(
                "image '{name}' is {width}×{height} with {} bytes: images are 1 to \
                 {MAX_PAGE_SIDE} pixels a side, 4 bytes (RGBA) a pixel",
                rgba.len()
            ),
        ));
    }
    let pixels = RgbaImage::from_raw(width, height, rgba).ok_or_else(|| {
        unreadable(
            None,
            format!("image '{name}': its bytes are not its pixels"),
        )
    })?;
    Ok(ImageData::Pixels(pixels))
}

/// How many values a corner has of an attribute, by its name; None for a name the mapping does
/// not carry. `COLOR_0` may have three or four: `None` asks for either.
fn components(name: &str) -> Option<Option<usize>> {
    match name {
        "POSITION" | "NORMAL" => Some(Some(3)),
        "TEXCOORD_0" => Some(Some(2)),
        "COLOR_0" => Some(None),
        _ => name
            .strip_prefix('_')
            .filter(|n| is_mapping_attribute(n))
            .map(|_| Some(1)),
    }
}

fn read_error(message: String) -> ReadError {
    ReadError {
        message,
        faces: Vec::new(),
    }
}

/// Values given once per element (point or face), spread over the corners: `index` names the
/// element of every `repeat` corners. Each index is checked against every attribute's elements.
fn spread(
    given: Vec<(String, Vec<f32>)>,
    index: &[u32],
    repeat: usize,
    domain: &str,
    attributes: &mut Vec<(String, Vec<f32>)>,
) -> Result<(), ReadError> {
    let needed = index.iter().max().map_or(0, |&last| last as usize + 1);
    for (name, values) in given {
        let Some(width) = components(&name) else {
            return Err(read_error(format!(
                "{name} is not an attribute of the mapping (POSITION, NORMAL, TEXCOORD_0, COLOR_0, _FLAGS, …)"
            )));
        };
        let width = width.unwrap_or(4);
        let elements = values.len() / width;
        if values.len() % width != 0 || elements < needed {
            return Err(read_error(format!(
                "{name} has {} values, not {width} for each of at least {needed} {domain}s the \
                 corners name",
                values.len(),
            )));
        }
        let mut spread = Vec::with_capacity(index.len() * repeat * width);
        for &e in index {
            let element = &values[e as usize * width..][..width];
            for _ in 0..repeat {
                spread.extend_from_slice(element);
            }
        }
        attributes.push((name, spread));
    }
    Ok(())
}

/// A mesh's arrays as triangles, every length, value and index checked; `material` reads a
/// material by its name.
fn mesh_triangles(
    mesh: MeshArrays,
    material: &impl Fn(Option<&str>) -> Material,
) -> Result<Triangles, ReadError> {
    let MeshArrays {
        mut attributes,
        point_attributes,
        corner_points,
        face_attributes,
        triangle_faces,
        materials,
        triangle_materials,
    } = mesh;
    // Counts come first, before anything is spread out.
    if corner_points.len() / 3 > MAX_MESH_TRIANGLES || triangle_faces.len() > MAX_MESH_TRIANGLES {
        return Err(read_error(format!(
            "has more than {MAX_MESH_TRIANGLES} triangles, more than a level can use"
        )));
    }
    spread(
        point_attributes,
        &corner_points,
        1,
        "point",
        &mut attributes,
    )?;
    spread(face_attributes, &triangle_faces, 3, "face", &mut attributes)?;
    let Some((_, positions)) = attributes.iter().find(|(name, _)| name == "POSITION") else {
        return Err(read_error("it has no POSITION".into()));
    };
    if positions.len() % 9 != 0 {
        return Err(read_error(format!(
            "POSITION has {} values, not three a corner for whole triangles",
            positions.len()
        )));
    }
    let corners = positions.len() / 3;
    let count = corners / 3;
    if count > MAX_MESH_TRIANGLES {
        return Err(read_error(format!(
            "has more than {MAX_MESH_TRIANGLES} triangles, more than a level can use"
        )));
    }
    for (k, (name, _)) in attributes.iter().enumerate() {
        if attributes[..k].iter().any(|(other, _)| other == name) {
            return Err(read_error(format!("{name} is given twice")));
        }
    }
    let mut out = Triangles::default();
    for (name, values) in attributes {
        let Some(wanted) = components(&name) else {
            return Err(read_error(format!(
                "{name} is not an attribute of the mapping (POSITION, NORMAL, TEXCOORD_0, COLOR_0, _FLAGS, …)"
            )));
        };
        let per_corner = match wanted {
            Some(n) => n,
            None if values.len() == 3 * corners => 3,
            None => 4,
        };
        if values.len() != per_corner * corners {
            return Err(read_error(format!(
                "{name} has {} values, not {per_corner} for each of the {corners} corners",
                values.len()
            )));
        }
        // NaN is "no value" at a corner in a custom attribute (the mapping's), and no UV or
        // colour there in TEXCOORD_0 and COLOR_0 (what the reader makes of a glTF primitive
        // without them); every other value must be a finite number.
        let no_value_is_nan = name.starts_with('_') || name == "TEXCOORD_0" || name == "COLOR_0";
        let wrong = |v: &f32| !(v.is_finite() || no_value_is_nan && v.is_nan());
        let faces: Vec<usize> = values
            .chunks_exact(3 * per_corner)
            .enumerate()
            .filter(|(_, t)| t.iter().any(wrong))
            .map(|(t, _)| t)
            .collect();
        if !faces.is_empty() {
            let what = if no_value_is_nan {
                "infinity"
            } else {
                "NaN or infinity"
            };
            return Err(ReadError {
                message: format!("{name} holds values that are not finite numbers ({what})"),
                faces,
            });
        }
        match name.as_str() {
            "POSITION" => out.positions = values.chunks_exact(3).map(Vec3::from_slice).collect(),
            "TEXCOORD_0" => out.uvs = Some(values.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
            "COLOR_0" => {
                out.colours = Some(
                    values
                        .chunks_exact(per_corner)
                        .map(|c| [c[0], c[1], c[2], c.get(3).copied().unwrap_or(1.0)])
                        .collect(),
                )
            }
            "NORMAL" => {}
            custom => {
                out.scalars.insert(custom[1..].to_string(), values);
            }
        }
    }
    let materials: Vec<Material> = materials.iter().map(|m| material(m.as_deref())).collect();
    out.materials = if triangle_materials.is_empty() {
        vec![materials.first().cloned().unwrap_or_default(); count]
    } else {
        if triangle_materials.len() != count {
            return Err(read_error(format!(
                "{} triangle materials for {count} triangles",
                triangle_materials.len()
            )));
        }
        let bad: Vec<usize> = (0..count)
            .filter(|&t| triangle_materials[t] as usize >= materials.len())
            .collect();
        if let Some(&t) = bad.first() {
            return Err(ReadError {
                message: format!(
                    "material {} of a triangle is not among the mesh's {} materials",
                    triangle_materials[t],
                    materials.len()
                ),
                faces: bad,
            });
        }
        triangle_materials
            .iter()
            .map(|&m| materials[m as usize].clone())
            .collect()
    };
    Ok(out)
}

impl SceneArrays {
    /// The arrays of a glTF's scene: what a tool would hand over instead of writing that glTF,
    /// its nodes numbered anew, parents first. Tests put the two front doors side by side with
    /// it. Fails where a mesh cannot be read; an image it cannot read is handed over as missing,
    /// with why.
    pub fn of_document(doc: &Document) -> Result<SceneArrays, ReadError> {
        let walked = doc.world_nodes();
        let mut number = vec![None; doc.document.nodes().len()];
        for (k, (node, _)) in walked.iter().enumerate() {
            number[node.index()] = Some(k);
        }
        let mut parents = vec![None; walked.len()];
        for (k, (node, _)) in walked.iter().enumerate() {
            for child in node.children() {
                if let Some(c) = number[child.index()] {
                    parents[c] = Some(k);
                }
            }
        }
        let nodes = walked
            .iter()
            .zip(parents)
            .map(|((node, _), parent)| NodeArrays {
                name: node.name().map(str::to_string),
                parent,
                matrix: Mat4::from_cols_array_2d(&node.transform().matrix()).to_cols_array(),
                mesh: node.mesh().map(|m| m.index()),
                extras: extras_json(node.extras()),
            })
            .collect();
        let meshes = doc
            .document
            .meshes()
            .map(|mesh| doc.triangles(&mesh).map(mesh_arrays))
            .collect::<Result<_, _>>()?;
        // The scene's extras and images as the glTF's scene reads them, the images decoded.
        let scene = Scene::of_document(doc);
        let extras = scene.extras.clone();
        let images = doc
            .document
            .images()
            .zip(&scene.images)
            .map(|(image, data)| {
                let name = image.name().unwrap_or_default().to_string();
                match data.pixels() {
                    Ok(pixels) => ImageArrays {
                        name,
                        width: pixels.width(),
                        height: pixels.height(),
                        rgba: pixels.into_owned().into_raw(),
                        missing: None,
                    },
                    Err(why) => ImageArrays {
                        name,
                        width: 0,
                        height: 0,
                        rgba: Vec::new(),
                        missing: Some(why),
                    },
                }
            })
            .collect();
        let material_images = scene
            .material_images
            .iter()
            .map(|m| (m.name.clone(), m.image))
            .collect();
        let material_extras = doc
            .document
            .materials()
            .filter_map(|m| Some((m.name()?.to_string(), extras_json(m.extras())?)))
            .collect();
        Ok(SceneArrays {
            extras,
            nodes,
            meshes,
            images,
            material_images,
            material_extras,
        })
    }
}

/// A mesh's triangles as the arrays that name them.
fn mesh_arrays(tris: Triangles) -> MeshArrays {
    let mut attributes = vec![(
        "POSITION".to_string(),
        tris.positions.iter().flat_map(|p| p.to_array()).collect(),
    )];
    if let Some(uvs) = tris.uvs {
        attributes.push((
            "TEXCOORD_0".to_string(),
            uvs.into_iter().flatten().collect(),
        ));
    }
    if let Some(colours) = tris.colours {
        attributes.push((
            "COLOR_0".to_string(),
            colours.into_iter().flatten().collect(),
        ));
    }
    let mut scalars: Vec<_> = tris.scalars.into_iter().collect();
    scalars.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    attributes.extend(scalars.into_iter().map(|(name, v)| (format!("_{name}"), v)));
    let mut materials: Vec<Option<String>> = Vec::new();
    let triangle_materials = tris
        .materials
        .into_iter()
        .map(|m| m.name)
        .map(|m| match materials.iter().position(|known| *known == m) {
            Some(k) => k as u32,
            None => {
                materials.push(m);
                materials.len() as u32 - 1
            }
        })
        .collect();
    MeshArrays {
        attributes,
        materials,
        triangle_materials,
        ..MeshArrays::default()
    }
}
