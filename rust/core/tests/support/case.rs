//! A generated level and our glTF of it, edited the way another tool would edit it: node
//! transforms and extras in the JSON, attribute values in the binary buffer (shared by the tests
//! of the way back). Each test crate uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;

use glam::Vec3;

use gltf::json::{
    self,
    accessor::Type,
    mesh::{Mode, Primitive, Semantic},
    validation::Checked::Valid,
    Index,
};
use llamawad::generate::{generate, Size};
use llamawad::gltf::{
    wad_to_gltf, ChangeReport, Document, Gltf, GltfToWadError, GltfToWadOptions, Source,
};
use llamawad::level::{Model, Tile};
use llamawad::Level;

/// The options of the tests' conversions: collision made for new meshes off, so that a mesh
/// without collision stays without.
pub const OPTIONS: GltfToWadOptions = GltfToWadOptions {
    force: false,
    generate_collision: false,
    snap_uvs: false,
    tile_collision_given: true,
};

// ---------------------------------------------------------------------------------------------
// Editing our glTF the way another tool would: node transforms and extras in the JSON, attribute
// values in the binary buffer. A mesh is edited as a whole: its primitives are read into plain
// arrays, changed, and written back as new accessors of a new mesh that only this node uses (the
// export shares accessors between the tiles of one model).

/// One primitive's attributes by glTF name (`POSITION`, `_FLAGS`), each with its component count.
#[derive(Clone)]
pub struct Prim {
    pub material: Option<Index<json::Material>>,
    pub attributes: BTreeMap<String, (usize, Vec<f32>)>,
}

impl Prim {
    pub fn corners(&self) -> usize {
        self.attributes["POSITION"].1.len() / 3
    }

    pub fn get(&self, name: &str) -> &[f32] {
        &self.attributes[name].1
    }

    pub fn get_mut(&mut self, name: &str) -> &mut Vec<f32> {
        &mut self
            .attributes
            .get_mut(name)
            .unwrap_or_else(|| panic!("no attribute {name}"))
            .1
    }

    pub fn position(&self, c: usize) -> Vec3 {
        Vec3::from_slice(&self.get("POSITION")[3 * c..3 * c + 3])
    }

    pub fn set_position(&mut self, c: usize, p: Vec3) {
        self.get_mut("POSITION")[3 * c..3 * c + 3].copy_from_slice(&p.to_array());
    }

    /// Keeps the triangles for which `keep(t)` holds.
    pub fn retain_triangles(&mut self, keep: impl Fn(usize) -> bool) {
        for (n, values) in self.attributes.values_mut() {
            let per_triangle = 3 * *n;
            *values = values
                .chunks(per_triangle)
                .enumerate()
                .filter(|(t, _)| keep(*t))
                .flat_map(|(_, v)| v.to_vec())
                .collect();
        }
    }

    /// Appends a copy of triangle `t`, whose values `edit` may then change (corner index given).
    pub fn push_copy(&mut self, t: usize) -> usize {
        for (n, values) in self.attributes.values_mut() {
            let copy = values[3 * t * *n..3 * (t + 1) * *n].to_vec();
            values.extend(copy);
        }
        self.corners() / 3 - 1
    }
}

pub fn semantic_name(s: &Semantic) -> String {
    match s {
        Semantic::Positions => "POSITION".into(),
        Semantic::Normals => "NORMAL".into(),
        Semantic::TexCoords(k) => format!("TEXCOORD_{k}"),
        Semantic::Colors(k) => format!("COLOR_{k}"),
        Semantic::Extras(name) => format!("_{name}"),
        other => panic!("unexpected attribute {other:?}"),
    }
}

pub fn semantic(name: &str) -> Semantic {
    match name {
        "POSITION" => Semantic::Positions,
        "NORMAL" => Semantic::Normals,
        "TEXCOORD_0" => Semantic::TexCoords(0),
        "COLOR_0" => Semantic::Colors(0),
        _ => Semantic::Extras(
            name.strip_prefix('_')
                .expect("custom attributes start with _")
                .into(),
        ),
    }
}

pub struct Case {
    pub what: String,
    pub base: Level,
    pub bytes: Vec<u8>,
    pub gltf: Gltf,
}

impl Case {
    pub fn new(seed: u64, size: Size) -> Case {
        Case::with_base(generate(seed, size), &format!("{size} seed {seed}"))
    }

    pub fn with_base(level: Level, what: &str) -> Case {
        let bytes = level.to_bytes().unwrap();
        let base = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
        Case {
            what: what.to_string(),
            base,
            bytes,
            gltf,
        }
    }

    pub fn trak(&self) -> &[Model] {
        &self.base.trak().unwrap().models
    }

    pub fn tiles(&self) -> &[Tile] {
        &self.base.map().unwrap().tiles
    }

    pub fn model_of(&self, tile: usize) -> &Model {
        &self.trak()[self.tiles()[tile].model_index as usize]
    }

    pub fn extras(&self, node: usize) -> serde_json::Value {
        self.gltf.root.nodes[node]
            .extras
            .as_ref()
            .map(|e| serde_json::from_str(e.get()).unwrap())
            .unwrap_or_default()
    }

    pub fn find_node(&self, role: &str, tile: Option<usize>) -> usize {
        (0..self.gltf.root.nodes.len())
            .find(|&n| {
                let e = self.extras(n);
                e["llamawad"] == role && tile.is_none_or(|t| e["tile"] == t)
            })
            .unwrap_or_else(|| panic!("no {role} node for {tile:?}"))
    }

    pub fn tile_node(&self, tile: usize) -> usize {
        self.find_node("tile", Some(tile))
    }

    pub fn collision_node(&self, tile: usize) -> usize {
        self.find_node("collision", Some(tile))
    }

    pub fn tiles_group(&self) -> usize {
        self.find_node("tiles", None)
    }

    pub fn read(&self, accessor: Index<json::Accessor>) -> (usize, Vec<f32>) {
        let a = &self.gltf.root.accessors[accessor.value()];
        let n = match a.type_ {
            Valid(Type::Scalar) => 1,
            Valid(Type::Vec2) => 2,
            Valid(Type::Vec3) => 3,
            Valid(Type::Vec4) => 4,
            _ => panic!("unexpected accessor type"),
        };
        let view = &self.gltf.root.buffer_views[a.buffer_view.unwrap().value()];
        let start = view.byte_offset.map_or(0, |o| o.0 as usize)
            + a.byte_offset.map_or(0, |o| o.0 as usize);
        let count = a.count.0 as usize * n;
        let values = self.gltf.bin[start..start + 4 * count]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        (n, values)
    }

    pub fn prims(&self, node: usize) -> Vec<Prim> {
        let Some(mesh) = self.gltf.root.nodes[node].mesh else {
            return Vec::new();
        };
        self.gltf.root.meshes[mesh.value()]
            .primitives
            .iter()
            .map(|p| Prim {
                material: p.material,
                attributes: p
                    .attributes
                    .iter()
                    .map(|(s, &a)| {
                        let Valid(s) = s else {
                            panic!("invalid semantic")
                        };
                        (semantic_name(s), self.read(a))
                    })
                    .collect(),
            })
            .collect()
    }

    /// Gives `node` a new mesh of its own made of `prims`.
    pub fn set_prims(&mut self, node: usize, prims: Vec<Prim>) {
        let mut primitives = Vec::new();
        for p in prims {
            let mut attributes = BTreeMap::new();
            for (name, (n, values)) in &p.attributes {
                let accessor = self.gltf.push_floats(values, *n, name == "POSITION");
                attributes.insert(Valid(semantic(name)), accessor);
            }
            primitives.push(Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: None,
                material: p.material,
                mode: Valid(Mode::Triangles),
                targets: None,
            });
        }
        let mesh = self.gltf.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(format!("edited {node}")),
            primitives,
            weights: None,
        });
        self.gltf.root.nodes[node].mesh = Some(mesh);
    }

    pub fn edit_mesh(&mut self, node: usize, edit: impl FnOnce(&mut Vec<Prim>)) {
        let mut prims = self.prims(node);
        edit(&mut prims);
        self.set_prims(node, prims);
    }

    /// Edits the mesh of `node` for every node that uses it (as Blender edits a linked mesh).
    pub fn edit_shared_mesh(
        &mut self,
        node: usize,
        edit: impl FnOnce(&mut Vec<Prim>),
    ) -> Vec<usize> {
        let old = self.gltf.root.nodes[node].mesh;
        self.edit_mesh(node, edit);
        let new = self.gltf.root.nodes[node].mesh;
        let users: Vec<usize> = (0..self.gltf.root.nodes.len())
            .filter(|&n| n == node || self.gltf.root.nodes[n].mesh == old)
            .collect();
        for &n in &users {
            self.gltf.root.nodes[n].mesh = new;
        }
        users
    }

    pub fn edit_scene_extras(&mut self, edit: impl FnOnce(&mut serde_json::Value)) {
        let scene = &mut self.gltf.root.scenes[0];
        let mut extras: serde_json::Value =
            serde_json::from_str(scene.extras.as_ref().unwrap().get()).unwrap();
        edit(&mut extras["llamawad"]);
        scene.extras = Some(serde_json::value::to_raw_value(&extras).unwrap());
    }

    pub fn document(&self) -> Document {
        Document::from_slice(&self.gltf.to_glb().unwrap(), None).unwrap()
    }

    pub fn convert(&self) -> Result<(Level, ChangeReport), GltfToWadError> {
        crate::doors::convert(&self.base, &self.bytes, &self.document(), OPTIONS)
    }

    /// The level and report, the scene giving tile collision or leaving it out (the add-on's
    /// before collision is shown).
    pub fn converted(&self, tile_collision_given: bool) -> (Level, ChangeReport) {
        let options = GltfToWadOptions {
            tile_collision_given,
            ..OPTIONS
        };
        crate::doors::convert(&self.base, &self.bytes, &self.document(), options)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what))
    }

    /// The level written from the edited glTF, read back from its bytes, and the report.
    pub fn written(&self) -> (Level, ChangeReport, Vec<u8>) {
        let (level, report) = self
            .convert()
            .unwrap_or_else(|e| panic!("{}: {e}", self.what));
        let bytes = level.to_bytes().unwrap();
        let read_back = Level::parse(&bytes).unwrap();
        assert!(
            read_back == level,
            "{}: the written level reads back as itself",
            self.what
        );
        (read_back, report, bytes)
    }

    pub fn refused(&self) -> GltfToWadError {
        match self.convert() {
            Ok((_, report)) => panic!(
                "{}: converted although it should be refused: {report:?}",
                self.what
            ),
            Err(e) => e,
        }
    }

    /// A tile with faces whose model at least one other tile uses too, with a collision quad.
    pub fn shared_tile(&self) -> (usize, usize) {
        let tiles = self.tiles();
        for (i, t) in tiles.iter().enumerate() {
            let model = self.model_of(i);
            if model.faces.is_empty()
                || !model.collision_polygons().any(|p| p.kind & 1 != 0)
                || t.swap.is_some()
            {
                continue;
            }
            if let Some(j) =
                (0..tiles.len()).find(|&j| j != i && tiles[j].model_index == t.model_index)
            {
                return (i, j);
            }
        }
        panic!("{}: no tile shares its model", self.what)
    }
}
