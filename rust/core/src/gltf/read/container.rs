//! The GLB container and the JSON document, checked before the gltf crate follows an index.

use super::ReadError;

/// The JSON and BIN chunks of a GLB, its header's length and every chunk's checked against the
/// file.
pub(super) fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), ReadError> {
    let refuse = |why: String| ReadError::new(format!("not a valid GLB file: {why}"));
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let (Some(version), Some(length)) = (u32_at(4), u32_at(8)) else {
        return Err(refuse("its 12-byte header is cut short".into()));
    };
    if version != 2 {
        return Err(refuse(format!(
            "version {version}; glTF 2.0 files are version 2"
        )));
    }
    if length != bytes.len() {
        return Err(refuse(format!(
            "its header says {length} bytes, the file has {}",
            bytes.len()
        )));
    }
    let mut chunks = Vec::new();
    let mut at = 12;
    while at < bytes.len() {
        let (Some(len), Some(kind)) = (u32_at(at), bytes.get(at + 4..at + 8)) else {
            return Err(refuse(format!(
                "the chunk header at byte {at} is cut short"
            )));
        };
        let start = at + 8;
        let Some(end) = start.checked_add(len).filter(|&e| e <= bytes.len()) else {
            return Err(refuse(format!(
                "the chunk at byte {at} says {len} bytes, only {} are left",
                bytes.len() - start
            )));
        };
        chunks.push((kind, &bytes[start..end]));
        at = end;
    }
    match chunks.as_slice() {
        [(b"JSON", json), rest @ ..] => Ok((
            json,
            rest.first()
                .filter(|(kind, _)| *kind == b"BIN\0")
                .map(|(_, bin)| *bin),
        )),
        _ => Err(refuse("its first chunk is not JSON".into())),
    }
}

pub(super) fn parse_json(json: &[u8]) -> Result<gltf::json::Root, ReadError> {
    serde_json::from_slice(json).or_else(|e| {
        tolerant(json).ok_or_else(|| ReadError::new(format!("not a valid glTF 2.0 file: {e}")))
    })
}

/// Reads what the `gltf` crate's strict reading refuses although glTF 2.0 allows it: a scene
/// without `nodes` (Blender's exporter writes an empty scene so). The JSON is completed and read
/// again.
pub(super) fn tolerant(json: &[u8]) -> Option<gltf::json::Root> {
    let mut value: serde_json::Value = serde_json::from_slice(json).ok()?;
    for scene in value.get_mut("scenes")?.as_array_mut()? {
        let scene = scene.as_object_mut()?;
        scene
            .entry("nodes")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    }
    serde_json::from_value(value).ok()
}

/// The accessor indices of primitive attributes, checked before the `gltf` crate's validation,
/// which follows the POSITION index without checking it.
pub(super) fn check_attribute_indices(root: &gltf::json::Root) -> Result<(), ReadError> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    let name = match semantic {
                        gltf::json::validation::Checked::Valid(s) => s.to_string(),
                        gltf::json::validation::Checked::Invalid => "an attribute".into(),
                    };
                    return Err(ReadError::new(format!(
                        "mesh {m}, primitive {p}: {name} names accessor {}, but the file has {} accessors",
                        index.value(),
                        root.accessors.len()
                    )));
                }
            }
        }
    }
    Ok(())
}
