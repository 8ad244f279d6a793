//! Reads and writes the level WADs of *Ein Königreich für ein Lama* (The Emperor's New Groove, PC).
//!
//! Layers: [`container`] splits a file into chunks; [`raw`] holds the fixed-size on-disk records
//! (binrw); [`level`] is the level model built from them, with one parser and one writer per
//! chunk; [`geometry`] recomputes what the game derives from vertices; [`game`] holds the
//! engine's rules (the floor test, cells and coverage, the check, strats, light) and
//! [`limits`] its fixed limits and the caps where the notes give none; [`gltf`] converts a
//! level to glTF and back; [`codes`] names every problem and refusal; [`info`] summarises a
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

/// Reads a whole regular file of at most `max` bytes; the error names the file. Anything else
/// is refused before it is opened: a device never ends (`/dev/zero`), and opening a pipe waits
/// for a writer. A file past `max` is refused from its size, unread.
pub fn read_bytes(path: &std::path::Path, max: u64) -> Result<Vec<u8>, WadError> {
    read_limited(path, max, |_, size| {
        limits::LimitError(format!(
            "{}: {size} bytes; at most {max} are read",
            path.display()
        ))
    })
}

/// Reads a level file. One past [`limits::MAX_WAD_BYTES`] is refused from its size and its
/// length field (its first four bytes) before the rest is read: a sparse file of gigabytes
/// costs nothing.
pub fn read_level_bytes(path: &std::path::Path) -> Result<Vec<u8>, WadError> {
    let max = limits::MAX_WAD_BYTES;
    read_limited(path, max, |file, size| {
        let mut field = [0u8; 4];
        let says = match std::io::Read::read_exact(file, &mut field) {
            Ok(()) => format!("its length field says {}", u32::from_le_bytes(field)),
            Err(_) => "its length field cannot be read".to_string(),
        };
        limits::LimitError(format!(
            "{}: {size} bytes ({says}); a level is read only up to {max} bytes (the game's \
             levels take a few megabytes)",
            path.display()
        ))
    })
}

/// Opens a regular file and reads it whole unless it is larger than `max`, when `too_large`
/// says why from the open file and its size.
fn read_limited(
    path: &std::path::Path,
    max: u64,
    too_large: impl FnOnce(&mut std::fs::File, u64) -> limits::LimitError,
) -> Result<Vec<u8>, WadError> {
    use std::io::Read;
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
    let mut file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size > max {
        return Err(too_large(&mut file, size).into());
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // A file that grows while it is read is still read only up to `max`.
    file.by_ref()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(too_large(&mut file, bytes.len() as u64).into());
    }
    Ok(bytes)
}

/// Reads a level WAD from disk.
pub fn read_level(path: &std::path::Path) -> Result<Level, WadError> {
    Ok(Level::parse(&read_level_bytes(path)?)?)
}
