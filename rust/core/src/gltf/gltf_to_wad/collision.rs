//! Collision from the glTF: polygons rejoined from their triangles, compared with the base
//! and re-encoded with the engine's plane scale where they changed (FORMAT.md §4).

use crate::codes::Code;
use std::collections::{BTreeMap, HashMap};

use glam::{Mat4, Vec3};

use super::attributes::per_triangle;
use super::error::{Cause, GltfToWadError, NodeRef};
use crate::geometry::{
    decode_collision_polygon, encode_collision_polygon, COLLISION_FACING_DOWN, COLLISION_QUAD,
};
use crate::gltf::read::Triangles;
use crate::level::Model;
use crate::raw::CollisionPolygon;

/// The corners of a convex polygon given as triangles, in order around its normal.
pub(super) fn polygon_corners(tris: &[[Vec3; 3]]) -> Vec<Vec3> {
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
            libm::atan2f(d.dot(w), d.dot(u))
        };
        angle(a).total_cmp(&angle(b))
    });
    corners
}

/// Triangles (given with their corners) in groups that share edges: two triangles with two
/// corners in common (within 1e-4) are in one group. Groups and their triangles keep the order
/// of `ts`.
pub(super) fn edge_connected(ts: &[usize], corners: &[[Vec3; 3]]) -> Vec<Vec<usize>> {
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

/// A collision polygon as given in a mesh: its triangles, corners in order, and attributes.
#[derive(Debug, Clone)]
pub(super) struct GivenPolygon {
    pub tris: Vec<usize>,
    pub corners: Vec<Vec3>,
    pub material: i64,
    pub kind: i64,
    pub group: usize,
}

/// The polygons of a mesh whose triangles may carry polygon numbers in the attribute `number`
/// (`POLYGON`, the export's; `SOURCE_FACE`, the faces of the tool that wrote it): triangles of one
/// number that share an edge are one polygon when they make a flat convex quad (as quads are
/// split into triangles), every other triangle is a polygon of its own.
pub(super) fn given_polygons(
    tris: &Triangles,
    corners: &[[Vec3; 3]],
    number: &str,
) -> Vec<GivenPolygon> {
    let polygon_attr = per_triangle(tris, number);
    let material = per_triangle(tris, "MATERIAL");
    let kind = per_triangle(tris, "KIND");
    let group = per_triangle(tris, "GROUP");
    let mut numbered: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    for (t, number) in polygon_attr.iter().enumerate() {
        match number {
            Some(p) => numbered.entry(*p).or_default().push(t),
            None => pieces.push(vec![t]),
        }
    }
    for ts in numbered.into_values() {
        let of = |ts: &[usize]| ts.iter().map(|&t| corners[t]).collect::<Vec<_>>();
        pieces.extend(edge_connected(&ts, &of(&ts)));
    }
    pieces.sort_by_key(|p| p[0]);
    let mut out = Vec::new();
    for piece in pieces {
        let of = |ts: &[usize]| ts.iter().map(|&t| corners[t]).collect::<Vec<_>>();
        let joined = polygon_corners(&of(&piece));
        // Whether it is a quad the engine can hold: its shape, wherever its tile will be.
        let centre = joined.iter().copied().sum::<Vec3>() / joined.len().max(1) as f32;
        let around_centre: Vec<Vec3> = joined.iter().map(|c| *c - centre).collect();
        let whole = piece.len() == 1
            || (piece.len() == 2
                && joined.len() == 4
                && encode_collision_polygon(&around_centre, 0).is_ok());
        let parts = if whole {
            vec![piece]
        } else {
            piece.iter().map(|&t| vec![t]).collect()
        };
        for tris_of in parts {
            let t0 = tris_of[0];
            out.push(GivenPolygon {
                corners: polygon_corners(&of(&tris_of)),
                material: material[t0].unwrap_or(0),
                kind: kind[t0].unwrap_or(0),
                group: group[t0].unwrap_or(0).clamp(0, 2) as usize,
                tris: tris_of,
            });
        }
    }
    out
}

/// A tile's collision as its collision node gives it, and how many polygons differ from the base
/// model's.
pub(super) type EditedCollision = ([Vec<CollisionPolygon>; 3], usize);

/// The collision of a tile from its collision node's triangles, or None when it equals the base
/// model's.
pub(super) fn collision_from_node(
    tris: &Triangles,
    node_world: &Mat4,
    tile_world: &Mat4,
    base: &Model,
    culprit: &NodeRef,
) -> Result<Option<EditedCollision>, GltfToWadError> {
    // Collision corners in the tile's frame, game space (= file space).
    let to_tile = tile_world.inverse() * *node_world;
    let polygon_attr = per_triangle(tris, "POLYGON");
    let material_attr = per_triangle(tris, "MATERIAL");
    let kind_attr = per_triangle(tris, "KIND");
    let group_attr = per_triangle(tris, "GROUP");
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
            poly.material = material_byte(material, culprit, ts)?;
            if poly != *base_poly || new_group != *group {
                changed += 1;
            }
            groups[new_group].push(poly);
            continue;
        }
        changed += 1;
        let poly = encode(&corners, material, kind, culprit, ts, p)?;
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
                culprit,
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
                    culprit,
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
    Ok((changed > 0).then_some((groups, changed)))
}

/// The byte a polygon's collision material is stored in: the triangles' material is refused
/// where it is not one.
fn material_byte(material: i64, culprit: &NodeRef, tris: &[usize]) -> Result<u8, GltfToWadError> {
    u8::try_from(material).map_err(|_| {
        GltfToWadError::faces(
            culprit,
            tris.to_vec(),
            format!("collision material {material} is not 0 to 255"),
        )
        .code(Code::CollisionMaterial)
        .cause(Cause {
            value: Some(material),
            ..Cause::default()
        })
    })
}

pub(super) fn encode(
    corners: &[Vec3],
    material: i64,
    kind: i64,
    culprit: &NodeRef,
    tris: &[usize],
    polygon: usize,
) -> Result<CollisionPolygon, GltfToWadError> {
    let material = material_byte(material, culprit, tris)?;
    let mut poly = encode_collision_polygon(corners, material).map_err(|e| {
        GltfToWadError::faces(
            culprit,
            tris.to_vec(),
            format!("collision polygon {polygon}: {e}"),
        )
        .code(Code::CollisionPolygon)
        .cause(Cause {
            polygon: Some(polygon),
            ..Cause::default()
        })
    })?;
    // Keep the type bits the notes do not explain; quad and facing-down follow the shape.
    let known = COLLISION_QUAD | COLLISION_FACING_DOWN;
    poly.kind |= (kind.clamp(0, 255) as u8) & !known;
    Ok(poly)
}
