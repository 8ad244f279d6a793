//! Writing outputs so that nothing that was there is lost: a reader, a failed or killed write, a
//! second writer of the same output and a power loss all leave the old file or the new one.
//!
//! Each file is written to a temporary beside it, flushed to the disk and renamed into place. A
//! writer holds the folder's lock throughout (on Unix the folder's own `flock`, on Windows a lock
//! file that vanishes with its handle), so that two writers of one output neither remove each
//! other's temporaries nor mix the files of a `.gltf` and its `.bin`; a temporary found while the
//! lock is held is one a killed run left, and is removed.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::WadError;

/// Bytes of the output's name its temporaries keep: a name near the system's limit (255 bytes)
/// must leave room for what a temporary adds.
const NAME_KEPT: usize = 32;

/// Writes bytes next to `path` and renames them into place (see the module's description).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WadError> {
    write_files_atomically(&[(path, bytes)])
}

/// Writes files that belong together, all in one folder (a `.gltf` and its `.bin`): every one is
/// written to its temporary before the first is renamed into place, and when a rename fails the
/// files renamed before it are put back as they were, so that a failure leaves every old file;
/// should putting one back fail too, the error names the file that changed. A run that is killed
/// may leave temporaries (`.NAME.llamawad-PID-N.tmp`, NAME cut to 32 bytes); the next write of
/// NAME removes them.
pub fn write_files_atomically(files: &[(&Path, &[u8])]) -> Result<(), WadError> {
    let Some(&(first, _)) = files.first() else {
        return Ok(());
    };
    let mut modes = Vec::with_capacity(files.len());
    for &(path, _) in files {
        modes.push(writable(path)?);
    }
    let folder = folder_of(first);
    let lock = FolderLock::take(folder).map_err(|e| io_error(first, e))?;
    for &(path, _) in files {
        remove_left_temporaries(path);
    }
    let mut written = Vec::with_capacity(files.len());
    for (n, (&(path, bytes), mode)) in files.iter().zip(&modes).enumerate() {
        match write_temporary(path, n, bytes, mode.as_ref()) {
            Ok(tmp) => written.push(tmp),
            Err(e) => {
                written.iter().for_each(remove_quietly);
                return Err(io_error(path, e));
            }
        }
    }
    replace_all(files, &written)?;
    lock.sync();
    Ok(())
}

fn io_error(path: &Path, source: io::Error) -> WadError {
    WadError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Refuses an output that is not a regular file (a device node would be replaced by a file, a
/// pipe's reader would never see the bytes) or that is read-only; the permissions of the file
/// there, which the new one keeps.
fn writable(path: &Path) -> Result<Option<fs::Permissions>, WadError> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path, e)),
    };
    if !meta.is_file() {
        return Err(io_error(
            path,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a folder, device or pipe is never replaced): give a file name",
            ),
        ));
    }
    // Windows' MoveFileEx refuses to replace a read-only file, but the rename of Rust's standard
    // library may take another way that Wine lets through, and POSIX allows it: so a read-only
    // file is refused here, on every system, before anything is written.
    if meta.permissions().readonly() {
        return Err(io_error(
            path,
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the file is read-only: not replaced",
            ),
        ));
    }
    Ok(Some(meta.permissions()))
}

/// The beginning of the names of `path`'s temporaries.
fn temporary_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut end = name.len().min(NAME_KEPT);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}.llamawad-", &name[..end])
}

/// The temporary of the `n`th file of a write (two names may have the same beginning).
fn sibling(path: &Path, n: usize, suffix: &str) -> PathBuf {
    folder_of(path).join(format!(
        "{}{}-{n}{suffix}",
        temporary_prefix(path),
        std::process::id()
    ))
}

/// Removes what killed writes of `path` left (the folder's lock is held: no writer is alive).
fn remove_left_temporaries(path: &Path) {
    let prefix = temporary_prefix(path);
    let Ok(entries) = fs::read_dir(folder_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn remove_quietly(path: impl AsRef<Path>) {
    let _ = fs::remove_file(path);
}

/// `bytes` in a new temporary beside `path`, with the permissions of the file it replaces (a new
/// file gets the umask's), on the disk before it is renamed; removed again when that fails.
fn write_temporary(
    path: &Path,
    n: usize,
    bytes: &[u8],
    permissions: Option<&fs::Permissions>,
) -> io::Result<PathBuf> {
    let tmp = sibling(path, n, ".tmp");
    // `create_new`: never writes through a link or into a file someone else just made.
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let done = file
        .write_all(bytes)
        .and_then(|()| match permissions {
            Some(p) => file.set_permissions(p.clone()),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all());
    drop(file);
    match done {
        Ok(()) => Ok(tmp),
        Err(e) => {
            remove_quietly(&tmp);
            Err(e)
        }
    }
}

/// Renames each temporary over its file. Before a file that another rename follows is replaced,
/// its old bytes are kept under a second name (a hard link, else a copy), so that a later failure
/// can put it back.
fn replace_all(files: &[(&Path, &[u8])], temporaries: &[PathBuf]) -> Result<(), WadError> {
    // Per file renamed so far: where its old bytes are kept (None: there was no file).
    let mut replaced: Vec<Option<PathBuf>> = Vec::new();
    for (i, (tmp, &(path, _))) in temporaries.iter().zip(files).enumerate() {
        let kept = if i + 1 < files.len() && path.exists() {
            match keep_old(path, i) {
                Ok(kept) => Some(kept),
                Err(e) => {
                    temporaries.iter().for_each(remove_quietly);
                    return Err(io_error(path, e));
                }
            }
        } else {
            None
        };
        if let Err(e) = fs::rename(tmp, path) {
            if let Some(kept) = &kept {
                remove_quietly(kept);
            }
            temporaries[i..].iter().for_each(remove_quietly);
            let earlier = files[..i].iter().map(|&(p, _)| p).zip(replaced);
            return Err(io_error(path, put_back(earlier, e)));
        }
        replaced.push(kept);
    }
    for kept in replaced.iter().flatten() {
        remove_quietly(kept);
    }
    Ok(())
}

fn keep_old(path: &Path, n: usize) -> io::Result<PathBuf> {
    let kept = sibling(path, n, ".old.tmp");
    let _ = fs::remove_file(&kept);
    if fs::hard_link(path, &kept).is_err() {
        fs::copy(path, &kept)?;
    }
    Ok(kept)
}

/// Puts the files replaced before a failed rename back as they were; the rename's error, saying
/// what became of them.
fn put_back<'a>(
    replaced: impl DoubleEndedIterator<Item = (&'a Path, Option<PathBuf>)>,
    failure: io::Error,
) -> io::Error {
    let mut restored = Vec::new();
    let mut changed = Vec::new();
    for (path, kept) in replaced.rev() {
        let undone = match &kept {
            Some(kept) => fs::rename(kept, path),
            None => fs::remove_file(path),
        };
        match undone {
            Ok(()) => restored.push(path.display().to_string()),
            Err(e) => {
                if let Some(kept) = &kept {
                    remove_quietly(kept);
                }
                changed.push(format!("{} ({e})", path.display()));
            }
        }
    }
    let mut message = failure.to_string();
    if !changed.is_empty() {
        message += &format!(
            "; already replaced by the new file and not put back: {} (it no longer belongs \
             with the file named here, which is the old one)",
            changed.join(", ")
        );
    } else if !restored.is_empty() {
        message += &format!(
            "; nothing changed ({} put back as it was)",
            restored.join(", ")
        );
    }
    io::Error::new(failure.kind(), message)
}

/// The lock of a folder's writers, held until dropped.
struct FolderLock {
    #[cfg(unix)]
    folder: File,
    #[cfg(windows)]
    _file: File,
}

impl FolderLock {
    /// The folder's `flock` (std's `File::lock` is younger than the Rust this crate supports).
    #[cfg(unix)]
    fn take(folder: &Path) -> io::Result<FolderLock> {
        use std::os::unix::io::AsRawFd;
        let folder = File::open(folder)?;
        // SAFETY: flock only reads the descriptor, which `folder` keeps open.
        while unsafe { libc::flock(folder.as_raw_fd(), libc::LOCK_EX) } != 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(FolderLock { folder })
    }

    /// A lock file opened for no one else to open and removed when its handle closes, which the
    /// system does when the process ends, however it ends.
    #[cfg(windows)]
    fn take(folder: &Path) -> io::Result<FolderLock> {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_DELETE_ON_CLOSE: u32 = 0x0400_0000;
        const ERROR_ACCESS_DENIED: i32 = 5;
        const ERROR_SHARING_VIOLATION: i32 = 32;
        let path = folder.join(".llamawad.lock");
        // Denied access is a lock being removed as its holder closes it, unless it lasts.
        let mut denied = 0;
        loop {
            match OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .share_mode(0)
                .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
                .open(&path)
            {
                Ok(file) => return Ok(FolderLock { _file: file }),
                Err(e) if e.raw_os_error() == Some(ERROR_SHARING_VIOLATION) => {}
                Err(e) if e.raw_os_error() == Some(ERROR_ACCESS_DENIED) && denied < 200 => {
                    denied += 1;
                }
                Err(e) => return Err(e),
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Puts the folder's new entries on the disk: after a power loss the name leads to the new
    /// file, never to an empty one. (Windows has no such call for a folder.)
    fn sync(&self) {
        #[cfg(unix)]
        let _ = self.folder.sync_all();
    }
}
