//! WAD → glTF: the whole level in file space (FORMAT.md §2), with every game attribute on
//! board. The mapping (nodes, attributes, extras) is documented in `MAPPING.md` beside this file.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use gltf::json::{
    self, extensions,
    material::{AlphaCutoff, AlphaMode, PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor},
    mesh::{Mode, Primitive, Semantic},
    scene::UnitQuaternion,
    texture::{MagFilter, MinFilter, Sampler, WrappingMode},
    validation::Checked::Valid,
    Index,
};
use serde_json::json;

use crate::geometry::decode_collision_polygon;
use crate::gltf::buffer::Buffer;
use crate::gltf::texture::{decode_page, encode_png};
use crate::gltf::uv::face_uvs;
use crate::level::{Level, Map, Model, Trak};
use crate::raw::{face_flags, Face, TextureEntry};
use image::RgbaImage;
use std::sync::mpsc;

/// Identifies the WAD a glTF was made from, so that the way back can check its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub size: u64,
    pub crc32: u32,
}

impl Source {
    pub fn of(bytes: &[u8]) -> Source {
        Source {
            size: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GltfExportError {
    #[error("the level has no {0} chunk, which a glTF of the level needs")]
    MissingChunk(&'static str),
}

/// A glTF document and its one binary buffer.
pub struct Gltf {
    pub root: json::Root,
    pub bin: Vec<u8>,
    /// What a user should know about the conversion (placeholder pages, skipped polygons).
    pub warnings: Vec<String>,
}

impl Gltf {
    /// Appends an accessor of f32 values, `components` per element, to the document's buffer:
    /// for tools and tests that edit a converted level before writing it.
    pub fn push_floats(
        &mut self,
        values: &[f32],
        components: usize,
        bounds: bool,
    ) -> Index<json::Accessor> {
        let mut buffer = Buffer {
            bytes: std::mem::take(&mut self.bin),
        };
        let accessor = buffer.floats(&mut self.root, values, components, bounds);
        self.bin = buffer.bytes;
        self.root.buffers[0].byte_length = self.bin.len().into();
        accessor
    }

    pub fn to_glb(&self) -> Vec<u8> {
        let json = self.root.to_vec().expect("a glTF document serialises");
        gltf::binary::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                length: 0,
            },
            json: json.into(),
            bin: Some(self.bin.as_slice().into()),
        }
        .to_vec()
        .expect("a GLB is written into memory")
    }

    /// The JSON of a `.gltf` whose buffer is the file `bin_file_name` next to it.
    pub fn to_gltf_json(&self, bin_file_name: &str) -> Vec<u8> {
        let mut root = self.root.clone();
        root.buffers[0].uri = Some(relative_uri(bin_file_name));
        root.to_vec_pretty().expect("a glTF document serialises")
    }
}

/// A file name as a relative URI reference (RFC 3986): every byte but the unreserved characters
/// percent-encoded, so that the names artists give (spaces, umlauts, `%`, `#`) stay one path
/// segment that readers decode back to the name.
fn relative_uri(file_name: &str) -> String {
    file_name
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

mod colours;
mod materials;
mod meshes;
mod scene;

pub use colours::{collision_material_colour, displayed_colour, srgb_to_linear_table, zone_colour};
use materials::MaterialKey;

fn extras(value: serde_json::Value) -> json::Extras {
    Some(serde_json::value::to_raw_value(&value).expect("JSON values serialise"))
}

fn y_rotation(angle: f32) -> Option<UnitQuaternion> {
    (angle != 0.0).then(|| {
        let half = angle / 2.0;
        UnitQuaternion([0.0, half.sin(), 0.0, half.cos()])
    })
}

/// Rotation about y of a tile or strat: 4096 = 360°.
fn game_angle(rotation: u32) -> f32 {
    (rotation % 4096) as f32 / 4096.0 * std::f32::consts::TAU
}

type Attributes = BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>>;

/// A list of unindexed triangles: every face has its own corners.
fn triangles(attributes: Attributes, material: Index<json::Material>) -> Primitive {
    Primitive {
        attributes,
        extensions: None,
        extras: None,
        indices: None,
        material: Some(material),
        mode: Valid(Mode::Triangles),
        targets: None,
    }
}

fn mesh(name: String, primitives: Vec<Primitive>) -> json::Mesh {
    json::Mesh {
        extensions: None,
        extras: None,
        name: Some(name),
        primitives,
        weights: None,
    }
}

fn attribute(name: &str) -> json::validation::Checked<Semantic> {
    Valid(Semantic::Extras(name.to_string()))
}

struct Exporter<'a> {
    level: &'a Level,
    entries: &'a [TextureEntry],
    root: json::Root,
    buffer: Buffer,
    materials: HashMap<MaterialKey, Index<json::Material>>,
    page_textures: HashMap<i8, Option<(Index<json::Texture>, bool)>>,
    /// The pages the textures show, in the order of their images, each sent to the PNG encoder
    /// as it is first used ([`wad_to_gltf`] appends the PNGs last).
    pages: Vec<i8>,
    page_encoder: mpsc::Sender<RgbaImage>,
    sampler: Option<Index<Sampler>>,
    linear: [f32; 256],
    warnings: Vec<String>,
}

/// Converts a level to glTF in file space.
pub fn wad_to_gltf(level: &Level, source: Source) -> Result<Gltf, GltfExportError> {
    let trak = level.trak().ok_or(GltfExportError::MissingChunk("TRAK"))?;
    let map = level.map().ok_or(GltfExportError::MissingChunk("MAP"))?;
    // Encoding the pages as PNG is a tenth of the conversion and needs nothing else: a second
    // thread does it while this one builds the meshes.
    std::thread::scope(|scope| {
        let (page_encoder, images) = mpsc::channel::<RgbaImage>();
        let pngs = scope.spawn(move || {
            images
                .iter()
                .map(|image| encode_png(&image))
                .collect::<Vec<_>>()
        });
        let (mut gltf, pages) = build(level, source, trak, map, page_encoder);
        let pngs = pngs.join().expect("encoding a PNG into memory cannot fail");
        let mut buffer = Buffer {
            bytes: std::mem::take(&mut gltf.bin),
        };
        for (k, (page, png)) in pages.iter().zip(&pngs).enumerate() {
            let image = buffer.png(&mut gltf.root, png, format!("page {page}"));
            debug_assert_eq!(
                image.value(),
                k,
                "the textures name their images in this order"
            );
        }
        gltf.bin = buffer.bytes;
        gltf.root.buffers[0].byte_length = gltf.bin.len().into();
        Ok(gltf)
    })
}

/// The document but for the page images' bytes, and the pages its images are to show, in order.
fn build(
    level: &Level,
    source: Source,
    trak: &Trak,
    map: &Map,
    page_encoder: mpsc::Sender<RgbaImage>,
) -> (Gltf, Vec<i8>) {
    let mut ex = Exporter {
        level,
        entries: level.text().map(|t| t.entries.as_slice()).unwrap_or(&[]),
        root: json::Root::default(),
        // The buffer comes to about four times the level's size (8.3 MB for the 2.1 MB full-size
        // level): reserved at once, it is not copied over and over as it grows. A file padded
        // to hundreds of MB gets no more than 64 MiB up front.
        buffer: Buffer {
            bytes: Vec::with_capacity((source.size as usize).saturating_mul(4).min(64 << 20)),
        },
        materials: HashMap::new(),
        page_textures: HashMap::new(),
        pages: Vec::new(),
        page_encoder,
        sampler: None,
        linear: srgb_to_linear_table(),
        warnings: level.warnings.clone(),
    };
    ex.root.asset.generator = Some(format!("llamawad {}", env!("CARGO_PKG_VERSION")));
    ex.root
        .extensions_used
        .push("KHR_materials_unlit".to_string());

    let tiles = ex.tiles(trak, map);
    let zones = ex.zones(map);
    let strats = ex.strats(map);
    let level_scene = ex.root.push(json::Scene {
        extensions: None,
        extras: extras(ex.scene_extras(map, source)),
        name: Some("Level".to_string()),
        nodes: vec![tiles, zones, strats],
    });
    ex.root.scene = Some(level_scene);
    let objects = ex.object_models();
    ex.root.push(json::Scene {
        extensions: None,
        extras: None,
        name: Some("Object models".to_string()),
        nodes: vec![objects],
    });

    let Exporter {
        mut root,
        buffer,
        warnings,
        pages,
        ..
    } = ex;
    root.push(json::Buffer {
        byte_length: buffer.bytes.len().into(),
        name: None,
        uri: None,
        extensions: None,
        extras: None,
    });
    (
        Gltf {
            root,
            bin: buffer.bytes,
            warnings,
        },
        pages,
    )
}

impl Exporter<'_> {
    fn node(&mut self, node: json::Node) -> Index<json::Node> {
        self.root.push(node)
    }

    fn group(
        &mut self,
        name: &str,
        children: Vec<Index<json::Node>>,
        role: &str,
    ) -> Index<json::Node> {
        self.node(json::Node {
            name: Some(name.to_string()),
            children: Some(children),
            extras: extras(json!({ "llamawad": role })),
            ..Default::default()
        })
    }

    fn scene_extras(&self, map: &Map, source: Source) -> serde_json::Value {
        let level = self.level;
        let lights: Vec<serde_json::Value> = level
            .lights()
            .map(|l| {
                l.lights
                    .iter()
                    .map(|light| json!({ "kind": light.kind, "colour": light.colour, "words": light.words }))
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "llamawad": {
                "format": 1,
                "level_name": level.name().map(|n| n.text()),
                "wfpc": level.wfpc(),
                "grid": [map.width, map.height],
                "source": { "size": source.size, "crc32": source.crc32 },
                "texture_entries": self.entries,
                "regions": map.regions,
                "region_grid": map.region_grid,
                "lights": lights,
            }
        })
    }
}

/// glTF normals must be unit length; the stored ones are, up to float rounding.
fn unit_normal(n: [f32; 3]) -> [f32; 3] {
    let v = glam::Vec3::new(n[0], n[1], -n[2]);
    let len = v.length();
    if (len - 1.0).abs() < 1e-4 {
        v.to_array()
    } else if len > 1e-6 && len.is_finite() {
        (v / len).to_array()
    } else {
        [0.0, 1.0, 0.0]
    }
}
