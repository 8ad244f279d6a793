//! Quads cut along the diagonal the game can show their UVs along: the game shows a face as
//! half of a texture rectangle (notes 001 §7, 002 "No free texture coordinates"), so a quad
//! whose UVs only one of its two cuts can show is cut that way before its faces are fitted.

use std::collections::HashMap;

use super::attributes::{integer, per_triangle};
use super::look::{needs_fit, page_material};
use crate::gltf::fit::{Fitter, FIT_TOLERANCE};
use crate::gltf::read::Triangles;

/// New geometry's triangles with their quads cut where the game can show them (see
/// `recut_quads`), before they are split among cells.
pub(super) fn recut_new_quads(tris: &Triangles, fitter: &Fitter) -> Option<Triangles> {
    let flags = per_triangle(tris, "FLAGS");
    let textures = per_triangle(tris, "TEXTURE");
    let fit: Vec<bool> = (0..tris.count())
        .map(|t| {
            let f = flags[t].and_then(|f| u16::try_from(f).ok());
            needs_fit(tris, t, (f, textures[t]), &fitter.entries, None)
        })
        .collect();
    recut_quads(tris, &fit, fitter)
}

/// The triangles with the quads the game can only show along their other diagonal cut along
/// it: two triangles of one `_SOURCE_FACE` (a quad face of the tool that wrote the glTF), and two
/// that share an edge, its corners alike on both sides, and that fail as they are cut (separate
/// faces whose UVs were turned together). Only triangles that must be fitted take part.
pub(super) fn recut_quads(tris: &Triangles, fit: &[bool], fitter: &Fitter) -> Option<Triangles> {
    let mut out: Option<Triangles> = None;
    let mut used = vec![false; tris.count()];
    let mut recut = |a: usize, b: usize, only_if_needed: bool, used: &mut Vec<bool>| {
        if let Some(cut) = other_cut(tris, (a, b), fitter, only_if_needed) {
            let target = out.get_or_insert_with(|| tris.clone());
            for (t, corners) in [a, b].into_iter().zip(cut) {
                for (k, &from) in corners.iter().enumerate() {
                    copy_corner(tris, target, from, 3 * t + k);
                }
            }
            used[a] = true;
            used[b] = true;
        }
    };
    if let Some(source) = tris.scalar("SOURCE_FACE") {
        let mut pairs: HashMap<i64, Vec<usize>> = HashMap::new();
        for t in (0..tris.count()).filter(|&t| fit[t]) {
            if let Some(f) = integer(source[3 * t]) {
                pairs.entry(f).or_default().push(t);
            }
        }
        let mut pairs: Vec<Vec<usize>> = pairs.into_values().filter(|ts| ts.len() == 2).collect();
        pairs.sort();
        for ts in pairs {
            recut(ts[0], ts[1], false, &mut used);
        }
    }
    // Triangles of separate faces, by the edges they share.
    let key = |c: usize| tris.positions[c].to_array().map(f32::to_bits);
    let mut by_edge: HashMap<[[u32; 3]; 2], Vec<usize>> = HashMap::new();
    for t in (0..tris.count()).filter(|&t| fit[t] && !used[t]) {
        for k in 0..3 {
            let (p, q) = (key(3 * t + k), key(3 * t + (k + 1) % 3));
            by_edge
                .entry(if p <= q { [p, q] } else { [q, p] })
                .or_default()
                .push(t);
        }
    }
    let mut edges: Vec<Vec<usize>> = by_edge.into_values().filter(|ts| ts.len() == 2).collect();
    edges.sort();
    for ts in edges {
        if !used[ts[0]] && !used[ts[1]] {
            recut(ts[0], ts[1], true, &mut used);
        }
    }
    out
}

/// For two triangles sharing an edge, the corners (file order, indices of `tris`) of the two
/// triangles cut along the quad's other diagonal, when that is where the game can show their
/// UVs (and, with `only_if_needed`, cannot as they are cut).
fn other_cut(
    tris: &Triangles,
    (a, b): (usize, usize),
    fitter: &Fitter,
    only_if_needed: bool,
) -> Option<[[usize; 3]; 2]> {
    // One quad shows one page one way: whatever their materials are called.
    let material = page_material(tris, a).filter(|&m| page_material(tris, b) == Some(m))?;
    let uvs = tris.uvs.as_ref()?;
    let key = |c: usize| tris.positions[c].to_array().map(f32::to_bits);
    let in_b = |c: usize| (0..3).map(|k| 3 * b + k).find(|&d| key(d) == key(c));
    let shared: Vec<usize> = (0..3).filter(|&k| in_b(3 * a + k).is_some()).collect();
    if shared.len() != 2 {
        return None;
    }
    // A's corners from its lone corner on: (oa, p, q); B holds q → p and its lone corner.
    let lone = (0..3).find(|k| !shared.contains(k))?;
    let [oa, p, q] = [0, 1, 2].map(|k| 3 * a + (lone + k) % 3);
    let ob = (0..3)
        .map(|k| 3 * b + k)
        .find(|&c| key(c) != key(p) && key(c) != key(q))?;
    // One quad: the shared corners alike on both sides (UVs, colours), so that cutting it
    // elsewhere keeps every corner's look.
    let alike = |c: usize| {
        let d = in_b(c).expect("a shared corner");
        uvs[c] == uvs[d] && tris.colours.as_ref().is_none_or(|cs| cs[c] == cs[d])
    };
    if !(alike(p) && alike(q)) {
        return None;
    }
    // Around the quad: oa, p, ob, q. Cut 1 (along p–q) is the one given.
    let quad = [oa, p, ob, q].map(|c| uvs[c]);
    if fitter.quad_diagonal(&quad, material) != Some(0) {
        return None;
    }
    if only_if_needed {
        let fits = |t: [usize; 3]| {
            // File corners (a, b, c) are export corners (a, c, b).
            fitter.error_of(&[uvs[t[0]], uvs[t[2]], uvs[t[1]]], material) <= FIT_TOLERANCE
        };
        if fits([oa, p, q]) && fits([ob, q, p]) {
            return None;
        }
    }
    // Cut 0: (oa, p, ob) and (oa, ob, q), every corner's data taken from where it was.
    Some([[oa, p, ob], [oa, ob, q]])
}

/// Copies every per-corner value of corner `from` of `src` to corner `to` of `dst`.
fn copy_corner(src: &Triangles, dst: &mut Triangles, from: usize, to: usize) {
    dst.positions[to] = src.positions[from];
    if let (Some(s), Some(d)) = (&src.uvs, &mut dst.uvs) {
        d[to] = s[from];
    }
    if let (Some(s), Some(d)) = (&src.colours, &mut dst.colours) {
        d[to] = s[from];
    }
    for (name, values) in &mut dst.scalars {
        values[to] = src.scalars[name][from];
    }
}
