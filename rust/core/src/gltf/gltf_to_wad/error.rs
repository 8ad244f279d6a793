//! Why a glTF cannot become a level: the refusal, with its culprit named for a tool to select.

use std::fmt;

use crate::codes::Code;
use crate::game::Problem;
use crate::gltf::read::ReadError;

/// Why a glTF cannot become a level. Names the node and the faces at fault so that a tool can
/// select them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}{}", culprit(.node, .faces), more_refusals(.next.as_deref()))]
pub struct GltfToWadError {
    pub node: Option<NodeRef>,
    /// Triangle indices in the node's mesh, in the order the glTF lists them.
    pub faces: Vec<usize>,
    pub message: String,
    /// What kind of refusal, short and stable (`no-uvs`, `tile-outside-grid`, `game-rules`, …):
    /// for tools, never parsed from the message.
    pub code: Code,
    /// `faces` as the faces of the tool that wrote the glTF (`_SOURCE_FACE`: Blender's faces,
    /// which the artist sees), when the triangles carry them.
    pub source_faces: Vec<usize>,
    /// When the level would break the game's rules rather than the glTF being at fault.
    pub broken: Option<Box<BrokenRules>>,
    /// The next refusal of the same conversion, with its own culprit (and so on): every node is
    /// tried, so that the artist learns of every one at once.
    pub next: Option<Box<GltfToWadError>>,
}

/// The node a refusal names, as numbers and names a tool can look up rather than a message's
/// words: its `Display` is how messages name it (`node 'NAME'`, or `node N` without a name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// Its number among the scene's nodes as the conversion numbered them: its index among a
    /// glTF's nodes, or among the nodes handed to `scene_to_wad`. None where only its name is
    /// known: the report's sources, which pair tiles and strats with names, and the objects
    /// texture entries are counted by.
    pub index: Option<usize>,
    /// Its name as the tool that wrote it gave it (Blender: the object's name); None for a node
    /// without one.
    pub name: Option<String>,
}

impl NodeRef {
    /// A node known by its name alone.
    pub(super) fn named(name: &str) -> NodeRef {
        NodeRef {
            index: None,
            name: Some(name.to_string()),
        }
    }
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, self.index) {
            (Some(name), _) => write!(f, "node '{name}'"),
            (None, Some(index)) => write!(f, "node {index}"),
            // The conversion always knows one of them; a NodeRef made elsewhere may know neither.
            (None, None) => f.write_str("a node without name or number"),
        }
    }
}

/// The game's rules a converted level would break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenRules {
    /// Every new error of `game::check`, with its culprit (the first one is the message).
    pub problems: Vec<Problem>,
    /// The report's (tile, glTF node) pairs, so that each problem's tile can be traced to the
    /// node it came from.
    pub sources: Vec<(usize, String)>,
    /// The report's (strat, glTF node) pairs: the node each changed or added strat came from.
    pub strat_sources: Vec<(usize, String)>,
}

fn more_refusals(next: Option<&GltfToWadError>) -> String {
    match next.map_or(0, |n| n.each().count()) {
        0 => String::new(),
        1 => " (and 1 more refusal)".to_string(),
        n => format!(" (and {n} more refusals)"),
    }
}

pub(super) fn culprit(node: &Option<NodeRef>, faces: &[usize]) -> String {
    let mut out = String::new();
    if let Some(n) = node {
        out.push_str(&format!("{n}: "));
    }
    match faces.len() {
        0 => {}
        1 => out.push_str(&format!("face {}: ", faces[0])),
        n if n <= 8 => out.push_str(&format!(
            "faces {}: ",
            faces
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        n => out.push_str(&format!("{n} faces (first {}): ", faces[0])),
    }
    out
}

impl GltfToWadError {
    pub(super) fn level(message: impl Into<String>) -> GltfToWadError {
        GltfToWadError {
            node: None,
            faces: Vec::new(),
            message: message.into(),
            code: Code::Refused,
            source_faces: Vec::new(),
            broken: None,
            next: None,
        }
    }

    /// The refusals of one conversion as one: the first, carrying the others in order. None when
    /// there are none.
    pub(super) fn all(refusals: Vec<GltfToWadError>) -> Option<GltfToWadError> {
        refusals.into_iter().rev().fold(None, |next, mut e| {
            e.next = next.map(Box::new);
            Some(e)
        })
    }

    /// This refusal and every other of its conversion.
    pub fn each(&self) -> impl Iterator<Item = &GltfToWadError> {
        std::iter::successors(Some(self), |e| e.next.as_deref())
    }

    pub(super) fn code(mut self, code: Code) -> GltfToWadError {
        self.code = code;
        self
    }

    /// The node's name as the tool that wrote it gave it (its object); None when no node is
    /// named or the node has no name.
    pub fn object(&self) -> Option<&str> {
        self.node.as_ref()?.name.as_deref()
    }

    /// The node's number as the conversion numbered it ([`NodeRef::index`]); None when no node
    /// is named or only its name is known.
    pub fn node_index(&self) -> Option<usize> {
        self.node.as_ref()?.index
    }

    pub(super) fn node(node: &NodeRef, message: impl Into<String>) -> GltfToWadError {
        GltfToWadError {
            node: Some(node.clone()),
            ..GltfToWadError::level(message)
        }
    }

    pub(super) fn faces(
        node: &NodeRef,
        faces: Vec<usize>,
        message: impl Into<String>,
    ) -> GltfToWadError {
        GltfToWadError {
            faces,
            ..GltfToWadError::node(node, message)
        }
    }

    /// The level breaks the game's rules: the errors, the first naming the node its tile came
    /// from (the tile whose edit made it, where the error names another).
    pub(super) fn rules(
        errors: Vec<Problem>,
        sources: &[(usize, String)],
        strat_sources: &[(usize, String)],
    ) -> GltfToWadError {
        let first = &errors[0];
        let of = |at: Option<usize>, sources: &[(usize, String)]| {
            at.and_then(|t| sources.iter().find(|(s, _)| *s == t).cloned())
        };
        // A deleted tile has no node: then none is named rather than an untouched one.
        let node = match first.cause {
            Some(_) => of(first.cause, sources),
            None => of(first.tile, sources).or_else(|| of(first.strat, strat_sources)),
        }
        .map(|(_, name)| NodeRef::named(&name));
        let more = match errors.len() {
            1 => String::new(),
            n => format!(" (and {} more errors)", n - 1),
        };
        GltfToWadError {
            node,
            faces: Vec::new(),
            message: format!("{}{more}", first.message),
            code: Code::GameRules,
            source_faces: Vec::new(),
            broken: Some(Box::new(BrokenRules {
                problems: errors,
                sources: sources.to_vec(),
                strat_sources: strat_sources.to_vec(),
            })),
            next: None,
        }
    }

    /// A node's mesh that cannot be read, with the faces at fault where the reader names them.
    pub(super) fn read(node: &NodeRef, e: ReadError) -> GltfToWadError {
        GltfToWadError::faces(node, e.faces, e.message).code(Code::Unreadable)
    }
}
