//! glTF → WAD: a level written back from a glTF and the level it was made from (the base).
//!
//! The base is the source of truth: whatever the glTF shows unchanged keeps the base's bytes
//! (normals, planes and box margins that cannot be recomputed exactly); what changed is rebuilt
//! the way the notes' checklists say. The glTF may come from this project or from any tool that
//! keeps the attributes and extras (Blender's exporter reorders, splits and merges vertices and
//! writes integers as floats; all of that is accepted).

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use serde::Serialize;

use crate::game::cells::tile_cell;
use crate::game::coverage;
use crate::game::{Problem, Severity};
use crate::gltf::export::Source;
use crate::gltf::fit::{FitReport, Fitter};
use crate::gltf::new_geometry::{add_new_geometry, NewMesh};
pub(crate) use crate::gltf::read::node_name;
use crate::gltf::read::{extras_json, number, Document, ReadError, Triangles};
use crate::level::{Level, Model};

mod collision;
mod colours;
mod model;

use collision::collision_from_node;
pub(crate) use collision::{encode, given_polygons, GivenPolygon};
use colours::{colours_differ, corner_colours, vertex_colours};
use model::matches_model;
pub(crate) use model::{build_model, recut_new_quads, ModelSource};

/// How far a position may move before it counts as moved (float noise of other tools' matrix
/// arithmetic stays far below).
const POSITION_TOLERANCE: f32 = 1e-4;
const BOX_MARGIN: f32 = 1.0 / 128.0;
/// How far beyond the grid's edges a position may lie (x and z), and how far up or down (y), in
/// units: farther is no place in a level, where f32 arithmetic also stops being exact enough.
const REACH: f32 = 16.0;
const MAX_HEIGHT: f32 = 1024.0;

#[derive(Debug, Clone, Copy)]
pub struct ImportOptions {
    /// Convert even when the glTF says it was made from another level.
    pub force: bool,
    /// Give new meshes without a collision mesh of their own collision made from their faces
    /// (floors and walls); without it such meshes have none, and a warning names each.
    pub generate_collision: bool,
    /// Faces whose UVs the game cannot show take the nearest layout it can (reported), instead of
    /// refusing the glTF.
    pub snap_uvs: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            force: false,
            generate_collision: true,
            snap_uvs: false,
        }
    }
}

/// What the conversion changed, for the user.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChangeReport {
    pub tiles_moved: Vec<usize>,
    /// Tiles whose faces, face flags, texture entries or collision changed: each now has a model
    /// of its own.
    pub tiles_reshaped: Vec<usize>,
    pub tiles_recoloured: Vec<usize>,
    pub tiles_emptied: Vec<usize>,
    pub tiles_added: Vec<usize>,
    /// Collision-only tiles written so that the polygons of the tiles above reach every cell
    /// they cover (`game::coverage`), in emptied slots or appended.
    pub coverage_tiles: Vec<usize>,
    /// Coverage tiles of edited tiles that serve no more: emptied (kept: tile numbers never
    /// change), or removed from the end of the tile list.
    pub coverage_freed: Vec<usize>,
    pub coverage_removed: usize,
    pub models_added: usize,
    pub collision_polygons_changed: usize,
    pub texture_entries_appended: usize,
    pub cells_rezoned: usize,
    pub zone_masks_changed: usize,
    /// Faces that had no texture entry, or whose UVs or page changed, and got one fitted.
    pub fit: FitReport,
    /// (node, face) of faces whose UVs were snapped to a layout the game can show.
    pub uv_snapped: Vec<(String, usize)>,
    /// New meshes whose collision was made from their faces.
    pub collision_generated: Vec<String>,
    /// (tile, glTF node name) for every tile this conversion placed, changed or added, and for
    /// each coverage tile the node of the tile it serves: where a problem of a tile comes from.
    pub sources: Vec<(usize, String)>,
    pub warnings: Vec<String>,
}

impl ChangeReport {
    pub fn is_empty(&self) -> bool {
        self.tiles_moved.is_empty()
            && self.tiles_reshaped.is_empty()
            && self.tiles_recoloured.is_empty()
            && self.tiles_emptied.is_empty()
            && self.tiles_added.is_empty()
            && self.coverage_tiles.is_empty()
            && self.coverage_freed.is_empty()
            && self.models_added == 0
            && self.cells_rezoned == 0
            && self.zone_masks_changed == 0
    }
}

/// Why a glTF cannot become a level. Names the node and the faces at fault so that a tool can
/// select them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", culprit(.node, .faces))]
pub struct ImportError {
    pub node: Option<String>,
    /// Triangle indices in the node's mesh, in the order the glTF lists them.
    pub faces: Vec<usize>,
    pub message: String,
    /// What kind of refusal, short and stable (`no-uvs`, `tile-outside-grid`, `game-rules`, …):
    /// for tools, never parsed from the message.
    pub code: &'static str,
    /// `faces` as the faces of the tool that wrote the glTF (`_SOURCE_FACE`: Blender's faces,
    /// which the artist sees), when the triangles carry them.
    pub source_faces: Vec<usize>,
    /// When the level would break the game's rules rather than the glTF being at fault.
    pub broken: Option<Box<BrokenRules>>,
}

/// The game's rules a converted level would break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenRules {
    /// Every new error of `game::check`, with its culprit (the first one is the message).
    pub problems: Vec<Problem>,
    /// The report's (tile, glTF node) pairs, so that each problem's tile can be traced to the
    /// node it came from.
    pub sources: Vec<(usize, String)>,
}

fn culprit(node: &Option<String>, faces: &[usize]) -> String {
    let mut out = String::new();
    if let Some(n) = node {
        out.push_str(&format!("{n}: "));
    }
    match faces.len() {
        0 => {}
        1 => out.push_str(&format!("face {}: ", faces[0])),
        n if n <= 8 => out.push_str(&format!(
            "faces {}: ",
            faces
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        n => out.push_str(&format!("{n} faces (first {}): ", faces[0])),
    }
    out
}

impl ImportError {
    pub(crate) fn level(message: impl Into<String>) -> ImportError {
        ImportError {
            node: None,
            faces: Vec::new(),
            message: message.into(),
            code: "refused",
            source_faces: Vec::new(),
            broken: None,
        }
    }

    pub(crate) fn code(mut self, code: &'static str) -> ImportError {
        self.code = code;
        self
    }

    /// The node's name as the tool that wrote it gave it (its object), without the quoting of
    /// `node`.
    pub fn object(&self) -> Option<&str> {
        let node = self.node.as_deref()?;
        Some(
            node.strip_prefix("node '")
                .and_then(|n| n.strip_suffix('\''))
                .unwrap_or(node),
        )
    }

    /// The faces named as the faces of the tool that wrote `tris` (whose triangles `faces`
    /// counts), where they say which.
    pub(crate) fn in_source_faces(mut self, tris: &Triangles) -> ImportError {
        if let (Some(source), true) = (tris.scalar("SOURCE_FACE"), self.source_faces.is_empty()) {
            let mut faces: Vec<usize> = self
                .faces
                .iter()
                .filter_map(|&t| source.get(3 * t).copied().and_then(integer))
                .filter_map(|f| usize::try_from(f).ok())
                .collect();
            faces.sort_unstable();
            faces.dedup();
            self.source_faces = faces;
        }
        self
    }

    pub(crate) fn node(node: &str, message: impl Into<String>) -> ImportError {
        ImportError {
            node: Some(node.to_string()),
            ..ImportError::level(message)
        }
    }

    pub(crate) fn faces(node: &str, faces: Vec<usize>, message: impl Into<String>) -> ImportError {
        ImportError {
            faces,
            ..ImportError::node(node, message)
        }
    }

    /// The level breaks the game's rules: the errors, the first naming the node its tile came
    /// from.
    fn rules(errors: Vec<Problem>, sources: &[(usize, String)]) -> ImportError {
        let first = &errors[0];
        let node = first
            .tile
            .and_then(|t| sources.iter().find(|(s, _)| *s == t))
            .map(|(_, name)| format!("node '{name}'"));
        let more = match errors.len() {
            1 => String::new(),
            n => format!(" (and {} more errors)", n - 1),
        };
        ImportError {
            node,
            faces: Vec::new(),
            message: format!("{}{more}", first.message),
            code: "game-rules",
            source_faces: Vec::new(),
            broken: Some(Box::new(BrokenRules {
                problems: errors,
                sources: sources.to_vec(),
            })),
        }
    }

    /// A node's mesh that cannot be read, with the faces at fault where the reader names them.
    pub(crate) fn read(node: &str, e: ReadError) -> ImportError {
        ImportError::faces(node, e.faces, e.message).code("unreadable")
    }
}

/// Our role and index in a node's extras, however a tool spelled the numbers.
struct Role {
    kind: String,
    index: Option<usize>,
}

fn role(node: &gltf::Node) -> Option<Role> {
    let extras = extras_json(node.extras())?;
    let kind = extras.get("llamawad")?.as_str()?.to_string();
    let index = ["tile", "strat", "object_model"]
        .iter()
        .find_map(|k| extras.get(*k))
        .and_then(number)
        .filter(|v| *v >= 0.0 && v.fract() == 0.0)
        .map(|v| v as usize);
    Some(Role { kind, index })
}

/// A node's name as the tool that wrote it gave it (Blender: the object's name).
pub(crate) fn raw_node_name(node: &gltf::Node) -> String {
    node.name()
        .map_or_else(|| format!("node {}", node.index()), str::to_string)
}

/// A tile's placement from its node's world transform: export-space position and rotation.
pub(crate) fn placement(world: &Mat4, name: &str) -> Result<([f32; 3], u32), ImportError> {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    if (scale - Vec3::ONE).abs().max_element() > 1e-3 {
        return Err(ImportError::node(
            name,
            format!(
                "is scaled by {scale}; tiles cannot be scaled: apply the scale to the mesh, then export again"
            ),
        )
    .code("tile-scaled"));
    }
    let up = rotation * Vec3::Y;
    if (up - Vec3::Y).abs().max_element() > 1e-3 {
        return Err(ImportError::node(
            name,
            "is turned about x or z; the game turns tiles about the vertical axis only: clear that rotation",
        )
    .code("tile-tilted"));
    }
    let x_axis = rotation * Vec3::X;
    let angle = (-x_axis.z).atan2(x_axis.x);
    let steps = (angle / std::f32::consts::TAU * 4096.0).round() as i64;
    Ok((
        [translation.x, translation.y, -translation.z],
        steps.rem_euclid(4096) as u32,
    ))
}

/// Rounds attribute floats back to the integers they carry.
fn integer(v: f32) -> Option<i64> {
    (v.is_finite() && (v - v.round()).abs() < 1e-3).then(|| v.round() as i64)
}

/// Per-triangle integer attribute (corner 0 of each triangle).
pub(crate) fn per_triangle(tris: &Triangles, name: &str) -> Vec<Option<i64>> {
    match tris.scalar(name) {
        Some(values) => (0..tris.count()).map(|t| integer(values[3 * t])).collect(),
        None => vec![None; tris.count()],
    }
}

/// Each triangle's face flags (`_FLAGS`), refusing values that are not 16-bit integers.
pub(crate) fn face_flags(tris: &Triangles, name: &str) -> Result<Vec<Option<u16>>, ImportError> {
    let Some(values) = tris.scalar("FLAGS") else {
        return Ok(vec![None; tris.count()]);
    };
    let flag = |t: usize| integer(values[3 * t]).and_then(|f| u16::try_from(f).ok());
    // NaN marks a primitive without the attribute, not a value.
    let bad: Vec<usize> = (0..tris.count())
        .filter(|&t| !values[3 * t].is_nan() && flag(t).is_none())
        .collect();
    match bad.first() {
        None => Ok((0..tris.count()).map(flag).collect()),
        Some(&t) => Err(ImportError::faces(
            name,
            bad,
            format!(
                "_FLAGS {} is not a 16-bit integer (0 to 65535)",
                values[3 * t]
            ),
        )
        .code("attribute-value")),
    }
}

/// A node's triangles (none without a mesh), refusing any corner that lies, after `world`,
/// beyond the reach of a `grid` (width, height) level.
pub(crate) fn node_triangles(
    doc: &Document,
    node: &gltf::Node,
    world: &Mat4,
    grid: (u32, u32),
    name: &str,
) -> Result<Triangles, ImportError> {
    let Some(mesh) = node.mesh() else {
        return Ok(Triangles::default());
    };
    let tris = doc
        .triangles(&mesh)
        .map_err(|e| ImportError::read(name, e))?;
    let (w, h) = (grid.0 as f32, grid.1 as f32);
    let within = |p: Vec3| {
        let p = world.transform_point3(p);
        (-REACH..=w + REACH).contains(&p.x)
            && (-REACH..=h + REACH).contains(&p.z)
            && (-MAX_HEIGHT..=MAX_HEIGHT).contains(&p.y)
    };
    let beyond: Vec<usize> = (0..tris.count())
        .filter(|&t| !(0..3).all(|k| within(tris.positions[3 * t + k])))
        .collect();
    if beyond.is_empty() {
        return Ok(tris);
    }
    Err(ImportError::faces(
        name,
        beyond,
        format!(
            "reach beyond the level: every corner must lie within {REACH} units of the {}×{} grid \
             (x and z from −{REACH} to the grid's size + {REACH}) and within {MAX_HEIGHT} units \
             up or down",
            grid.0, grid.1
        ),
    )
    .code("beyond-grid")
    .in_source_faces(&tris))
}

/// The nodes of a glTF sorted by what they are to the level.
struct Nodes<'a> {
    /// Tile nodes in document order, the first node of each tile.
    tiles: Vec<(usize, gltf::Node<'a>, Mat4)>,
    /// Further nodes of a tile already claimed: copies, which become new tiles.
    copies: Vec<(usize, gltf::Node<'a>, Mat4)>,
    /// Whether some node stands for each base tile.
    claimed: Vec<bool>,
    /// The collision node of each tile node (by the tile node's index).
    collision_of: HashMap<usize, (gltf::Node<'a>, Mat4)>,
    zones: Option<gltf::Node<'a>>,
    new_meshes: Vec<NewMesh<'a>>,
}

fn sort_nodes<'a>(doc: &'a Document, tile_count: usize) -> Result<Nodes<'a>, ImportError> {
    let nodes = doc.world_nodes();
    let parents: HashMap<usize, usize> = nodes
        .iter()
        .flat_map(|(n, _)| n.children().map(move |c| (c.index(), n.index())))
        .collect();
    let mut sorted = Nodes {
        tiles: Vec::new(),
        copies: Vec::new(),
        claimed: vec![false; tile_count],
        collision_of: HashMap::new(),
        zones: None,
        new_meshes: Vec::new(),
    };
    // A child that is a collision mesh: named "collision…", or a tile's collision node of ours.
    let collision_child = |n: &gltf::Node| {
        n.children()
            .any(|c| is_given_collision(&c) || role(&c).is_some_and(|r| r.kind == "collision"))
    };
    for (node, world) in &nodes {
        let Some(role) = role(node) else {
            // New geometry: a mesh, or collision alone (a node without faces whose child is
            // collision, as a re-tiled level's water planes are).
            let new = node.mesh().is_some() || collision_child(node);
            if new && !is_given_collision(node) {
                sorted.new_meshes.push(NewMesh {
                    node: node.clone(),
                    world: *world,
                    collision: None,
                });
            }
            continue;
        };
        match (role.kind.as_str(), role.index) {
            ("tile", Some(i)) if i < tile_count => {
                if sorted.claimed[i] {
                    sorted.copies.push((i, node.clone(), *world));
                } else {
                    sorted.claimed[i] = true;
                    sorted.tiles.push((i, node.clone(), *world));
                }
            }
            ("tile", _) => {
                return Err(ImportError::node(
                    &node_name(node),
                    format!("names a tile the base level does not have ({tile_count} tiles)"),
                )
                .code("unknown-tile"));
            }
            ("collision", _) => {
                if let Some(&parent) = parents.get(&node.index()) {
                    sorted.collision_of.insert(parent, (node.clone(), *world));
                }
            }
            ("zones", _) => sorted.zones = Some(node.clone()),
            _ => {}
        }
    }
    // A new mesh's collision is a child mesh named "collision…", or the collision node a tile
    // had before its node lost its tile (a whole level re-tiled).
    for mesh in &mut sorted.new_meshes {
        mesh.collision = mesh
            .node
            .children()
            .find(|c| is_given_collision(c) || role(c).is_some_and(|r| r.kind == "collision"))
            .and_then(|c| {
                nodes
                    .iter()
                    .find(|(n, _)| n.index() == c.index())
                    .map(|(n, w)| (n.clone(), *w))
            });
    }
    Ok(sorted)
}

/// The state of one conversion: the level being written and what it gains.
struct Conversion<'a> {
    base: &'a Level,
    level: Level,
    /// Models appended to TRAK, numbered from `model_count`.
    new_models: Vec<Model>,
    model_count: usize,
    /// New models made from each base model: tiles that shared a model and were edited alike
    /// (Blender edits a mesh all its tiles share at once) share the new one.
    derived_from: HashMap<u32, Vec<usize>>,
    fitter: Fitter,
    report: ChangeReport,
}

impl Conversion<'_> {
    /// Appends `model`, or finds an equal one among those made from the same base model; its
    /// index in TRAK.
    fn add_model(&mut self, base_model: u32, model: Model) -> u32 {
        let derived = self.derived_from.entry(base_model).or_default();
        if let Some(&k) = derived.iter().find(|&&k| self.new_models[k] == model) {
            return (self.model_count + k) as u32;
        }
        self.new_models.push(model);
        self.report.models_added += 1;
        derived.push(self.new_models.len() - 1);
        (self.model_count + self.new_models.len() - 1) as u32
    }

    /// A tile without a node keeps its index and draws nothing (FORMAT-DECISIONS §6).
    fn empty_tile(&mut self, i: usize) {
        let empty = match self
            .new_models
            .iter()
            .position(|m| m.vertices.is_empty() && m.collision_count() == 0)
        {
            Some(k) => (self.model_count + k) as u32,
            None => {
                self.new_models.push(Model::default());
                self.report.models_added += 1;
                (self.model_count + self.new_models.len() - 1) as u32
            }
        };
        let tile = &mut self.level.map_mut().expect("cloned from the base").tiles[i];
        follow_model(tile, empty);
        tile.model_index = empty;
        tile.float.model = empty;
        tile.colours.clear();
        self.report.tiles_emptied.push(i);
    }

    /// One tile node: its placement, geometry, collision and colours against the base tile.
    /// `copy` marks a second node of the same tile, which becomes a new tile.
    fn tile(
        &mut self,
        doc: &Document,
        (i, node, world): &(usize, gltf::Node, Mat4),
        collision_node: Option<&(gltf::Node, Mat4)>,
        copy: bool,
    ) -> Result<(), ImportError> {
        let (i, world) = (*i, *world);
        let name = node_name(node);
        let base_map = self.base.map().expect("checked by gltf_to_wad");
        let base_tile = &base_map.tiles[i];
        let base_model = &self.base.trak().expect("checked by gltf_to_wad").models
            [base_tile.model_index as usize];
        let (position, rotation) = placement(&world, &name)?;
        let mut tile = base_tile.clone();
        let moved = (0..3)
            .any(|k| (position[k] - base_tile.float.position[k]).abs() > POSITION_TOLERANCE)
            || rotation != base_tile.float.rotation % 4096;
        if moved || copy {
            tile.set_placement(position, rotation);
            follow_swap(&mut tile, base_tile, base_map);
        }
        if tile_cell(&tile, base_map.width, base_map.height).is_none() {
            let (w, h) = (base_map.width, base_map.height);
            return Err(ImportError::node(
                &name,
                format!(
                    "stands at x {:.2}, z {:.2}, outside the {w}×{h} grid; move it inside (0 ≤ x < {w}, 0 ≤ z < {h})",
                    position[0], -position[2]
                ),
            )
    .code("tile-outside-grid"));
        }

        let grid = (base_map.width, base_map.height);
        let tris = node_triangles(doc, node, &world, grid, &name)?;
        let flags = face_flags(&tris, &name)?;
        let textures = per_triangle(&tris, "TEXTURE");
        let geometry_same =
            matches_model(&tris, base_model, &flags, &textures, &self.fitter.entries);
        let collision = match collision_node {
            Some((cnode, cworld)) => {
                let ctris = node_triangles(doc, cnode, cworld, grid, &name)?;
                collision_from_node(&ctris, cworld, &world, base_model, &name, &mut self.report)
                    .map_err(|e| e.in_source_faces(&ctris))?
            }
            // A copy (Blender's Shift D, Alt D) comes without the tile's collision object: it keeps
            // its model's collision. The tile itself without one had it deleted.
            None if base_model.collision_count() > 0 && !copy => {
                self.report.collision_polygons_changed += base_model.collision_count();
                Some(Default::default())
            }
            None => None,
        };

        let nv_base = base_model.vertices.len();
        let frames = base_tile
            .colours
            .len()
            .checked_div(nv_base)
            .unwrap_or(1)
            .max(1);
        let corners = corner_colours(&tris, frames, &flags);
        // Matched triangles all carry vertex indices; a model without faces has no corners.
        let vertex_of_corner: Vec<usize> = tris
            .scalar("VERTEX")
            .unwrap_or(&[])
            .iter()
            .map(|&v| v.round() as usize)
            .collect();
        // Corners of one vertex painted apart need vertices of their own: a new model.
        let geometry_same = geometry_same && !colours_differ(&corners, &vertex_of_corner);
        let (model_index, colours) = if geometry_same {
            let colours = vertex_colours(
                &corners,
                &vertex_of_corner,
                nv_base,
                frames,
                Some(&base_tile.colours),
            );
            let model_index = match collision {
                None => base_tile.model_index,
                Some(groups) => {
                    let mut model = base_model.clone();
                    model.collision = groups;
                    self.add_model(base_tile.model_index, model)
                }
            };
            (model_index, colours)
        } else {
            let source = ModelSource {
                tris: &tris,
                flags: &flags,
                textures: &textures,
                name: &name,
                base: Some(base_model),
                frames,
            };
            let built = build_model(source, &mut self.fitter, &mut self.report)
                .map_err(|e| e.in_source_faces(&tris))?;
            let mut model = built.model;
            model.collision = collision.unwrap_or_else(|| base_model.collision.clone());
            (self.add_model(base_tile.model_index, model), built.colours)
        };

        let report = &mut self.report;
        if model_index != base_tile.model_index {
            follow_model(&mut tile, model_index);
            tile.model_index = model_index;
            tile.float.model = model_index;
            if !copy {
                report.tiles_reshaped.push(i);
            }
        }
        let recoloured = colours != base_tile.colours;
        if recoloured {
            tile.colours = colours;
            if model_index == base_tile.model_index && !copy {
                report.tiles_recoloured.push(i);
            }
        }
        if moved && !copy {
            report.tiles_moved.push(i);
        }
        let map = self.level.map_mut().expect("cloned from the base");
        let index = if copy {
            // A copy of a tile is a tile of its own; a swap belongs to the original only.
            tile.swap = None;
            tile.swap_colours.clear();
            tile.float.swap_flag = 0;
            report.tiles_added.push(map.tiles.len());
            map.tiles.push(tile);
            map.tiles.len() - 1
        } else {
            map.tiles[i] = tile;
            i
        };
        report.sources.push((index, raw_node_name(node)));
        Ok(())
    }
}

/// Converts a glTF back into a level, given the level it was made from.
pub fn gltf_to_wad(
    base: &Level,
    base_bytes: &[u8],
    doc: &Document,
    options: ImportOptions,
) -> Result<(Level, ChangeReport), ImportError> {
    let mut report = ChangeReport::default();
    check_source(base, base_bytes, doc, options, &mut report)?;
    let base_trak = base.trak().ok_or_else(|| {
        ImportError::level("the base level has no TRAK chunk").code("base-incomplete")
    })?;
    let base_map = base.map().ok_or_else(|| {
        ImportError::level("the base level has no MAP chunk").code("base-incomplete")
    })?;
    let nodes = sort_nodes(doc, base_map.tiles.len())?;
    let mut c = Conversion {
        base,
        level: base.clone(),
        new_models: Vec::new(),
        model_count: base_trak.models.len(),
        derived_from: HashMap::new(),
        fitter: Fitter::new(
            base.text().map(|t| t.entries.clone()).unwrap_or_default(),
            options.snap_uvs,
        ),
        report,
    };

    for i in (0..base_map.tiles.len()).filter(|&i| !nodes.claimed[i]) {
        c.empty_tile(i);
    }
    for (tile, copy) in nodes
        .tiles
        .iter()
        .map(|t| (t, false))
        .chain(nodes.copies.iter().map(|t| (t, true)))
    {
        c.tile(doc, tile, nodes.collision_of.get(&tile.1.index()), copy)?;
    }
    add_new_geometry(
        doc,
        &nodes.new_meshes,
        &mut c.level,
        &mut c.new_models,
        c.model_count,
        &mut c.fitter,
        options.generate_collision,
        &mut c.report,
    )?;

    let Conversion {
        mut level,
        new_models,
        fitter,
        mut report,
        ..
    } = c;
    let appended = fitter.appended().to_vec();
    if !appended.is_empty() {
        let text = level.text_mut().ok_or_else(|| {
            ImportError::level(
                "faces need new texture entries, but the base level has no TEXT chunk",
            )
            .code("base-incomplete")
        })?;
        text.entries.extend_from_slice(&appended);
    }
    report.texture_entries_appended = appended.len();
    report.fit = fitter.report();

    if let Some(node) = &nodes.zones {
        apply_zones(doc, node, &mut level, &mut report)?;
    }
    apply_zone_masks(doc, &mut level, &mut report);

    if !new_models.is_empty() {
        level
            .trak_mut()
            .expect("cloned from the base")
            .models
            .extend(new_models);
    }
    cover(base, &mut level, &mut report)?;
    report.tiles_moved.sort_unstable();
    report.tiles_reshaped.sort_unstable();
    report.tiles_recoloured.sort_unstable();

    // What the game would do with the level: new errors refuse it, new warnings are reported.
    // An unchanged level is the base, whose problems are all its own.
    let (errors, warnings): (Vec<Problem>, Vec<Problem>) = if report.is_empty() {
        Default::default()
    } else {
        crate::game::check_against(&level, base)
            .new_problems()
            .cloned()
            .partition(|p| p.severity == Severity::Error)
    };
    if !errors.is_empty() {
        return Err(ImportError::rules(errors, &report.sources));
    }
    for problem in warnings {
        report
            .warnings
            .push(format!("{} ({})", problem.message, problem.code));
    }
    Ok((level, report))
}

/// A swap entry names its tile's cell and height (as far as the notes say, and as every level
/// this project writes has it): where it did, it follows the moved tile.
fn follow_swap(tile: &mut crate::level::Tile, base: &crate::level::Tile, map: &crate::level::Map) {
    let (w, h) = (map.width, map.height);
    let cells = (tile_cell(base, w, h), tile_cell(tile, w, h));
    let y = tile.fixed.position[1] as u32;
    let Some(swap) = tile.swap.as_mut() else {
        return;
    };
    if let (Some(old), Some(new)) = cells {
        if (swap.cell_x, swap.cell_z) == (old.col, old.row) {
            (swap.cell_x, swap.cell_z) = (new.col, new.row);
        }
    }
    if swap.y == base.fixed.position[1] as u32 {
        swap.y = y;
    }
}

/// A swap entry's model A is the tile's own model (what a swap back restores): where it was, it
/// follows the tile to its new model.
fn follow_model(tile: &mut crate::level::Tile, model: u32) {
    if let Some(swap) = tile.swap.as_mut().filter(|s| s.model_a == tile.model_index) {
        swap.model_a = model;
    }
}

/// Enters the collision of every tile this conversion placed or changed into every cell it
/// covers, and frees the coverage tiles that served the base's versions of them.
fn cover(base: &Level, level: &mut Level, report: &mut ChangeReport) -> Result<(), ImportError> {
    let base_map = base.map().expect("checked by gltf_to_wad");
    let base_models = &base.trak().expect("checked by gltf_to_wad").models;
    let changed_base: Vec<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .chain(&report.tiles_emptied)
        .copied()
        .collect();
    let edited: std::collections::HashSet<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .copied()
        .collect();
    let stale: Vec<usize> = coverage::copies_of(base_map, base_models, &changed_base)
        .into_iter()
        .filter(|k| !edited.contains(k))
        .collect();
    let mut owners: Vec<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .chain(&report.tiles_added)
        .copied()
        .collect();
    owners.sort_unstable();
    owners.dedup();
    if owners.is_empty() && stale.is_empty() {
        return Ok(());
    }
    let (map, trak) = level.map_and_trak_mut();
    let (Some(map), Some(trak)) = (map, trak) else {
        unreachable!("cloned from a base with MAP and TRAK");
    };
    let models_before = trak.models.len();
    let change = coverage::rebuild(map, &mut trak.models, &owners, &stale).map_err(|e| {
        ImportError::level(format!(
            "{e}: keep the tile's collision within about 8 units of its origin"
        ))
        .code("collision-reach")
    })?;
    report.models_added += trak.models.len() - models_before;
    let source_of: HashMap<usize, String> = report.sources.iter().cloned().collect();
    for (&copy, owner) in change.copies.iter().zip(&change.owners) {
        if let Some(name) = source_of.get(owner) {
            report.sources.push((copy, name.clone()));
        }
    }
    report.coverage_tiles = change.copies;
    report.coverage_freed = change.freed;
    report.coverage_removed = change.removed;
    Ok(())
}

/// A mesh given as the collision of a new mesh: named "collision…", without a role of ours.
fn is_given_collision(node: &gltf::Node) -> bool {
    role(node).is_none()
        && node
            .name()
            .is_some_and(|n| n.to_ascii_lowercase().starts_with("collision"))
}

fn scene_extras(doc: &Document) -> Option<serde_json::Value> {
    doc.document.scenes().find_map(|s| {
        extras_json(s.extras())?
            .get("llamawad")
            .filter(|v| v.is_object())
            .cloned()
    })
}

fn check_source(
    base: &Level,
    base_bytes: &[u8],
    doc: &Document,
    options: ImportOptions,
    report: &mut ChangeReport,
) -> Result<(), ImportError> {
    let Some(ours) = scene_extras(doc) else {
        report.warnings.push(
            "the glTF does not say which level it was made from; the base is taken as given".into(),
        );
        return Ok(());
    };
    let source = Source::of(base_bytes);
    let size = number(&ours["source"]["size"]).map(|v| v as u64);
    let crc = number(&ours["source"]["crc32"]).map(|v| v as u32);
    if size == Some(source.size) && crc == Some(source.crc32) {
        return Ok(());
    }
    let made_from = ours["level_name"].as_str().unwrap_or("?");
    let message = format!(
        "the glTF was made from another level ({made_from}, {} bytes) than the base ({}, {} bytes)",
        size.map_or("?".to_string(), |s| s.to_string()),
        base.name().map(|n| n.text()).unwrap_or_else(|| "?".into()),
        source.size
    );
    if options.force {
        report
            .warnings
            .push(format!("{message}; converted anyway (forced)"));
        Ok(())
    } else {
        Err(ImportError::level(format!(
            "{message}: give the level it was made from as the base, or force"
        ))
        .code("other-level"))
    }
}

fn apply_zones(
    doc: &Document,
    node: &gltf::Node,
    level: &mut Level,
    report: &mut ChangeReport,
) -> Result<(), ImportError> {
    let Some(mesh) = node.mesh() else {
        return Ok(());
    };
    let name = node_name(node);
    let tris = doc
        .triangles(&mesh)
        .map_err(|e| ImportError::read(&name, e))?;
    let cells = per_triangle(&tris, "CELL");
    let zones = per_triangle(&tris, "ZONE");
    let map = level.map_mut().expect("checked by the caller");
    let mut rezoned = vec![false; map.region_grid.len()];
    for t in 0..tris.count() {
        let (Some(cell), Some(zone)) = (cells[t], zones[t]) else {
            continue;
        };
        let Some(slot) = usize::try_from(cell)
            .ok()
            .and_then(|c| map.region_grid.get_mut(c))
        else {
            continue;
        };
        if !(0..32).contains(&zone) {
            return Err(
                ImportError::faces(&name, vec![t], format!("zone {zone} is not 0 to 31"))
                    .code("zone-number"),
            );
        }
        if *slot != zone as u32 {
            *slot = zone as u32;
            rezoned[cell as usize] = true;
        }
    }
    report.cells_rezoned = rezoned.iter().filter(|&&r| r).count();
    Ok(())
}

fn apply_zone_masks(doc: &Document, level: &mut Level, report: &mut ChangeReport) {
    let Some(ours) = scene_extras(doc) else {
        return;
    };
    let Some(regions) = ours["regions"].as_array() else {
        return;
    };
    let map = level.map_mut().expect("checked by the caller");
    for (region, value) in map.regions.iter_mut().zip(regions) {
        let mask = number(&value["mask"]).map(|v| v as u32);
        let val = number(&value["value"]).map(|v| v as i32);
        if let (Some(mask), Some(val)) = (mask, val) {
            if (mask, val) != (region.mask, region.value) {
                region.mask = mask;
                region.value = val;
                report.zone_masks_changed += 1;
            }
        }
    }
}
