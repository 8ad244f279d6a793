//! Object models written back (issue 39): a rigid and a skinned model of STPC reshaped and
//! retextured through the glTF are written in place, read back by an independent reading of note
//! 001's model format with exactly those vertices, normals, box, planes and texture entries; every
//! other byte of STPC and of the level stays; a change of counts is refused by model.

mod doors;
mod support {
    pub mod case;
}

use glam::Vec3;
use llamawad::container::{self, Tag};
use llamawad::generate::Size;
use llamawad::geometry::{face_plane, smooth_normals};
use llamawad::Code;
use llamawad::Level;
use support::case::Case;

/// The node of object model `i`.
fn object_node(case: &Case, i: usize) -> usize {
    (0..case.gltf.root.nodes.len())
        .find(|&n| {
            let e = case.extras(n);
            e["llamawad"] == "object_model" && e["object_model"] == i
        })
        .unwrap_or_else(|| panic!("no node for object model {i}"))
}

/// An object model of the level, rigid or skinned, with faces and at least two pages' worth of
/// texture entries to choose from.
fn object_model(case: &Case, skinned: bool) -> usize {
    let stpc = case.base.stpc().unwrap();
    stpc.models
        .iter()
        .position(|o| o.is_skinned() == skinned && o.model.faces.len() >= 4)
        .unwrap_or_else(|| {
            panic!(
                "{}: no {} object model",
                case.what,
                if skinned { "skinned" } else { "rigid" }
            )
        })
}

/// Note 001 §3 read independently: an STPC object model's vertex and face records from the chunk's
/// bytes, `u32 n`, then per model a 0x8c header and its data (bone counts, vertices, faces,
/// collision): each model's positions, normals, face corners, textures, planes and box.
#[derive(Debug, PartialEq)]
struct Read {
    centre: [f32; 3],
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    faces: Vec<([u16; 3], u16, [f32; 4])>,
    /// Where the model's bytes start and end in the payload.
    span: (usize, usize),
}

fn read_object_models(stpc: &[u8]) -> Vec<Read> {
    let u16_at = |o: usize| u16::from_le_bytes([stpc[o], stpc[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(stpc[o..o + 4].try_into().unwrap());
    let f32_at = |o: usize| f32::from_le_bytes(stpc[o..o + 4].try_into().unwrap());
    let f3 = |o: usize| [f32_at(o), f32_at(o + 4), f32_at(o + 8)];
    let n = u32_at(0) as usize;
    let mut at = 4;
    let mut out = Vec::new();
    for _ in 0..n {
        let start = at;
        let centre = f3(at);
        let (nv, nf) = (u16_at(at + 0x6c) as usize, u16_at(at + 0x6e) as usize);
        let nc = (0..3)
            .map(|k| u16_at(at + 0x78 + 2 * k) as usize)
            .sum::<usize>();
        let bones = u16_at(at + 0x86) as usize;
        at += 0x8c + 2 * bones;
        let mut positions = Vec::new();
        let mut normals = Vec::new();
        for v in 0..nv {
            positions.push(f3(at + 24 * v));
            normals.push(f3(at + 24 * v + 12));
        }
        at += 24 * nv;
        let mut faces = Vec::new();
        for f in 0..nf {
            let o = at + 28 * f;
            let corners = [u16_at(o + 2), u16_at(o + 4), u16_at(o + 6)];
            let plane = [
                f32_at(o + 12),
                f32_at(o + 16),
                f32_at(o + 20),
                f32_at(o + 24),
            ];
            faces.push((corners, u16_at(o + 8), plane));
        }
        at += 28 * nf + 32 * nc;
        out.push(Read {
            centre,
            positions,
            normals,
            faces,
            span: (start, at),
        });
    }
    out
}

fn stpc_payload(bytes: &[u8]) -> Vec<u8> {
    let split = container::split(bytes).unwrap();
    split
        .chunks
        .iter()
        .find(|c| c.tag == Tag::STPC)
        .unwrap()
        .payload
        .to_vec()
}

#[test]
fn a_rigid_and_a_skinned_object_model_reshaped_and_retextured_are_written_in_place() {
    let mut case = Case::new(1, Size::Small);
    let entries = case.base.text().unwrap().entries.len();
    // The face retextured in each model: the first triangle of its node's first primitive.
    let mut retextured = Vec::new();
    for skinned in [false, true] {
        let i = object_model(&case, skinned);
        let node = object_node(&case, i);
        let face = case.prims(node)[0].get("_FACE")[0] as usize;
        let old = case.base.stpc().unwrap().models[i].model.faces[face];
        let texture = (old.texture as f32 + 1.0) % entries as f32;
        retextured.push((i, old.corners, texture as u16));
        case.edit_mesh(node, |prims| {
            // Every corner of vertex 0 lifted by 0.25 (file space y is up), and the first
            // triangle given the next texture entry.
            for p in prims.iter_mut() {
                for c in 0..p.corners() {
                    if p.get("_VERTEX")[c] == 0.0 {
                        let q = p.position(c) + Vec3::Y * 0.25;
                        p.set_position(c, q);
                    }
                }
            }
            prims[0].get_mut("_TEXTURE")[..3].fill(texture);
        });
    }
    let (level, report, bytes) = case.written();
    let rigid = object_model(&case, false);
    let skin = object_model(&case, true);
    let mut changed = vec![rigid, skin];
    changed.sort_unstable();
    assert_eq!(report.object_models_changed, changed, "{report:?}");
    // The chunks but STPC and TEXT (a fitted entry may be added) are the base's.
    let before = container::split(&case.bytes).unwrap();
    let after = container::split(&bytes).unwrap();
    for (a, b) in before.chunks.iter().zip(&after.chunks) {
        if a.tag != Tag::STPC && a.tag != Tag::TEXT {
            assert!(a.payload == b.payload, "chunk {} changed", a.tag.name());
        }
    }
    let (old, new) = (stpc_payload(&case.bytes), stpc_payload(&bytes));
    assert_eq!(old.len(), new.len(), "STPC keeps its size");
    let (read_old, read_new) = (read_object_models(&old), read_object_models(&new));
    for (k, (a, b)) in read_old.iter().zip(&read_new).enumerate() {
        assert_eq!(a.span, b.span, "model {k} keeps its place");
        if !changed.contains(&k) {
            assert_eq!(a, b, "model {k} unchanged");
            assert_eq!(old[a.span.0..a.span.1], new[b.span.0..b.span.1]);
        }
    }
    // Every byte outside the edited models' records is the base's: the strat code above all.
    let outside = |bytes: &[u8]| -> Vec<u8> {
        let mut out = Vec::new();
        let mut from = 0;
        for &k in &changed {
            let (s, e) = read_old[k].span;
            out.extend_from_slice(&bytes[from..s]);
            from = e;
        }
        out.extend_from_slice(&bytes[from..]);
        out
    };
    assert!(outside(&old) == outside(&new));
    for &k in &changed {
        let (a, b) = (&read_old[k], &read_new[k]);
        let mut lifted = a.positions[0];
        lifted[1] += 0.25;
        assert_eq!(b.positions[0], lifted, "model {k}: vertex 0 lifted");
        assert_eq!(
            &b.positions[1..],
            &a.positions[1..],
            "model {k}: the others where they were"
        );
        // Normals smoothed from the faces, planes from the corners, as the notes' checklist says.
        let model = &level.stpc().unwrap().models[k].model;
        let normals = smooth_normals(&b.positions, &model.faces);
        assert_eq!(b.normals, normals, "model {k}");
        for (corners, _, plane) in &b.faces {
            let [p, q, r] = corners.map(|c| Vec3::from(b.positions[c as usize]));
            assert_eq!(*plane, face_plane(p, q, r), "model {k}");
        }
        // The box holds every vertex.
        let lo = b
            .positions
            .iter()
            .fold(Vec3::MAX, |m, p| m.min(Vec3::from(*p)));
        let hi = b
            .positions
            .iter()
            .fold(Vec3::MIN, |m, p| m.max(Vec3::from(*p)));
        assert_eq!(b.centre, ((lo + hi) / 2.0).to_array(), "model {k}");
        // The retextured face: its corners and entry, wherever the batches put it.
        let (_, corners, texture) = retextured.iter().find(|r| r.0 == k).unwrap();
        assert!(
            b.faces.iter().any(|f| f.0 == *corners && f.1 == *texture),
            "model {k}: {:?}",
            &b.faces[..4]
        );
    }
    // The level read back is the level made, with no new problem.
    assert!(Level::parse(&bytes).unwrap() == level);
    let problems: Vec<_> = llamawad::game::check_against(&level, &case.base)
        .new_problems()
        .cloned()
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

/// An edit of a node's primitives.
type MeshEdit = fn(&mut Vec<support::case::Prim>);

#[test]
fn an_object_model_whose_counts_change_is_refused_by_model_and_nothing_is_written() {
    let base = Case::new(1, Size::Small);
    let i = object_model(&base, false);
    let node = object_node(&base, i);
    let edits: [(&str, MeshEdit); 3] = [
        ("1 face deleted", |prims| {
            prims[0].retain_triangles(|t| t != 0)
        }),
        ("1 face added", |prims| {
            prims[0].push_copy(0);
        }),
        ("pulled apart", |prims| {
            // A corner pulled away from its vertex's other corners.
            let p = &mut prims[0];
            let vertex = p.get("_VERTEX").to_vec();
            let c = (0..vertex.len())
                .find(|&c| vertex.iter().filter(|&&v| v == vertex[c]).count() > 1)
                .expect("a vertex of several corners");
            let q = p.position(c) + Vec3::X * 0.1;
            p.set_position(c, q);
        }),
    ];
    for (what, edit) in edits {
        let mut case = Case::new(1, Size::Small);
        case.edit_mesh(node, edit);
        let e = case.refused();
        let refusal = e
            .each()
            .find(|r| r.code == Code::ObjectModelCounts)
            .unwrap_or_else(|| panic!("{what}: {e}"));
        assert!(
            refusal.message.starts_with(&format!("object model {i}: ")),
            "{refusal}"
        );
        assert!(refusal.message.contains(what), "{what}: {refusal}");
        assert!(
            refusal
                .message
                .ends_with("object models keep their counts, because the strat code refers into STPC by byte offsets"),
            "{refusal}"
        );
    }
}
