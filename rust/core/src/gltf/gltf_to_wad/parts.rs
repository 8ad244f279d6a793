//! Which tile each face is. A tile node's faces are its tile's, unless they say they are another
//! tile's (`_TILE`): Blender's Join puts two tiles' faces into one mesh, and Separate takes them
//! apart again under either object. Each tile is claimed by the first faces that are its own; a
//! later claim (a copy: Shift D, or faces joined from a copy) becomes a new tile. A tile's faces
//! joined into a new mesh are still that tile's; the new mesh's own faces are new geometry.

use crate::codes::Code;
use std::borrow::Cow;
use std::collections::BTreeMap;

use glam::{Mat4, Quat, Vec3};

use super::attributes::{node_triangles, per_triangle};
use super::error::{Cause, GltfToWadError, NodeRef};
use super::new_geometry::NewGeometry;
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
    /// The tile's collision node, and where its triangles stand (file space): a child's world
    /// transform, or for collision standing on its own its transform taken in the tile's frame.
    pub collision: Option<(&'a Node, Mat4)>,
    /// A further claim of a tile already claimed: a new tile.
    pub copy: bool,
}

/// Where a base tile stands, as its tile node is placed (file space).
pub(super) fn tile_frame(tile: &Tile) -> Mat4 {
    let [x, y, z] = crate::gltf::shown_position(tile.float.position);
    let angle = (tile.float.rotation % 4096) as f32 / 4096.0 * std::f32::consts::TAU;
    Mat4::from_rotation_translation(Quat::from_rotation_y(angle), Vec3::new(x, y, -z))
}

/// What the scene's faces are: the tiles' parts, whether each base tile was claimed, and the
/// new geometry (faces that are no tile's).
pub(super) struct Claims<'a> {
    pub parts: Vec<Part<'a>>,
    pub claimed: Vec<bool>,
    pub new_geometry: Vec<NewGeometry<'a>>,
    /// Collision left out because its tile is gone.
    pub warnings: Vec<String>,
}

/// A node's triangles by the tile each says it is (`_TILE`; None: it says none), refusing tiles
/// the base does not have.
fn by_tile(
    tris: &Triangles,
    culprit: &NodeRef,
    tiles: usize,
) -> Result<BTreeMap<Option<usize>, Vec<usize>>, GltfToWadError> {
    let mut out: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    let mut unknown = Vec::new();
    let named = per_triangle(tris, "TILE");
    for (t, tile) in named.iter().enumerate() {
        match tile.map(usize::try_from) {
            None => out.entry(None).or_default().push(t),
            Some(Ok(k)) if k < tiles => out.entry(Some(k)).or_default().push(t),
            Some(_) => unknown.push(t),
        }
    }
    let Some(&first) = unknown.first() else {
        return Ok(out);
    };
    Err(GltfToWadError::faces(
        culprit,
        unknown,
        format!("_TILE names a tile the base level does not have ({tiles} tiles)"),
    )
    .code(Code::UnknownTile)
    .cause(Cause {
        // A negative number names no tile.
        tile: named[first].and_then(|k| usize::try_from(k).ok()),
        count: Some(tiles),
        ..Cause::default()
    })
    .in_source_faces(tris))
}

/// Every tile node's faces as parts, claimed in node order (own faces before faces joined into
/// another node), and the new meshes less the tiles' faces joined into them.
/// A node that cannot be read is refused into `refused`, and the others are still claimed.
/// A tile node's mesh whose faces do not say which tile each is (`_TILE`) is one tile's model:
/// more triangles than a model can have faces are refused from the accessors' counts, before
/// the corners are gathered (a mesh of 2²⁰ triangles once took 960 MB before the refusal).
fn one_model(scene: &Scene, node: &Node) -> Result<(), GltfToWadError> {
    let counted = node.mesh.and_then(|m| scene.triangle_count(m));
    match counted {
        Some((triangles, false)) if triangles > u16::MAX as usize => Err(GltfToWadError::node(
            &node.culprit(),
            format!("has {triangles} triangles; a tile model can have at most 65,535 faces"),
        )
        .code(Code::FaceLimit)
        .cause(Cause::too_many(triangles, u16::MAX as usize))),
        _ => Ok(()),
    }
}

pub(super) fn claim_parts<'a>(
    scene: &'a Scene,
    nodes: &Nodes<'a>,
    map: &Map,
    refused: &mut Vec<GltfToWadError>,
) -> Claims<'a> {
    let grid = (map.width, map.height);
    let mut own = Vec::new();
    let mut joined = Vec::new();
    let mut new_geometry = Vec::new();
    let mut unread = Vec::new();
    // Faces of tile k a node holds, in k's own frame where the base has it: unmoved since they
    // were joined, they are k's model as it was.
    let joined_part = |k: usize, node: &'a Node, mut faces: Triangles| {
        let frame = tile_frame(&map.tiles[k]);
        let to_frame = frame.inverse() * node.world;
        for p in &mut faces.positions {
            *p = to_frame.transform_point3(*p);
        }
        Part {
            tile: k,
            node,
            frame,
            tris: Cow::Owned(faces),
            collision: None,
            copy: false,
        }
    };
    let read = |node: &'a Node, refused: &mut Vec<GltfToWadError>| {
        let culprit = node.culprit();
        let read = node_triangles(scene, node, grid, &culprit)
            .and_then(|tris| Ok((by_tile(&tris, &culprit, map.tiles.len())?, tris)));
        read.map_err(|e| refused.push(e)).ok()
    };
    for &(i, node) in &nodes.tiles {
        let read = match one_model(scene, node) {
            Ok(()) => read(node, refused),
            Err(e) => {
                refused.push(e);
                None
            }
        };
        let Some((groups, tris)) = read else {
            // A node refused is no deleted tile.
            unread.push(i);
            continue;
        };
        let own_part = |tris| Part {
            tile: i,
            node,
            frame: node.world,
            tris,
            collision: None,
            copy: false,
        };
        if groups.keys().all(|k| k.is_none_or(|k| k == i)) {
            own.push(own_part(tris));
            continue;
        }
        // A tile node's faces that say no tile are its own (faces added to it).
        let mut mine: Vec<usize> = Vec::new();
        for (k, ts) in groups {
            match k {
                Some(k) if k != i => joined.push(joined_part(k, node, tris.select(&ts))),
                _ => mine.extend(ts),
            }
        }
        if !mine.is_empty() {
            mine.sort_unstable();
            own.push(own_part(Cow::Owned(tris.select(&mine))));
        }
    }
    for mesh in &nodes.new_meshes {
        let Some((mut groups, tris)) = read(mesh.node, refused) else {
            continue;
        };
        if groups.keys().all(Option::is_none) {
            new_geometry.push(NewGeometry::of_mesh(mesh));
            continue;
        }
        let rest = groups.remove(&None).unwrap_or_default();
        for (k, ts) in groups {
            let k = k.expect("faces without a tile were taken out");
            joined.push(joined_part(k, mesh.node, tris.select(&ts)));
        }
        if !rest.is_empty() || mesh.collision.is_some() {
            let mut faces = tris.select(&rest);
            for p in &mut faces.positions {
                *p = mesh.node.world.transform_point3(*p);
            }
            new_geometry.push(NewGeometry {
                tris: Some(faces),
                ..NewGeometry::of_mesh(mesh)
            });
        }
    }
    claims_of(own, joined, unread, new_geometry, nodes, map.tiles.len())
}

/// The parts claimed (each tile's own faces first, then faces joined into other nodes), which
/// tiles are claimed (a further claim is a copy), and each part's collision node.
fn claims_of<'a>(
    own: Vec<Part<'a>>,
    joined: Vec<Part<'a>>,
    unread: Vec<usize>,
    new_geometry: Vec<NewGeometry<'a>>,
    nodes: &Nodes<'a>,
    tile_count: usize,
) -> Claims<'a> {
    let mut warnings = Vec::new();
    let mut claimed = vec![false; tile_count];
    for i in unread {
        claimed[i] = true;
    }
    let mut parts = Vec::with_capacity(own.len() + joined.len());
    for (mut part, is_own) in own
        .into_iter()
        .map(|p| (p, true))
        .chain(joined.into_iter().map(|p| (p, false)))
    {
        part.copy = claimed[part.tile];
        claimed[part.tile] = true;
        // A tile's collision is its node's child. The collision of a tile whose object is gone
        // stands on its own and names its tile; its transform is taken in the tile's frame, as
        // it was under the tile: Blender's Join clears the parent of the removed object's
        // children and leaves them their transform in it, which puts them at the origin.
        let child = is_own
            .then(|| nodes.collision_of.get(&part.node.index).copied())
            .flatten();
        part.collision = match child {
            Some(node) => Some((node, node.world)),
            None => (!part.copy)
                .then(|| nodes.collision_of_tile.get(&part.tile).copied())
                .flatten()
                .map(|node| (node, part.frame * node.world)),
        };
        parts.push(part);
    }
    for (&tile, node) in &nodes.collision_of_tile {
        if !parts.iter().any(|p| p.tile == tile && !p.copy) {
            warnings.push(format!(
                "{} is the collision of tile {tile}, which nothing in the scene is any more: left out",
                node.culprit()
            ));
        }
    }
    Claims {
        parts,
        claimed,
        new_geometry,
        warnings,
    }
}
