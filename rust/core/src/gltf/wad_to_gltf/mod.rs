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

use crate::game::strats::check_references;
use crate::geometry::decode_collision_polygon;
use crate::gltf::buffer::Buffer;
use crate::gltf::texture::decode_page;
use crate::gltf::uv::{shown_uvs, GLTF_CORNERS};
use crate::level::pages::encode_png;
use crate::level::text::PageKind;
use crate::level::{Level, Map, Model, Trak};
use crate::limits::{
    LimitError, MAX_DRAWN_FACES, MAX_GLTF_BYTES, MAX_GLTF_NODES, MAX_GRID_CELLS,
    MAX_SCENE_EXTRAS_BYTES,
};
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
pub enum WadToGltfError {
    #[error("the level has no {0} chunk, which a glTF of the level needs")]
    MissingChunk(&'static str),
    #[error(
        "the level's {width}×{height} grid has {cells} cells; at most {MAX_GRID_CELLS} cells are converted (the game's levels have a couple hundred a side at most)"
    )]
    GridCells { width: u32, height: u32, cells: u64 },
    #[error(
        "{drawn} faces drawn over the level's tiles (each tile draws its model's faces); at most {MAX_DRAWN_FACES} are converted (the game's levels draw a few tens of thousands)"
    )]
    FacesDrawn { drawn: u64 },
    #[error(
        "the level's glTF would take about {bytes} bytes, reckoned from its counts; at most {MAX_GLTF_BYTES} are written"
    )]
    Output { bytes: u64 },
    #[error(transparent)]
    Limit(#[from] LimitError),
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

    /// Appends a PNG image to the document's buffer: for tools and tests that paint a level's
    /// pages or give it new images.
    pub fn push_png(&mut self, png: &[u8], name: &str) -> Index<json::Image> {
        let mut buffer = Buffer {
            bytes: std::mem::take(&mut self.bin),
        };
        let image = buffer.png(&mut self.root, png, name.to_string());
        self.bin = buffer.bytes;
        self.root.buffers[0].byte_length = self.bin.len().into();
        image
    }

    /// The binary glTF; refused when its lengths would not fit the u32 fields of its header and
    /// chunks (the GLB would say another length than it has).
    pub fn to_glb(&self) -> Result<Vec<u8>, WadToGltfError> {
        let json = self.root.to_vec().expect("a glTF document serialises");
        let padded = |n: usize| n.next_multiple_of(4) as u64;
        let bytes = 12 + 8 + padded(json.len()) + 8 + padded(self.bin.len());
        if bytes > u32::MAX as u64 || bytes > MAX_GLTF_BYTES {
            return Err(WadToGltfError::Output { bytes });
        }
        Ok(gltf::binary::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                length: 0,
            },
            json: json.into(),
            bin: Some(self.bin.as_slice().into()),
        }
        .to_vec()
        .expect("a GLB is written into memory"))
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
pub mod hand_over;
mod materials;
mod meshes;
mod scene;

pub use colours::{
    collision_material_colour, displayed_colour, shown_colour, shown_colours, srgb_to_linear_table,
    zone_colour,
};
use materials::MaterialKey;
pub(crate) use scene::{strat_node_name, waypoint_node_name};

fn extras(value: serde_json::Value) -> json::Extras {
    Some(serde_json::value::to_raw_value(&value).expect("JSON values serialise"))
}

fn y_rotation(angle: f32) -> Option<UnitQuaternion> {
    (angle != 0.0).then(|| {
        let (sin, cos) = libm::sincosf(angle / 2.0);
        UnitQuaternion([0.0, sin, 0.0, cos])
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
pub fn wad_to_gltf(level: &Level, source: Source) -> Result<Gltf, WadToGltfError> {
    let trak = level.trak().ok_or(WadToGltfError::MissingChunk("TRAK"))?;
    let map = level.map().ok_or(WadToGltfError::MissingChunk("MAP"))?;
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
        let (mut gltf, pages) = build(level, source, trak, map, page_encoder)?;
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
        // A level with nothing to draw (no cells, no faces, no pages) has no data, and glTF
        // holds no buffer of 0 bytes: one word of nothing.
        if gltf.bin.is_empty() {
            gltf.bin = vec![0; 4];
        }
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
) -> Result<(Gltf, Vec<i8>), WadToGltfError> {
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
    ex.reckon(trak, map)?;
    ex.root.asset.generator = Some(format!("llamawad {}", env!("CARGO_PKG_VERSION")));
    ex.root
        .extensions_used
        .push("KHR_materials_unlit".to_string());

    let tiles = ex.tiles(trak, map);
    let zones = ex.zones(map);
    let strats = ex.strats(map);
    let waypoints = ex.waypoints(map);
    let lights = ex.lights(map);
    // Known only once written (the texture entries and zones as text): refused as the reader
    // would refuse it.
    let scene_extras = extras(ex.scene_extras(map, source));
    let bytes = scene_extras.as_ref().map_or(0, |e| e.get().len());
    if bytes > MAX_SCENE_EXTRAS_BYTES {
        return Err(LimitError(format!(
            "the level's scene extras (texture entries, zones, lights) would take {bytes} bytes; \
             at most {MAX_SCENE_EXTRAS_BYTES} are written and read"
        ))
        .into());
    }
    let level_scene = ex.root.push(json::Scene {
        extensions: None,
        extras: scene_extras,
        name: Some("Level".to_string()),
        nodes: vec![tiles, zones, strats, waypoints, lights],
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
    Ok((
        Gltf {
            root,
            bin: buffer.bytes,
            warnings,
        },
        pages,
    ))
}

/// What the reckoning counts (bytes): a corner of a model's shared primitive (position,
/// normal, UV, four scalars), of a tile's colours (and each colour set's two scalars), of a
/// collision polygon's triangles (position, colour, four scalars; a quad is two), of a cell of
/// the zones mesh; a node's and an accessor's JSON with their records in memory.
const SHARED_CORNER: u64 = 4 * (3 + 3 + 2 + 4);
const COLOUR_CORNER: u64 = 4 * 4;
const COLOUR_SET_CORNER: u64 = 4 * 2;
const COLLISION_POLYGON: u64 = 2 * 3 * 4 * (3 + 4 + 4);
const ZONE_CELL: u64 = 6 * 4 * (3 + 4 + 2);
const NODE: u64 = 2048;
/// The group nodes besides: tiles, zones, strats, waypoints, lights, object models.
const GROUP_NODES: usize = 6;
const ACCESSOR: u64 = 512;

impl Exporter<'_> {
    /// Refuses a level whose glTF would be far bigger than the level: each tile draws its
    /// model's faces with colours of its own, so a few megabytes of tiles can make gigabytes of
    /// glTF (65,535 faces by 1,000 tiles once took 9 GB and wrote a GLB whose lengths wrapped
    /// around 2³²). Reckoned from the counts, each part at its largest, before anything is built.
    fn reckon(&self, trak: &Trak, map: &Map) -> Result<(), WadToGltfError> {
        let cells = map.width as u64 * map.height as u64;
        if cells > MAX_GRID_CELLS {
            return Err(WadToGltfError::GridCells {
                width: map.width,
                height: map.height,
                cells,
            });
        }
        // Each strat's node lists its parameters: many strats may name one long range.
        check_references(map, &[], false)?;
        // A node a tile, strat, waypoint, light and object model, and the groups: no more than
        // the reader reads back.
        let lights = self.level.lights().map_or(0, |l| l.lights.len());
        let objects = self.level.stpc().map_or(0, |s| s.models.len());
        let nodes = map.tiles.len() + map.strats.len() + map.waypoints.len() + lights + objects;
        if nodes + GROUP_NODES > MAX_GLTF_NODES {
            return Err(LimitError(format!(
                "the level's glTF would have {} nodes (one a tile, strat, waypoint, light and \
                 object model); at most {MAX_GLTF_NODES} are written and read",
                nodes + GROUP_NODES
            ))
            .into());
        }
        let mut primitives: HashMap<u32, u64> = HashMap::new();
        let (mut drawn, mut bytes) = (0u64, cells * ZONE_CELL + NODE * 3);
        for tile in &map.tiles {
            bytes += NODE;
            let Some(model) = trak.models.get(tile.model_index as usize) else {
                continue;
            };
            let faces = model.faces.len() as u64;
            drawn += faces;
            let prims = *primitives
                .entry(tile.model_index)
                .or_insert_with(|| self.primitive_count(model));
            let frames = tile
                .colours
                .len()
                .checked_div(model.vertices.len())
                .unwrap_or(0) as u64;
            if frames > 0 {
                bytes += 3 * faces * (COLOUR_CORNER + frames * COLOUR_SET_CORNER)
                    + prims * (1 + 2 * frames) * ACCESSOR;
            }
        }
        if drawn > MAX_DRAWN_FACES {
            return Err(WadToGltfError::FacesDrawn { drawn });
        }
        let shared = |model: &Model, prims: u64| {
            3 * model.faces.len() as u64 * SHARED_CORNER
                + model.collision_count() as u64 * COLLISION_POLYGON
                + (prims * 7 + 6) * ACCESSOR
        };
        for (&m, &prims) in &primitives {
            bytes += shared(&trak.models[m as usize], prims);
        }
        let objects = self.level.stpc().map_or(&[][..], |s| s.models.as_slice());
        for object in objects {
            bytes += NODE + shared(&object.model, self.primitive_count(&object.model));
        }
        bytes += (map.strats.len() + map.waypoints.len()) as u64 * NODE;
        for page in self.level.text().map_or(&[][..], |t| t.pages.as_slice()) {
            let (w, h) = match page.kind() {
                PageKind::Rle16 => (256, 256),
                _ => (page.width as u64, page.height as u64),
            };
            // RGBA rows with a filter byte each, and what deflate adds to data it cannot shrink.
            bytes += (w * h * 4 + h) * 101 / 100 + 1024 + ACCESSOR;
        }
        if bytes > MAX_GLTF_BYTES {
            return Err(WadToGltfError::Output { bytes });
        }
        Ok(())
    }

    /// How many primitives a model's mesh has: one per material its faces show.
    fn primitive_count(&self, model: &Model) -> u64 {
        let keys: std::collections::HashSet<MaterialKey> = model
            .faces
            .iter()
            .map(|f| self.face_material_key(f))
            .collect();
        keys.len() as u64
    }

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
            // glTF forbids an empty list (the validator's EMPTY_ENTITY): a group with nothing
            // in it (no lights read, no strats, no object models) has no `children` at all.
            children: (!children.is_empty()).then_some(children),
            extras: extras(json!({ "llamawad": role })),
            ..Default::default()
        })
    }

    fn scene_extras(&self, map: &Map, source: Source) -> serde_json::Value {
        let level = self.level;
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
