//! Tile models from triangles: matching them against the base model, and building new ones the
//! way the notes' checklist wants them.

use std::collections::HashMap;

use glam::Vec3;

use super::{integer, ChangeReport, ImportError, BOX_MARGIN, POSITION_TOLERANCE};
use crate::game::check::MAX_MODEL_VERTICES;
use crate::geometry::{bounding_box, face_plane, smooth_normals, sort_into_batches};
use crate::gltf::fit::{with_corner_flags, Fitter, PageMaterial};
use crate::gltf::read::Triangles;
use crate::level::Model;
use crate::raw::{face_flags, Face, Vertex};

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
pub(super) fn matches_model(
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

/// A model built from triangles, and which of its vertices each corner became.
pub(crate) struct BuiltModel {
    pub model: Model,
    /// Model vertex of each corner (file corner order), for the colours.
    pub vertex_of_corner: Vec<usize>,
}

/// A new model from triangles (export space, tile-local), the way the checklists want it:
/// counts, planes, smoothed normals, box, batches.
///
/// For a tile whose faces were edited (`base` given): where the triangles still say which base
/// face and vertex they were (`_FACE`, `_VERTEX`), the new model keeps the base's face order,
/// corner order and vertex numbering, and vertices that share a position but were apart in the
/// base (hard edges, colour seams) stay apart.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_model(
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
            flags: flags[t].unwrap_or(0) & !face_flags::NEW_BATCH,
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
                    face_flags::DOUBLE_SIDED
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
