//! The node graph: a forest of finite transforms, no deeper than the limit.

use glam::Mat4;

use super::{node_name, ReadError, MAX_NODE_DEPTH};

/// Checks that the nodes form a forest no deeper than [`MAX_NODE_DEPTH`] whose scene roots are
/// roots, listed once, and with finite world transforms; returns the nodes of every scene in
/// order (parents before children) with their world transforms.
pub(super) fn node_forest(document: &gltf::Document) -> Result<Vec<(usize, Mat4)>, ReadError> {
    let nodes: Vec<gltf::Node> = document.nodes().collect();
    let parent = parents(&nodes)?;
    let name = |i: usize| node_name(&nodes[i]);
    // Every node now has at most one parent: a walk down from the parentless nodes meets each
    // node once, and a node it never meets is in a cycle.
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<(usize, usize)> = (0..nodes.len())
        .filter(|&i| parent[i].is_none())
        .map(|i| (i, 1))
        .collect();
    while let Some((i, depth)) = stack.pop() {
        if depth > MAX_NODE_DEPTH {
            return Err(ReadError::new(format!(
                "{} is nested {depth} nodes deep; at most {MAX_NODE_DEPTH} are read",
                name(i)
            )));
        }
        reached[i] = true;
        stack.extend(nodes[i].children().map(|c| (c.index(), depth + 1)));
    }
    if let Some(mut i) = reached.iter().position(|r| !r) {
        // Every node up from it has a parent too; as many steps up as there are nodes end on
        // the cycle (it may hang below one).
        for _ in 0..nodes.len() {
            i = parent[i].expect("a node no walk from a root reaches has a parent");
        }
        return Err(ReadError::new(format!(
            "{} is its own ancestor: the nodes' children form a cycle",
            name(i)
        )));
    }

    let mut listed = vec![false; nodes.len()];
    let mut roots = Vec::new();
    for scene in document.scenes() {
        for root in scene.nodes() {
            let r = root.index();
            if let Some(p) = parent[r] {
                return Err(ReadError::new(format!(
                    "{} is a root of scene {} but a child of {}",
                    name(r),
                    scene.index(),
                    name(p)
                )));
            }
            if std::mem::replace(&mut listed[r], true) {
                return Err(ReadError::new(format!(
                    "{} is listed twice among the scenes' nodes",
                    name(r)
                )));
            }
            roots.push(r);
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<(usize, Mat4)> = roots
        .into_iter()
        .rev()
        .map(|r| (r, Mat4::IDENTITY))
        .collect();
    while let Some((i, parent_world)) = stack.pop() {
        let world = parent_world * Mat4::from_cols_array_2d(&nodes[i].transform().matrix());
        if !world.is_finite() {
            return Err(ReadError::new(format!(
                "{}: its transform is not made of finite numbers (or overflows in its parents' frame)",
                name(i)
            )));
        }
        let children: Vec<usize> = nodes[i].children().map(|c| c.index()).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world)));
        out.push((i, world));
    }
    Ok(out)
}

/// Each node's parent, refused where a node is its own child, listed twice among a node's
/// children or a child of two.
fn parents(nodes: &[gltf::Node]) -> Result<Vec<Option<usize>>, ReadError> {
    let name = |i: usize| node_name(&nodes[i]);
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for node in nodes {
        for child in node.children() {
            let c = child.index();
            if c == node.index() {
                return Err(ReadError::new(format!("{} is its own child", name(c))));
            }
            match parent[c] {
                Some(p) if p == node.index() => {
                    return Err(ReadError::new(format!(
                        "{} is listed twice among the children of {}",
                        name(c),
                        name(p)
                    )))
                }
                Some(p) => {
                    return Err(ReadError::new(format!(
                        "{} is a child of both {} and {}: a node has one parent",
                        name(c),
                        name(p),
                        name(node.index())
                    )))
                }
                None => parent[c] = Some(node.index()),
            }
        }
    }
    Ok(parent)
}
