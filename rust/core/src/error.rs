//! Errors for reading and writing WAD files.
//!
//! A parse error always says where (the chunk and the absolute byte offset in the file) and what
//! was expected there, so that a user with a damaged or unusual level can tell what went wrong.

use std::fmt;

/// Where in the file a parse error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The chunk tag as the notes spell it (`TRAK`, `MAP `, ...) or `container`.
    pub chunk: String,
    /// Absolute byte offset in the WAD file.
    pub offset: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} chunk, byte {:#x}",
            self.chunk.trim_end(),
            self.offset
        )
    }
}

/// Every way the bytes of a WAD file can fail to be a level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("{at}: {what} needs {needed} bytes, only {available} are left")]
    Truncated {
        at: Location,
        what: String,
        needed: u64,
        available: u64,
    },
    #[error(
        "{at}: {what} says {count} entries of {element_size} bytes, but only {available} bytes are left"
    )]
    CountTooLarge {
        at: Location,
        what: String,
        count: u64,
        element_size: u64,
        available: u64,
    },
    #[error("{at}: {what}: expected {expected}, found {found}")]
    BadValue {
        at: Location,
        what: String,
        expected: String,
        found: String,
    },
    #[error("{at}: {count} bytes left over after {what}")]
    TrailingBytes {
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

/// Any error of the WAD layer.
#[derive(Debug, thiserror::Error)]
pub enum WadError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
