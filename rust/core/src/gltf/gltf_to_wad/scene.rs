//! The scene the way back reads, however it came: its nodes with their names, extras, parents,
//! children and world transforms, and the triangles of their meshes. A glTF document fills it
//! ([`Scene::of_document`]), and so do the arrays a tool hands over without writing a glTF
//! (`arrays.rs`): the conversion itself has one implementation for both.

use std::borrow::Cow;

use glam::Mat4;
use image::RgbaImage;
use rustc_hash::FxHashMap;

use super::error::NodeRef;
use crate::gltf::material::{Material, PageMaterial};
use crate::gltf::read::{extras_json, Document, ReadError, Triangles};
use crate::level::pages::{decode_png, PageError};

/// A node of the scene.
#[derive(Debug, Clone)]
pub struct Node {
    /// The node's number: its index among the document's (or the arrays') nodes, which names a
    /// node without a name.
    pub index: usize,
    pub name: Option<String>,
    /// The node's extras as JSON, with what a tool made of ours undone ([`extras_json`]).
    pub extras: Option<serde_json::Value>,
    /// Numbers of its parent and its children.
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub world: Mat4,
    pub mesh: Option<usize>,
}

impl Node {
    /// The node as a refusal names it: its number and name (shown in messages as `node 'NAME'`,
    /// or `node N` without a name).
    pub fn culprit(&self) -> NodeRef {
        NodeRef {
            index: Some(self.index),
            name: self.name.clone(),
        }
    }

    /// Its name as the tool that wrote it gave it (Blender: the object's name), or `node N`.
    pub fn raw_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("node {}", self.index))
    }
}

enum Meshes<'a> {
    /// Read from the document when a node asks (a mesh no node of the level uses is never read).
    Document(&'a Document, Vec<gltf::Mesh<'a>>),
    /// Checked when handed over; a mesh that failed says why when a node asks for it.
    Arrays(Vec<Result<Triangles, ReadError>>),
}

/// An image of the scene, as its door gave it: decoded only when it must be looked at.
pub enum ImageData<'a> {
    /// A glTF's PNG bytes, from a buffer view.
    Png(&'a [u8]),
    /// Pixels handed over as arrays.
    Pixels(RgbaImage),
    /// An image this tool does not read (by URI, or not a PNG), and why.
    Unread(String),
}

impl ImageData<'_> {
    /// The image's pixels; a PNG is decoded here, its size checked first.
    pub fn pixels(&self) -> Result<Cow<'_, RgbaImage>, String> {
        match self {
            ImageData::Png(bytes) => decode_png(bytes)
                .map(Cow::Owned)
                .map_err(|e: PageError| e.to_string()),
            ImageData::Pixels(image) => Ok(Cow::Borrowed(image)),
            ImageData::Unread(why) => Err(why.clone()),
        }
    }
}

/// A material that shows an image (its base colour's): its name, what it says of its page, and
/// the image's number.
#[derive(Debug, Clone)]
pub struct MaterialImage {
    pub name: String,
    pub page: Option<PageMaterial>,
    pub image: usize,
}

/// Faces of a material showing a new image, once the image is placed on a page: the page they
/// show instead, and the rectangle of the page their UVs (0–1 across the image) map to, in the
/// page's 0–1 coordinates (`[u, v, width, height]`).
#[derive(Debug, Clone)]
pub struct Retexture {
    pub page: PageMaterial,
    pub rectangle: [f32; 4],
}

/// The nodes of every scene with their meshes, and our extras of the scene.
pub struct Scene<'a> {
    /// Every node of every scene, parents before children (depth first, children in order).
    pub nodes: Vec<Node>,
    /// Our extras of the scene: the `llamawad` object of the first scene that has one.
    pub extras: Option<serde_json::Value>,
    /// Where each node number is in `nodes` (None for a node no scene holds).
    position: Vec<Option<usize>>,
    meshes: Meshes<'a>,
    /// The images materials show, and which each material shows.
    pub images: Vec<ImageData<'a>>,
    pub material_images: Vec<MaterialImage>,
    /// Materials whose new image was placed on a new page, by name: their faces are read as
    /// faces of that page (`triangles`), so that the one fitter gives them entries.
    pub retextured: FxHashMap<String, Retexture>,
}

impl<'a> Scene<'a> {
    /// The scene of a glTF document: its nodes (the reader checked them: a forest of finite world
    /// transforms), their extras read once, and meshes read when asked for.
    pub fn of_document(doc: &'a Document) -> Scene<'a> {
        let nodes = doc
            .world_nodes()
            .into_iter()
            .map(|(node, world)| Node {
                index: node.index(),
                name: node.name().map(str::to_string),
                extras: extras_json(node.extras()),
                parent: None,
                children: node.children().map(|c| c.index()).collect(),
                world,
                mesh: node.mesh().map(|m| m.index()),
            })
            .collect();
        let extras = doc.document.scenes().find_map(|s| {
            extras_json(s.extras())?
                .get("llamawad")
                .filter(|v| v.is_object())
                .cloned()
        });
        let meshes = Meshes::Document(doc, doc.document.meshes().collect());
        let mut scene = Scene::new(nodes, extras, doc.document.nodes().len(), meshes);
        scene.images = doc.document.images().map(|i| image_data(doc, &i)).collect();
        scene.material_images = doc
            .document
            .materials()
            .filter_map(|m| {
                let texture = m.pbr_metallic_roughness().base_color_texture()?;
                let name = m.name()?;
                Some(MaterialImage {
                    name: name.to_string(),
                    page: PageMaterial::of(Some(name), extras_json(m.extras()).as_ref()),
                    image: texture.texture().source().index(),
                })
            })
            .collect();
        scene
    }

    /// The scene of arrays already checked (`arrays.rs`): nodes in walk order, one result per
    /// mesh.
    pub(super) fn of_checked_arrays(
        nodes: Vec<Node>,
        extras: Option<serde_json::Value>,
        node_count: usize,
        meshes: Vec<Result<Triangles, ReadError>>,
    ) -> Scene<'static> {
        Scene::new(nodes, extras, node_count, Meshes::Arrays(meshes))
    }

    fn new(
        mut nodes: Vec<Node>,
        extras: Option<serde_json::Value>,
        node_count: usize,
        meshes: Meshes<'a>,
    ) -> Scene<'a> {
        let mut position = vec![None; node_count];
        for (k, node) in nodes.iter().enumerate() {
            position[node.index] = Some(k);
        }
        let parents: Vec<(usize, usize)> = nodes
            .iter()
            .flat_map(|n| n.children.iter().map(move |&c| (c, n.index)))
            .collect();
        for (child, parent) in parents {
            if let Some(k) = position[child] {
                nodes[k].parent = Some(parent);
            }
        }
        Scene {
            nodes,
            extras,
            position,
            meshes,
            images: Vec::new(),
            material_images: Vec::new(),
            retextured: FxHashMap::default(),
        }
    }
}

/// A glTF image's bytes: those of its buffer view (the reader loaded and bounded the buffers);
/// an image by URI is not read (this project's glTFs and Blender's GLBs keep them in the buffer).
fn image_data<'a>(doc: &'a Document, image: &gltf::Image) -> ImageData<'a> {
    let index = image.index();
    match image.source() {
        gltf::image::Source::View { view, mime_type } => {
            let bytes = doc
                .buffers
                .get(view.buffer().index())
                .and_then(|b| b.get(view.offset()..view.offset().checked_add(view.length())?));
            match bytes {
                Some(bytes) if mime_type == "image/png" => ImageData::Png(bytes),
                Some(_) => ImageData::Unread(format!(
                    "image {index} is {mime_type}: only PNG images are read"
                )),
                None => ImageData::Unread(format!(
                    "image {index}: its buffer view reaches past its buffer"
                )),
            }
        }
        gltf::image::Source::Uri { .. } => ImageData::Unread(format!(
            "image {index} is named by a URI: only images inside the glTF's buffers are read \
             (a GLB, or a .gltf with embedded images)"
        )),
    }
}

impl Scene<'_> {
    /// The node with this number, when a scene holds it.
    pub fn node(&self, number: usize) -> Option<&Node> {
        self.nodes.get((*self.position.get(number)?)?)
    }

    /// How many triangles a mesh has, and whether they say which tile each belongs to (`_TILE`:
    /// faces of several tiles joined), from the accessors' counts: nothing is read. None for a
    /// mesh that does not exist or whose arrays were refused.
    pub fn triangle_count(&self, mesh: usize) -> Option<(usize, bool)> {
        match &self.meshes {
            Meshes::Document(_, meshes) => {
                let tile = gltf::Semantic::Extras("TILE".to_string());
                let (mut count, mut joined) = (0, false);
                for prim in meshes.get(mesh)?.primitives() {
                    let corners = prim
                        .indices()
                        .or_else(|| prim.get(&gltf::Semantic::Positions))
                        .map_or(0, |a| a.count());
                    count += corners / 3;
                    joined |= prim.get(&tile).is_some();
                }
                Some((count, joined))
            }
            Meshes::Arrays(meshes) => {
                let tris = meshes.get(mesh)?.as_ref().ok()?;
                Some((tris.count(), tris.scalar("TILE").is_some()))
            }
        }
    }

    /// The triangles of a mesh, every attribute checked; faces of a material whose new image was
    /// placed on a page show that page ([`Retexture`]).
    pub fn triangles(&self, mesh: usize) -> Result<Cow<'_, Triangles>, ReadError> {
        let tris = self.read_triangles(mesh)?;
        let retextured = |m: &Material| m.name.as_ref().and_then(|n| self.retextured.get(n));
        if self.retextured.is_empty() || !tris.materials.iter().any(|m| retextured(m).is_some()) {
            return Ok(tris);
        }
        let mut tris = tris.into_owned();
        for t in 0..tris.count() {
            let Some(to) = retextured(&tris.materials[t]) else {
                continue;
            };
            tris.materials[t].page = Some(to.page);
            let [u, v, w, h] = to.rectangle;
            for uv in tris
                .uvs
                .iter_mut()
                .flat_map(|uvs| &mut uvs[3 * t..3 * t + 3])
            {
                *uv = [u + uv[0] * w, v + uv[1] * h];
            }
        }
        Ok(Cow::Owned(tris))
    }

    fn read_triangles(&self, mesh: usize) -> Result<Cow<'_, Triangles>, ReadError> {
        let missing = || ReadError {
            message: format!("mesh {mesh} does not exist"),
            faces: Vec::new(),
        };
        match &self.meshes {
            Meshes::Document(doc, meshes) => {
                let mesh = meshes.get(mesh).ok_or_else(missing)?;
                doc.triangles(mesh).map(Cow::Owned)
            }
            Meshes::Arrays(meshes) => match meshes.get(mesh).ok_or_else(missing)? {
                Ok(tris) => Ok(Cow::Borrowed(tris)),
                Err(e) => Err(e.clone()),
            },
        }
    }
}
