//! A node's triangles and the integer attributes the mapping puts on them (MAPPING.md), read
//! the way every tool may have written them (floats, integers as floats).

use crate::codes::Code;
use std::borrow::Cow;

use glam::Vec3;

use super::error::{Cause, GltfToWadError, NodeRef};
use super::scene::{Node, Scene};
use crate::gltf::read::Triangles;

/// The file-space corner of export corner `k`: z negated reverses the winding, keeping the first
/// corner (FORMAT.md §2).
pub(super) const FILE_CORNER: [usize; 3] = [0, 2, 1];

/// How far beyond the grid's edges a position may lie (x and z), and how far up or down (y), in
/// units: farther is no place in a level, where f32 arithmetic also stops being exact enough.
const REACH: f32 = 16.0;
const MAX_HEIGHT: f32 = 1024.0;

/// Rounds attribute floats back to the integers they carry.
pub(super) fn integer(v: f32) -> Option<i64> {
    (v.is_finite() && (v - v.round()).abs() < 1e-3).then(|| v.round() as i64)
}

/// Per-triangle integer attribute (corner 0 of each triangle).
pub(super) fn per_triangle(tris: &Triangles, name: &str) -> Vec<Option<i64>> {
    match tris.scalar(name) {
        Some(values) => (0..tris.count()).map(|t| integer(values[3 * t])).collect(),
        None => vec![None; tris.count()],
    }
}

/// Each triangle's face flags (`_FLAGS`), refusing values that are not 16-bit integers.
pub(super) fn face_flags(
    tris: &Triangles,
    culprit: &NodeRef,
) -> Result<Vec<Option<u16>>, GltfToWadError> {
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
        Some(&t) => Err(GltfToWadError::faces(
            culprit,
            bad,
            format!(
                "_FLAGS {} is not a 16-bit integer (0 to 65535)",
                values[3 * t]
            ),
        )
        .code(Code::AttributeValue)
        .cause(Cause {
            value: integer(values[3 * t]),
            ..Cause::default()
        })),
    }
}

/// A node's triangles (none without a mesh), refusing any corner that lies, after its world
/// transform, beyond the reach of a `grid` (width, height) level.
pub(super) fn node_triangles<'s>(
    scene: &'s Scene,
    node: &Node,
    grid: (u32, u32),
    culprit: &NodeRef,
) -> Result<Cow<'s, Triangles>, GltfToWadError> {
    let Some(mesh) = node.mesh else {
        return Ok(Cow::Owned(Triangles::default()));
    };
    let tris = scene
        .triangles(mesh)
        .map_err(|e| GltfToWadError::read(culprit, e))?;
    let (w, h) = (grid.0 as f32, grid.1 as f32);
    let within = |p: Vec3| {
        let p = node.world.transform_point3(p);
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
    Err(GltfToWadError::faces(
        culprit,
        beyond,
        format!(
            "corners beyond the level: every corner must lie within {REACH} units of the {}×{} grid \
             (x and z from −{REACH} to the grid's size + {REACH}) and within {MAX_HEIGHT} units \
             up or down",
            grid.0, grid.1
        ),
    )
    .code(Code::BeyondGrid)
    .cause(Cause {
        grid: Some(grid.into()),
        ..Cause::default()
    })
    .in_source_faces(&tris))
}

impl GltfToWadError {
    /// The faces named as the faces of the tool that wrote `tris` (whose triangles `faces`
    /// counts), where they say which.
    pub(crate) fn in_source_faces(mut self, tris: &Triangles) -> GltfToWadError {
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
}
