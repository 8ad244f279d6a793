//! Why a glTF cannot become a level: the refusal, with its culprit named for a tool to select.

use std::fmt;

use serde::Serialize;

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
    /// The numbers the message quotes, for tools, never parsed from the message. (Boxed: a
    /// refusal is returned through every step of the conversion.)
    pub cause: Box<Cause>,
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

/// The numbers a refusal's message quotes: what it is about and how far it is off. Each is None
/// where the refusal quotes none of it; the message is made from the same numbers where the
/// refusal is made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// A tile: one the node or its faces (`_TILE`) name that the base does not have, whose
    /// collision reaches too far, or the first broken rule's.
    pub tile: Option<usize>,
    /// A TRAK model: the first broken rule's.
    pub model: Option<usize>,
    /// An object model (STPC) the node stands for, or names that the base does not have.
    pub object_model: Option<usize>,
    /// A collision polygon of the tile's model (counted over its groups A, B and C).
    pub polygon: Option<usize>,
    /// A strat the node stands for, or names that the base does not have; the first broken
    /// rule's.
    pub strat: Option<usize>,
    /// A waypoint the node stands for, or names that the base does not have.
    pub waypoint: Option<usize>,
    /// A level light (LGHT) the node stands for, or names that the base does not have.
    pub light: Option<usize>,
    /// A zone of the visibility table.
    pub zone: Option<usize>,
    /// A texture page.
    pub page: Option<usize>,
    /// An image of the scene, by its number among the glTF's images or those handed over.
    pub image: Option<usize>,
    /// A grid cell (column, row) as the loader finds it from a position: outside the grid for a
    /// tile that stands outside it; the first broken rule's.
    pub cell: Option<[i64; 2]>,
    /// The base's grid (width, height) that something lies beyond.
    pub grid: Option<[u32; 2]>,
    /// How many the message counts: of what the scene makes, where `limit` says how many a
    /// level holds; of the base's, where a node names one the base does not have.
    pub count: Option<usize>,
    /// The most the level, the game or the file format holds.
    pub limit: Option<usize>,
    /// The custom property (the node's extras key) whose value does not fit: `parameters`.
    pub field: Option<String>,
    /// A whole number given for a field that cannot hold it, or naming nothing (a zone, a
    /// collision material, face flags, a texture entry, a light's type).
    pub value: Option<i64>,
}

impl Cause {
    /// More of something than a level holds.
    pub(super) fn too_many(count: usize, limit: usize) -> Cause {
        Cause {
            count: Some(count),
            limit: Some(limit),
            ..Cause::default()
        }
    }
}

/// A part of the level a node edits in place, as a refusal names it (`strat 5`) and as its
/// cause's field: the words and the field are made from one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Record {
    Strat(usize),
    Waypoint(usize),
    Light(usize),
    ObjectModel(usize),
}

impl Record {
    pub(super) fn cause(self) -> Cause {
        let none = Cause::default();
        match self {
            Record::Strat(i) => Cause {
                strat: Some(i),
                ..none
            },
            Record::Waypoint(i) => Cause {
                waypoint: Some(i),
                ..none
            },
            Record::Light(i) => Cause {
                light: Some(i),
                ..none
            },
            Record::ObjectModel(i) => Cause {
                object_model: Some(i),
                ..none
            },
        }
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Record::Strat(i) => write!(f, "strat {i}"),
            Record::Waypoint(i) => write!(f, "waypoint {i}"),
            Record::Light(i) => write!(f, "light {i}"),
            Record::ObjectModel(i) => write!(f, "object model {i}"),
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
            cause: Box::default(),
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

    pub(super) fn cause(mut self, cause: Cause) -> GltfToWadError {
        *self.cause = cause;
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
            cause: Box::new(Cause {
                tile: first.tile,
                model: first.model,
                polygon: first.polygon,
                strat: first.strat,
                cell: first.cell.map(|c| c.map(i64::from)),
                ..Cause::default()
            }),
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
