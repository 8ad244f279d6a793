//! Reads and writes the level WADs of *Ein Königreich für ein Lama* (The Emperor's New Groove, PC).
//!
//! Layers: [`container`] splits a file into chunks; [`raw`] holds the fixed-size on-disk records
//! (binrw); [`level`] is the level model built from them, with one parser and one writer per
//! chunk; [`geometry`] recomputes what the game derives from vertices; [`info`] summarises a
//! level; [`generate`] makes synthetic levels to the specification.

pub mod container;
pub mod error;
pub mod game;
pub mod generate;
pub mod geometry;
pub mod gltf;
pub mod info;
pub mod level;
pub mod raw;
mod reader;

pub use error::{BuildError, ParseError, WadError};
pub use level::Level;

/// Reads a whole file; the error names the file.
pub fn read_bytes(path: &std::path::Path) -> Result<Vec<u8>, WadError> {
    std::fs::read(path).map_err(|source| WadError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Reads a level WAD from disk.
pub fn read_level(path: &std::path::Path) -> Result<Level, WadError> {
    Ok(Level::parse(&read_bytes(path)?)?)
}

/// Writes bytes next to `path` and renames them into place, so that a failed write never leaves a
/// half-written file.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), WadError> {
    let io = |source| WadError::Io {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Windows' MoveFileEx refuses to replace a read-only file, but the rename of Rust's standard
    // library may take another way that Wine lets through, and POSIX allows it: so a read-only
    // file is refused here, on every system, before anything is written.
    if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the file is read-only: not replaced",
        )));
    }
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}
