//! Reads and writes the level WADs of *Ein Königreich für ein Lama* (The Emperor's New Groove, PC).
//!
//! Layers: [`container`] splits a file into chunks; [`raw`] holds the fixed-size on-disk records
//! (binrw); [`level`] is the level model built from them, with one parser and one writer per
//! chunk; [`geometry`] recomputes what the game derives from vertices; [`info`] summarises a
//! level; [`generate`] makes synthetic levels to the specification.

pub mod codes;
pub mod container;
pub mod error;
pub mod game;
pub mod generate;
pub mod geometry;
pub mod gltf;
pub mod info;
pub mod level;
pub mod limits;
mod output;
pub mod raw;
pub(crate) mod rng;

pub use codes::Code;
pub use error::{catch_panic, BuildError, InternalError, ParseError, WadError};
pub use level::Level;
pub use output::{write_atomically, write_files_atomically};

/// Reads a whole regular file; the error names the file. Anything else is refused before it is
/// opened: a device never ends (`/dev/zero`), and opening a pipe waits for a writer.
pub fn read_bytes(path: &std::path::Path) -> Result<Vec<u8>, WadError> {
    let io = |source| WadError::Io {
        path: path.display().to_string(),
        source,
    };
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a folder, device or pipe is never read)",
        )));
    }
    std::fs::read(path).map_err(io)
}

/// Reads a level WAD from disk.
pub fn read_level(path: &std::path::Path) -> Result<Level, WadError> {
    Ok(Level::parse(&read_bytes(path)?)?)
}
