//! Tile models from triangles: matching them against the base model, and building new ones the
//! way the notes' checklist wants them.

use crate::codes::Code;
use std::collections::HashMap;

use glam::Vec3;

use super::attributes::{integer, FILE_CORNER};
use super::colours::{corner_colours, same_colour, vertex_colours, CornerColour};
use super::error::{Cause, GltfToWadError, NodeRef};
use super::look::{export_uvs, needs_fit, page_material};
use super::recut::recut_quads;
use super::report::{ChangeReport, TileEdit};
use crate::geometry::{bounding_box, face_plane, smooth_normals, sort_into_batches};
use crate::gltf::fit::{with_corner_flags, Fitter, FIT_TOLERANCE};
use crate::gltf::read::Triangles;
use crate::gltf::shown_position;
use crate::level::map::Rgba;
use crate::level::Model;
use crate::limits::MAX_MODEL_VERTICES;
use crate::raw::{face_flags, Face, TextureEntry, Vertex};

/// How far a position may move before it counts as moved (float noise of other tools' matrix
/// arithmetic stays far below).
pub(super) const POSITION_TOLERANCE: f32 = 1e-4;
/// The box around a new model's vertices (the originals' margins are 0.004–0.014).
const BOX_MARGIN: f32 = 1.0 / 128.0;

/// Export-space corners of triangle `t` (file corners 0, 2, 1 with z negated).
pub(super) fn export_corners(tris: &Triangles, t: usize) -> [Vec3; 3] {
    [0, 2, 1].map(|k| {
        let p = tris.positions[3 * t + k];
        Vec3::new(p.x, p.y, -p.z)
    })
}

/// Whether the triangles are exactly the model's faces, showing what they showed.
pub(super) fn matches_model(
    tris: &Triangles,
    model: &Model,
    flags: &[Option<u16>],
    textures: &[Option<i64>],
    entries: &[TextureEntry],
) -> bool {
    if tris.count() != model.faces.len() {
        return false;
    }
    let face_attr = tris.scalar("FACE");
    let base_face = |t: usize| {
        let f = face_attr.and_then(|a| integer(a[3 * t]))?;
        model.faces.get(usize::try_from(f).ok()?)
    };
    if (0..tris.count()).any(|t| needs_fit(tris, t, (flags[t], textures[t]), entries, base_face(t)))
    {
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
            if (corners[(k + r) % 3] - Vec3::from(shown_position(v.position)))
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

/// What differs between the triangles and the model's faces: faces added, faces of the model
/// missing, corners standing elsewhere than their vertex, and faces whose entry, flags or UVs
/// changed.
pub(super) fn face_edits(
    tris: &Triangles,
    model: &Model,
    flags: &[Option<u16>],
    textures: &[Option<i64>],
    entries: &[TextureEntry],
) -> Vec<TileEdit> {
    let face_attr = tris.scalar("FACE");
    let vertex_attr = tris.scalar("VERTEX");
    let mut seen = vec![false; model.faces.len()];
    let (mut added, mut look, mut moved) = (false, false, false);
    for t in 0..tris.count() {
        let f = face_attr
            .and_then(|a| integer(a[3 * t]))
            .and_then(|f| usize::try_from(f).ok())
            .filter(|&f| f < model.faces.len() && !seen[f]);
        let Some(f) = f else {
            added = true;
            continue;
        };
        seen[f] = true;
        let face = &model.faces[f];
        look = look
            || flags[t] != Some(face.flags)
            || textures[t] != Some(face.texture as i64)
            || needs_fit(tris, t, (flags[t], textures[t]), entries, Some(face));
        let corners = export_corners(tris, t);
        moved = moved
            || (0..3).any(|k| {
                let v = vertex_attr
                    .and_then(|a| integer(a[3 * t + FILE_CORNER[k]]))
                    .and_then(|v| usize::try_from(v).ok())
                    .and_then(|v| model.vertices.get(v));
                v.is_none_or(|v| {
                    (corners[k] - Vec3::from(shown_position(v.position)))
                        .abs()
                        .max_element()
                        > POSITION_TOLERANCE
                })
            });
    }
    let removed = seen.iter().any(|s| !s);
    [
        (moved, TileEdit::VerticesMoved),
        (added, TileEdit::FacesAdded),
        (removed, TileEdit::FacesRemoved),
        (look, TileEdit::Look),
    ]
    .into_iter()
    .filter_map(|(yes, edit)| yes.then_some(edit))
    .collect()
}

/// A model built from triangles, and its tile's vertex colours.
pub(super) struct BuiltModel {
    pub model: Model,
    /// How many of its faces got a texture entry fitted to their UVs.
    pub fitted: usize,
    /// `frames` sets of one colour per vertex.
    pub colours: Vec<Rgba>,
}

/// What a model is built from: a node's triangles with their face attributes.
pub(super) struct ModelSource<'a> {
    pub tris: &'a Triangles,
    pub flags: &'a [Option<u16>],
    pub textures: &'a [Option<i64>],
    /// The node, named by its refusals and warnings.
    pub culprit: &'a NodeRef,
    /// The node's own name (the object of the tool that wrote it), for the report.
    pub object: &'a str,
    /// The model the tile had, whose face order and vertex numbering are kept.
    pub base: Option<&'a Model>,
    /// Vertex-colour sets of the tile.
    pub frames: usize,
}

/// A new model from triangles (export space, tile-local), the way the checklists want it:
/// counts, planes, smoothed normals, box, batches; and its vertex colours.
///
/// For a tile whose faces were edited (`base` given): where the triangles still say which base
/// face and vertex they were (`_FACE`, `_VERTEX`), the new model keeps the base's face order,
/// corner order and vertex numbering, and vertices that share a position but were apart in the
/// base (hard edges, colour seams) stay apart. A vertex whose corners were painted different
/// colours becomes one vertex per colour: the game colours vertices, not corners.
pub(super) fn build_model(
    source: ModelSource,
    fitter: &mut Fitter,
    report: &mut ChangeReport,
) -> Result<BuiltModel, GltfToWadError> {
    let ModelSource {
        tris,
        culprit,
        object,
        base,
        frames,
        ..
    } = source;
    let mut flags = source.flags.to_vec();
    let mut textures = source.textures.to_vec();
    let base_of = |t: usize| {
        let f = tris.scalar("FACE").and_then(|a| integer(a[3 * t]))?;
        base?.faces.get(usize::try_from(f).ok()?)
    };
    let fit: Vec<bool> = (0..tris.count())
        .map(|t| {
            needs_fit(
                tris,
                t,
                (flags[t], textures[t]),
                &fitter.entries,
                base_of(t),
            )
        })
        .collect();
    let recut = recut_quads(tris, &fit, fitter);
    let tris = recut.as_ref().unwrap_or(tris);
    let rotation = fit_entries(
        tris,
        &fit,
        (&mut flags, &mut textures),
        fitter,
        (culprit, object),
        report,
    )?;
    let entries = &fitter.entries;
    entries_exist(tris, &textures, entries, culprit)?;
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
    // Each triangle's file corners in export order, started where its fitted layout or the base
    // face started.
    let corner_order = |t: usize| -> [usize; 3] {
        let plain = FILE_CORNER.map(|k| 3 * t + k);
        if let Some(r) = rotation[t] {
            return [0, 1, 2].map(|k| plain[(k + r) % 3]);
        }
        let Some(face) = base_face(t) else {
            return plain;
        };
        let vertices = plain.map(base_vertex);
        (0..3)
            .find(|&r| (0..3).all(|k| vertices[(k + r) % 3] == Some(face.corners[k] as i64)))
            .map_or(plain, |r| [0, 1, 2].map(|k| plain[(k + r) % 3]))
    };
    let corners = corner_colours(tris, frames, &flags);
    let (positions, vertex_of_corner) =
        number_vertices(tris, &order, &corner_order, &base_vertex, &corners);
    let (mut faces, degenerate) = faces_of(
        tris,
        &order,
        &corner_order,
        &vertex_of_corner,
        (&flags, &textures),
    );
    within_limits(positions.len(), faces.len(), culprit)?;
    if degenerate > 0 {
        report.warnings.push(format!(
            "{culprit}: {degenerate} faces without area were left out"
        ));
    }
    sort_into_batches(&mut faces, entries);
    let colours = vertex_colours(&corners, &vertex_of_corner, positions.len(), frames, None);
    Ok(BuiltModel {
        model: model_of(&positions, faces),
        colours,
        fitted: rotation.iter().filter(|r| r.is_some()).count(),
    })
}

/// The faces of the triangles in `order`, their corners the vertices of theirs, with their flags
/// (the batch flag left to the batching), entry and plane; faces without area are left out, and
/// counted.
fn faces_of(
    tris: &Triangles,
    order: &[usize],
    corner_order: &dyn Fn(usize) -> [usize; 3],
    vertex_of_corner: &[usize],
    (flags, textures): (&[Option<u16>], &[Option<i64>]),
) -> (Vec<Face>, usize) {
    let position = |c: usize| export_position(tris, c);
    let mut faces = Vec::with_capacity(tris.count());
    let mut degenerate = 0usize;
    for &t in order {
        let cs = corner_order(t);
        let mut ids = [0u16; 3];
        for (k, &c) in cs.iter().enumerate() {
            ids[k] = vertex_of_corner[c].min(u16::MAX as usize) as u16;
        }
        let plane = face_plane(position(cs[0]), position(cs[1]), position(cs[2]));
        if plane == [0.0; 4] {
            degenerate += 1;
            continue;
        }
        faces.push(Face {
            flags: flags[t].unwrap_or(0) & !face_flags::NEW_BATCH,
            corners: ids,
            texture: textures[t].unwrap_or(0) as u16,
            reserved: 0,
            plane,
        });
    }
    (faces, degenerate)
}

/// A model of these vertices and faces: smooth vertex normals, its box about them, no collision.
fn model_of(positions: &[[f32; 3]], faces: Vec<Face>) -> Model {
    let normals = smooth_normals(positions, &faces);
    let (centre, box_corners) = bounding_box(positions, BOX_MARGIN);
    Model {
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
    }
}

/// A corner's position as the model stores it (file space, z negated back).
fn export_position(tris: &Triangles, c: usize) -> Vec3 {
    let p = tris.positions[c];
    Vec3::new(p.x, p.y, -p.z)
}

/// Refuses faces naming a texture entry the table does not have.
fn entries_exist(
    tris: &Triangles,
    textures: &[Option<i64>],
    entries: &[TextureEntry],
    culprit: &NodeRef,
) -> Result<(), GltfToWadError> {
    let out_of_range: Vec<usize> = (0..tris.count())
        .filter(|&t| textures[t].is_some_and(|i| i < 0 || i as usize >= entries.len()))
        .collect();
    let Some(&first) = out_of_range.first() else {
        return Ok(());
    };
    let entry = textures[first].unwrap_or(0);
    Err(GltfToWadError::faces(
        culprit,
        out_of_range,
        format!(
            "texture entry {entry} does not exist: the level's table has entries 0 to {}",
            entries.len().saturating_sub(1)
        ),
    )
    .code(Code::TextureEntry)
    .cause(Cause {
        value: Some(entry),
        count: Some(entries.len()),
        ..Cause::default()
    }))
}

/// The model's vertices, one per position, base vertex and colour asked for (the triangles in
/// `order`, each's corners in `corner_order`), numbered like the base where they say which base
/// vertex they were, the others after them in order of appearance; and each corner's vertex.
fn number_vertices(
    tris: &Triangles,
    order: &[usize],
    corner_order: &dyn Fn(usize) -> [usize; 3],
    base_vertex: &dyn Fn(usize) -> Option<i64>,
    corners: &[CornerColour],
) -> (Vec<[f32; 3]>, Vec<usize>) {
    let position = |c: usize| export_position(tris, c);
    // A vertex's place: its position's bits and the base vertex it was.
    type Place = ([u32; 3], Option<i64>);
    let mut colour_groups: HashMap<Place, Vec<[u8; 3]>> = HashMap::new();
    let mut vertex_key = |c: usize| {
        let place = (position(c).to_array().map(f32::to_bits), base_vertex(c));
        let groups = colour_groups.entry(place).or_default();
        let group = match corners[c].wanted() {
            Some(w) => groups
                .iter()
                .position(|g| same_colour(*g, w))
                .unwrap_or_else(|| {
                    groups.push(w);
                    groups.len() - 1
                }),
            None => 0,
        };
        (place.0, place.1, group)
    };
    let mut keys: Vec<([u32; 3], Option<i64>, usize)> = Vec::new();
    let mut key_index: HashMap<([u32; 3], Option<i64>, usize), usize> = HashMap::new();
    let mut key_of_corner = vec![None; tris.positions.len()];
    for &t in order {
        for c in corner_order(t) {
            let key = vertex_key(c);
            key_of_corner[c] = Some(key);
            key_index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            });
        }
    }
    let mut numbering: Vec<usize> = (0..keys.len()).collect();
    numbering.sort_by_key(|&k| (keys[k].1.is_none(), keys[k].1.unwrap_or(0), keys[k].2));
    let mut vertex_of_key = vec![0usize; keys.len()];
    for (v, &k) in numbering.iter().enumerate() {
        vertex_of_key[k] = v;
    }
    let positions: Vec<[f32; 3]> = numbering
        .iter()
        .map(|&k| keys[k].0.map(f32::from_bits))
        .collect();
    let mut vertex_of_corner = vec![usize::MAX; tris.positions.len()];
    for (c, key) in key_of_corner.iter().enumerate() {
        if let Some(key) = key {
            vertex_of_corner[c] = vertex_of_key[key_index[key]];
        }
    }
    (positions, vertex_of_corner)
}

/// Refuses a model past the vertices the engine transforms or the faces a u16 counts.
fn within_limits(vertices: usize, faces: usize, culprit: &NodeRef) -> Result<(), GltfToWadError> {
    if vertices > MAX_MODEL_VERTICES {
        return Err(GltfToWadError::node(
            culprit,
            format!(
                "has {} vertices; a tile model can have at most {MAX_MODEL_VERTICES}: split it into smaller tiles",
                vertices
            ),
        )
        .code(Code::VertexLimit)
        .cause(Cause::too_many(vertices, MAX_MODEL_VERTICES)));
    }
    if faces > u16::MAX as usize {
        return Err(GltfToWadError::node(
            culprit,
            format!("has {} faces; a tile model can have at most 65,535", faces),
        )
        .code(Code::FaceLimit)
        .cause(Cause::too_many(faces, u16::MAX as usize)));
    }
    Ok(())
}

/// Faces that need an entry get one fitted to their UVs on their material's page: the entry, its
/// corner flags, and how far the face's corners turn (returned per triangle). UVs the game cannot
/// show within the fitting tolerance are refused by name, unless the fitter may snap them.
pub(super) fn fit_entries(
    tris: &Triangles,
    fit: &[bool],
    (flags, textures): (&mut [Option<u16>], &mut [Option<i64>]),
    fitter: &mut Fitter,
    (culprit, object): (&NodeRef, &str),
    report: &mut ChangeReport,
) -> Result<Vec<Option<usize>>, GltfToWadError> {
    // A face as the artist knows it: the tool's face where the triangles say, else the triangle.
    let source = tris.scalar("SOURCE_FACE");
    let face = |t: usize| {
        source
            .and_then(|s| integer(s[3 * t]))
            .and_then(|f| usize::try_from(f).ok())
            .unwrap_or(t)
    };
    let mut rotation = vec![None; tris.count()];
    let (mut no_uvs, mut no_material, mut off) = (Vec::new(), Vec::new(), Vec::new());
    let entries_before = fitter.entries.len();
    for t in (0..tris.count()).filter(|&t| fit[t]) {
        let Some(material) = page_material(tris, t) else {
            no_material.push(t);
            continue;
        };
        let Some(uvs) = export_uvs(tris, t) else {
            no_uvs.push(t);
            continue;
        };
        if !fitter.snap && fitter.error_of(&uvs, material) > FIT_TOLERANCE {
            off.push(t);
            continue;
        }
        let got = fitter.fit(&uvs, material);
        let base = flags[t].unwrap_or(if material.double_sided {
            face_flags::DOUBLE_SIDED
        } else {
            0
        });
        flags[t] = Some(with_corner_flags(base, got.layout.corner_flags));
        textures[t] = Some(got.entry as i64);
        rotation[t] = Some(got.layout.rotation);
        let at = (object.to_string(), face(t));
        if got.error > FIT_TOLERANCE {
            report.uv_snapped.push(at.clone());
        }
        report.faces_fitted.push(at);
    }
    let added = fitter.entries.len() - entries_before;
    if added > 0 {
        *report
            .texture_entries_by_object
            .entry(object.to_string())
            .or_default() += added;
    }
    if !no_material.is_empty() {
        return Err(GltfToWadError::faces(
            culprit,
            no_material,
            "no texture entry, and no material that says its page (a page's material of the \
             level, or one named like \"page 3 blend 0\") to fit one on: give them a page's \
             material",
        )
        .code(Code::NoMaterial));
    }
    if !no_uvs.is_empty() {
        return Err(GltfToWadError::faces(
            culprit,
            no_uvs,
            "no texture entry and no UVs to fit one from: unwrap them onto their page",
        )
        .code(Code::NoUvs));
    }
    if !off.is_empty() {
        return Err(GltfToWadError::faces(
            culprit,
            off,
            format!(
                "UVs that are no half of a texture rectangle, which is all the game can show \
                 (within {:.4} of the page): make each face's UVs a rectangle or half of one, or \
                 export with UVs snapped",
                FIT_TOLERANCE
            ),
        )
        .code(Code::UvsNotRectangle));
    }
    Ok(rotation)
}
