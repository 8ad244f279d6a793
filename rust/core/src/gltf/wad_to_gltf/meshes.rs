//! The tiles: their render meshes (a model's primitives shared by its tiles, colours per tile)
//! and their collision.

use super::materials::MaterialKey;
use super::*;
use crate::gltf::shown_position;
use crate::level::map::Rgba;

/// The parts of a model's render primitive that every tile using the model shares.
pub(super) struct SharedPrimitive {
    pub(super) material: Index<json::Material>,
    pub(super) attributes: Attributes,
    /// Model vertex of each corner, for the per-tile colours.
    pub(super) corner_vertices: Vec<u16>,
    /// Corners of faces with flag 0x4000, which the game draws white.
    pub(super) corner_ignores_colours: Vec<bool>,
}

impl Exporter<'_> {
    pub(super) fn tiles(&mut self, trak: &Trak, map: &Map) -> Index<json::Node> {
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
            // A tile with faces but no collision (decoration the llama passes through) says so
            // with a collision child without a mesh: a tool that keeps names but not extras still
            // hands it back, and the way back gives its faces no collision when it re-tiles them.
            let has_faces = model.is_some_and(|m| !m.faces.is_empty());
            let children = (collision.is_some() || has_faces).then(|| {
                vec![self.node(json::Node {
                    name: Some(format!("collision · tile {i:04}")),
                    mesh: collision,
                    extras: extras(
                        json!({ "llamawad": "collision", "tile": i, "model": model_index }),
                    ),
                    ..Default::default()
                })]
            });
            let [x, y, z] = shown_position(tile.float.position);
            let nv = model.map_or(0, |m| m.vertices.len());
            let mut tile_extras = json!({
                "llamawad": "tile",
                "tile": i,
                "model": model_index,
                "rotation": tile.float.rotation,
                "swap_flag": tile.float.swap_flag,
                "colour_frames": tile.colours.len().checked_div(nv).unwrap_or(0),
                "collision_polygons": model.map_or(0, |m| m.collision_count()),
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

    /// One primitive per material, with every face's three corners (file-space order).
    pub(super) fn render_primitives(&mut self, model: &Model) -> Vec<SharedPrimitive> {
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
                let face_uv = shown_uvs(self.entries.get(face.texture as usize), face.flags)
                    .unwrap_or_default();
                for k in GLTF_CORNERS {
                    let v = face.corners[k];
                    let vertex = model.vertices.get(v as usize).copied().unwrap_or_default();
                    let [x, y, z] = shown_position(vertex.position);
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

    pub(super) fn tile_mesh(
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
                    display.extend_from_slice(&shown_colour(&c, ignore, &self.linear));
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
    pub(super) fn collision_mesh(
        &mut self,
        model_index: u32,
        model: &Model,
    ) -> Option<Index<json::Mesh>> {
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
}
