//! WAD → glTF: the whole level in file space (FORMAT-DECISIONS §2), with every game attribute on
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
use crate::level::map::Rgba;
use crate::level::{Level, Map, Model, Trak};
use crate::raw::{face_flags, Face, TextureEntry};

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

/// Colour of each collision material: ground neutral, the special ones loud.
pub fn collision_material_colour(material: u8) -> [f32; 3] {
    match material {
        0 => [0.45, 0.55, 0.45],
        16 => [1.0, 0.85, 0.0],
        17 => [0.0, 0.8, 1.0],
        18 => [0.2, 0.3, 1.0],
        30 => [1.0, 0.05, 0.05],
        m => hue(m as u32 * 37 % 360),
    }
}

/// Colour of each visibility zone, spread around the hue circle.
pub fn zone_colour(zone: u32) -> [f32; 3] {
    hue((zone * 137) % 360)
}

fn hue(degrees: u32) -> [f32; 3] {
    let h = degrees as f32 / 60.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    [0.15 + 0.7 * r, 0.15 + 0.7 * g, 0.15 + 0.7 * b]
}

/// The game doubles vertex colours and clamps (0x80 = 1.0); a glTF colour is linear.
pub fn displayed_colour(c: &Rgba, table: &[f32; 256]) -> [f32; 4] {
    let channel = |v: u8| table[(v as usize * 2).min(255)];
    [channel(c[0]), channel(c[1]), channel(c[2]), 1.0]
}

/// Linear values of the 256 sRGB byte values, the table [`displayed_colour`] reads.
pub fn srgb_to_linear_table() -> [f32; 256] {
    std::array::from_fn(|i| {
        let c = i as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    })
}

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum MaterialKey {
    Page {
        page: i8,
        blend: u16,
        double_sided: bool,
    },
    Flat {
        rgb: [u8; 3],
        double_sided: bool,
    },
    /// A face whose texture entry does not exist.
    Missing {
        double_sided: bool,
    },
    Collision,
    Zones,
}

/// The parts of a model's render primitive that every tile using the model shares.
struct SharedPrimitive {
    material: Index<json::Material>,
    attributes: Attributes,
    /// Model vertex of each corner, for the per-tile colours.
    corner_vertices: Vec<u16>,
    /// Corners of faces with flag 0x4000, which the game draws white.
    corner_ignores_colours: Vec<bool>,
}

struct Exporter<'a> {
    level: &'a Level,
    entries: &'a [TextureEntry],
    root: json::Root,
    buffer: Buffer,
    materials: HashMap<MaterialKey, Index<json::Material>>,
    page_textures: HashMap<i8, Option<(Index<json::Texture>, bool)>>,
    sampler: Option<Index<Sampler>>,
    linear: [f32; 256],
    warnings: Vec<String>,
}

/// Converts a level to glTF in file space.
pub fn wad_to_gltf(level: &Level, source: Source) -> Result<Gltf, GltfExportError> {
    let trak = level.trak().ok_or(GltfExportError::MissingChunk("TRAK"))?;
    let map = level.map().ok_or(GltfExportError::MissingChunk("MAP"))?;
    let mut ex = Exporter {
        level,
        entries: level.text().map(|t| t.entries.as_slice()).unwrap_or(&[]),
        root: json::Root::default(),
        buffer: Buffer::default(),
        materials: HashMap::new(),
        page_textures: HashMap::new(),
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
        ..
    } = ex;
    root.push(json::Buffer {
        byte_length: buffer.bytes.len().into(),
        name: None,
        uri: None,
        extensions: None,
        extras: None,
    });
    Ok(Gltf {
        root,
        bin: buffer.bytes,
        warnings,
    })
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

    fn tiles(&mut self, trak: &Trak, map: &Map) -> Index<json::Node> {
        // Built on first use: models no tile places (swap models among them) stay out.
        let mut shared: HashMap<u32, Vec<SharedPrimitive>> = HashMap::new();
        let mut collision_meshes: HashMap<u32, Option<Index<json::Mesh>>> = HashMap::new();
        let mut nodes = Vec::with_capacity(map.tiles.len());
        for (i, tile) in map.tiles.iter().enumerate() {
            let model_index = tile.model_index;
            let model = trak.models.get(model_index as usize);
            let mesh = model.and_then(|m| {
                let prims = match shared.entry(model_index) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => e.insert(self.render_primitives(m)),
                };
                (!prims.is_empty()).then(|| self.tile_mesh(i, m, prims, &tile.colours))
            });
            let collision = match collision_meshes.get(&model_index) {
                Some(c) => *c,
                None => {
                    let c = model.and_then(|m| self.collision_mesh(model_index, m));
                    collision_meshes.insert(model_index, c);
                    c
                }
            };
            let children = collision.map(|mesh| {
                vec![self.node(json::Node {
                    name: Some(format!("collision · tile {i:04}")),
                    mesh: Some(mesh),
                    extras: extras(
                        json!({ "llamawad": "collision", "tile": i, "model": model_index }),
                    ),
                    ..Default::default()
                })]
            });
            let [x, y, z] = tile.float.position;
            let nv = model.map_or(0, |m| m.vertices.len());
            let mut tile_extras = json!({
                "llamawad": "tile",
                "tile": i,
                "model": model_index,
                "rotation": tile.float.rotation,
                "swap_flag": tile.float.swap_flag,
                "colour_frames": tile.colours.len().checked_div(nv).unwrap_or(0),
            });
            if let Some(s) = &tile.swap {
                tile_extras["swap"] = serde_json::to_value(s).expect("serialises");
            }
            nodes.push(self.node(json::Node {
                name: Some(format!("tile {i:04} · model {model_index}")),
                mesh,
                translation: Some([x, y, -z]),
                rotation: y_rotation(game_angle(tile.float.rotation)),
                children,
                extras: extras(tile_extras),
                ..Default::default()
            }));
        }
        self.group("Tiles", nodes, "tiles")
    }

    fn material(&mut self, key: MaterialKey) -> Index<json::Material> {
        if let Some(&m) = self.materials.get(&key) {
            return m;
        }
        let (name, base, texture, alpha_mode, double_sided) = match key {
            MaterialKey::Page {
                page,
                blend,
                double_sided,
            } => {
                let texture = self.page_texture(page);
                let transparent = texture.is_some_and(|(_, t)| t);
                let alpha = if blend != 0 {
                    AlphaMode::Blend
                } else if transparent {
                    AlphaMode::Mask
                } else {
                    AlphaMode::Opaque
                };
                (
                    format!(
                        "page {page} blend {blend}{}",
                        if double_sided { " double-sided" } else { "" }
                    ),
                    [1.0, 1.0, 1.0, 1.0],
                    texture.map(|(t, _)| t),
                    alpha,
                    double_sided,
                )
            }
            MaterialKey::Flat { rgb, double_sided } => (
                format!("flat #{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]),
                [
                    self.linear[rgb[0] as usize],
                    self.linear[rgb[1] as usize],
                    self.linear[rgb[2] as usize],
                    1.0,
                ],
                None,
                AlphaMode::Opaque,
                double_sided,
            ),
            MaterialKey::Missing { double_sided } => (
                "missing texture entry".to_string(),
                [1.0, 0.0, 1.0, 1.0],
                None,
                AlphaMode::Opaque,
                double_sided,
            ),
            MaterialKey::Collision => (
                "collision".to_string(),
                [1.0; 4],
                None,
                AlphaMode::Opaque,
                true,
            ),
            MaterialKey::Zones => ("zones".to_string(), [1.0; 4], None, AlphaMode::Opaque, true),
        };
        let material = self.root.push(json::Material {
            name: Some(name),
            alpha_cutoff: (alpha_mode == AlphaMode::Mask).then_some(AlphaCutoff(0.5)),
            alpha_mode: Valid(alpha_mode),
            double_sided,
            pbr_metallic_roughness: PbrMetallicRoughness {
                base_color_factor: PbrBaseColorFactor(base),
                base_color_texture: texture.map(|index| json::texture::Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: None,
                }),
                metallic_factor: StrengthFactor(0.0),
                roughness_factor: StrengthFactor(1.0),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            extensions: Some(extensions::material::Material {
                unlit: Some(extensions::material::Unlit {}),
            }),
            ..Default::default()
        });
        self.materials.insert(key, material);
        material
    }

    /// The texture of a page and whether it has transparent pixels; None for a page that does
    /// not exist.
    fn page_texture(&mut self, page: i8) -> Option<(Index<json::Texture>, bool)> {
        if let Some(&t) = self.page_textures.get(&page) {
            return t;
        }
        let text = self.level.text();
        let result = match text.filter(|t| page >= 0 && (page as usize) < t.pages.len()) {
            Some(text) => {
                let decoded = decode_page(text, page as usize);
                self.warnings.extend(decoded.note);
                let png = encode_png(&decoded.image);
                let image = self
                    .buffer
                    .png(&mut self.root, &png, format!("page {page}"));
                let sampler = *self.sampler.get_or_insert_with(|| {
                    self.root.push(Sampler {
                        mag_filter: Some(Valid(MagFilter::Nearest)),
                        min_filter: Some(Valid(MinFilter::Nearest)),
                        name: None,
                        wrap_s: Valid(WrappingMode::ClampToEdge),
                        wrap_t: Valid(WrappingMode::ClampToEdge),
                        extensions: None,
                        extras: None,
                    })
                });
                let texture = self.root.push(json::Texture {
                    name: Some(format!("page {page}")),
                    sampler: Some(sampler),
                    source: image,
                    extensions: None,
                    extras: None,
                });
                Some((texture, decoded.has_transparency))
            }
            None => {
                self.warnings.push(format!(
                    "texture page {page} does not exist: faces on it are untextured"
                ));
                None
            }
        };
        self.page_textures.insert(page, result);
        result
    }

    fn face_material_key(&self, face: &Face) -> MaterialKey {
        let double_sided = face.flags & face_flags::DOUBLE_SIDED != 0;
        match self.entries.get(face.texture as usize) {
            None => MaterialKey::Missing { double_sided },
            Some(e) if e.is_flat_colour() => MaterialKey::Flat {
                rgb: [e.u0, e.u1, e.v0],
                double_sided,
            },
            Some(e) => MaterialKey::Page {
                page: e.page,
                blend: e.blend_mode(),
                double_sided,
            },
        }
    }

    /// One primitive per material, with every face's three corners (file-space order).
    fn render_primitives(&mut self, model: &Model) -> Vec<SharedPrimitive> {
        let mut by_material: BTreeMap<MaterialKey, Vec<usize>> = BTreeMap::new();
        for (f, face) in model.faces.iter().enumerate() {
            by_material
                .entry(self.face_material_key(face))
                .or_default()
                .push(f);
        }
        let mut out = Vec::with_capacity(by_material.len());
        for (key, faces) in by_material {
            let n = faces.len() * 3;
            let mut positions = Vec::with_capacity(n * 3);
            let mut normals = Vec::with_capacity(n * 3);
            let mut uvs = Vec::with_capacity(n * 2);
            let mut flags = Vec::with_capacity(n);
            let mut textures = Vec::with_capacity(n);
            let mut face_indices = Vec::with_capacity(n);
            let mut vertex_indices = Vec::with_capacity(n);
            let mut corner_vertices = Vec::with_capacity(n);
            let mut corner_ignores_colours = Vec::with_capacity(n);
            for &f in &faces {
                let face = &model.faces[f];
                let face_uv = match self.entries.get(face.texture as usize) {
                    Some(e) if !e.is_flat_colour() => face_uvs(e, face.flags),
                    _ => [[0.0; 2]; 3],
                };
                // Export → file space keeps the first corner and swaps the other two.
                for k in [0, 2, 1] {
                    let v = face.corners[k];
                    let vertex = model.vertices.get(v as usize).copied().unwrap_or_default();
                    let [x, y, z] = vertex.position;
                    positions.extend_from_slice(&[x, y, -z]);
                    normals.extend_from_slice(&unit_normal(vertex.normal));
                    uvs.extend_from_slice(&face_uv[k]);
                    flags.push(face.flags as f32);
                    textures.push(face.texture as f32);
                    face_indices.push(f as f32);
                    vertex_indices.push(v as f32);
                    corner_vertices.push(v);
                    corner_ignores_colours.push(face.flags & face_flags::IGNORE_COLOURS != 0);
                }
            }
            let r = &mut self.root;
            let b = &mut self.buffer;
            let mut attributes = BTreeMap::new();
            attributes.insert(Valid(Semantic::Positions), b.floats(r, &positions, 3, true));
            attributes.insert(Valid(Semantic::Normals), b.floats(r, &normals, 3, false));
            // Flat colours and missing entries have no texture to look up.
            if matches!(key, MaterialKey::Page { .. }) {
                attributes.insert(Valid(Semantic::TexCoords(0)), b.floats(r, &uvs, 2, false));
            }
            attributes.insert(attribute("FLAGS"), b.floats(r, &flags, 1, false));
            attributes.insert(attribute("TEXTURE"), b.floats(r, &textures, 1, false));
            attributes.insert(attribute("FACE"), b.floats(r, &face_indices, 1, false));
            attributes.insert(attribute("VERTEX"), b.floats(r, &vertex_indices, 1, false));
            out.push(SharedPrimitive {
                material: self.material(key),
                attributes,
                corner_vertices,
                corner_ignores_colours,
            });
        }
        out
    }

    fn tile_mesh(
        &mut self,
        tile: usize,
        model: &Model,
        shared: &[SharedPrimitive],
        colours: &[Rgba],
    ) -> Index<json::Mesh> {
        let nv = model.vertices.len();
        let frames = colours.len().checked_div(nv).unwrap_or(0);
        let mut primitives = Vec::with_capacity(shared.len());
        for p in shared {
            let mut attributes = p.attributes.clone();
            if frames > 0 {
                let mut display = Vec::with_capacity(p.corner_vertices.len() * 4);
                for (&v, &ignore) in p.corner_vertices.iter().zip(&p.corner_ignores_colours) {
                    let c = colours.get(v as usize).copied().unwrap_or([0x80; 4]);
                    display.extend_from_slice(&if ignore {
                        [1.0; 4]
                    } else {
                        displayed_colour(&c, &self.linear)
                    });
                }
                attributes.insert(
                    Valid(Semantic::Colors(0)),
                    self.buffer.floats(&mut self.root, &display, 4, false),
                );
                for frame in 0..frames {
                    let set = &colours[frame * nv..(frame + 1) * nv];
                    let mut rgb = Vec::with_capacity(p.corner_vertices.len());
                    let mut alpha = Vec::with_capacity(p.corner_vertices.len());
                    for &v in &p.corner_vertices {
                        let c = set.get(v as usize).copied().unwrap_or_default();
                        rgb.push((c[0] as u32 | (c[1] as u32) << 8 | (c[2] as u32) << 16) as f32);
                        alpha.push(c[3] as f32);
                    }
                    attributes.insert(
                        attribute(&format!("RGB_{frame}")),
                        self.buffer.floats(&mut self.root, &rgb, 1, false),
                    );
                    attributes.insert(
                        attribute(&format!("ALPHA_{frame}")),
                        self.buffer.floats(&mut self.root, &alpha, 1, false),
                    );
                }
            }
            primitives.push(triangles(attributes, p.material));
        }
        self.root.push(mesh(format!("tile {tile:04}"), primitives))
    }

    /// A model's collision polygons rebuilt from their planes, triangulated, in game (= file)
    /// space relative to the tile. None when the model has no collision.
    fn collision_mesh(&mut self, model_index: u32, model: &Model) -> Option<Index<json::Mesh>> {
        if model.collision_count() == 0 {
            return None;
        }
        let mut positions = Vec::new();
        let mut colours = Vec::new();
        let mut polygon_indices = Vec::new();
        let mut materials = Vec::new();
        let mut kinds = Vec::new();
        let mut groups = Vec::new();
        let mut polygon = 0usize;
        for (group, polygons) in model.collision.iter().enumerate() {
            for p in polygons {
                let corners = decode_collision_polygon(p);
                let usable = corners.len() >= 3
                    && corners
                        .iter()
                        .all(|c| c.is_finite() && c.abs().max_element() < 64.0);
                if !usable {
                    self.warnings.push(format!(
                        "TRAK model {model_index} collision polygon {polygon}: its planes do not meet in a polygon; not shown"
                    ));
                    polygon += 1;
                    continue;
                }
                let [nx, ny, nz] = p.planes[0].normal;
                let normal = glam::Vec3::new(nx as f32, ny as f32, nz as f32);
                for tri in 1..corners.len() - 1 {
                    let (a, mut b, mut c) = (corners[0], corners[tri], corners[tri + 1]);
                    // Counter-clockwise seen from the side the surface faces.
                    if (b - a).cross(c - a).dot(normal) < 0.0 {
                        std::mem::swap(&mut b, &mut c);
                    }
                    let colour = collision_material_colour(p.material);
                    for corner in [a, b, c] {
                        positions.extend_from_slice(&corner.to_array());
                        colours.extend_from_slice(&[colour[0], colour[1], colour[2], 1.0]);
                        polygon_indices.push(polygon as f32);
                        materials.push(p.material as f32);
                        kinds.push(p.kind as f32);
                        groups.push(group as f32);
                    }
                }
                polygon += 1;
            }
        }
        if positions.is_empty() {
            return None;
        }
        let r = &mut self.root;
        let b = &mut self.buffer;
        let mut attributes = BTreeMap::new();
        attributes.insert(Valid(Semantic::Positions), b.floats(r, &positions, 3, true));
        attributes.insert(Valid(Semantic::Colors(0)), b.floats(r, &colours, 4, false));
        attributes.insert(
            attribute("POLYGON"),
            b.floats(r, &polygon_indices, 1, false),
        );
        attributes.insert(attribute("MATERIAL"), b.floats(r, &materials, 1, false));
        attributes.insert(attribute("KIND"), b.floats(r, &kinds, 1, false));
        attributes.insert(attribute("GROUP"), b.floats(r, &groups, 1, false));
        let material = self.material(MaterialKey::Collision);
        Some(self.root.push(mesh(
            format!("collision · model {model_index}"),
            vec![triangles(attributes, material)],
        )))
    }

    /// One quad per cell at the height of the cell's lowest tile (0 without tiles), with its
    /// zone number, so zones can be seen and painted.
    fn zones(&mut self, map: &Map) -> Index<json::Node> {
        let (w, h) = (map.width as usize, map.height as usize);
        let mut lowest: Vec<Option<f32>> = vec![None; w * h];
        for tile in &map.tiles {
            if let Some(cell) = crate::game::cells::tile_cell(tile, map.width, map.height) {
                let y = tile.float.position[1];
                let slot = &mut lowest[cell.index(map.width)];
                *slot = Some(slot.map_or(y, |l| l.min(y)));
            }
        }
        let mut positions = Vec::with_capacity(w * h * 18);
        let mut colours = Vec::with_capacity(w * h * 24);
        let mut zone_attr = Vec::with_capacity(w * h * 6);
        let mut cell_attr = Vec::with_capacity(w * h * 6);
        for row in 0..h {
            for col in 0..w {
                let cell = row * w + col;
                let zone = map.region_grid.get(cell).copied().unwrap_or(0);
                let y = lowest[cell].unwrap_or(0.0);
                let (x0, x1, z0, z1) = (col as f32, col as f32 + 1.0, row as f32, row as f32 + 1.0);
                // Two triangles facing up (+y), counter-clockwise seen from above.
                for (x, z) in [(x0, z0), (x0, z1), (x1, z0), (x1, z0), (x0, z1), (x1, z1)] {
                    positions.extend_from_slice(&[x, y, z]);
                    let c = zone_colour(zone);
                    colours.extend_from_slice(&[c[0], c[1], c[2], 1.0]);
                    zone_attr.push(zone as f32);
                    cell_attr.push(cell as f32);
                }
            }
        }
        let mesh = (!positions.is_empty()).then(|| {
            let r = &mut self.root;
            let b = &mut self.buffer;
            let mut attributes = BTreeMap::new();
            attributes.insert(Valid(Semantic::Positions), b.floats(r, &positions, 3, true));
            attributes.insert(Valid(Semantic::Colors(0)), b.floats(r, &colours, 4, false));
            attributes.insert(attribute("ZONE"), b.floats(r, &zone_attr, 1, false));
            attributes.insert(attribute("CELL"), b.floats(r, &cell_attr, 1, false));
            let material = self.material(MaterialKey::Zones);
            self.root.push(mesh(
                "zones".to_string(),
                vec![triangles(attributes, material)],
            ))
        });
        self.node(json::Node {
            name: Some("Zones".to_string()),
            mesh,
            extras: extras(json!({ "llamawad": "zones" })),
            ..Default::default()
        })
    }

    fn strats(&mut self, map: &Map) -> Index<json::Node> {
        let stpc = self.level.stpc();
        let mut nodes = Vec::with_capacity(map.strats.len());
        for (i, s) in map.strats.iter().enumerate() {
            let type_name = stpc.and_then(|st| st.strat_name(s.code_offset));
            let position = s.position.map(|v| v as f32 / 4096.0);
            let mut record = serde_json::to_value(s).expect("serialises");
            record["llamawad"] = json!("strat");
            record["strat"] = json!(i);
            record["type_name"] = json!(type_name);
            nodes.push(self.node(json::Node {
                name: Some(format!(
                    "{} · strat {i:03}",
                    type_name.as_deref().unwrap_or("?")
                )),
                translation: Some(position),
                rotation: y_rotation(game_angle(s.rotation[1] as u32)),
                extras: extras(record),
                ..Default::default()
            }));
        }
        self.group("Strats", nodes, "strats")
    }

    /// The STPC object models side by side along x, in their own scene.
    fn object_models(&mut self) -> Index<json::Node> {
        let Some(stpc) = self.level.stpc() else {
            return self.group("Object models", Vec::new(), "object_models");
        };
        let mut nodes = Vec::with_capacity(stpc.models.len());
        let mut x = 0.0f32;
        for (i, object) in stpc.models.iter().enumerate() {
            let model = &object.model;
            let (min_x, max_x) = model.vertices.iter().fold((0.0f32, 0.0f32), |(lo, hi), v| {
                (lo.min(v.position[0]), hi.max(v.position[0]))
            });
            x += -min_x;
            let shared = self.render_primitives(model);
            let mesh = (!shared.is_empty()).then(|| {
                let primitives = shared
                    .into_iter()
                    .map(|p| triangles(p.attributes, p.material))
                    .collect();
                self.root
                    .push(mesh(format!("object model {i}"), primitives))
            });
            nodes.push(self.node(json::Node {
                name: Some(format!("object model {i:02}")),
                mesh,
                translation: Some([x, 0.0, 0.0]),
                extras: extras(json!({
                    "llamawad": "object_model",
                    "object_model": i,
                    "bone_vertex_counts": object.bone_vertex_counts,
                })),
                ..Default::default()
            }));
            x += max_x + 0.5;
        }
        self.group("Object models", nodes, "object_models")
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
