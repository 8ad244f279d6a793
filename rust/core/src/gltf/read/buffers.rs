//! Buffers: the GLB's BIN chunk, `data:` URIs and files inside the `.gltf`'s own folder only.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::ReadError;

/// A buffer's bytes: the GLB's BIN chunk, a `data:` URI or a file inside `dir`; exactly its
/// declared length, and never more read.
pub(super) fn load_buffer(
    buffer: &gltf::Buffer,
    dir: Option<&Path>,
    blob: Option<&[u8]>,
    files: &mut Vec<PathBuf>,
) -> Result<Vec<u8>, ReadError> {
    let length = buffer.length();
    let what = format!("buffer {}", buffer.index());
    let short = |have: usize| {
        ReadError::new(format!(
            "{what} has {have} bytes, fewer than the {length} its byteLength says"
        ))
    };
    match buffer.source() {
        gltf::buffer::Source::Bin => {
            // Only buffer 0 may be the GLB's BIN chunk: no more copies of it than one.
            let bin = blob.filter(|_| buffer.index() == 0).ok_or_else(|| {
                ReadError::new(format!(
                    "{what} has no uri, and only buffer 0 of a GLB with a BIN chunk may go without"
                ))
            })?;
            Ok(bin.get(..length).ok_or_else(|| short(bin.len()))?.to_vec())
        }
        gltf::buffer::Source::Uri(uri) => {
            if let Some(data) = uri.strip_prefix("data:") {
                let Some((_, base64)) = data.split_once(";base64,") else {
                    return Err(ReadError::new(format!(
                        "{what}: a data: URI is read only when it is base64"
                    )));
                };
                // Decoding gives 3 bytes per 4 characters: too few characters are refused unread.
                if base64.len() / 4 * 3 < length {
                    return Err(short(base64.len() / 4 * 3));
                }
                let mut bytes = base64::decode(base64)
                    .map_err(|e| ReadError::new(format!("{what}: its data: URI: {e}")))?;
                if bytes.len() < length {
                    return Err(short(bytes.len()));
                }
                bytes.truncate(length);
                return Ok(bytes);
            }
            let path = sandboxed(dir, uri, &what)?;
            let io = |e: std::io::Error| ReadError::new(format!("{what}: {}: {e}", path.display()));
            let file = std::fs::File::open(&path).map_err(io)?;
            let size = file.metadata().map_err(io)?.len();
            if size < length as u64 {
                return Err(short(size as usize));
            }
            let mut bytes = Vec::with_capacity(length);
            file.take(length as u64)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() < length {
                return Err(short(bytes.len()));
            }
            files.push(path);
            Ok(bytes)
        }
    }
}

/// The file a buffer's relative URI names: a regular file inside `dir` once symbolic links are
/// resolved, named without `..`, a scheme or an absolute path.
pub(super) fn sandboxed(dir: Option<&Path>, uri: &str, what: &str) -> Result<PathBuf, ReadError> {
    let refuse = |why: &str| ReadError::new(format!("{what}: the uri {uri:?} {why}"));
    let Some(dir) = dir else {
        return Err(refuse(
            "names a file, but the glTF was given without its folder",
        ));
    };
    let decoded = urlencoding::decode_binary(uri.as_bytes());
    let Ok(decoded) = std::str::from_utf8(&decoded) else {
        return Err(refuse("is not UTF-8 once its %-escapes are decoded"));
    };
    if uri.contains(':') || decoded.contains(':') {
        return Err(refuse(
            "has a scheme or drive; only files beside the .gltf and data: URIs are read",
        ));
    }
    if decoded.starts_with('/') {
        return Err(refuse(
            "is an absolute path; only files beside the .gltf are read",
        ));
    }
    if decoded.contains(['\\', '\0']) {
        return Err(refuse(
            "holds a backslash or NUL; a URI separates folders with /",
        ));
    }
    let mut relative = PathBuf::new();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse("leaves the .gltf's folder (..)")),
            part => relative.push(part),
        }
    }
    if relative.as_os_str().is_empty() {
        return Err(refuse("names no file"));
    }
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let io =
        |path: &Path, e: std::io::Error| ReadError::new(format!("{what}: {}: {e}", path.display()));
    let root = dir.canonicalize().map_err(|e| io(dir, e))?;
    let path = root.join(&relative);
    let path = path.canonicalize().map_err(|e| io(&path, e))?;
    if !path.starts_with(&root) {
        return Err(refuse(
            "leads outside the .gltf's folder through a symbolic link",
        ));
    }
    let metadata = std::fs::metadata(&path).map_err(|e| io(&path, e))?;
    if !metadata.is_file() {
        return Err(refuse(
            "is not a regular file (a folder, device or pipe is never read)",
        ));
    }
    Ok(path)
}
