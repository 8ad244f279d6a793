//! Errors for reading and writing WAD files.
//!
//! A parse error always says where (the chunk and the absolute byte offset in the file) and what
//! was expected there, so that a user with a damaged or unusual level can tell what went wrong.

use std::fmt;

use serde::Serialize;

/// Where in the file a parse error happened.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Location {
    /// The chunk tag as the notes spell it, without the padding (`TRAK`, `MAP`, ...), or
    /// `container`.
    pub chunk: String,
    /// Absolute byte offset in the WAD file.
    pub offset: u64,
    /// The MAP tile whose blocks were being read, or that the reader found at fault.
    pub tile: Option<u32>,
    /// The TRAK model whose data was being read, or that the reader found at fault.
    pub model: Option<u32>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} chunk, byte {:#x}", self.chunk, self.offset)
    }
}

/// Every way the bytes of a WAD file can fail to be a level. Serialised as its fields beside
/// its `kind` (`truncated`, `count-too-large`, …), the location's among them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ParseError {
    #[error("{at}: {what} needs {needed} bytes, only {available} are left")]
    Truncated {
        #[serde(flatten)]
        at: Location,
        what: String,
        needed: u64,
        available: u64,
    },
    #[error(
        "{at}: {what} says {count} entries of {element_size} bytes, but only {available} bytes are left"
    )]
    CountTooLarge {
        #[serde(flatten)]
        at: Location,
        what: String,
        count: u64,
        element_size: u64,
        available: u64,
    },
    #[error("{at}: {what}: expected {expected}, found {found}")]
    BadValue {
        #[serde(flatten)]
        at: Location,
        what: String,
        expected: String,
        found: String,
    },
    #[error("{at}: {count} bytes left over after {what}")]
    TrailingBytes {
        #[serde(flatten)]
        at: Location,
        what: String,
        count: u64,
    },
    #[error("the file is not a level WAD: {reason}")]
    NotAWad { reason: String },
    #[error("{chunk} chunk is needed by {needed_by} but the file has none")]
    MissingChunk { chunk: String, needed_by: String },
}

impl ParseError {
    pub fn location(&self) -> Option<&Location> {
        match self {
            ParseError::Truncated { at, .. }
            | ParseError::CountTooLarge { at, .. }
            | ParseError::BadValue { at, .. }
            | ParseError::TrailingBytes { at, .. } => Some(at),
            ParseError::NotAWad { .. } | ParseError::MissingChunk { .. } => None,
        }
    }
}

/// Why a level model cannot be written as bytes: the model holds something the file format
/// cannot express, or that would make the game read the rest of the file shifted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{what} has {count} entries, the file format allows at most {max}")]
    TooMany { what: String, count: u64, max: u64 },
    #[error("{what}: {problem}")]
    Inconsistent { what: String, problem: String },
}

impl BuildError {
    /// The same error, said of a part of `whole` (`TRAK model 3` + `vertices`).
    pub fn within(self, whole: &str) -> BuildError {
        let inside = |what: String| format!("{whole}: {what}");
        match self {
            BuildError::TooMany { what, count, max } => BuildError::TooMany {
                what: inside(what),
                count,
                max,
            },
            BuildError::Inconsistent { what, problem } => BuildError::Inconsistent {
                what: inside(what),
                problem,
            },
        }
    }
}

/// Any error of the WAD layer.
#[derive(Debug, thiserror::Error)]
pub enum WadError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// A panic caught where a program calls into this library: a bug, reported as an error that names
/// the input instead of ending the program (a panic must never take Blender down).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("internal error, please report: {input}: {message}")]
pub struct InternalError {
    /// What was being read, for the report (a file name, or what the bytes were).
    pub input: String,
    /// The panic's message.
    pub message: String,
}

/// Runs `f`, turning a panic in it into an [`InternalError`] naming `input`.
pub fn catch_panic<T>(
    input: impl FnOnce() -> String,
    f: impl FnOnce() -> T,
) -> Result<T, InternalError> {
    // Nothing `f` touches is used after a panic: its state is dropped with the error.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        InternalError {
            input: input(),
            message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_serialises_as_its_kind_beside_its_fields() {
        let e = ParseError::Truncated {
            at: Location {
                chunk: "MAP".into(),
                offset: 12,
                tile: Some(3),
                model: None,
            },
            what: "tile 3".into(),
            needed: 52,
            available: 8,
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({
                "kind": "truncated",
                "chunk": "MAP",
                "offset": 12,
                "tile": 3,
                "model": null,
                "what": "tile 3",
                "needed": 52,
                "available": 8,
            })
        );
        let missing = ParseError::MissingChunk {
            chunk: "MAP".into(),
            needed_by: "the strats".into(),
        };
        assert_eq!(
            serde_json::to_value(&missing).unwrap()["kind"],
            "missing-chunk"
        );
    }

    #[test]
    fn a_panic_becomes_an_error_naming_the_input() {
        let caught = catch_panic(
            || "level.wad".to_string(),
            || -> u32 { panic!("index {} out of range", 7) },
        );
        assert_eq!(
            caught.unwrap_err().to_string(),
            "internal error, please report: level.wad: index 7 out of range"
        );
        let caught = catch_panic(|| "x".to_string(), || -> u32 { std::panic::panic_any(3u8) });
        assert_eq!(caught.unwrap_err().message, "a panic without a message");
        assert_eq!(catch_panic(|| unreachable!(), || 5), Ok(5));
    }
}
