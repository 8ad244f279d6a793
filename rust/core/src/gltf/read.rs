//! Reading any valid glTF 2.0 back: the document, its buffers, node world transforms and the
//! triangles of a mesh with every attribute as floats, whatever component type a tool chose.
//!
//! The file may come from a stranger. Every index is checked before anything follows it, every
//! byte range in 64-bit arithmetic before it is read; the nodes must form a forest no deeper than
//! [`MAX_NODE_DEPTH`], every transform and attribute value must be a finite number, and the
//! attributes the mapping reads must have the types it expects. A `.gltf`'s buffers are read only
//! from `data:` URIs and from regular files inside its own folder, never more bytes than they
//! declare. Images are never read: materials are known by name.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

/// Nodes nested deeper than this are refused (a level's glTF nests three deep).
pub const MAX_NODE_DEPTH: usize = 64;
/// Meshes with more triangles are refused before their corners are gathered (a whole level has
/// a few tens of thousands).
pub const MAX_MESH_TRIANGLES: usize = 1 << 20;
/// Accessor elements read from one document in all, however often nodes, meshes and primitives
/// name the same data (a level reads about a million).
pub const MAX_ELEMENTS_READ: usize = 1 << 26;
/// Buffer bytes of one document in all, checked against the declared lengths before any is read.
pub const MAX_BUFFER_BYTES: usize = 1 << 30;

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

/// An accessor's elements in its buffer, with every range checked.
struct Elements<'a> {
    data: &'a [u8],
    start: usize,
    end: usize,
    stride: usize,
    /// Bytes of one component.
    size: usize,
    components: usize,
    count: usize,
    data_type: DataType,
    normalized: bool,
}

/// The JSON and BIN chunks of a GLB, its header's length and every chunk's checked against the
/// file.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), ReadError> {
    let refuse = |why: String| ReadError::new(format!("not a valid GLB file: {why}"));
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let (Some(version), Some(length)) = (u32_at(4), u32_at(8)) else {
        return Err(refuse("its 12-byte header is cut short".into()));
    };
    if version != 2 {
        return Err(refuse(format!(
            "version {version}; glTF 2.0 files are version 2"
        )));
    }
    if length != bytes.len() {
        return Err(refuse(format!(
            "its header says {length} bytes, the file has {}",
            bytes.len()
        )));
    }
    let mut chunks = Vec::new();
    let mut at = 12;
    while at < bytes.len() {
        let (Some(len), Some(kind)) = (u32_at(at), bytes.get(at + 4..at + 8)) else {
            return Err(refuse(format!(
                "the chunk header at byte {at} is cut short"
            )));
        };
        let start = at + 8;
        let Some(end) = start.checked_add(len).filter(|&e| e <= bytes.len()) else {
            return Err(refuse(format!(
                "the chunk at byte {at} says {len} bytes, only {} are left",
                bytes.len() - start
            )));
        };
        chunks.push((kind, &bytes[start..end]));
        at = end;
    }
    match chunks.as_slice() {
        [(b"JSON", json), rest @ ..] => Ok((
            json,
            rest.first()
                .filter(|(kind, _)| *kind == b"BIN\0")
                .map(|(_, bin)| *bin),
        )),
        _ => Err(refuse("its first chunk is not JSON".into())),
    }
}

fn parse_json(json: &[u8]) -> Result<gltf::json::Root, ReadError> {
    serde_json::from_slice(json).or_else(|e| {
        tolerant(json).ok_or_else(|| ReadError::new(format!("not a valid glTF 2.0 file: {e}")))
    })
}

/// Reads what the `gltf` crate's strict reading refuses although glTF 2.0 allows it: a scene
/// without `nodes` (Blender's exporter writes an empty scene so). The JSON is completed and read
/// again.
fn tolerant(json: &[u8]) -> Option<gltf::json::Root> {
    let mut value: serde_json::Value = serde_json::from_slice(json).ok()?;
    for scene in value.get_mut("scenes")?.as_array_mut()? {
        let scene = scene.as_object_mut()?;
        scene
            .entry("nodes")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    }
    serde_json::from_value(value).ok()
}

/// The accessor indices of primitive attributes, checked before the `gltf` crate's validation,
/// which follows the POSITION index without checking it.
fn check_attribute_indices(root: &gltf::json::Root) -> Result<(), ReadError> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    let name = match semantic {
                        gltf::json::validation::Checked::Valid(s) => s.to_string(),
                        gltf::json::validation::Checked::Invalid => "an attribute".into(),
                    };
                    return Err(ReadError::new(format!(
                        "mesh {m}, primitive {p}: {name} names accessor {}, but the file has {} accessors",
                        index.value(),
                        root.accessors.len()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Checks that the nodes form a forest no deeper than [`MAX_NODE_DEPTH`] whose scene roots are
/// roots, listed once, and with finite world transforms; returns the nodes of every scene in
/// order (parents before children) with their world transforms.
fn node_forest(document: &gltf::Document) -> Result<Vec<(usize, Mat4)>, ReadError> {
    let nodes: Vec<gltf::Node> = document.nodes().collect();
    let name = |i: usize| node_name(&nodes[i]);
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for node in &nodes {
        for child in node.children() {
            let c = child.index();
            if c == node.index() {
                return Err(ReadError::new(format!("{} is its own child", name(c))));
            }
            match parent[c] {
                Some(p) if p == node.index() => {
                    return Err(ReadError::new(format!(
                        "{} is listed twice among the children of {}",
                        name(c),
                        name(p)
                    )))
                }
                Some(p) => {
                    return Err(ReadError::new(format!(
                        "{} is a child of both {} and {}: a node has one parent",
                        name(c),
                        name(p),
                        name(node.index())
                    )))
                }
                None => parent[c] = Some(node.index()),
            }
        }
    }
    // Every node now has at most one parent: a walk down from the parentless nodes meets each
    // node once, and a node it never meets is in a cycle.
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<(usize, usize)> = (0..nodes.len())
        .filter(|&i| parent[i].is_none())
        .map(|i| (i, 1))
        .collect();
    while let Some((i, depth)) = stack.pop() {
        if depth > MAX_NODE_DEPTH {
            return Err(ReadError::new(format!(
                "{} is nested {depth} nodes deep; at most {MAX_NODE_DEPTH} are read",
                name(i)
            )));
        }
        reached[i] = true;
        stack.extend(nodes[i].children().map(|c| (c.index(), depth + 1)));
    }
    if let Some(mut i) = reached.iter().position(|r| !r) {
        // Every node up from it has a parent too; as many steps up as there are nodes end on
        // the cycle (it may hang below one).
        for _ in 0..nodes.len() {
            i = parent[i].expect("a node no walk from a root reaches has a parent");
        }
        return Err(ReadError::new(format!(
            "{} is its own ancestor: the nodes' children form a cycle",
            name(i)
        )));
    }

    let mut listed = vec![false; nodes.len()];
    let mut roots = Vec::new();
    for scene in document.scenes() {
        for root in scene.nodes() {
            let r = root.index();
            if let Some(p) = parent[r] {
                return Err(ReadError::new(format!(
                    "{} is a root of scene {} but a child of {}",
                    name(r),
                    scene.index(),
                    name(p)
                )));
            }
            if std::mem::replace(&mut listed[r], true) {
                return Err(ReadError::new(format!(
                    "{} is listed twice among the scenes' nodes",
                    name(r)
                )));
            }
            roots.push(r);
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<(usize, Mat4)> = roots
        .into_iter()
        .rev()
        .map(|r| (r, Mat4::IDENTITY))
        .collect();
    while let Some((i, parent_world)) = stack.pop() {
        let world = parent_world * Mat4::from_cols_array_2d(&nodes[i].transform().matrix());
        if !world.is_finite() {
            return Err(ReadError::new(format!(
                "{}: its transform is not made of finite numbers (or overflows in its parents' frame)",
                name(i)
            )));
        }
        let children: Vec<usize> = nodes[i].children().map(|c| c.index()).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world)));
        out.push((i, world));
    }
    Ok(out)
}

/// A buffer's bytes: the GLB's BIN chunk, a `data:` URI or a file inside `dir`; exactly its
/// declared length, and never more read.
fn load_buffer(
    buffer: &gltf::Buffer,
    dir: Option<&Path>,
    blob: Option<&[u8]>,
    files: &mut Vec<PathBuf>,
) -> Result<Vec<u8>, ReadError> {
    let length = buffer.length();
    let what = format!("buffer {}", buffer.index());
    let short = |have: usize| {
        ReadError::new(format!(
            "{what} has {have} bytes, fewer than the {length} its byteLength says"
        ))
    };
    match buffer.source() {
        gltf::buffer::Source::Bin => {
            // Only buffer 0 may be the GLB's BIN chunk: no more copies of it than one.
            let bin = blob.filter(|_| buffer.index() == 0).ok_or_else(|| {
                ReadError::new(format!(
                    "{what} has no uri, and only buffer 0 of a GLB with a BIN chunk may go without"
                ))
            })?;
            Ok(bin.get(..length).ok_or_else(|| short(bin.len()))?.to_vec())
        }
        gltf::buffer::Source::Uri(uri) => {
            if let Some(data) = uri.strip_prefix("data:") {
                let Some((_, base64)) = data.split_once(";base64,") else {
                    return Err(ReadError::new(format!(
                        "{what}: a data: URI is read only when it is base64"
                    )));
                };
                // Decoding gives 3 bytes per 4 characters: too few characters are refused unread.
                if base64.len() / 4 * 3 < length {
                    return Err(short(base64.len() / 4 * 3));
                }
                let mut bytes = base64::decode(base64)
                    .map_err(|e| ReadError::new(format!("{what}: its data: URI: {e}")))?;
                if bytes.len() < length {
                    return Err(short(bytes.len()));
                }
                bytes.truncate(length);
                return Ok(bytes);
            }
            let path = sandboxed(dir, uri, &what)?;
            let io = |e: std::io::Error| ReadError::new(format!("{what}: {}: {e}", path.display()));
            let file = std::fs::File::open(&path).map_err(io)?;
            let size = file.metadata().map_err(io)?.len();
            if size < length as u64 {
                return Err(short(size as usize));
            }
            let mut bytes = Vec::with_capacity(length);
            file.take(length as u64)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() < length {
                return Err(short(bytes.len()));
            }
            files.push(path);
            Ok(bytes)
        }
    }
}

/// The file a buffer's relative URI names: a regular file inside `dir` once symbolic links are
/// resolved, named without `..`, a scheme or an absolute path.
fn sandboxed(dir: Option<&Path>, uri: &str, what: &str) -> Result<PathBuf, ReadError> {
    let refuse = |why: &str| ReadError::new(format!("{what}: the uri {uri:?} {why}"));
    let Some(dir) = dir else {
        return Err(refuse(
            "names a file, but the glTF was given without its folder",
        ));
    };
    let decoded = urlencoding::decode_binary(uri.as_bytes());
    let Ok(decoded) = std::str::from_utf8(&decoded) else {
        return Err(refuse("is not UTF-8 once its %-escapes are decoded"));
    };
    if uri.contains(':') || decoded.contains(':') {
        return Err(refuse(
            "has a scheme or drive; only files beside the .gltf and data: URIs are read",
        ));
    }
    if decoded.starts_with('/') {
        return Err(refuse(
            "is an absolute path; only files beside the .gltf are read",
        ));
    }
    if decoded.contains(['\\', '\0']) {
        return Err(refuse(
            "holds a backslash or NUL; a URI separates folders with /",
        ));
    }
    let mut relative = PathBuf::new();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse("leaves the .gltf's folder (..)")),
            part => relative.push(part),
        }
    }
    if relative.as_os_str().is_empty() {
        return Err(refuse("names no file"));
    }
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let io =
        |path: &Path, e: std::io::Error| ReadError::new(format!("{what}: {}: {e}", path.display()));
    let root = dir.canonicalize().map_err(|e| io(dir, e))?;
    let path = root.join(&relative);
    let path = path.canonicalize().map_err(|e| io(&path, e))?;
    if !path.starts_with(&root) {
        return Err(refuse(
            "leads outside the .gltf's folder through a symbolic link",
        ));
    }
    let metadata = std::fs::metadata(&path).map_err(|e| io(&path, e))?;
    if !metadata.is_file() {
        return Err(refuse(
            "is not a regular file (a folder, device or pipe is never read)",
        ));
    }
    Ok(path)
}

fn component(data_type: DataType, b: &[u8], normalized: bool) -> f32 {
    let scale = |v: f32, max: f32| if normalized { (v / max).max(-1.0) } else { v };
    match data_type {
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DataType::U8 => scale(b[0] as f32, 255.0),
        DataType::I8 => scale(b[0] as i8 as f32, 127.0),
        DataType::U16 => scale(u16::from_le_bytes([b[0], b[1]]) as f32, 65535.0),
        DataType::I16 => scale(i16::from_le_bytes([b[0], b[1]]) as f32, 32767.0),
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

/// Refuses an accessor whose type or component type is not what `semantic` needs.
fn expect_type(
    accessor: &gltf::Accessor,
    prim: usize,
    semantic: &str,
    dimensions: &[Dimensions],
    component_ok: impl Fn(DataType, bool) -> bool,
    expected: &str,
) -> Result<(), ReadError> {
    let (d, t, normalized) = (
        accessor.dimensions(),
        accessor.data_type(),
        accessor.normalized(),
    );
    if dimensions.contains(&d) && component_ok(t, normalized) {
        return Ok(());
    }
    Err(ReadError::new(format!(
        "primitive {prim}: {semantic} (accessor {}) is {}{} {}; it must be {expected}",
        accessor.index(),
        if normalized { "normalized " } else { "" },
        type_name(d),
        component_name(t),
    )))
}

fn type_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn component_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

/// Floats, or integers a tool stored as normalized 8- or 16-bit values (colours, UVs).
fn float_or_normalized(t: DataType, normalized: bool) -> bool {
    t == DataType::F32 || (normalized && matches!(t, DataType::U8 | DataType::U16))
}

/// Whether `name` (without its leading underscore) is a custom attribute of the mapping
/// (MAPPING.md): those are SCALARs holding integers.
pub fn is_mapping_attribute(name: &str) -> bool {
    const NAMES: [&str; 11] = [
        "FLAGS",
        "TEXTURE",
        "FACE",
        "VERTEX",
        "POLYGON",
        "MATERIAL",
        "KIND",
        "GROUP",
        "ZONE",
        "CELL",
        "SOURCE_FACE",
    ];
    let framed = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
    };
    NAMES.contains(&name) || framed("RGB_") || framed("ALPHA_")
}

/// The triangles of a mesh, three corners each, with every per-corner attribute.
#[derive(Debug, Clone, Default)]
pub struct Triangles {
    pub positions: Vec<Vec3>,
    pub uvs: Option<Vec<[f32; 2]>>,
    /// RGBA, linear; alpha 1 where the file had RGB only.
    pub colours: Option<Vec<[f32; 4]>>,
    /// The mapping's custom attributes by name without the leading underscore (`FLAGS`,
    /// `RGB_0`).
    pub scalars: HashMap<String, Vec<f32>>,
    /// Name of each triangle's material.
    pub materials: Vec<Option<String>>,
}

impl Triangles {
    pub fn count(&self) -> usize {
        self.positions.len() / 3
    }

    pub fn scalar(&self, name: &str) -> Option<&[f32]> {
        self.scalars.get(name).map(Vec::as_slice)
    }
}

/// The vertices of one primitive whose values are not finite, and the first attribute seen so.
struct NonFinite {
    vertices: Vec<bool>,
    first: Option<String>,
}

impl NonFinite {
    fn check(&mut self, semantic: &str, values: &[f32], components: usize) {
        for (v, element) in values.chunks_exact(components).enumerate() {
            if !element.iter().all(|x| x.is_finite()) {
                self.vertices[v] = true;
                self.first.get_or_insert_with(|| semantic.to_string());
            }
        }
    }
}

impl Document {
    /// All triangles of a mesh. Attributes that only some primitives have are filled with NaN
    /// in the others, so that a caller sees which corners lack them.
    pub fn triangles(&self, mesh: &gltf::Mesh) -> Result<Triangles, ReadError> {
        let mut out = Triangles::default();
        let mut uvs: Vec<[f32; 2]> = Vec::new();
        let mut colours: Vec<[f32; 4]> = Vec::new();
        let (mut any_uv, mut any_colour) = (false, false);
        let mut scalars: HashMap<String, Vec<f32>> = HashMap::new();
        for prim in mesh.primitives() {
            let p = prim.index();
            if prim.mode() != Mode::Triangles {
                return Err(ReadError::new(format!(
                    "primitive {p} uses {:?}; only triangle lists carry faces",
                    prim.mode()
                )));
            }
            let Some(position) = prim.get(&Semantic::Positions) else {
                return Err(ReadError::new(format!("primitive {p} has no POSITION")));
            };
            expect_type(
                &position,
                p,
                "POSITION",
                &[Dimensions::Vec3],
                |t, _| t == DataType::F32,
                "VEC3 FLOAT",
            )?;
            let n = position.count();
            let corners = prim.indices().map_or(n, |acc| acc.count());
            let before = out.positions.len();
            if (before + corners) / 3 > MAX_MESH_TRIANGLES {
                return Err(ReadError::new(format!(
                    "has more than {MAX_MESH_TRIANGLES} triangles, more than a level can use"
                )));
            }
            // Every attribute read has one element per vertex.
            let same_count = |acc: &gltf::Accessor, semantic: &str| {
                if acc.count() == n {
                    Ok(())
                } else {
                    Err(ReadError::new(format!(
                        "primitive {p}: {semantic} has {} elements, POSITION {n}",
                        acc.count()
                    )))
                }
            };
            // Read first: the data bound the vertex count before anything is allocated for it.
            let positions = self.floats(&position)?;
            let mut bad = NonFinite {
                vertices: vec![false; n],
                first: None,
            };
            bad.check("POSITION", &positions, 3);
            if let Some(acc) = prim.get(&Semantic::Normals) {
                expect_type(
                    &acc,
                    p,
                    "NORMAL",
                    &[Dimensions::Vec3],
                    |t, _| t == DataType::F32,
                    "VEC3 FLOAT",
                )?;
                same_count(&acc, "NORMAL")?;
                bad.check("NORMAL", &self.floats(&acc)?, 3);
            }
            let uv = match prim.get(&Semantic::TexCoords(0)) {
                Some(acc) => {
                    expect_type(
                        &acc,
                        p,
                        "TEXCOORD_0",
                        &[Dimensions::Vec2],
                        float_or_normalized,
                        "VEC2 FLOAT (or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)",
                    )?;
                    same_count(&acc, "TEXCOORD_0")?;
                    let uv = self.floats(&acc)?;
                    bad.check("TEXCOORD_0", &uv, 2);
                    Some(uv)
                }
                None => None,
            };
            let colour = match prim.get(&Semantic::Colors(0)) {
                Some(acc) => {
                    expect_type(
                        &acc,
                        p,
                        "COLOR_0",
                        &[Dimensions::Vec3, Dimensions::Vec4],
                        float_or_normalized,
                        "VEC3 or VEC4 FLOAT (or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)",
                    )?;
                    same_count(&acc, "COLOR_0")?;
                    let components = acc.dimensions().multiplicity();
                    let c = self.floats(&acc)?;
                    bad.check("COLOR_0", &c, components);
                    Some((c, components))
                }
                None => None,
            };
            let mut customs = Vec::new();
            for (semantic, acc) in prim.attributes() {
                let Semantic::Extras(name) = semantic else {
                    continue;
                };
                if !is_mapping_attribute(&name) {
                    continue;
                }
                let label = format!("_{name}");
                expect_type(
                    &acc,
                    p,
                    &label,
                    &[Dimensions::Scalar],
                    |t, normalized| t == DataType::F32 || !normalized,
                    "SCALAR FLOAT (or a SCALAR of integers)",
                )?;
                same_count(&acc, &label)?;
                // NaN is the mapping's "no value" (a face without a base face); not checked.
                customs.push((name, self.floats(&acc)?));
            }
            let indices: Vec<usize> = match prim.indices() {
                Some(acc) => self.indices(&acc, p)?,
                None => (0..n).collect(),
            };
            if indices.len() % 3 != 0 || indices.iter().any(|&i| i >= n) {
                return Err(ReadError::new(format!(
                    "primitive {p}: its indices are not whole triangles of its vertices"
                )));
            }
            if let Some(semantic) = bad.first {
                let faces = (0..indices.len() / 3)
                    .filter(|t| (0..3).any(|k| bad.vertices[indices[3 * t + k]]))
                    .map(|t| before / 3 + t)
                    .collect();
                return Err(ReadError {
                    message: format!(
                        "primitive {p}: {semantic} holds values that are not finite numbers (NaN or infinity)"
                    ),
                    faces,
                });
            }

            out.positions.extend(
                indices
                    .iter()
                    .map(|&i| Vec3::from_slice(&positions[3 * i..3 * i + 3])),
            );
            let material = prim.material().name().map(str::to_string);
            out.materials
                .extend(std::iter::repeat_n(material, indices.len() / 3));

            any_uv |= uv.is_some();
            uvs.extend(indices.iter().map(|&i| {
                uv.as_ref()
                    .map_or([f32::NAN; 2], |u| [u[2 * i], u[2 * i + 1]])
            }));

            any_colour |= colour.is_some();
            colours.extend(indices.iter().map(|&i| match &colour {
                Some((c, 4)) => [c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]],
                Some((c, _)) => [c[3 * i], c[3 * i + 1], c[3 * i + 2], 1.0],
                None => [f32::NAN; 4],
            }));

            for (name, values) in customs {
                let column = scalars
                    .entry(name)
                    .or_insert_with(|| vec![f32::NAN; before]);
                column.resize(before, f32::NAN);
                column.extend(indices.iter().map(|&i| values[i]));
            }
        }
        let total = out.positions.len();
        for column in scalars.values_mut() {
            column.resize(total, f32::NAN);
        }
        out.scalars = scalars;
        out.uvs = any_uv.then_some(uvs);
        out.colours = any_colour.then_some(colours);
        Ok(out)
    }
}

/// A node's or scene's extras as JSON, with what Blender made of ours undone: Blender keeps
/// extras as custom properties, and a value it cannot hold as one (a dictionary with an integer
/// beyond 32 bits, such as a zone mask with bit 31 or a CRC) it keeps as the text of its Python
/// `repr`, which its exporter then writes as a JSON string. Such a string (one that starts with
/// `{` or `[`) at the top level is read back as the value it spells.
pub fn extras_json(extras: &gltf::json::Extras) -> Option<serde_json::Value> {
    let mut value: serde_json::Value = serde_json::from_str(extras.as_ref()?.get()).ok()?;
    if let Some(object) = value.as_object_mut() {
        for v in object.values_mut() {
            let spelled = v
                .as_str()
                .filter(|s| s.starts_with('{') || s.starts_with('['))
                .and_then(python_literal);
            if let Some(parsed) = spelled {
                *v = parsed;
            }
        }
    }
    Some(value)
}

/// A number however a tool wrote it: a JSON number, or a string of one (what Blender keeps of
/// an integer beyond 32 bits).
pub fn number(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        serde_json::Value::Bool(b) => Some(*b as u8 as f64),
        _ => None,
    }
}

/// Parses a Python literal as `repr` writes it (dicts, lists, tuples, strings, integers,
/// floats, `True`, `False`, `None`) into JSON. None for anything else.
pub fn python_literal(text: &str) -> Option<serde_json::Value> {
    let mut p = PyParser {
        s: text.as_bytes(),
        at: 0,
        text,
    };
    let value = p.value(0)?;
    p.space();
    (p.at == p.s.len()).then_some(value)
}

struct PyParser<'a> {
    s: &'a [u8],
    at: usize,
    text: &'a str,
}

impl PyParser<'_> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Items up to `close`, separated by commas (a trailing comma allowed).
    fn items(
        &mut self,
        close: u8,
        depth: usize,
        mut item: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        if self.eat(close) {
            return Some(());
        }
        loop {
            item(self, depth + 1)?;
            if self.eat(close) {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
            if self.eat(close) {
                return Some(());
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<serde_json::Value> {
        use serde_json::Value;
        if depth > 64 {
            return None;
        }
        self.space();
        let c = *self.s.get(self.at)?;
        match c {
            b'{' => {
                self.at += 1;
                let mut map = serde_json::Map::new();
                self.items(b'}', depth, |p, d| {
                    let key = match p.value(d)? {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    if !p.eat(b':') {
                        return None;
                    }
                    let v = p.value(d)?;
                    map.insert(key, v);
                    Some(())
                })?;
                Some(Value::Object(map))
            }
            b'[' | b'(' => {
                self.at += 1;
                let close = if c == b'[' { b']' } else { b')' };
                let mut list = Vec::new();
                self.items(close, depth, |p, d| {
                    list.push(p.value(d)?);
                    Some(())
                })?;
                Some(Value::Array(list))
            }
            b'\'' | b'"' => self.string(c).map(Value::String),
            _ => {
                let start = self.at;
                while self.s.get(self.at).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+' | b'_')
                }) {
                    self.at += 1;
                }
                let word = &self.text[start..self.at];
                match word {
                    "True" => Some(Value::Bool(true)),
                    "False" => Some(Value::Bool(false)),
                    "None" => Some(Value::Null),
                    _ => {
                        let word = word.replace('_', "");
                        if let Ok(i) = word.parse::<i64>() {
                            Some(Value::from(i))
                        } else if let Ok(u) = word.parse::<u64>() {
                            Some(Value::from(u))
                        } else {
                            let f: f64 = word.parse().ok()?;
                            f.is_finite().then(|| Value::from(f))
                        }
                    }
                }
            }
        }
    }

    fn string(&mut self, quote: u8) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let mut chars = rest.chars();
            let c = chars.next()?;
            self.at += c.len_utf8();
            match c {
                c if c as u32 == quote as u32 => return Some(out),
                '\\' => {
                    let e = self.text[self.at..].chars().next()?;
                    self.at += e.len_utf8();
                    let hex = |p: &mut Self, n: usize| -> Option<char> {
                        let digits = p.text.get(p.at..p.at + n)?;
                        p.at += n;
                        char::from_u32(u32::from_str_radix(digits, 16).ok()?)
                    };
                    out.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        '0' => '\0',
                        'x' => hex(self, 2)?,
                        'u' => hex(self, 4)?,
                        'U' => hex(self, 8)?,
                        other => other,
                    });
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_literals_become_json() {
        let text = r#"{'format': 1, 'name': "it's", 'esc': 'a\'b\\c\x41\u00e9', 'big': 4294965821, 'neg': -11264, 'f': 0.5, 'e': 1e-05, 'flags': [True, False, None], 'tuple': (1, 2,), 'nested': {'mask': 2147483648}, 'ü': 'ä'}"#;
        assert_eq!(
            python_literal(text).unwrap(),
            json!({
                "format": 1, "name": "it's", "esc": "a'b\\cAé", "big": 4294965821u64, "neg": -11264,
                "f": 0.5, "e": 1e-5, "flags": [true, false, null], "tuple": [1, 2],
                "nested": {"mask": 2147483648u64}, "ü": "ä"
            })
        );
        for bad in [
            "{'a': 1",
            "{'a' 1}",
            "[1, 2] x",
            "{'a': inf}",
            "'open",
            "{1: }",
            "[,]",
        ] {
            assert_eq!(python_literal(bad), None, "{bad}");
        }
        assert_eq!(python_literal("[]"), Some(json!([])));
        assert_eq!(python_literal(" { } "), Some(json!({})));
    }

    #[test]
    fn numbers_may_be_strings() {
        assert_eq!(number(&json!(3)), Some(3.0));
        assert_eq!(number(&json!("4294967295")), Some(4294967295.0));
        assert_eq!(number(&json!("x")), None);
        assert_eq!(number(&json!(null)), None);
    }
}
