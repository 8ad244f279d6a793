//! Object models read back (MAPPING.md, "Object models"): STPC's models (the coins, pots and
//! doors the strats draw) written in place. The strat code after them refers into STPC by
//! absolute byte offsets (FORMAT.md §7), so a model's bytes may change but never their number:
//! vertices moved, faces given other texture entries, flags or UVs are written; a vertex or face
//! added or removed, a vertex split in two or moved to another bone's vertices, is refused by
//! model and by what changed.

use glam::Vec3;

use super::attributes::{face_flags, integer, per_triangle, FILE_CORNER};
use super::error::{GltfToWadError, Record};
use super::look::needs_fit;
use super::model::{export_corners, fit_entries, matches_model, POSITION_TOLERANCE};
use super::motion::{motion, moved_collision, Motion};
use super::nodes::{nodes_of, one_each, Naming};
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use crate::codes::Code;
use crate::geometry::{bounding_box, face_plane, smooth_normals, sort_into_batches};
use crate::gltf::fit::Fitter;
use crate::gltf::read::Triangles;
use crate::level::{Level, Model, ObjectModel};

/// The box around a moved model's vertices (the originals' margins are 0.004–0.014).
const BOX_MARGIN: f32 = 1.0 / 128.0;

/// Reads the object-model nodes back into `level` (a clone of `base`); an edit a model cannot
/// hold is refused by name into `refused`.
pub(super) fn apply_object_models(
    scene: &Scene,
    base: &Level,
    level: &mut Level,
    fitter: &mut Fitter,
    report: &mut ChangeReport,
    refused: &mut Vec<GltfToWadError>,
) {
    let Some(stpc) = base.stpc() else {
        return;
    };
    let naming = Naming {
        record: Record::ObjectModel,
        a_one: "an object model",
        many: "object models",
        no_copies: "object models cannot be copied or added",
    };
    let nodes = nodes_of(scene, "object_model");
    let count = stpc.models.len();
    let by_model = one_each(nodes, count, &naming, Code::UnknownObjectModel, refused);
    for (i, node) in by_model {
        let object = &stpc.models[i];
        match read_back(scene, node, i, object, fitter, report) {
            Ok(None) => {}
            Ok(Some(model)) => {
                if object.is_skinned()
                    && model.vertices != object.model.vertices
                    && !stpc.animations.is_empty()
                {
                    report.warnings.push(format!(
                        "object model {i} is skinned and its vertices moved: the level's {} animation sets keep their bytes and will play relative to the new shape",
                        stpc.animations.len()
                    ));
                }
                let stpc = level.stpc_mut().expect("cloned from the base");
                stpc.models[i].model = model;
                report.object_models_changed.push(i);
            }
            Err(e) => refused.push(e),
        }
    }
}

/// The model a node's mesh shows, where it differs from the base's and keeps its counts.
fn read_back(
    scene: &Scene,
    node: &Node,
    index: usize,
    object: &ObjectModel,
    fitter: &mut Fitter,
    report: &mut ChangeReport,
) -> Result<Option<Model>, GltfToWadError> {
    let culprit = node.culprit();
    let base = &object.model;
    let tris = match node.mesh {
        Some(mesh) => scene
            .triangles(mesh)
            .map_err(|e| GltfToWadError::read(&culprit, e))?
            .into_owned(),
        None => Triangles::default(),
    };
    let mut flags = face_flags(&tris, &culprit)?;
    let mut textures = per_triangle(&tris, "TEXTURE");
    let places = same_counts(&tris, object).map_err(|what| {
        GltfToWadError::node(
            &culprit,
            format!(
                "object model {index}: {what}; object models keep their counts, because the strat code refers into STPC by byte offsets"
            ),
        )
        .code(Code::ObjectModelCounts)
        .cause(Record::ObjectModel(index).cause())
    })?;
    // (A vertex given another bone changes nothing else: it is asked first.)
    if matches_model(&tris, base, &flags, &textures, &fitter.entries) {
        return Ok(None);
    }

    let mut model = base.clone();
    let moved = places.iter().zip(&base.vertices).any(|(p, v)| {
        p.is_some_and(|p| (p - Vec3::from(v.position)).abs().max_element() > POSITION_TOLERANCE)
    });
    if moved {
        for (v, p) in model.vertices.iter_mut().zip(&places) {
            if let Some(p) = p {
                v.position = p.to_array();
            }
        }
    }
    // Faces: their texture entry and flags as given, fitted where their UVs or page ask for it.
    let face_of = |t: usize| -> usize {
        let f = tris.scalar("FACE").and_then(|a| integer(a[3 * t]));
        f.and_then(|f| usize::try_from(f).ok())
            .expect("same_counts found each triangle's face")
    };
    let fit: Vec<bool> = (0..tris.count())
        .map(|t| {
            needs_fit(
                &tris,
                t,
                (flags[t], textures[t]),
                &fitter.entries,
                base.faces.get(face_of(t)),
            )
        })
        .collect();
    let object_name = node.raw_name();
    let rotation = fit_entries(
        &tris,
        &fit,
        (&mut flags, &mut textures),
        fitter,
        (&culprit, &object_name),
        report,
    )?;
    let vertex = tris
        .scalar("VERTEX")
        .expect("same_counts found every corner's vertex");
    let vertex_of = |c: usize| integer(vertex[c]).expect("same_counts checked") as u16;
    for t in 0..tris.count() {
        let f = face_of(t);
        let old = base.faces[f];
        let plain = FILE_CORNER.map(|k| 3 * t + k);
        let corners: [u16; 3] = match rotation[t] {
            Some(r) => [0, 1, 2].map(|k| vertex_of(plain[(k + r) % 3])),
            None => {
                let given = plain.map(vertex_of);
                // The same corners from another start are the face as it was.
                let same = (0..3).any(|r| (0..3).all(|k| given[(k + r) % 3] == old.corners[k]));
                if same {
                    old.corners
                } else {
                    given
                }
            }
        };
        let face = &mut model.faces[f];
        face.corners = corners;
        face.flags = flags[t].unwrap_or(old.flags);
        face.texture = textures[t].map_or(old.texture, |e| e as u16);
        if moved || corners != old.corners {
            let [a, b, c] = corners.map(|v| Vec3::from(model.vertices[v as usize].position));
            face.plane = face_plane(a, b, c);
        }
    }
    let look_changed = model
        .faces
        .iter()
        .zip(&base.faces)
        .any(|(a, b)| (a.flags & !0x8, a.texture) != (b.flags & !0x8, b.texture));
    if look_changed {
        sort_into_batches(&mut model.faces, &fitter.entries);
    }
    if moved {
        let positions: Vec<[f32; 3]> = model.vertices.iter().map(|v| v.position).collect();
        for (v, n) in model
            .vertices
            .iter_mut()
            .zip(smooth_normals(&positions, &model.faces))
        {
            v.normal = n;
        }
        (model.centre, model.box_corners) = bounding_box(&positions, BOX_MARGIN);
        if base.collision_count() > 0 {
            match motion(&tris, base) {
                Motion::Whole(t) => model.collision = moved_collision(base, &t, &culprit)?,
                _ => report.warnings.push(format!(
                    "{culprit}: object model {index}'s vertices moved one by one: its collision stays where it was"
                )),
            }
        }
    }
    Ok((model != *base).then_some(model))
}

/// Where each vertex of the model now stands (export space; None for a vertex no face uses),
/// when the triangles are the model's faces once each, every corner naming a vertex of the model
/// (`_FACE`, `_VERTEX`), the corners of one vertex together, and each vertex among its own bone's
/// vertices (`_BONE`, where given). Otherwise what changed, in words.
fn same_counts(tris: &Triangles, object: &ObjectModel) -> Result<Vec<Option<Vec3>>, String> {
    let model = &object.model;
    let (faces, vertices) = (model.faces.len(), model.vertices.len());
    let face = tris.scalar("FACE");
    let vertex = tris.scalar("VERTEX");
    let mut seen = vec![false; faces];
    let mut added_faces = 0;
    for t in 0..tris.count() {
        let f = face
            .and_then(|a| integer(a[3 * t]))
            .and_then(|f| usize::try_from(f).ok())
            .filter(|&f| f < faces && !seen[f]);
        match f {
            Some(f) => seen[f] = true,
            None => added_faces += 1,
        }
    }
    let removed_faces = seen.iter().filter(|s| !**s).count();
    let mut places: Vec<Option<Vec3>> = vec![None; vertices];
    let mut new_corners = 0;
    let mut split = std::collections::BTreeSet::new();
    for t in 0..tris.count() {
        for (k, p) in export_corners(tris, t).into_iter().enumerate() {
            let c = 3 * t + FILE_CORNER[k];
            let v = vertex
                .and_then(|a| integer(a[c]))
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&v| v < vertices);
            let Some(v) = v else {
                new_corners += 1;
                continue;
            };
            match places[v] {
                None => places[v] = Some(p),
                Some(q) if (p - q).abs().max_element() > POSITION_TOLERANCE => {
                    split.insert(v);
                }
                Some(_) => {}
            }
        }
    }
    let bones = bone_changes(tris, object);
    let mut what = Vec::new();
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if added_faces > 0 {
        what.push(count(added_faces, "face added", "faces added"));
    }
    if removed_faces > 0 {
        what.push(count(removed_faces, "face deleted", "faces deleted"));
    }
    if new_corners > 0 {
        what.push(count(
            new_corners,
            "corner at a vertex the model does not have (a vertex added)",
            "corners at vertices the model does not have (vertices added)",
        ));
    }
    if !split.is_empty() {
        what.push(count(
            split.len(),
            "vertex whose corners were pulled apart (a vertex added)",
            "vertices whose corners were pulled apart (a vertex added each)",
        ));
    }
    if bones > 0 {
        what.push(count(
            bones,
            "vertex moved to another bone",
            "vertices moved to another bone",
        ));
    }
    if what.is_empty() {
        Ok(places)
    } else {
        Err(what.join(", "))
    }
}

/// How many vertices of a skinned model the triangles give another bone (`_BONE`) than the
/// one whose vertices they are among (the bones' vertices come in order, FORMAT.md §3).
fn bone_changes(tris: &Triangles, object: &ObjectModel) -> usize {
    let (Some(bone), Some(vertex)) = (tris.scalar("BONE"), tris.scalar("VERTEX")) else {
        return 0;
    };
    let mut bone_of = Vec::with_capacity(object.model.vertices.len());
    for (b, &n) in object.bone_vertex_counts.iter().enumerate() {
        bone_of.extend(std::iter::repeat_n(b as i64, n as usize));
    }
    let mut changed = std::collections::BTreeSet::new();
    for c in 0..tris.positions.len() {
        let (Some(v), Some(b)) = (integer(vertex[c]), integer(bone[c])) else {
            continue;
        };
        let theirs = usize::try_from(v).ok().and_then(|v| bone_of.get(v));
        if theirs.is_some_and(|&t| t != b) {
            changed.insert(v);
        }
    }
    changed.len()
}
