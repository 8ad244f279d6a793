//! Waypoint nodes read back (MAPPING.md, "Waypoints"): a node's translation and turn about +y
//! are its waypoint's position and rotation y, its extras the entry's other fields. A second
//! node naming a waypoint is a new waypoint inserted into the chain after it: the later
//! waypoints move up by one and every strat that names one of them follows (note 003: a strat
//! names the first waypoint of its chain, block 5; an entry's `next` ≠ 0 continues the chain
//! into the entry after it). A waypoint without a node is kept: nothing says which strat or
//! chain would lose it.

use std::collections::BTreeMap;

use super::error::{Cause, GltfToWadError, Record};
use super::nodes::role;
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use super::strats::{placement, Fields, I32, U16, U32};
use crate::codes::Code;
use crate::game::space::TURN;
use crate::gltf::wad_to_gltf::waypoint_node_name;
use crate::level::Level;
use crate::limits::MAX_WAYPOINTS;
use crate::raw::Waypoint;

/// Whether the scene gives the level's waypoints: it has the `Waypoints` group or a waypoint
/// node. A scene without either keeps them as the base has them.
fn waypoints_given(scene: &Scene) -> bool {
    scene
        .nodes
        .iter()
        .any(|n| role(n).is_some_and(|r| r.kind == "waypoints" || r.kind == "waypoint"))
}

/// Reads the waypoint nodes back into `level` (a clone of `base`, its strats already read
/// back), reporting each change; what a node gives that the entry cannot hold is refused by
/// name into `refused`.
pub(super) fn apply_waypoints(
    scene: &Scene,
    base: &Level,
    level: &mut Level,
    report: &mut ChangeReport,
    refused: &mut Vec<GltfToWadError>,
) -> Result<(), GltfToWadError> {
    let (Some(base_map), true) = (base.map(), waypoints_given(scene)) else {
        return Ok(());
    };
    let count = base_map.waypoints.len();
    let mut by_waypoint: BTreeMap<usize, Vec<&Node>> = BTreeMap::new();
    for node in &scene.nodes {
        let Some(r) = role(node).filter(|r| r.kind == "waypoint") else {
            continue;
        };
        match r.index {
            Some(i) if i < count => by_waypoint.entry(i).or_default().push(node),
            _ => refused.push(
                GltfToWadError::node(
                    &node.culprit(),
                    format!("names a waypoint the base level does not have ({count} waypoints)"),
                )
                .code(Code::UnknownWaypoint)
                .cause(Cause {
                    waypoint: r.index,
                    count: Some(count),
                    ..Cause::default()
                }),
            ),
        }
    }
    let copies: usize = by_waypoint.values().map(|n| n.len() - 1).sum();
    if count + copies > MAX_WAYPOINTS {
        return Err(GltfToWadError::level(format!(
            "the scene makes {} waypoints (the base's {count} and {copies} copies); a level written back holds at most {MAX_WAYPOINTS}",
            count + copies
        ))
        .code(Code::LevelSize)
        .cause(Cause::too_many(count + copies, MAX_WAYPOINTS)));
    }

    let mut written = Vec::with_capacity(count + copies);
    // Where each waypoint of the base is in the level written.
    let mut moved_to = Vec::with_capacity(count);
    for (i, base_entry) in base_map.waypoints.iter().enumerate() {
        moved_to.push(written.len());
        let Some(nodes) = by_waypoint.get(&i) else {
            report.warnings.push(format!(
                "waypoint {i} has no node: kept where the base has it (strats and chains name waypoints by number, so none is removed)"
            ));
            written.push(*base_entry);
            continue;
        };
        // The node with the name export gave keeps the waypoint, else the first; the others are
        // inserted after it, in document order.
        let name = waypoint_node_name(i);
        let keeper = nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name.as_str()))
            .unwrap_or(0);
        let chain: Vec<&Node> = std::iter::once(nodes[keeper])
            .chain(
                nodes
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != keeper)
                    .map(|(_, n)| *n),
            )
            .collect();
        let entries: Vec<Waypoint> = chain
            .iter()
            .map(|node| {
                read_node(node, i, base_entry, report).unwrap_or_else(|e| {
                    refused.extend(e);
                    *base_entry
                })
            })
            .collect();
        let continues = entries[0].next;
        for (k, (node, mut entry)) in chain.iter().zip(entries).enumerate() {
            // Every entry but the last of the run continues into the next; the last continues
            // as the waypoint did.
            entry.next = match k + 1 == chain.len() {
                true => continues,
                false if entry.next != 0 => entry.next,
                false => 1,
            };
            let at = written.len();
            if k == 0 {
                if entry.position != base_entry.position || entry.rotation != base_entry.rotation {
                    report.waypoints_moved.push(at);
                }
                if entry != *base_entry {
                    report.waypoint_sources.push((at, node.raw_name()));
                }
            } else {
                report.waypoints_added.push(at);
                report.waypoint_sources.push((at, node.raw_name()));
            }
            written.push(entry);
        }
    }
    let map = level.map_mut().expect("cloned from the base");
    if copies > 0 {
        for (s, strat) in map.strats.iter_mut().enumerate() {
            let Some(&to) = usize::try_from(strat.waypoint)
                .ok()
                .and_then(|w| moved_to.get(w))
            else {
                continue;
            };
            if to as i32 != strat.waypoint {
                strat.waypoint = to as i32;
                report.strats_renumbered.push(s);
            }
        }
    }
    map.waypoints = written;
    Ok(())
}

/// The waypoint a node gives: its place and turn where they changed, every field its extras
/// hold checked against the entry's.
fn read_node(
    node: &Node,
    i: usize,
    base: &Waypoint,
    report: &mut ChangeReport,
) -> Result<Waypoint, Vec<GltfToWadError>> {
    let culprit = node.culprit();
    let what = Record::Waypoint(i);
    let mut errors = Vec::new();
    let mut fields = Fields::of(node, &culprit, what, &mut errors);
    let mut w = *base;
    if let Some(v) = fields.whole("next", U32) {
        w.next = v as u32;
    }
    if let Some(v) = fields.whole("unknown_04", U32) {
        w.unknown_04 = v as u32;
    }
    if let Some(v) = fields.list("rotation", Some(3), U16) {
        w.rotation = [0, 1, 2].map(|k| v[k] as u16);
    }
    if let Some(v) = fields.list("position", Some(3), I32) {
        w.position = [0, 1, 2].map(|k| v[k] as i32);
    }
    if let Some(v) = fields.list("unknown_1a", Some(2), U32) {
        w.unknown_1a = [0, 1].map(|k| v[k] as u32);
    }
    // The node's place and turn win where they are no longer what export wrote.
    match placement(node, &culprit, what, w.rotation, report) {
        Ok((position, turn)) => {
            if position != base.position {
                w.position = position;
            }
            if u32::from(turn) != u32::from(base.rotation[1]) % TURN {
                w.rotation[1] = turn;
            }
        }
        Err(e) => errors.extend(e),
    }
    match errors.is_empty() {
        true => Ok(w),
        false => Err(errors),
    }
}
