//! glTF → WAD: a level written back from a glTF and the level it was made from (the base).
//!
//! The base is the source of truth: whatever the glTF shows unchanged keeps the base's bytes
//! (normals, planes and box margins that cannot be recomputed exactly); what changed is rebuilt
//! the way the notes' checklists say. The glTF may come from this project or from any tool that
//! keeps the attributes and extras (Blender's exporter reorders, splits and merges vertices and
//! writes integers as floats; all of that is accepted).

use std::collections::{BTreeMap, HashMap};

use glam::{Mat4, Vec3};
use serde::Serialize;

use crate::geometry::{
    bounding_box, decode_collision_polygon, encode_collision_polygon, face_plane, smooth_normals,
    sort_into_batches, COLLISION_FACING_DOWN, COLLISION_QUAD,
};
use crate::gltf::export::Source;
use crate::gltf::fit::{with_corner_flags, FitReport, Fitter, PageMaterial};
use crate::gltf::new_geometry::{add_new_geometry, NewMesh};
use crate::gltf::read::{extras_json, number, Document, Triangles};
use crate::gltf::uv::FACE_DOUBLE_SIDED;
use crate::level::check::{FACE_NEW_BATCH, MAX_MODEL_VERTICES};
use crate::level::map::Rgba;
use crate::level::{Level, Model};
use crate::raw::{CollisionPolygon, Face, Vertex};

/// How far a position may move before it counts as moved (float noise of other tools' matrix
/// arithmetic stays far below).
const POSITION_TOLERANCE: f32 = 1e-4;
/// Displayed colours survive a tool that stores them as 8-bit sRGB within this (in 0..1).
const COLOUR_TOLERANCE: f32 = 2.5 / 255.0;
const BOX_MARGIN: f32 = 1.0 / 128.0;

#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// Convert even when the glTF says it was made from another level.
    pub force: bool,
    /// Give new meshes without a collision mesh of their own collision from their upward faces.
    pub generate_collision: bool,
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
    pub models_added: usize,
    pub collision_polygons_changed: usize,
    pub texture_entries_appended: usize,
    pub cells_rezoned: usize,
    pub zone_masks_changed: usize,
    /// Faces that had no texture entry and got one fitted to their UVs.
    pub fit: FitReport,
    pub warnings: Vec<String>,
}

impl ChangeReport {
    pub fn is_empty(&self) -> bool {
        self.tiles_moved.is_empty()
            && self.tiles_reshaped.is_empty()
            && self.tiles_recoloured.is_empty()
            && self.tiles_emptied.is_empty()
            && self.tiles_added.is_empty()
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
        }
    }

    pub(crate) fn node(node: &str, message: impl Into<String>) -> ImportError {
        ImportError {
            node: Some(node.to_string()),
            faces: Vec::new(),
            message: message.into(),
        }
    }

    pub(crate) fn faces(node: &str, faces: Vec<usize>, message: impl Into<String>) -> ImportError {
        ImportError {
            node: Some(node.to_string()),
            faces,
            message: message.into(),
        }
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

pub(crate) fn node_name(node: &gltf::Node) -> String {
    match node.name() {
        Some(n) => format!("node '{n}'"),
        None => format!("node {}", node.index()),
    }
}

/// A tile's placement from its node's world transform: export-space position and rotation.
fn placement(world: &Mat4, name: &str) -> Result<([f32; 3], u32), ImportError> {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    if (scale - Vec3::ONE).abs().max_element() > 1e-3 {
        return Err(ImportError::node(
            name,
            format!(
                "is scaled by {scale}; tiles cannot be scaled: apply the scale to the mesh, then export again"
            ),
        ));
    }
    let up = rotation * Vec3::Y;
    if (up - Vec3::Y).abs().max_element() > 1e-3 {
        return Err(ImportError::node(
            name,
            "is turned about x or z; the game turns tiles about the vertical axis only: clear that rotation",
        ));
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

/// What the game shows for a raw colour byte, in 0..1 (sRGB): doubled and clamped.
fn shown(byte: u8) -> f32 {
    (byte as f32 * 2.0).min(255.0) / 255.0
}

fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// One corner's colour as the file carries it: the raw frames when they are there, and what the
/// viewer shows (sRGB).
pub(crate) struct CornerColour {
    raw: Vec<Option<Rgba>>,
    shown: Option<[f32; 3]>,
    /// Faces with flag 0x4000 show white whatever their colour: they say nothing about it.
    ignored: bool,
}

pub(crate) fn corner_colours(
    tris: &Triangles,
    frames: usize,
    flags: &[Option<u16>],
) -> Vec<CornerColour> {
    let rgb: Vec<Option<&[f32]>> = (0..frames)
        .map(|k| tris.scalar(&format!("RGB_{k}")))
        .collect();
    let alpha: Vec<Option<&[f32]>> = (0..frames)
        .map(|k| tris.scalar(&format!("ALPHA_{k}")))
        .collect();
    (0..tris.positions.len())
        .map(|c| {
            let raw = (0..frames)
                .map(|k| {
                    let packed = integer(rgb[k]?[c])?;
                    let a = integer(alpha[k]?[c])?;
                    (0..1 << 24).contains(&packed).then_some(())?;
                    (0..256).contains(&a).then_some(())?;
                    Some([
                        packed as u8,
                        (packed >> 8) as u8,
                        (packed >> 16) as u8,
                        a as u8,
                    ])
                })
                .collect();
            let shown = tris.colours.as_ref().and_then(|cs| {
                let [r, g, b, _] = cs[c];
                [r, g, b]
                    .iter()
                    .all(|v| v.is_finite())
                    .then(|| [r, g, b].map(|v| linear_to_srgb(v.clamp(0.0, 1.0))))
            });
            CornerColour {
                raw,
                shown,
                ignored: flags[c / 3]
                    .is_some_and(|f| f & crate::gltf::uv::FACE_IGNORE_COLOURS != 0),
            }
        })
        .collect()
}

impl CornerColour {
    /// The raw bytes of frame 0 when the shown colour still agrees with them.
    fn trusted_raw(&self, frame: usize) -> Option<Rgba> {
        let raw = self.raw.get(frame).copied().flatten()?;
        if frame > 0 || self.ignored {
            return Some(raw);
        }
        match self.shown {
            Some(s) if (0..3).any(|k| (s[k] - shown(raw[k])).abs() > COLOUR_TOLERANCE) => None,
            _ => Some(raw),
        }
    }
}

/// Colours for a model's vertices from the corners that use them: the raw bytes where the shown
/// colour was not changed, otherwise the shown colour halved (the game doubles). Vertices no
/// corner speaks for keep `base` (the tile's colours when its model is unchanged).
pub(crate) fn vertex_colours(
    corners: &[CornerColour],
    vertex_of_corner: &[usize],
    vertex_count: usize,
    frames: usize,
    base: Option<&[Rgba]>,
) -> Vec<Rgba> {
    let frames = frames.max(1);
    let has_frame = |k: usize| {
        (0..vertex_count).all(|v| {
            vertex_of_corner
                .iter()
                .zip(corners)
                .any(|(&cv, c)| cv == v && c.trusted_raw(k).is_some())
        })
    };
    let base = base.filter(|b| b.len() == vertex_count * frames);
    let frames = if base.is_some() || (1..frames).all(has_frame) {
        frames
    } else {
        1
    };
    let mut out = match base {
        Some(b) => b.to_vec(),
        None => vec![[0x80, 0x80, 0x80, 0]; vertex_count * frames],
    };
    let mut sum = vec![[0.0f32; 3]; vertex_count];
    let mut n = vec![0u32; vertex_count];
    let mut raw0: Vec<Option<Rgba>> = vec![None; vertex_count];
    for (&v, c) in vertex_of_corner.iter().zip(corners) {
        for k in 1..frames {
            if let Some(raw) = c.trusted_raw(k) {
                out[k * vertex_count + v] = raw;
            }
        }
        if let Some(raw) = c.trusted_raw(0) {
            raw0[v].get_or_insert(raw);
        } else if let (Some(s), false) = (c.shown, c.ignored) {
            for k in 0..3 {
                sum[v][k] += s[k];
            }
            n[v] += 1;
        }
    }
    for v in 0..vertex_count {
        if let Some(raw) = raw0[v] {
            out[v] = raw;
        } else if n[v] > 0 {
            let halve = |s: f32| ((s / n[v] as f32) * 255.0 / 2.0).round().clamp(0.0, 255.0) as u8;
            out[v] = [
                halve(sum[v][0]),
                halve(sum[v][1]),
                halve(sum[v][2]),
                out[v][3],
            ];
        }
    }
    // Byte 3 of a tile's first entry is its number of colour sets.
    if let Some(first) = out.first_mut() {
        if frames > 1 {
            first[3] = frames as u8;
        } else if first[3] > 1 {
            first[3] = 1;
        }
    }
    out
}

/// Per-triangle integer attribute (corner 0 of each triangle).
pub(crate) fn per_triangle(tris: &Triangles, name: &str) -> Vec<Option<i64>> {
    match tris.scalar(name) {
        Some(values) => (0..tris.count()).map(|t| integer(values[3 * t])).collect(),
        None => vec![None; tris.count()],
    }
}

/// Export-space corners of triangle `t` (file corners 0, 2, 1 with z negated).
fn export_corners(tris: &Triangles, t: usize) -> [Vec3; 3] {
    [0, 2, 1].map(|k| {
        let p = tris.positions[3 * t + k];
        Vec3::new(p.x, p.y, -p.z)
    })
}

/// The file-space corner index of export corner `k`.
const FILE_CORNER: [usize; 3] = [0, 2, 1];

/// Which model face each triangle is, when the triangles are exactly the model's faces.
fn matches_model(
    tris: &Triangles,
    model: &Model,
    flags: &[Option<u16>],
    textures: &[Option<i64>],
) -> bool {
    if tris.count() != model.faces.len() {
        return false;
    }
    if tris.count() == 0 {
        return true;
    }
    let (Some(face_attr), Some(vertex_attr)) = (tris.scalar("FACE"), tris.scalar("VERTEX")) else {
        return false;
    };
    let mut seen = vec![false; model.faces.len()];
    for t in 0..tris.count() {
        let Some(f) = integer(face_attr[3 * t]).and_then(|f| usize::try_from(f).ok()) else {
            return false;
        };
        let Some(face) = model.faces.get(f) else {
            return false;
        };
        if seen[f] || flags[t] != Some(face.flags) || textures[t] != Some(face.texture as i64) {
            return false;
        }
        seen[f] = true;
        let corners = export_corners(tris, t);
        let vertices: Option<Vec<u16>> = (0..3)
            .map(|k| {
                integer(vertex_attr[3 * t + FILE_CORNER[k]]).and_then(|v| u16::try_from(v).ok())
            })
            .collect();
        let Some(vertices) = vertices else {
            return false;
        };
        // The same triangle may start at another corner; the winding must be the same.
        let rotation = (0..3).find(|&r| (0..3).all(|k| vertices[(k + r) % 3] == face.corners[k]));
        let Some(r) = rotation else { return false };
        for k in 0..3 {
            let Some(v) = model.vertices.get(face.corners[k] as usize) else {
                return false;
            };
            if (corners[(k + r) % 3] - Vec3::from(v.position))
                .abs()
                .max_element()
                > POSITION_TOLERANCE
            {
                return false;
            }
        }
    }
    true
}

/// A new model from triangles (export space, tile-local), the way the checklists want it:
/// counts, planes, smoothed normals, box, batches.
pub(crate) struct BuiltModel {
    pub model: Model,
    /// Model vertex of each corner (file corner order), for the colours.
    pub vertex_of_corner: Vec<usize>,
}

pub(crate) fn build_model(
    tris: &Triangles,
    flags: &[Option<u16>],
    textures: &[Option<i64>],
    fitter: &mut Fitter,
    name: &str,
    report: &mut ChangeReport,
) -> Result<BuiltModel, ImportError> {
    build_model_from(tris, flags, textures, fitter, name, report, None)
}

/// [`build_model`] for a tile whose faces were edited: where the triangles still say which base
/// face and vertex they were (`_FACE`, `_VERTEX`), the new model keeps the base's face order,
/// corner order and vertex numbering, and vertices that share a position but were apart in the
/// base (hard edges, colour seams) stay apart.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_model_from(
    tris: &Triangles,
    flags: &[Option<u16>],
    textures: &[Option<i64>],
    fitter: &mut Fitter,
    name: &str,
    report: &mut ChangeReport,
    base: Option<&Model>,
) -> Result<BuiltModel, ImportError> {
    let mut flags = flags.to_vec();
    let mut textures = textures.to_vec();
    fit_missing_entries(tris, &mut flags, &mut textures, fitter, name)?;
    let entries = &fitter.entries;
    let out_of_range: Vec<usize> = (0..tris.count())
        .filter(|&t| textures[t].is_some_and(|i| i < 0 || i as usize >= entries.len()))
        .collect();
    if let Some(&first) = out_of_range.first() {
        return Err(ImportError::faces(
            name,
            out_of_range,
            format!(
                "texture entry {} does not exist: the level's table has entries 0 to {}",
                textures[first].unwrap_or(0),
                entries.len().saturating_sub(1)
            ),
        ));
    }
    let face_attr = tris.scalar("FACE");
    let vertex_attr = tris.scalar("VERTEX");
    let base_vertex = |c: usize| vertex_attr.and_then(|a| integer(a[c])).filter(|v| *v >= 0);
    let base_face = |t: usize| {
        let f = face_attr
            .and_then(|a| integer(a[3 * t]))
            .and_then(|f| usize::try_from(f).ok())?;
        base?.faces.get(f)
    };
    // The triangles in the base's face order where they name their face (a stable sort: new
    // faces after, in the order given).
    let mut order: Vec<usize> = (0..tris.count()).collect();
    if let Some(face_attr) = face_attr {
        order.sort_by_key(|&t| {
            integer(face_attr[3 * t])
                .filter(|f| *f >= 0)
                .unwrap_or(i64::MAX)
        });
    }
    // Each triangle's file corners in export order, started where the base face started.
    let corner_order = |t: usize| -> [usize; 3] {
        let plain = FILE_CORNER.map(|k| 3 * t + k);
        let Some(face) = base_face(t) else {
            return plain;
        };
        let vertices = plain.map(base_vertex);
        (0..3)
            .find(|&r| (0..3).all(|k| vertices[(k + r) % 3] == Some(face.corners[k] as i64)))
            .map_or(plain, |r| [0, 1, 2].map(|k| plain[(k + r) % 3]))
    };
    let position = |c: usize| {
        let p = tris.positions[c];
        Vec3::new(p.x, p.y, -p.z)
    };
    // Vertices: one per position and base vertex; numbered like the base where they say which
    // base vertex they were, the others after them in order of appearance.
    let mut keys: Vec<([u32; 3], Option<i64>)> = Vec::new();
    let mut key_index: HashMap<([u32; 3], Option<i64>), usize> = HashMap::new();
    for &t in &order {
        for c in corner_order(t) {
            let key = (position(c).to_array().map(f32::to_bits), base_vertex(c));
            key_index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
        }
    }
    let mut numbering: Vec<usize> = (0..keys.len()).collect();
    numbering.sort_by_key(|&k| (keys[k].1.is_none(), keys[k].1.unwrap_or(0)));
    let mut vertex_of_key = vec![0usize; keys.len()];
    for (v, &k) in numbering.iter().enumerate() {
        vertex_of_key[k] = v;
    }
    let positions: Vec<[f32; 3]> = numbering
        .iter()
        .map(|&k| keys[k].0.map(f32::from_bits))
        .collect();
    let mut vertex_of_corner = vec![usize::MAX; tris.positions.len()];
    let mut faces = Vec::with_capacity(tris.count());
    let mut degenerate = 0usize;
    for &t in &order {
        let cs = corner_order(t);
        let mut ids = [0u16; 3];
        for (k, &c) in cs.iter().enumerate() {
            let key = (position(c).to_array().map(f32::to_bits), base_vertex(c));
            let v = vertex_of_key[key_index[&key]];
            vertex_of_corner[c] = v;
            ids[k] = v.min(u16::MAX as usize) as u16;
        }
        let plane = face_plane(position(cs[0]), position(cs[1]), position(cs[2]));
        if plane == [0.0; 4] {
            degenerate += 1;
            continue;
        }
        faces.push(Face {
            flags: flags[t].unwrap_or(0) & !FACE_NEW_BATCH,
            corners: ids,
            texture: textures[t].unwrap_or(0) as u16,
            reserved: 0,
            plane,
        });
    }
    if positions.len() > MAX_MODEL_VERTICES {
        return Err(ImportError::node(
            name,
            format!(
                "has {} vertices; a tile model can have at most {MAX_MODEL_VERTICES}: split it into smaller tiles",
                positions.len()
            ),
        ));
    }
    if faces.len() > u16::MAX as usize {
        return Err(ImportError::node(
            name,
            format!(
                "has {} faces; a tile model can have at most 65,535",
                faces.len()
            ),
        ));
    }
    if degenerate > 0 {
        report.warnings.push(format!(
            "{name}: {degenerate} faces without area were left out"
        ));
    }
    sort_into_batches(&mut faces, entries);
    let normals = smooth_normals(&positions, &faces);
    let (centre, box_corners) = bounding_box(&positions, BOX_MARGIN);
    Ok(BuiltModel {
        model: Model {
            centre,
            box_corners,
            vertices: positions
                .iter()
                .zip(normals)
                .map(|(p, n)| Vertex {
                    position: *p,
                    normal: n,
                })
                .collect(),
            faces,
            collision: Default::default(),
            slots: Default::default(),
        },
        vertex_of_corner,
    })
}

/// Faces without a texture entry get one fitted to their UVs on their material's page.
fn fit_missing_entries(
    tris: &Triangles,
    flags: &mut [Option<u16>],
    textures: &mut [Option<i64>],
    fitter: &mut Fitter,
    name: &str,
) -> Result<(), ImportError> {
    let missing: Vec<usize> = (0..tris.count())
        .filter(|&t| textures[t].is_none())
        .collect();
    let mut unfittable = Vec::new();
    for &t in &missing {
        let material = tris.materials[t]
            .as_deref()
            .and_then(PageMaterial::from_name);
        let uvs = tris.uvs.as_ref().map(|uv| [0, 2, 1].map(|k| uv[3 * t + k]));
        match (material, uvs) {
            (Some(material), Some(uvs)) if uvs.iter().flatten().all(|v| v.is_finite()) => {
                let (entry, corner_flags) = fitter.fit(uvs, material);
                let base = flags[t].unwrap_or(if material.double_sided {
                    FACE_DOUBLE_SIDED
                } else {
                    0
                });
                flags[t] = Some(with_corner_flags(base, corner_flags));
                textures[t] = Some(entry as i64);
            }
            _ => unfittable.push(t),
        }
    }
    if unfittable.is_empty() {
        Ok(())
    } else {
        Err(ImportError::faces(
            name,
            unfittable,
            "have no texture entry (attribute _TEXTURE) and no UVs on a material named after a page \
             (\"page 3 blend 0\") to fit one from: give them a page material and UVs, or an entry",
        ))
    }
}

/// The corners of a convex polygon given as triangles, in order around its normal.
pub(crate) fn polygon_corners(tris: &[[Vec3; 3]]) -> Vec<Vec3> {
    let mut corners: Vec<Vec3> = Vec::new();
    let mut normal = Vec3::ZERO;
    for t in tris {
        normal += (t[1] - t[0]).cross(t[2] - t[0]);
        for &p in t {
            if !corners.iter().any(|c| (*c - p).length() < 1e-5) {
                corners.push(p);
            }
        }
    }
    let centre = corners.iter().copied().sum::<Vec3>() / corners.len().max(1) as f32;
    let normal = normal.normalize_or_zero();
    let u = (corners[0] - centre).normalize_or_zero();
    let w = normal.cross(u);
    corners.sort_by(|a, b| {
        let angle = |p: &Vec3| {
            let d = *p - centre;
            d.dot(w).atan2(d.dot(u))
        };
        angle(a).total_cmp(&angle(b))
    });
    corners
}

/// Triangles (given with their corners) in groups that share edges: two triangles with two
/// corners in common (within 1e-4) are in one group. Groups and their triangles keep the order
/// of `ts`.
fn edge_connected(ts: &[usize], corners: &[[Vec3; 3]]) -> Vec<Vec<usize>> {
    let key = |p: Vec3| (p * 1e4).round().to_array().map(|v| v as i64);
    // What every polygon of an unchanged mesh is: one triangle, or a quad's two.
    match corners {
        [] => return Vec::new(),
        [_] => return vec![ts.to_vec()],
        [a, b] => {
            let shared = a
                .iter()
                .filter(|p| b.iter().any(|q| key(**p) == key(*q)))
                .count();
            return if shared >= 2 {
                vec![ts.to_vec()]
            } else {
                vec![vec![ts[0]], vec![ts[1]]]
            };
        }
        _ => {}
    }
    let mut parent: Vec<usize> = (0..ts.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut edges: HashMap<[[i64; 3]; 2], usize> = HashMap::new();
    for (i, c) in corners.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (key(c[k]), key(c[(k + 1) % 3]));
            let edge = if a <= b { [a, b] } else { [b, a] };
            if let Some(&j) = edges.get(&edge) {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri.max(rj)] = ri.min(rj);
            } else {
                edges.insert(edge, i);
            }
        }
    }
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    let mut piece_of: HashMap<usize, usize> = HashMap::new();
    for (i, &t) in ts.iter().enumerate() {
        let r = root(&mut parent, i);
        let k = *piece_of.entry(r).or_insert_with(|| {
            pieces.push(Vec::new());
            pieces.len() - 1
        });
        pieces[k].push(t);
    }
    pieces
}

/// The collision of a tile from its collision node, or None when it equals the base model's.
#[allow(clippy::too_many_arguments)]
fn collision_from_node(
    doc: &Document,
    node: &gltf::Node,
    node_world: &Mat4,
    tile_world: &Mat4,
    base: &Model,
    name: &str,
    report: &mut ChangeReport,
) -> Result<Option<[Vec<CollisionPolygon>; 3]>, ImportError> {
    let tris = match node.mesh() {
        Some(mesh) => doc
            .triangles(&mesh)
            .map_err(|e| ImportError::node(name, e.0))?,
        None => Triangles::default(),
    };
    // Collision corners in the tile's frame, game space (= file space).
    let to_tile = tile_world.inverse() * *node_world;
    let polygon_attr = per_triangle(&tris, "POLYGON");
    let material_attr = per_triangle(&tris, "MATERIAL");
    let kind_attr = per_triangle(&tris, "KIND");
    let group_attr = per_triangle(&tris, "GROUP");
    let base_polygons: Vec<(usize, CollisionPolygon)> = base
        .collision
        .iter()
        .enumerate()
        .flat_map(|(g, ps)| ps.iter().map(move |p| (g, *p)))
        .collect();

    // Triangles of each base polygon, and the ones that are new.
    let mut grouped: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut new_tris = Vec::new();
    for (t, polygon) in polygon_attr.iter().enumerate() {
        match polygon.and_then(|p| usize::try_from(p).ok()) {
            Some(p) if p < base_polygons.len() => grouped.entry(p).or_default().push(t),
            _ => new_tris.push(t),
        }
    }
    let corners_of = |ts: &[usize]| -> Vec<[Vec3; 3]> {
        ts.iter()
            .map(|&t| [0, 1, 2].map(|k| to_tile.transform_point3(tris.positions[3 * t + k])))
            .collect()
    };

    let mut groups: [Vec<CollisionPolygon>; 3] = Default::default();
    let mut changed = 0usize;
    // Pieces that are polygons of their own: new triangles, and triangles that carry a polygon's
    // number but do not touch its other triangles (Blender gives the faces a user adds the
    // attribute value 0, which is polygon 0's number).
    let mut new_pieces: Vec<Vec<usize>> = Vec::new();
    for (p, (group, base_poly)) in base_polygons.iter().enumerate() {
        let Some(all) = grouped.get(&p) else {
            changed += 1;
            continue;
        };
        let decoded = decode_collision_polygon(base_poly);
        let mut pieces = edge_connected(all, &corners_of(all));
        if pieces.len() > 1 {
            // The piece with most of the polygon's corners is the polygon.
            let score = |ts: &Vec<usize>| {
                let corners = polygon_corners(&corners_of(ts));
                decoded
                    .iter()
                    .filter(|d| {
                        corners
                            .iter()
                            .any(|c| (*c - **d).abs().max_element() < 1e-3)
                    })
                    .count()
            };
            let best = (0..pieces.len())
                .max_by_key(|&k| (score(&pieces[k]), std::cmp::Reverse(k)))
                .unwrap_or(0);
            let main = pieces.swap_remove(best);
            new_pieces.append(&mut pieces);
            pieces = vec![main];
        }
        let ts = &pieces[0];
        let corners = polygon_corners(&corners_of(ts));
        let t0 = ts[0];
        let material = material_attr[t0].map_or(base_poly.material as i64, |m| m);
        let kind = kind_attr[t0].map_or(base_poly.kind as i64, |k| k);
        let new_group = group_attr[t0].map_or(*group as i64, |g| g).clamp(0, 2) as usize;
        let same_shape = decoded.len() == corners.len()
            && decoded
                .iter()
                .all(|d| corners.iter().any(|c| (*c - *d).abs().max_element() < 1e-3));
        if same_shape && kind == base_poly.kind as i64 {
            // The planes stay as they were; only the material or the group may change.
            let mut poly = *base_poly;
            if let Ok(m) = u8::try_from(material) {
                poly.material = m;
            } else {
                return Err(ImportError::faces(
                    name,
                    ts.clone(),
                    format!("collision material {material} is not 0 to 255"),
                ));
            }
            if poly != *base_poly || new_group != *group {
                changed += 1;
            }
            groups[new_group].push(poly);
            continue;
        }
        changed += 1;
        let poly = encode(&corners, material, kind, name, ts, p)?;
        groups[new_group].push(poly);
    }
    new_pieces.extend(edge_connected(&new_tris, &corners_of(&new_tris)));
    for piece in new_pieces {
        // Two triangles that make a flat convex quad are one polygon; otherwise every triangle is.
        let polygons = if piece.len() == 2 && polygon_corners(&corners_of(&piece)).len() == 4 {
            let t0 = piece[0];
            let material = material_attr[t0].unwrap_or(0);
            match encode(
                &polygon_corners(&corners_of(&piece)),
                material,
                kind_attr[t0].unwrap_or(0),
                name,
                &piece,
                0,
            ) {
                Ok(poly) => vec![(poly, t0)],
                Err(_) => Vec::new(),
            }
        } else {
            Vec::new()
        };
        let polygons = if polygons.is_empty() {
            let mut out = Vec::new();
            for &t in &piece {
                let corners = polygon_corners(&corners_of(&[t]));
                let polygon =
                    base_polygons.len() + groups.iter().map(Vec::len).sum::<usize>() + out.len();
                let poly = encode(
                    &corners,
                    material_attr[t].unwrap_or(0),
                    kind_attr[t].unwrap_or(0),
                    name,
                    &[t],
                    polygon,
                )?;
                out.push((poly, t));
            }
            out
        } else {
            polygons
        };
        for (poly, t0) in polygons {
            changed += 1;
            groups[group_attr[t0].unwrap_or(0).clamp(0, 2) as usize].push(poly);
        }
    }
    if changed == 0 {
        return Ok(None);
    }
    report.collision_polygons_changed += changed;
    Ok(Some(groups))
}

pub(crate) fn encode(
    corners: &[Vec3],
    material: i64,
    kind: i64,
    name: &str,
    tris: &[usize],
    polygon: usize,
) -> Result<CollisionPolygon, ImportError> {
    let Ok(material) = u8::try_from(material) else {
        return Err(ImportError::faces(
            name,
            tris.to_vec(),
            format!("collision material {material} is not 0 to 255"),
        ));
    };
    let mut poly = encode_collision_polygon(corners, material).map_err(|e| {
        ImportError::faces(
            name,
            tris.to_vec(),
            format!("collision polygon {polygon}: {e}"),
        )
    })?;
    // Keep the type bits the notes do not explain; quad and facing-down follow the shape.
    let known = COLLISION_QUAD | COLLISION_FACING_DOWN;
    poly.kind |= (kind.clamp(0, 255) as u8) & !known;
    Ok(poly)
}

/// Appends `model` to the new models, or finds an equal one among those made from the same base
/// model (`derived`); its index in TRAK.
fn add_model(
    new_models: &mut Vec<Model>,
    derived: &mut Vec<usize>,
    model: Model,
    model_count: usize,
    report: &mut ChangeReport,
) -> u32 {
    if let Some(&k) = derived.iter().find(|&&k| new_models[k] == model) {
        return (model_count + k) as u32;
    }
    new_models.push(model);
    report.models_added += 1;
    derived.push(new_models.len() - 1);
    (model_count + new_models.len() - 1) as u32
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
    let base_trak = base
        .trak()
        .ok_or_else(|| ImportError::level("the base level has no TRAK chunk"))?;
    let base_map = base
        .map()
        .ok_or_else(|| ImportError::level("the base level has no MAP chunk"))?;
    let mut level = base.clone();
    let mut new_models: Vec<Model> = Vec::new();
    // New models made from each base model: tiles that shared a model and were edited alike
    // (Blender edits a mesh all its tiles share at once) share the new one.
    let mut derived_from: HashMap<u32, Vec<usize>> = HashMap::new();
    let model_count = base_trak.models.len();

    let nodes = doc.world_nodes();
    let parents: HashMap<usize, usize> = nodes
        .iter()
        .flat_map(|(n, _)| n.children().map(move |c| (c.index(), n.index())))
        .collect();

    // Tile nodes in document order; a second node for the same tile (a duplicate) is a new tile.
    let mut tile_nodes: Vec<(usize, &gltf::Node, Mat4)> = Vec::new();
    let mut claimed = vec![false; base_map.tiles.len()];
    let mut duplicates = Vec::new();
    let mut collision_of: HashMap<usize, (&gltf::Node, Mat4)> = HashMap::new();
    let mut zones_node = None;
    let mut new_meshes: Vec<NewMesh> = Vec::new();
    for (node, world) in &nodes {
        let Some(role) = role(node) else {
            if node.mesh().is_some() && !is_given_collision(node) {
                new_meshes.push(NewMesh {
                    node: node.clone(),
                    world: *world,
                    collision: None,
                });
            }
            continue;
        };
        match (role.kind.as_str(), role.index) {
            ("tile", Some(i)) if i < base_map.tiles.len() => {
                if claimed[i] {
                    duplicates.push((i, node, *world));
                } else {
                    claimed[i] = true;
                    tile_nodes.push((i, node, *world));
                }
            }
            ("tile", _) => {
                return Err(ImportError::node(
                    &node_name(node),
                    format!(
                        "names a tile the base level does not have ({} tiles)",
                        base_map.tiles.len()
                    ),
                ));
            }
            ("collision", _) => {
                if let Some(&parent) = parents.get(&node.index()) {
                    collision_of.insert(parent, (node, *world));
                }
            }
            ("zones", _) => zones_node = Some(node),
            _ => {}
        }
    }

    // A new mesh's collision is a child mesh named "collision…", or the collision node a tile
    // had before its node lost its tile (a whole level re-tiled).
    for mesh in &mut new_meshes {
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
    let mut fitter = Fitter::new(level.text().map(|t| t.entries.clone()).unwrap_or_default());

    let empty_model = |new_models: &mut Vec<Model>, report: &mut ChangeReport| -> u32 {
        if let Some(k) = new_models
            .iter()
            .position(|m| m.vertices.is_empty() && m.collision_count() == 0)
        {
            return (model_count + k) as u32;
        }
        new_models.push(Model::default());
        report.models_added += 1;
        (model_count + new_models.len() - 1) as u32
    };

    for (i, _) in base_map.tiles.iter().enumerate() {
        if !claimed[i] {
            let model = empty_model(&mut new_models, &mut report);
            let tile = &mut level.map_mut().expect("cloned from the base").tiles[i];
            tile.model_index = model;
            tile.float.model = model;
            tile.colours.clear();
            report.tiles_emptied.push(i);
        }
    }

    let all_tiles = tile_nodes
        .iter()
        .map(|t| (t, false))
        .chain(duplicates.iter().map(|t| (t, true)));
    for (&(i, node, world), is_new) in all_tiles {
        let name = node_name(node);
        let base_tile = &base_map.tiles[i];
        let base_model = &base_trak.models[base_tile.model_index as usize];
        let (position, rotation) = placement(&world, &name)?;
        let mut tile = base_tile.clone();
        let moved = (0..3)
            .any(|k| (position[k] - base_tile.float.position[k]).abs() > POSITION_TOLERANCE)
            || rotation != base_tile.float.rotation % 4096;
        if moved || is_new {
            tile.set_placement(position, rotation);
        }
        let map = level.map().expect("cloned from the base");
        if tile.cell(map.width, map.height).is_none() {
            return Err(ImportError::node(
                &name,
                format!(
                    "stands at x {:.2}, z {:.2}, outside the {}×{} grid; move it inside (0 ≤ x < {}, 0 ≤ z < {})",
                    position[0], -position[2], map.width, map.height, map.width, map.height
                ),
            ));
        }

        let tris = match node.mesh() {
            Some(mesh) => doc
                .triangles(&mesh)
                .map_err(|e| ImportError::node(&name, e.0))?,
            None => Triangles::default(),
        };
        let flags: Vec<Option<u16>> = per_triangle(&tris, "FLAGS")
            .into_iter()
            .map(|f| f.and_then(|f| u16::try_from(f).ok()))
            .collect();
        let textures = per_triangle(&tris, "TEXTURE");
        let geometry_same = matches_model(&tris, base_model, &flags, &textures);
        let collision = match collision_of.get(&node.index()) {
            Some((cnode, cworld)) => {
                collision_from_node(doc, cnode, cworld, &world, base_model, &name, &mut report)?
            }
            None if base_model.collision_count() > 0 => {
                report.collision_polygons_changed += base_model.collision_count();
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
        let (model_index, colours) = if geometry_same {
            // Matched triangles all carry vertex indices; a model without faces has no corners.
            let vertex_attr = tris.scalar("VERTEX").unwrap_or(&[]);
            let vertex_of_corner: Vec<usize> =
                vertex_attr.iter().map(|&v| v.round() as usize).collect();
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
                    let derived = derived_from.entry(base_tile.model_index).or_default();
                    add_model(&mut new_models, derived, model, model_count, &mut report)
                }
            };
            (model_index, colours)
        } else {
            let built = build_model_from(
                &tris,
                &flags,
                &textures,
                &mut fitter,
                &name,
                &mut report,
                Some(base_model),
            )?;
            let mut model = built.model;
            model.collision = collision.unwrap_or_else(|| base_model.collision.clone());
            let colours = vertex_colours(
                &corners,
                &built.vertex_of_corner,
                model.vertices.len(),
                frames,
                None,
            );
            let derived = derived_from.entry(base_tile.model_index).or_default();
            let model_index = add_model(&mut new_models, derived, model, model_count, &mut report);
            (model_index, colours)
        };
        if model_index != base_tile.model_index {
            tile.model_index = model_index;
            tile.float.model = model_index;
            if !is_new {
                report.tiles_reshaped.push(i);
            }
        }
        let recoloured = colours != base_tile.colours;
        tile.colours = if !recoloured {
            base_tile.colours.clone()
        } else {
            colours
        };
        if recoloured && model_index == base_tile.model_index && !is_new {
            report.tiles_recoloured.push(i);
        }
        if moved && !is_new {
            report.tiles_moved.push(i);
        }
        let map = level.map_mut().expect("cloned from the base");
        if is_new {
            // A copy of a tile is a tile of its own; a swap belongs to the original only.
            tile.swap = None;
            tile.swap_colours.clear();
            tile.float.swap_flag = 0;
            report.tiles_added.push(map.tiles.len());
            map.tiles.push(tile);
        } else {
            map.tiles[i] = tile;
        }
    }

    add_new_geometry(
        doc,
        &new_meshes,
        &mut level,
        &mut new_models,
        model_count,
        &mut fitter,
        options.generate_collision,
        &mut report,
    )?;
    let appended = fitter.appended().to_vec();
    if !appended.is_empty() {
        let text = level.text_mut().ok_or_else(|| {
            ImportError::level(
                "faces need new texture entries, but the base level has no TEXT chunk",
            )
        })?;
        text.entries.extend_from_slice(&appended);
    }
    report.texture_entries_appended = appended.len();
    report.fit = fitter.report();

    if let Some(node) = zones_node {
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
    report.tiles_moved.sort_unstable();
    report.tiles_reshaped.sort_unstable();
    report.tiles_recoloured.sort_unstable();

    let known: Vec<_> = base.check();
    for problem in level.check() {
        if !known.contains(&problem) {
            report.warnings.push(format!(
                "{}: {} ({})",
                problem.culprit, problem.message, problem.rule
            ));
        }
    }
    Ok((level, report))
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
        )))
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
        .map_err(|e| ImportError::node(&name, e.0))?;
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
            return Err(ImportError::faces(
                &name,
                vec![t],
                format!("zone {zone} is not 0 to 31"),
            ));
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
