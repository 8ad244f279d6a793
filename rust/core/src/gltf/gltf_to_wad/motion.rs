//! How a tile's faces moved against its model: not at all, all of them by one transform (an
//! applied scale, a turn, a mirror, the whole mesh moved in Edit Mode), copied several times
//! each by one transform (an Array), or vertex by vertex (a detail reshaped). The tile's
//! collision follows the first three (copied with the faces) and stays where it was for the
//! last, whether or not the tool showed it (issue 21: one rule, not hidden state).

use glam::{DAffine3, DMat3, DVec2, DVec3, Mat4, Vec3};

use super::attributes::integer;
use super::collision::encode;
use super::error::{GltfToWadError, NodeRef};
use super::model::POSITION_TOLERANCE;
use crate::geometry::decode_collision_polygon;
use crate::gltf::read::Triangles;
use crate::level::Model;
use crate::raw::CollisionPolygon;

/// How far a vertex may be from where one transform puts it (units): Blender's float arithmetic
/// on a transformed mesh stays far below.
pub(super) const FIT_TOLERANCE: f64 = 2.0 * POSITION_TOLERANCE as f64;
/// A transform whose columns are this close to a turn about the vertical is a turn (the game
/// turns tiles only so).
const TURN_TOLERANCE: f64 = 1e-4;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Motion {
    /// Every corner where its model vertex is.
    Still,
    /// Every corner where one transform puts its model vertex: from the model's frame to the
    /// frame the triangles are given in (file space).
    Whole(DAffine3),
    /// The model's faces several times over (an Array modifier applied), each copy where one
    /// transform puts it: one transform per copy, in the order the copies first appear.
    Copies(Vec<DAffine3>),
    /// Corners moved one by one, or faces that were no face of the model.
    Reshaped,
}

impl Motion {
    /// The transform when it is a turn about the vertical axis and a move: what a tile's
    /// placement can hold, so that the tile keeps its model.
    pub(super) fn placement(&self) -> Option<DAffine3> {
        let Motion::Whole(t) = self else { return None };
        let m = t.matrix3;
        let angle = libm::atan2(-m.x_axis.z, m.x_axis.x);
        let turn = DMat3::from_rotation_y(angle);
        let off = (m - turn)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()));
        (off <= TURN_TOLERANCE).then_some(*t)
    }
}

/// The model's vertex each corner was (`_VERTEX`) and where it is now, file space.
fn correspondences(tris: &Triangles, model: &Model) -> Option<Vec<(DVec3, DVec3)>> {
    let vertex = tris.scalar("VERTEX")?;
    (0..tris.positions.len())
        .map(|c| {
            let v = integer(vertex[c]).and_then(|v| usize::try_from(v).ok())?;
            let p = model.vertices.get(v)?.position;
            Some((
                DVec3::new(p[0] as f64, p[1] as f64, -p[2] as f64),
                tris.positions[c].as_dvec3(),
            ))
        })
        .collect()
}

/// How the triangles (a tile's faces in its node's frame, file space) moved against `model`.
pub(super) fn motion(tris: &Triangles, model: &Model) -> Motion {
    if tris.count() == 0 {
        return Motion::Still;
    }
    let Some(pairs) = correspondences(tris, model) else {
        return Motion::Reshaped;
    };
    if pairs
        .iter()
        .all(|(p, q)| (*q - *p).abs().max_element() <= POSITION_TOLERANCE as f64)
    {
        return Motion::Still;
    }
    match whole(&pairs) {
        Some(t) => Motion::Whole(t),
        None => copies(tris, model, &pairs).map_or(Motion::Reshaped, Motion::Copies),
    }
}

/// The one transform that puts every `p` where its `q` is, if there is one.
fn whole(pairs: &[(DVec3, DVec3)]) -> Option<DAffine3> {
    let t = fit(pairs)?;
    pairs
        .iter()
        .all(|(p, q)| (t.transform_point3(*p) - *q).length() <= FIT_TOLERANCE)
        .then_some(t)
}

/// The transforms of the copies when the triangles are every face of the model the same number
/// of times (two or more), the k-th time each face appears being copy k, and each copy moved as
/// a whole.
fn copies(tris: &Triangles, model: &Model, pairs: &[(DVec3, DVec3)]) -> Option<Vec<DAffine3>> {
    let faces = model.faces.len();
    let face = tris.scalar("FACE")?;
    if faces == 0 || tris.count() % faces != 0 || tris.count() / faces < 2 {
        return None;
    }
    let mut seen = vec![0usize; faces];
    let mut copy_pairs: Vec<Vec<(DVec3, DVec3)>> = vec![Vec::new(); tris.count() / faces];
    for t in 0..tris.count() {
        let f = integer(face[3 * t]).and_then(|f| usize::try_from(f).ok())?;
        let k = *seen.get(f)?;
        copy_pairs
            .get_mut(k)?
            .extend_from_slice(&pairs[3 * t..3 * t + 3]);
        seen[f] += 1;
    }
    copy_pairs.iter().map(|pairs| whole(pairs)).collect()
}

/// The affine transform that takes each `p` nearest to its `q` (least squares). Vertices in one
/// plane say nothing about the direction across it: there the transform is taken to scale as it
/// does within the plane, turned the way that keeps the surface's side (a flat floor scaled or
/// mirrored stays a floor facing up). Vertices on one line or at one point move only.
fn fit(pairs: &[(DVec3, DVec3)]) -> Option<DAffine3> {
    let n = pairs.len() as f64;
    let p0 = pairs.iter().map(|(p, _)| *p).sum::<DVec3>() / n;
    let q0 = pairs.iter().map(|(_, q)| *q).sum::<DVec3>() / n;
    let around: Vec<(DVec3, DVec3)> = pairs.iter().map(|(p, q)| (*p - p0, *q - q0)).collect();
    let spread = around.iter().map(|(p, _)| p.length()).fold(0.0, f64::max);
    let moved_only = || Some(DAffine3::from_translation(q0 - p0));
    if spread < 1e-6 {
        return moved_only();
    }
    let a = around
        .iter()
        .map(|(p, _)| *p)
        .max_by(|x, y| x.length().total_cmp(&y.length()))?;
    let b = around
        .iter()
        .map(|(p, _)| *p)
        .max_by(|x, y| a.cross(*x).length().total_cmp(&a.cross(*y).length()))?;
    if a.cross(b).length() < 1e-6 * spread * spread {
        return moved_only();
    }
    let normal = a.cross(b).normalize();
    let flat = around.iter().all(|(p, _)| p.dot(normal).abs() < 1e-6);
    let matrix = if flat {
        flat_fit(&around, a.normalize(), normal)?
    } else {
        let mut pp = DMat3::ZERO;
        let mut qp = DMat3::ZERO;
        for (p, q) in &around {
            pp += outer(*p, *p);
            qp += outer(*q, *p);
        }
        if pp.determinant().abs() < 1e-12 * spread.powi(6) {
            return None;
        }
        qp * pp.inverse()
    };
    Some(DAffine3 {
        matrix3: matrix,
        translation: q0 - matrix * p0,
    })
}

/// The linear part fitted to points in the plane through the origin with `normal` (`u` in it).
fn flat_fit(around: &[(DVec3, DVec3)], u: DVec3, normal: DVec3) -> Option<DMat3> {
    let v = normal.cross(u);
    // Q ≈ B·(s, t) with (s, t) the in-plane coordinates: B's columns are where u and v go.
    let (mut ss, mut st, mut tt) = (0.0, 0.0, 0.0);
    let (mut qs, mut qt) = (DVec3::ZERO, DVec3::ZERO);
    for (p, q) in around {
        let (s, t) = (p.dot(u), p.dot(v));
        ss += s * s;
        st += s * t;
        tt += t * t;
        qs += *q * s;
        qt += *q * t;
    }
    let det = ss * tt - st * st;
    if det.abs() < 1e-18 {
        return None;
    }
    let inv = |a: DVec2| DVec2::new(tt * a.x - st * a.y, -st * a.x + ss * a.y) / det;
    // Row by row: B = [qs qt]·[[ss st][st tt]]⁻¹.
    let (bu, bv) = {
        let x = inv(DVec2::new(qs.x, qt.x));
        let y = inv(DVec2::new(qs.y, qt.y));
        let z = inv(DVec2::new(qs.z, qt.z));
        (DVec3::new(x.x, y.x, z.x), DVec3::new(x.y, y.y, z.y))
    };
    let area = bu.cross(bv);
    if area.length() < 1e-12 {
        return None;
    }
    // Across the plane: scaled like the plane's area, by a turn (area's way) or a mirror
    // (against it); the turn unless it alone would turn the surface over.
    let across = area / area.length().sqrt();
    let across = if across.dot(normal) < -1e-6 * across.length() {
        -across
    } else {
        across
    };
    let basis = DMat3::from_cols(u, v, normal);
    Some(DMat3::from_cols(bu, bv, across) * basis.transpose())
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// The model's collision moved by `t` (model frame to tile frame, file space = game space): every
/// polygon's corners transformed and encoded again, its material and the type bits the notes do
/// not explain kept. A mirror reverses the corners, so that surfaces keep facing the way they did.
pub(super) fn moved_collision(
    model: &Model,
    t: &DAffine3,
    culprit: &NodeRef,
) -> Result<[Vec<CollisionPolygon>; 3], GltfToWadError> {
    let mirrored = t.matrix3.determinant() < 0.0;
    let mut out: [Vec<CollisionPolygon>; 3] = Default::default();
    let mut number = 0;
    for (group, polygons) in model.collision.iter().enumerate() {
        for poly in polygons {
            let mut corners: Vec<Vec3> = decode_collision_polygon(poly)
                .into_iter()
                .map(|c| t.transform_point3(c.as_dvec3()).as_vec3())
                .collect();
            if mirrored {
                corners.reverse();
            }
            let moved = encode(
                &corners,
                poly.material as i64,
                poly.kind as i64,
                culprit,
                &[],
                number,
            )
            .map_err(|mut e| {
                e.message = format!(
                    "its faces moved by one transform, which its collision follows: {}",
                    e.message
                );
                e
            })?;
            out[group].push(moved);
            number += 1;
        }
    }
    Ok(out)
}

/// `t` as a matrix of the world's kind.
pub(super) fn to_mat4(t: &DAffine3) -> Mat4 {
    Mat4::from(glam::Affine3A::from_mat3_translation(
        t.matrix3.as_mat3(),
        t.translation.as_vec3(),
    ))
}
