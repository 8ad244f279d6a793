//! Which tile each face is. A tile node's faces are its tile's, unless they say they are another
//! tile's (`_TILE`): Blender's Join puts two tiles' faces into one mesh, and Separate takes them
//! apart again under either object. Each tile is claimed by the first faces that are its own; a
//! later claim (a copy: Shift D, or faces joined from a copy) becomes a new tile.

use std::borrow::Cow;
use std::collections::BTreeMap;

use glam::{Mat4, Quat, Vec3};

use super::attributes::{node_triangles, per_triangle};
use super::error::ImportError;
use super::nodes::Nodes;
use super::scene::{Node, Scene};
use crate::gltf::read::Triangles;
use crate::level::{Map, Tile};

/// The faces of one tile as the scene holds them.
pub(super) struct Part<'a> {
    pub tile: usize,
    /// The node that holds the faces: its name is the object the artist sees.
    pub node: &'a Node,
    /// Where the faces' frame stands (file space): the node's world transform, or for faces of
    /// another tile the node holds, that tile's place in the base.
    pub frame: Mat4,
    /// The faces, in `frame`.
    pub tris: Cow<'a, Triangles>,
    pub collision: Option<&'a Node>,
    /// A further claim of a tile already claimed: a new tile.
    pub copy: bool,
}

/// Where a base tile stands, as its tile node is placed (file space).
pub(super) fn tile_frame(tile: &Tile) -> Mat4 {
    let [x, y, z] = tile.float.position;
    let angle = (tile.float.rotation % 4096) as f32 / 4096.0 * std::f32::consts::TAU;
    Mat4::from_rotation_translation(Quat::from_rotation_y(angle), Vec3::new(x, y, -z))
}

/// Every tile node's faces as parts, claimed in node order (own faces before faces joined into
/// another tile's node), and whether each base tile was claimed.
pub(super) fn claim_parts<'a>(
    scene: &'a Scene,
    nodes: &Nodes<'a>,
    map: &Map,
) -> Result<(Vec<Part<'a>>, Vec<bool>), ImportError> {
    let grid = (map.width, map.height);
    let mut own = Vec::new();
    let mut joined = Vec::new();
    for &(i, node) in &nodes.tiles {
        let name = node.label();
        let tris = node_triangles(scene, node, grid, &name)?;
        let part = |tile, frame, tris| Part {
            tile,
            node,
            frame,
            tris,
            collision: None,
            copy: false,
        };
        let tiles = per_triangle(&tris, "TILE");
        if tiles.iter().all(|t| t.is_none_or(|t| t == i as i64)) {
            own.push(part(i, node.world, tris));
            continue;
        }
        let mut by_tile: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut unknown = Vec::new();
        for (t, tile) in tiles.iter().enumerate() {
            match tile.map_or(Some(i), |k| usize::try_from(k).ok()) {
                Some(k) if k < map.tiles.len() => by_tile.entry(k).or_default().push(t),
                _ => unknown.push(t),
            }
        }
        if !unknown.is_empty() {
            return Err(ImportError::faces(
                &name,
                unknown,
                format!(
                    "_TILE names a tile the base level does not have ({} tiles)",
                    map.tiles.len()
                ),
            )
            .code("unknown-tile")
            .in_source_faces(&tris));
        }
        for (k, ts) in by_tile {
            let mut faces = tris.select(&ts);
            if k == i {
                own.push(part(i, node.world, Cow::Owned(faces)));
                continue;
            }
            // Faces of tile k in k's own frame, where the base has it: unmoved since they were
            // joined, they are k's model as it was.
            let frame = tile_frame(&map.tiles[k]);
            let to_frame = frame.inverse() * node.world;
            for p in &mut faces.positions {
                *p = to_frame.transform_point3(*p);
            }
            joined.push(part(k, frame, Cow::Owned(faces)));
        }
    }
    let mut claimed = vec![false; map.tiles.len()];
    let mut parts = Vec::with_capacity(own.len() + joined.len());
    for (mut part, is_own) in own
        .into_iter()
        .map(|p| (p, true))
        .chain(joined.into_iter().map(|p| (p, false)))
    {
        part.copy = claimed[part.tile];
        claimed[part.tile] = true;
        // A tile's collision is its node's child; the collision of a tile whose object is gone
        // (joined into another) stands on its own and names its tile.
        part.collision = if is_own {
            nodes.collision_of.get(&part.node.index).copied()
        } else {
            None
        }
        .or_else(|| {
            (!part.copy)
                .then(|| nodes.collision_of_tile.get(&part.tile).copied())
                .flatten()
        });
        parts.push(part);
    }
    Ok((parts, claimed))
}
