//! The nodes of a glTF sorted by what they are to the level: tiles (and their copies), their
//! collision, the zones, and meshes that belong to no tile (new geometry).

use crate::codes::Code;
use std::collections::{BTreeMap, HashMap};

use glam::{Mat4, Vec3};

use super::error::{Cause, GltfToWadError, NodeRef, Record};
use super::scene::{Node, Scene};
use crate::gltf::read::number;

/// A mesh node that belongs to no tile, with the collision mesh given with it (a child node whose
/// name starts with "collision").
pub struct NewMesh<'a> {
    pub node: &'a Node,
    pub collision: Option<&'a Node>,
}

/// Our role and index in a node's extras, however a tool spelled the numbers.
pub(super) struct Role {
    pub(super) kind: String,
    pub(super) index: Option<usize>,
}

pub(super) fn role(node: &Node) -> Option<Role> {
    let extras = node.extras.as_ref()?;
    let kind = extras.get("llamawad")?.as_str()?.to_string();
    // A strat's extras name its waypoint too: its own number comes first.
    let index = ["tile", "strat", "object_model", "waypoint", "light"]
        .iter()
        .find_map(|k| extras.get(*k))
        .and_then(number)
        .filter(|v| *v >= 0.0 && v.fract() == 0.0)
        .map(|v| v as usize);
    Some(Role { kind, index })
}

/// Whether a node says its faces have no collision (extras `no_collision` true or 1: decoration
/// the llama passes through), whatever collision it comes with.
pub(super) fn says_no_collision(node: &Node) -> bool {
    node.extras
        .as_ref()
        .and_then(|e| e.get("no_collision"))
        .and_then(number)
        .is_some_and(|v| v != 0.0)
}

/// A tile's placement from its node's world transform: export-space position and rotation.
pub(super) fn placement(
    world: &Mat4,
    culprit: &NodeRef,
) -> Result<([f32; 3], u32), GltfToWadError> {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    if (scale - Vec3::ONE).abs().max_element() > 1e-3 {
        return Err(GltfToWadError::node(
            culprit,
            format!(
                "is scaled by {scale}; tiles cannot be scaled: apply the scale to the mesh, then export again"
            ),
        )
    .code(Code::TileScaled));
    }
    let up = rotation * Vec3::Y;
    if (up - Vec3::Y).abs().max_element() > 1e-3 {
        return Err(GltfToWadError::node(
            culprit,
            "is turned about x or z; the game turns tiles about the vertical axis only: clear that rotation",
        )
    .code(Code::TileTilted));
    }
    let x_axis = rotation * Vec3::X;
    let angle = libm::atan2f(-x_axis.z, x_axis.x);
    let steps = (angle / std::f32::consts::TAU * 4096.0).round() as i64;
    Ok((
        [translation.x, translation.y, -translation.z],
        steps.rem_euclid(4096) as u32,
    ))
}

/// The nodes of a glTF sorted by what they are to the level.
pub(super) struct Nodes<'a> {
    /// Tile nodes in document order, with the tile each names (`parts.rs` decides which tile
    /// each of their faces is).
    pub(super) tiles: Vec<(usize, &'a Node)>,
    /// The collision node of each tile node (by the tile node's number).
    pub(super) collision_of: HashMap<usize, &'a Node>,
    /// Collision nodes that are no tile node's child, by the tile they name: the collision of a
    /// tile whose node is gone (Blender's Join removes the object and leaves its children).
    pub(super) collision_of_tile: BTreeMap<usize, &'a Node>,
    pub(super) zones: Option<&'a Node>,
    pub(super) new_meshes: Vec<NewMesh<'a>>,
}

pub(super) fn sort_nodes<'a>(
    scene: &'a Scene,
    tile_count: usize,
) -> Result<Nodes<'a>, GltfToWadError> {
    let mut sorted = Nodes {
        tiles: Vec::new(),
        collision_of: HashMap::new(),
        collision_of_tile: BTreeMap::new(),
        zones: None,
        new_meshes: Vec::new(),
    };
    // A collision mesh: named "collision…", or a tile's collision node of ours.
    let is_collision =
        |n: &Node| is_given_collision(n) || role(n).is_some_and(|r| r.kind == "collision");
    // A node's first child that is a collision mesh.
    let collision_child = |n: &Node| {
        n.children
            .iter()
            .find_map(|&c| scene.node(c).filter(|c| is_collision(c)))
    };
    for node in &scene.nodes {
        let Some(role) = role(node) else {
            // New geometry: a mesh, or collision alone (a node without faces whose child is
            // collision, as a re-tiled level's water planes are). Its collision is a child mesh
            // named "collision…", or the collision node a tile had before its node lost its tile
            // (a whole level re-tiled).
            let collision = collision_child(node);
            if (node.mesh.is_some() || collision.is_some()) && !is_given_collision(node) {
                sorted.new_meshes.push(NewMesh { node, collision });
            }
            continue;
        };
        match (role.kind.as_str(), role.index) {
            ("tile", Some(i)) if i < tile_count => sorted.tiles.push((i, node)),
            ("tile", _) => {
                return Err(GltfToWadError::node(
                    &node.culprit(),
                    format!("names a tile the base level does not have ({tile_count} tiles)"),
                )
                .code(Code::UnknownTile)
                .cause(Cause {
                    tile: role.index,
                    count: Some(tile_count),
                    ..Cause::default()
                }));
            }
            ("collision", tile) => match (node.parent, tile) {
                (Some(parent), _) => {
                    sorted.collision_of.insert(parent, node);
                }
                (None, Some(tile)) if tile < tile_count => {
                    sorted.collision_of_tile.insert(tile, node);
                }
                _ => {}
            },
            ("zones", _) => sorted.zones = Some(node),
            _ => {}
        }
    }
    Ok(sorted)
}

/// A mesh given as the collision of a new mesh: named "collision…", without a role of ours.
pub(super) fn is_given_collision(node: &Node) -> bool {
    role(node).is_none()
        && node
            .name
            .as_ref()
            .is_some_and(|n| n.to_ascii_lowercase().starts_with("collision"))
}

/// The nodes of one of our roles (`kind`), with the index each names.
pub(super) fn nodes_of<'s>(scene: &'s Scene, kind: &str) -> Vec<(&'s Node, Option<usize>)> {
    scene
        .nodes
        .iter()
        .filter_map(|n| role(n).filter(|r| r.kind == kind).map(|r| (n, r.index)))
        .collect()
}

/// How refusals name what a kind of node stands for.
pub(super) struct Naming {
    /// The part a node's index names: `Record::Light`.
    pub record: fn(usize) -> Record,
    /// "a light".
    pub a_one: &'static str,
    /// "lights".
    pub many: &'static str,
    /// Why a second node naming one is refused: "level lights cannot be added".
    pub no_copies: &'static str,
}

/// One node for each index below `count`, by its index: of the level's parts that are neither
/// added nor removed (lights, object models). A node naming an index past `count`, or one
/// another node names already, is refused into `refused`.
pub(super) fn one_each<'s>(
    nodes: Vec<(&'s Node, Option<usize>)>,
    count: usize,
    naming: &Naming,
    code: Code,
    refused: &mut Vec<GltfToWadError>,
) -> BTreeMap<usize, &'s Node> {
    let mut by_index: BTreeMap<usize, &Node> = BTreeMap::new();
    for (node, index) in nodes {
        let named = index.map(naming.record);
        let (problem, counted) = match index {
            Some(i) if i < count => match by_index.insert(i, node) {
                None => continue,
                Some(_) => (
                    format!(
                        "names {}, as another node does: {}",
                        (naming.record)(i),
                        naming.no_copies
                    ),
                    None,
                ),
            },
            _ => (
                format!(
                    "names {} the base level does not have ({count} {})",
                    naming.a_one, naming.many
                ),
                Some(count),
            ),
        };
        let cause = Cause {
            count: counted,
            ..named.map_or_else(Cause::default, Record::cause)
        };
        refused.push(
            GltfToWadError::node(&node.culprit(), problem)
                .code(code)
                .cause(cause),
        );
    }
    by_index
}
