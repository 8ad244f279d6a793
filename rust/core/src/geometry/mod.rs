//! Geometry the game needs recomputed when a model changes: face planes, smoothed normals,
//! bounding boxes, render batches, and the encoding of collision polygons (`collision.rs`).
//!
//! Everything is computed in f64 with nothing but arithmetic and square roots, then stored in the
//! file's f32/i8/i16: the results are the same on every machine, which the seeded generator relies
//! on.

use glam::{DVec3, Vec3};

use crate::limits::{render_state, MAX_BATCH_FACES};
use crate::raw::{face_flags, Face, TextureEntry};

mod collision;

pub use collision::{
    decode_collision_polygon, encode_collision_polygon, encode_collision_polygon_at, outward_edges,
    CollisionError, PlaneScale, COLLISION_FACING_DOWN, COLLISION_QUAD, MAX_QUAD_WARP,
};

/// The plane of a render triangle as TRAK stores it: n = normalize((v1−v0)×(v2−v0)), d = n·v0,
/// in export space (FORMAT.md §3, verified for every original face).
///
/// The engine culls with it (drawn when camera·n − d ≥ ε), so a face is seen from the side its
/// normal points to. A triangle without area gets the zero plane rather than NaN: NaN would make
/// the level compare unequal to itself after a round trip.
pub fn face_plane(v0: Vec3, v1: Vec3, v2: Vec3) -> [f32; 4] {
    let [v0, v1, v2] = [v0, v1, v2].map(|v| v.as_dvec3());
    let n = (v1 - v0).cross(v2 - v0).normalize_or_zero();
    [n.x as f32, n.y as f32, n.z as f32, n.dot(v0) as f32]
}

/// Area-weighted vertex normals: every face adds its unnormalised normal (whose length is twice
/// its area) to its three corners, so a large face bends a shared vertex more than a sliver does.
///
/// The game lights with the MAP vertex colours, not with these, but the originals store smoothed
/// normals (FORMAT.md §3), and baking vertex colours needs them. A vertex no face uses, or whose
/// faces cancel out (both sides of a thin wall), gets the zero normal. Faces with a corner
/// outside `positions` are skipped: `Level::check` reports them.
pub fn smooth_normals(positions: &[[f32; 3]], faces: &[Face]) -> Vec<[f32; 3]> {
    let mut sums = vec![DVec3::ZERO; positions.len()];
    for face in faces {
        let corners = face.corners.map(|c| c as usize);
        if corners.iter().any(|&c| c >= positions.len()) {
            continue;
        }
        let [a, b, c] = corners.map(|i| Vec3::from(positions[i]).as_dvec3());
        let weighted = (b - a).cross(c - a);
        for i in corners {
            sums[i] += weighted;
        }
    }
    sums.into_iter()
        .map(|n| n.normalize_or_zero().as_vec3().to_array())
        .collect()
}

/// The header's bounding box: its centre and its 8 corners in the order of FORMAT.md §3,
/// (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z).
///
/// The originals' boxes are 0.004–0.014 larger than the vertices on every side, hence `margin`;
/// the engine culls whole models with the box, so it must never be smaller than the vertices.
/// A model without vertices gets a box of `margin` around its origin.
pub fn bounding_box(positions: &[[f32; 3]], margin: f32) -> ([f32; 3], [[f32; 3]; 8]) {
    let (min, max) = match positions.split_first() {
        None => (Vec3::ZERO, Vec3::ZERO),
        Some((first, rest)) => rest
            .iter()
            .fold((Vec3::from(*first), Vec3::from(*first)), |(lo, hi), p| {
                (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p)))
            }),
    };
    let (min, max) = (min - Vec3::splat(margin), max + Vec3::splat(margin));
    // Corner i: bit 0 picks +x, bit 1 picks +y, bit 2 picks −z.
    let corners = std::array::from_fn(|i| {
        [
            if i & 1 != 0 { max.x } else { min.x },
            if i & 2 != 0 { max.y } else { min.y },
            if i & 4 != 0 { min.z } else { max.z },
        ]
    });
    (((min + max) * 0.5).to_array(), corners)
}

/// Orders a model's faces into render batches: a stable sort by render state (page, blend and mode
/// bits), then flag 0x8 on the first face of each run of equal state and again every 256 faces,
/// cleared everywhere else.
///
/// The renderer reloads page and blend mode only at faces with 0x8 and flushes a batch there, and
/// its batch buffer holds at most 256 faces (FORMAT.md §3). The sort is stable so that the two
/// halves of a quad stay next to each other.
pub fn sort_into_batches(faces: &mut [Face], entries: &[TextureEntry]) {
    faces.sort_by_key(|f| render_state(f, entries));
    let mut previous = None;
    let mut run = 0usize;
    for face in faces.iter_mut() {
        let state = Some(render_state(face, entries));
        if state != previous {
            run = 0;
        }
        if run % MAX_BATCH_FACES == 0 {
            face.flags |= face_flags::NEW_BATCH;
        } else {
            face.flags &= !face_flags::NEW_BATCH;
        }
        run += 1;
        previous = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(corners: [u16; 3], texture: u16) -> Face {
        Face {
            corners,
            texture,
            ..Face::default()
        }
    }

    #[test]
    fn face_plane_faces_the_side_of_the_right_hand_normal() {
        let plane = face_plane(
            Vec3::new(0.0, 0.25, 0.0),
            Vec3::new(0.0, 0.25, 1.0),
            Vec3::new(1.0, 0.25, 0.0),
        );
        assert_eq!(plane, [0.0, 1.0, 0.0, 0.25]);
        let plane = face_plane(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 3.0, 0.0),
        );
        assert_eq!(plane, [0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn face_plane_of_a_degenerate_triangle_is_zero() {
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(face_plane(p, p, Vec3::new(2.0, 4.0, 6.0)), [0.0; 4]);
    }

    #[test]
    fn smooth_normals_weight_faces_by_area() {
        // A roof ridge along x (vertices 0, 1): a large face sloping to +z, a small one to −z.
        let positions = [
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.0, 3.0],
            [0.0, 0.0, -1.0],
            [5.0, 5.0, 5.0],
        ];
        let faces = [face([0, 2, 1], 0), face([0, 1, 3], 0)];
        let normals = smooth_normals(&positions, &faces);
        // Unnormalised normals (0, 3, 1) (area √10 / 2) and (0, 1, −1) (area √2 / 2): their sum
        // points straight up, where an unweighted average of the unit normals would not.
        assert!(
            Vec3::from(normals[0]).abs_diff_eq(Vec3::Y, 1e-6),
            "{normals:?}"
        );
        assert!(Vec3::from(normals[2]).abs_diff_eq(Vec3::new(0.0, 3.0, 1.0).normalize(), 1e-6));
        assert_eq!(normals[4], [0.0; 3], "unused vertex");
    }

    #[test]
    fn smooth_normals_skip_faces_with_bad_corners() {
        let normals = smooth_normals(&[[0.0; 3]; 2], &[face([0, 1, 9], 0)]);
        assert_eq!(normals, vec![[0.0; 3]; 2]);
    }

    #[test]
    fn bounding_box_corners_follow_the_notes_order() {
        let (centre, corners) = bounding_box(&[[-1.0, 0.0, -2.0], [1.0, 4.0, 0.0]], 0.01);
        assert_eq!(centre, [0.0, 2.0, -1.0]);
        let (lo, hi) = (Vec3::new(-1.01, -0.01, -2.01), Vec3::new(1.01, 4.01, 0.01));
        let expected = [
            [lo.x, lo.y, hi.z],
            [hi.x, lo.y, hi.z],
            [lo.x, hi.y, hi.z],
            [hi.x, hi.y, hi.z],
            [lo.x, lo.y, lo.z],
            [hi.x, lo.y, lo.z],
            [lo.x, hi.y, lo.z],
            [hi.x, hi.y, lo.z],
        ];
        for (got, want) in corners.iter().zip(expected) {
            assert!(
                Vec3::from(*got).abs_diff_eq(want.into(), 1e-6),
                "{corners:?}"
            );
        }
        assert_eq!(bounding_box(&[], 0.5).1[3], [0.5, 0.5, 0.5]);
    }

    #[test]
    fn batches_start_at_every_state_change_and_every_256_faces() {
        let entries = [
            TextureEntry {
                page: 1,
                ..TextureEntry::default()
            },
            TextureEntry {
                page: 0,
                ..TextureEntry::default()
            },
            TextureEntry {
                page: 0,
                flags: 0x1000,
                ..TextureEntry::default()
            },
        ];
        // 350 faces on page 1 and 350 on page 0, interleaved, all wrongly flagged; then three
        // with page 0's blend variant.
        let mut faces: Vec<Face> = (0..700u16)
            .map(|i| Face {
                flags: face_flags::NEW_BATCH,
                ..face([i, 0, 0], i % 2)
            })
            .chain((0..3).map(|i| face([1000 + i, 0, 0], 2)))
            .collect();
        sort_into_batches(&mut faces, &entries);
        let starts: Vec<usize> = (0..faces.len())
            .filter(|&i| faces[i].flags & face_flags::NEW_BATCH != 0)
            .collect();
        assert_eq!(starts, [0, 256, 350, 353, 353 + 256]);
        assert!(faces[..350].iter().all(|f| f.texture == 1));
        assert!(
            faces[..350]
                .windows(2)
                .all(|w| w[0].corners[0] < w[1].corners[0]),
            "stable"
        );
        assert_eq!(faces[350].corners[0], 1000);
        assert!(faces[353..].iter().all(|f| f.texture == 0));
    }
}
