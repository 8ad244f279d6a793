//! The level's glTF handed to the Blender add-on as arrays: what its importer builds meshes,
//! objects and materials from, taken out of the document [`wad_to_gltf`](super::wad_to_gltf)
//! built (one mapping, MAPPING.md), so that Python parses no glTF.
//!
//! Meshes come in batches, one per node role (`tile`, `collision`, `zones`, `object_model`):
//! every attribute of every primitive of the batch's meshes concatenated, corner after corner,
//! as little-endian f32 bytes (what the accessors hold, byte for byte), with where each mesh
//! and primitive starts. The rest (nodes with their extras, materials, images, the scene's
//! extras) is small and plain: [`HandOver::info`] serialises to JSON.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};

use gltf::json::{
    self,
    accessor::{ComponentType, Type},
    material::AlphaMode,
    mesh::{Mode, Semantic},
    validation::Checked::Valid,
};
use serde::Serialize;

use super::Gltf;

/// The roles whose nodes' meshes the add-on builds, one batch each.
pub const BATCH_ROLES: [&str; 4] = ["tile", "collision", "zones", "object_model"];

/// The document is not one this project's exporter writes (a bug, never an input's fault).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the level's glTF cannot be handed over as arrays: {0}")]
pub struct HandOverError(pub HandOverFault);

/// What in the document is not as this project's exporter writes it, by its index there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandOverFault {
    #[error("image {image} is not in the buffer")]
    ImageNotInBuffer { image: usize },
    #[error("node {node} is missing or in a cycle")]
    NodeMissingOrInCycle { node: usize },
    #[error("buffer view {view} is missing")]
    ViewMissing { view: usize },
    #[error("buffer view {view} reaches past the buffer")]
    ViewPastBuffer { view: usize },
    #[error("accessor {accessor} is missing")]
    AccessorMissing { accessor: usize },
    #[error("accessor {accessor} is no scalar or vector")]
    AccessorNotVector { accessor: usize },
    #[error("accessor {accessor} is not plain float data in a buffer view")]
    AccessorNotPlainFloats { accessor: usize },
    #[error("accessor {accessor} is interleaved")]
    AccessorInterleaved { accessor: usize },
    #[error("accessor {accessor} reaches past its buffer view")]
    AccessorPastView { accessor: usize },
    #[error("mesh {mesh} is missing")]
    MeshMissing { mesh: usize },
    #[error("mesh {mesh} primitive {primitive} is no plain triangle list")]
    NotTriangleList { mesh: usize, primitive: usize },
    #[error("mesh {mesh} primitive {primitive}: its attributes differ in length")]
    AttributeLengthsDiffer { mesh: usize, primitive: usize },
    #[error("mesh {mesh} primitive {primitive} is not whole triangles with positions")]
    NotWholeTriangles { mesh: usize, primitive: usize },
    #[error("attribute {attribute} has different widths in one batch")]
    AttributeWidthsDiffer { attribute: String },
}

impl From<HandOverFault> for HandOverError {
    fn from(fault: HandOverFault) -> HandOverError {
        HandOverError(fault)
    }
}

/// The level's glTF as the add-on's importer reads it.
pub struct HandOver {
    pub info: HandOverInfo,
    /// The attribute arrays, little-endian f32, indexed by [`Attribute::array`].
    pub arrays: Vec<Vec<u8>>,
    /// Each image's PNG bytes, in the document's image order.
    pub pngs: Vec<Vec<u8>>,
    /// Per node of [`HandOverInfo::nodes`]: translation (3), rotation (x, y, z, w) and scale (3), as
    /// little-endian f32.
    pub transforms: Vec<u8>,
}

/// Everything but the arrays, as plain data.
#[derive(Debug, Serialize)]
pub struct HandOverInfo {
    /// The extras of each scene (`null` where it has none).
    pub scene_extras: Vec<Option<serde_json::Value>>,
    pub images: Vec<String>,
    pub materials: Vec<Material>,
    /// Every node of every scene, parents before children, in document order.
    pub nodes: Nodes,
    /// Keyed by role ([`BATCH_ROLES`]); a role without meshes has no batch.
    pub batches: BTreeMap<String, Batch>,
}

#[derive(Debug, Serialize)]
pub struct Material {
    pub name: String,
    pub base_colour: [f32; 4],
    /// Index of the image of its base colour texture.
    pub image: Option<usize>,
    /// `OPAQUE`, `MASK` or `BLEND`.
    pub alpha_mode: &'static str,
    pub double_sided: bool,
    /// Its extras (a page's material: `{"llamawad": "page", "page": 3, …}`), which the add-on
    /// keeps as the material's custom properties.
    pub extras: Option<serde_json::Value>,
}

/// The nodes, one list per field (a node is the same position in each).
#[derive(Debug, Serialize, Default)]
pub struct Nodes {
    pub scene: Vec<usize>,
    /// glTF node index of each node and of its parent.
    pub node: Vec<usize>,
    pub parent: Vec<Option<usize>>,
    pub name: Vec<Option<String>>,
    /// `extras.llamawad`, the node's role, where it is a string.
    pub role: Vec<Option<String>>,
    pub mesh: Vec<Option<usize>>,
    pub extras: Vec<Option<serde_json::Value>>,
}

/// Meshes handed over together.
#[derive(Debug, Serialize, Default)]
pub struct Batch {
    /// glTF mesh indices, in the order their nodes come.
    pub meshes: Vec<usize>,
    pub names: Vec<String>,
    /// Corners of mesh i: `corner_start[i]..corner_start[i + 1]`, three per triangle.
    pub corner_start: Vec<usize>,
    /// Per mesh: each primitive's material index and number of triangles.
    pub primitive_materials: Vec<Vec<Option<usize>>>,
    pub primitive_triangles: Vec<Vec<usize>>,
    pub attributes: Vec<Attribute>,
    /// Per mesh: the first mesh of the batch it differs from only in the tile's colours
    /// ([`is_tile_colour`]), where there is one: a tile whose model an earlier tile places
    /// (the add-on copies that mesh and sets the colours).
    pub same_but_colours: Vec<Option<usize>>,
}

/// One attribute over a whole batch (NORMAL is left out: Blender computes its own normals, the
/// way back the game's).
#[derive(Debug, Serialize)]
pub struct Attribute {
    /// As glTF names it: `POSITION`, `TEXCOORD_0`, `COLOR_0`, `_FLAGS`, …
    pub name: String,
    /// Components per corner.
    pub width: usize,
    /// Index into [`HandOver::arrays`].
    pub array: usize,
    /// Positions in the batch of the meshes none of whose primitives has it.
    pub meshes_without: Vec<usize>,
}

/// What a corner of a primitive without the attribute carries, when another primitive of the
/// batch has it: "none" for the index attributes, white for colours, 0 otherwise.
pub fn missing_value(name: &str) -> f32 {
    match name {
        "_FACE" | "_VERTEX" | "_POLYGON" | "_CELL" => -1.0,
        "COLOR_0" => 1.0,
        _ => 0.0,
    }
}

/// The attributes a tile has of its own while its model's primitives are shared (MAPPING.md,
/// "Render meshes"): `COLOR_0`, `_RGB_k`, `_ALPHA_k`.
pub fn is_tile_colour(name: &str) -> bool {
    name == "COLOR_0" || name.starts_with("_RGB_") || name.starts_with("_ALPHA_")
}

/// The level's glTF as arrays for the add-on.
pub fn hand_over(gltf: &Gltf) -> Result<HandOver, HandOverError> {
    let root = &gltf.root;
    let (nodes, transforms) = walk(root)?;
    let mut arrays = Vec::new();
    let mut batches = BTreeMap::new();
    for role in BATCH_ROLES {
        let mut seen = HashSet::new();
        let meshes: Vec<usize> = (nodes.role.iter().zip(&nodes.mesh))
            .filter_map(|(r, &mesh)| mesh.filter(|_| r.as_deref() == Some(role)))
            .filter(|&m| seen.insert(m))
            .collect();
        if !meshes.is_empty() {
            batches.insert(role.to_string(), batch(gltf, meshes, &mut arrays)?);
        }
    }
    let images = root
        .images
        .iter()
        .enumerate()
        .map(|(i, image)| image.name.clone().unwrap_or_else(|| format!("image {i}")))
        .collect();
    let pngs = root
        .images
        .iter()
        .enumerate()
        .map(|(i, image)| match image.buffer_view {
            Some(view) => view_bytes(gltf, view.value()).map(<[u8]>::to_vec),
            None => Err(HandOverFault::ImageNotInBuffer { image: i }.into()),
        })
        .collect::<Result<_, _>>()?;
    let materials = root
        .materials
        .iter()
        .map(|m| Material {
            name: m.name.clone().unwrap_or_else(|| "material".to_string()),
            base_colour: m.pbr_metallic_roughness.base_color_factor.0,
            image: m
                .pbr_metallic_roughness
                .base_color_texture
                .as_ref()
                .and_then(|t| root.textures.get(t.index.value()))
                .map(|t| t.source.value()),
            alpha_mode: match m.alpha_mode {
                Valid(AlphaMode::Mask) => "MASK",
                Valid(AlphaMode::Blend) => "BLEND",
                _ => "OPAQUE",
            },
            double_sided: m.double_sided,
            extras: extras_value(&m.extras),
        })
        .collect();
    Ok(HandOver {
        info: HandOverInfo {
            scene_extras: root
                .scenes
                .iter()
                .map(|s| extras_value(&s.extras))
                .collect(),
            images,
            materials,
            nodes,
            batches,
        },
        arrays,
        pngs,
        transforms,
    })
}

/// The nodes of every scene, parents before children, and their transforms.
fn walk(root: &json::Root) -> Result<(Nodes, Vec<u8>), HandOverError> {
    let mut out = Nodes::default();
    let mut transforms = Vec::with_capacity(root.nodes.len() * 40);
    // A forest visits each node once per scene at most; more means a cycle.
    let limit = root.nodes.len() * root.scenes.len();
    for (s, scene) in root.scenes.iter().enumerate() {
        let mut stack: Vec<(usize, Option<usize>)> = scene
            .nodes
            .iter()
            .rev()
            .map(|n| (n.value(), None))
            .collect();
        while let Some((index, parent)) = stack.pop() {
            let node = root
                .nodes
                .get(index)
                .filter(|_| out.node.len() < limit)
                .ok_or(HandOverFault::NodeMissingOrInCycle { node: index })?;
            let (translation, rotation, scale) = match node.matrix {
                Some(m) => {
                    let (s, r, t) = glam::Mat4::from_cols_array(&m).to_scale_rotation_translation();
                    (t.to_array(), r.to_array(), s.to_array())
                }
                None => (
                    node.translation.unwrap_or([0.0; 3]),
                    node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |r| r.0),
                    node.scale.unwrap_or([1.0; 3]),
                ),
            };
            for v in translation.iter().chain(&rotation).chain(&scale) {
                transforms.extend_from_slice(&v.to_le_bytes());
            }
            let extras = extras_value(&node.extras);
            out.role.push(
                extras
                    .as_ref()
                    .and_then(|e| e.get("llamawad")?.as_str().map(str::to_string)),
            );
            out.scene.push(s);
            out.node.push(index);
            out.parent.push(parent);
            out.name.push(node.name.clone());
            out.mesh.push(node.mesh.map(|m| m.value()));
            out.extras.push(extras);
            for child in node.children.iter().flatten().rev() {
                stack.push((child.value(), Some(index)));
            }
        }
    }
    Ok((out, transforms))
}

fn view_bytes(gltf: &Gltf, view: usize) -> Result<&[u8], HandOverError> {
    let v = gltf
        .root
        .buffer_views
        .get(view)
        .ok_or(HandOverFault::ViewMissing { view })?;
    let start = v.byte_offset.map_or(0, |o| o.0 as usize);
    start
        .checked_add(v.byte_length.0 as usize)
        .and_then(|end| gltf.bin.get(start..end))
        .ok_or(HandOverFault::ViewPastBuffer { view }.into())
}

/// An accessor's bytes: tightly packed f32 elements, what the exporter writes.
fn accessor_bytes(gltf: &Gltf, index: usize) -> Result<(&[u8], usize), HandOverError> {
    let accessor = index;
    let a = gltf
        .root
        .accessors
        .get(index)
        .ok_or(HandOverFault::AccessorMissing { accessor })?;
    let width = match a.type_ {
        Valid(Type::Scalar) => 1,
        Valid(Type::Vec2) => 2,
        Valid(Type::Vec3) => 3,
        Valid(Type::Vec4) => 4,
        _ => return Err(HandOverFault::AccessorNotVector { accessor }.into()),
    };
    let plain = matches!(a.component_type, Valid(t) if t.0 == ComponentType::F32)
        && a.sparse.is_none()
        && !a.normalized;
    let view = a
        .buffer_view
        .filter(|_| plain)
        .ok_or(HandOverFault::AccessorNotPlainFloats { accessor })?;
    if gltf.root.buffer_views[view.value()].byte_stride.is_some() {
        return Err(HandOverFault::AccessorInterleaved { accessor }.into());
    }
    let data = view_bytes(gltf, view.value())?;
    let start = a.byte_offset.map_or(0, |o| o.0 as usize);
    let len = a.count.0 as usize * width * 4;
    let bytes = start
        .checked_add(len)
        .and_then(|end| data.get(start..end))
        .ok_or(HandOverFault::AccessorPastView { accessor })?;
    Ok((bytes, width))
}

/// One batch: each attribute concatenated over every primitive of every mesh.
fn batch(
    gltf: &Gltf,
    meshes: Vec<usize>,
    arrays: &mut Vec<Vec<u8>>,
) -> Result<Batch, HandOverError> {
    let root = &gltf.root;
    let mut out = Batch {
        corner_start: vec![0],
        ..Default::default()
    };
    let mut columns = Columns::default();
    // Per primitive of the batch: its corner count and its (attribute, accessor) pairs, sorted.
    let mut primitives: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    let mut shapes: HashMap<Shape, usize> = HashMap::new();
    for (position, &m) in meshes.iter().enumerate() {
        let mesh = root
            .meshes
            .get(m)
            .ok_or(HandOverFault::MeshMissing { mesh: m })?;
        let mut materials = Vec::with_capacity(mesh.primitives.len());
        let mut shape: Shape = Vec::with_capacity(mesh.primitives.len());
        let mut triangles = Vec::with_capacity(mesh.primitives.len());
        let mut corners = 0;
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let having = (position, meshes.len());
            let (count, attributes) = columns.of_primitive(root, (m, p), prim, having)?;
            materials.push(prim.material.map(|i| i.value()));
            triangles.push(count / 3);
            corners += count;
            shape.push((
                prim.material.map(|i| i.value()),
                attributes
                    .iter()
                    .map(|&(k, a)| (k, (!columns.tile_colour[k]).then_some(a)))
                    .collect(),
            ));
            primitives.push((count, attributes));
        }
        out.names
            .push(mesh.name.clone().unwrap_or_else(|| format!("mesh {m}")));
        out.corner_start
            .push(out.corner_start.last().copied().unwrap_or(0) + corners);
        out.primitive_materials.push(materials);
        out.same_but_colours.push(match shapes.entry(shape) {
            Entry::Occupied(first) => Some(*first.get()),
            Entry::Vacant(slot) => {
                slot.insert(position);
                None
            }
        });
        out.primitive_triangles.push(triangles);
    }
    let total = out.corner_start.last().copied().unwrap_or(0);
    for (k, (name, having)) in columns.names.into_iter().zip(columns.having).enumerate() {
        let (width, bytes) = attribute_array(gltf, k, &name, &primitives, total)?;
        out.attributes.push(Attribute {
            name,
            width,
            array: arrays.len(),
            meshes_without: (0..meshes.len()).filter(|&i| !having[i]).collect(),
        });
        arrays.push(bytes);
    }
    out.meshes = meshes;
    Ok(out)
}

/// A mesh's primitives without the tile's colours (material, then attributes and accessors; the
/// colours' accessors left out): two meshes of one shape differ in their colours alone.
type Shape = Vec<(Option<usize>, Vec<(usize, Option<usize>)>)>;

/// The attributes of a batch in the order they first come (an attribute is its index here from
/// then on): semantic, name, whether it is a tile's colour, and the meshes having each.
#[derive(Default)]
struct Columns<'a> {
    semantics: Vec<&'a Semantic>,
    names: Vec<String>,
    tile_colour: Vec<bool>,
    having: Vec<Vec<bool>>,
}

impl<'a> Columns<'a> {
    /// Primitive `p` of mesh `m`, the `position`th of the batch's `meshes`: its corner count and
    /// its (attribute, accessor) pairs, sorted; refused unless a list of whole triangles with
    /// positions, every attribute as long.
    fn of_primitive(
        &mut self,
        root: &gltf::json::Root,
        (m, p): (usize, usize),
        prim: &'a gltf::json::mesh::Primitive,
        (position, meshes): (usize, usize),
    ) -> Result<(usize, Vec<(usize, usize)>), HandOverError> {
        if prim.indices.is_some() || prim.mode != Valid(Mode::Triangles) {
            return Err(HandOverFault::NotTriangleList {
                mesh: m,
                primitive: p,
            }
            .into());
        }
        let mut attributes = Vec::with_capacity(prim.attributes.len());
        let mut count = None;
        for (semantic, accessor) in &prim.attributes {
            // NORMAL is left out; an invalid semantic is one this exporter never writes.
            let Valid(semantic) = semantic else {
                continue;
            };
            if *semantic == Semantic::Normals {
                continue;
            }
            let n = root
                .accessors
                .get(accessor.value())
                .map_or(0, |a| a.count.0 as usize);
            if *count.get_or_insert(n) != n {
                return Err(HandOverFault::AttributeLengthsDiffer {
                    mesh: m,
                    primitive: p,
                }
                .into());
            }
            let k = self.column(semantic, meshes);
            self.having[k][position] = true;
            attributes.push((k, accessor.value()));
        }
        attributes.sort_unstable();
        let count = count.unwrap_or(0);
        let has_positions = attributes
            .iter()
            .any(|&(k, _)| *self.semantics[k] == Semantic::Positions);
        if count % 3 != 0 || !has_positions {
            return Err(HandOverFault::NotWholeTriangles {
                mesh: m,
                primitive: p,
            }
            .into());
        }
        Ok((count, attributes))
    }

    fn column(&mut self, semantic: &'a Semantic, meshes: usize) -> usize {
        if let Some(k) = self.semantics.iter().position(|&s| s == semantic) {
            return k;
        }
        let name = semantic.to_string();
        self.semantics.push(semantic);
        self.tile_colour.push(is_tile_colour(&name));
        self.names.push(name);
        self.having.push(vec![false; meshes]);
        self.names.len() - 1
    }
}

/// Attribute `k`'s values over every primitive of the batch (`total` corners), its missing value
/// where a primitive lacks it: its width (floats a corner) and its bytes.
fn attribute_array(
    gltf: &Gltf,
    k: usize,
    name: &str,
    primitives: &[(usize, Vec<(usize, usize)>)],
    total: usize,
) -> Result<(usize, Vec<u8>), HandOverError> {
    let accessor_of = |attributes: &[(usize, usize)]| {
        attributes
            .binary_search_by_key(&k, |&(a, _)| a)
            .ok()
            .map(|i| attributes[i].1)
    };
    let first = primitives
        .iter()
        .find_map(|(_, attributes)| accessor_of(attributes))
        .expect("every name comes from a primitive");
    let width = accessor_bytes(gltf, first)?.1;
    let missing = missing_value(name).to_le_bytes();
    let mut bytes = Vec::with_capacity(total * width * 4);
    for (count, attributes) in primitives {
        match accessor_of(attributes) {
            Some(accessor) => {
                let (data, w) = accessor_bytes(gltf, accessor)?;
                if w != width {
                    return Err(HandOverFault::AttributeWidthsDiffer {
                        attribute: name.to_string(),
                    }
                    .into());
                }
                bytes.extend_from_slice(data);
            }
            None => {
                let start = bytes.len();
                bytes.resize(start + count * width * 4, 0);
                for value in bytes[start..].chunks_exact_mut(4) {
                    value.copy_from_slice(&missing);
                }
            }
        }
    }
    Ok((width, bytes))
}

/// A node's or scene's extras as plain data (the document's own: always JSON).
fn extras_value(extras: &json::Extras) -> Option<serde_json::Value> {
    serde_json::from_str(extras.as_ref()?.get()).ok()
}
