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
pub mod limits;
pub mod raw;
pub(crate) mod rng;

pub use error::{catch_panic, BuildError, InternalError, ParseError, WadError};
pub use level::Level;

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

/// Writes bytes next to `path` and renames them into place, so that a failed write never leaves a
/// half-written file.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), WadError> {
    write_files_atomically(&[(path, bytes)])
}

/// Writes every file next to its path and renames them into place only once all are written:
/// a failed write leaves neither a half-written file nor a temporary one. A run that is killed
/// may leave its temporary file (`.NAME.llamawad-PID.tmp`); the next write of NAME removes it.
pub fn write_files_atomically(files: &[(&std::path::Path, &[u8])]) -> Result<(), WadError> {
    let mut temporaries: Vec<std::path::PathBuf> = Vec::new();
    let remove_all = |temporaries: &[std::path::PathBuf]| {
        for tmp in temporaries {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for &(path, bytes) in files {
        match write_temporary(path, bytes) {
            Ok(tmp) => temporaries.push(tmp),
            Err(e) => {
                remove_all(&temporaries);
                return Err(e);
            }
        }
    }
    for (i, (tmp, &(path, _))) in temporaries.iter().zip(files).enumerate() {
        if let Err(source) = std::fs::rename(tmp, path) {
            remove_all(&temporaries[i..]);
            return Err(WadError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    }
    Ok(())
}

/// Writes `bytes` into a new temporary file beside `path`, after removing those a killed run
/// left for the same path; removes it again when the write fails.
fn write_temporary(path: &std::path::Path, bytes: &[u8]) -> Result<std::path::PathBuf, WadError> {
    use std::io::Write;
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
    let prefix = format!(".{file_name}.llamawad-");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let tmp = dir.join(format!("{prefix}{}.tmp", std::process::id()));
    // `create_new`: never writes through a link or into a file someone else just made.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(io)?;
    if let Err(e) = file.write_all(bytes).and_then(|()| file.flush()) {
        drop(file);
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(tmp)
}
