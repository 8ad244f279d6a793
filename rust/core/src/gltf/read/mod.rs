//! Reading any valid glTF 2.0 back: the document, its buffers, node world transforms and the
//! triangles of a mesh with every attribute as floats, whatever component type a tool chose.
//!
//! The file may come from a stranger. Every index is checked before anything follows it, every
//! byte range in 64-bit arithmetic before it is read; the nodes must form a forest no deeper than
//! [`MAX_NODE_DEPTH`], every transform and attribute value must be a finite number, and the
//! attributes the mapping reads must have the types it expects. A `.gltf`'s buffers are read only
//! from `data:` URIs and from regular files inside its own folder, never more bytes than they
//! declare. Images are not read here: the way back takes the PNG bytes of those in buffer views
//! (`gltf_to_wad/scene.rs`) and decodes them only when they differ from a page's.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Mat4;
use gltf::accessor::{DataType, Dimensions};

mod attributes;
mod buffers;
mod container;
mod extras;
mod nodes;

use attributes::{component, expect_type, Elements};
use buffers::load_buffer;
use container::{check_attribute_indices, check_images_and_extras, parse_json, split_glb};
use nodes::node_forest;

pub use attributes::{is_mapping_attribute, Triangles};
pub use extras::{extras_json, integer_in, number, python_literal, spelled_out};

/// Nodes nested deeper than this are refused (a level's glTF nests three deep).
pub const MAX_NODE_DEPTH: usize = 64;
/// Meshes with more triangles are refused before their corners are gathered (a whole level has
/// a few tens of thousands).
pub const MAX_MESH_TRIANGLES: usize = 1 << 20;
/// Accessor elements read from one document in all, however often nodes, meshes and primitives
/// name the same data (a level reads about a million).
pub const MAX_ELEMENTS_READ: usize = 1 << 26;
/// Buffer bytes of one document in all, checked against the declared lengths before any is read
/// (each buffer reads exactly its length, however often the same file is named: 2,000 buffers
/// naming one file once read 750 MB): what a level's glTF may take when written.
pub const MAX_BUFFER_BYTES: usize = crate::limits::MAX_GLTF_BYTES as usize;

/// A glTF document with its buffers loaded.
pub struct Document {
    pub document: gltf::Document,
    /// Each buffer's bytes, exactly its declared `byteLength`.
    pub buffers: Vec<Vec<u8>>,
    /// The files the buffers were read from (resolved paths): a writer must not overwrite them.
    pub files: Vec<PathBuf>,
    /// The nodes of every scene, parents before children, with their world transforms.
    world: Vec<(usize, Mat4)>,
    /// Accessor elements read so far, against [`MAX_ELEMENTS_READ`].
    elements_read: AtomicUsize,
}

/// Why a glTF cannot be read; `faces` names the triangles at fault when the fault is in one
/// mesh's data (in the order the mesh lists them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    pub message: String,
    pub faces: Vec<usize>,
}

impl ReadError {
    fn new(message: impl Into<String>) -> ReadError {
        ReadError {
            message: message.into(),
            faces: Vec::new(),
        }
    }
}

/// How a node is named in messages: by its name where it has one.
pub fn node_name(node: &gltf::Node) -> String {
    match node.name() {
        Some(n) => format!("node '{n}'"),
        None => format!("node {}", node.index()),
    }
}

impl Document {
    /// Reads a `.glb` or `.gltf`; `dir` is the folder of a `.gltf`, the only place its external
    /// buffers are read from.
    pub fn from_slice(bytes: &[u8], dir: Option<&Path>) -> Result<Document, ReadError> {
        let (json, blob) = if bytes.starts_with(b"glTF") {
            split_glb(bytes)?
        } else {
            (bytes, None)
        };
        let root = parse_json(json)?;
        check_attribute_indices(&root)?;
        check_images_and_extras(&root)?;
        let document = gltf::Document::from_json(root)
            .map_err(|e| ReadError::new(format!("not a valid glTF 2.0 file: {e}")))?;
        let world = node_forest(&document)?;
        let declared = document
            .buffers()
            .try_fold(0usize, |sum, b| sum.checked_add(b.length()))
            .filter(|&sum| sum <= MAX_BUFFER_BYTES);
        if declared.is_none() {
            return Err(ReadError::new(format!(
                "its buffers declare more than {MAX_BUFFER_BYTES} bytes in all, more than is read"
            )));
        }
        let mut files = Vec::new();
        let buffers = document
            .buffers()
            .map(|buffer| load_buffer(&buffer, dir, blob, &mut files))
            .collect::<Result<_, _>>()?;
        Ok(Document {
            document,
            buffers,
            files,
            world,
            elements_read: AtomicUsize::new(0),
        })
    }

    /// Every node of every scene with its world transform, parents before children.
    pub fn world_nodes(&self) -> Vec<(gltf::Node<'_>, Mat4)> {
        let nodes: Vec<gltf::Node> = self.document.nodes().collect();
        self.world
            .iter()
            .map(|&(i, world)| (nodes[i].clone(), world))
            .collect()
    }

    /// Where an accessor's elements lie, every range checked against its view and buffer.
    fn elements(&self, accessor: &gltf::Accessor) -> Result<Elements<'_>, ReadError> {
        let what = || format!("accessor {}", accessor.index());
        if accessor.sparse().is_some() {
            return Err(ReadError::new(format!(
                "{} is sparse, which this tool does not read",
                what()
            )));
        }
        let Some(view) = accessor.view() else {
            return Err(ReadError::new(format!(
                "{} has no buffer view (all zeros), which this tool does not read",
                what()
            )));
        };
        let data = &self.buffers[view.buffer().index()];
        let size = accessor.data_type().size();
        let components = accessor.dimensions().multiplicity();
        let element = (size * components) as u64;
        let stride = view.stride().map_or(element, |s| s as u64);
        if stride < element {
            return Err(ReadError::new(format!(
                "{}: its elements of {element} bytes overlap (byte stride {stride})",
                what()
            )));
        }
        let count = accessor.count() as u64;
        let read = self
            .elements_read
            .load(Ordering::Relaxed)
            .saturating_add(accessor.count());
        self.elements_read.store(read, Ordering::Relaxed);
        if read > MAX_ELEMENTS_READ {
            return Err(ReadError::new(format!(
                "{}: reading it would make more than {MAX_ELEMENTS_READ} elements read from this glTF",
                what()
            )));
        }
        let start = (view.offset() as u64).checked_add(accessor.offset() as u64);
        let end = match count.checked_sub(1) {
            None => start,
            Some(last) => stride
                .checked_mul(last)
                .and_then(|n| n.checked_add(element))
                .zip(start)
                .and_then(|(n, s)| n.checked_add(s)),
        };
        let view_end = (view.offset() as u64).checked_add(view.length() as u64);
        match (start, end, view_end) {
            (Some(start), Some(end), Some(view_end))
                if end <= view_end && view_end <= data.len() as u64 =>
            {
                Ok(Elements {
                    data,
                    start: start as usize,
                    end: end as usize,
                    stride: stride as usize,
                    size,
                    components,
                    count: count as usize,
                    data_type: accessor.data_type(),
                    normalized: accessor.normalized(),
                })
            }
            _ => Err(ReadError::new(format!(
                "{} reaches past the end of its buffer view or buffer",
                what()
            ))),
        }
    }

    /// The elements of an accessor as floats, `n` components each (normalized integers mapped
    /// to 0..1 or −1..1 as glTF says).
    pub fn floats(&self, accessor: &gltf::Accessor) -> Result<Vec<f32>, ReadError> {
        let e = self.elements(accessor)?;
        if e.data_type == DataType::F32 && e.stride == e.size * e.components {
            // Tightly packed floats (what this project and most tools write): one pass.
            return Ok(e.data[e.start..e.end]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect());
        }
        let mut out = Vec::with_capacity(e.count * e.components);
        for i in 0..e.count {
            let base = e.start + i * e.stride;
            for k in 0..e.components {
                let b = &e.data[base + k * e.size..base + (k + 1) * e.size];
                out.push(component(e.data_type, b, e.normalized));
            }
        }
        Ok(out)
    }

    /// The vertex indices of a primitive, read as the integers they are.
    fn indices(&self, accessor: &gltf::Accessor, prim: usize) -> Result<Vec<usize>, ReadError> {
        expect_type(
            accessor,
            prim,
            "indices",
            &[Dimensions::Scalar],
            |t, normalized| {
                matches!(t, DataType::U8 | DataType::U16 | DataType::U32) && !normalized
            },
            "SCALAR UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
        )?;
        let e = self.elements(accessor)?;
        Ok((0..e.count)
            .map(|i| {
                let b = &e.data[e.start + i * e.stride..][..e.size];
                match e.data_type {
                    DataType::U8 => b[0] as usize,
                    DataType::U16 => u16::from_le_bytes([b[0], b[1]]) as usize,
                    _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                }
            })
            .collect())
    }
}
