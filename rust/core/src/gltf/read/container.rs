//! The GLB container and the JSON document, checked before the gltf crate follows an index.

use super::ReadError;
use crate::limits::{MAX_GLTF_NODES, MAX_SCENE_EXTRAS_BYTES};

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
    check_node_count(json)?;
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

/// Refuses a document of more than [`MAX_GLTF_NODES`] nodes, counted before the document is
/// read: a node takes a few bytes of JSON and hundreds read (a million empty ones, 12 MB of JSON,
/// once took 640 MB). JSON that is no object is left to the reading to refuse.
fn check_node_count(json: &[u8]) -> Result<(), ReadError> {
    use serde::de::{IgnoredAny, SeqAccess, Visitor};

    /// The length of a list, its elements skipped.
    #[derive(Default)]
    struct Count(usize);
    impl<'de> serde::Deserialize<'de> for Count {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
            struct Counting;
            impl<'de> Visitor<'de> for Counting {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a list")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                    let mut n = 0;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
            }
            d.deserialize_seq(Counting)
        }
    }
    #[derive(serde::Deserialize)]
    struct Nodes {
        #[serde(default)]
        nodes: Count,
    }
    let Ok(Nodes {
        nodes: Count(count),
    }) = serde_json::from_slice::<Nodes>(json)
    else {
        return Ok(());
    };
    if count > MAX_GLTF_NODES {
        return Err(ReadError::new(format!(
            "{count} nodes; at most {MAX_GLTF_NODES} are read (a level's glTF has one a tile, \
             strat, waypoint and light)"
        )));
    }
    Ok(())
}

/// Refuses what the `gltf` crate would unwrap: an image in a buffer view without a `mimeType`,
/// or with neither a buffer view nor a URI (glTF 2.0 requires them; the crate's validation
/// lets them pass). And scene extras past [`MAX_SCENE_EXTRAS_BYTES`], before they are read:
/// read, JSON takes about 24 times its text.
pub(super) fn check_images_and_extras(root: &gltf::json::Root) -> Result<(), ReadError> {
    for (k, image) in root.images.iter().enumerate() {
        let why = match (&image.buffer_view, &image.uri, &image.mime_type) {
            (Some(_), _, None) => "is in a buffer view but has no mimeType",
            (None, None, _) => "has neither a buffer view nor a URI",
            _ => continue,
        };
        return Err(ReadError::new(format!(
            "not a valid glTF 2.0 file: image {k} {why}"
        )));
    }
    for (k, scene) in root.scenes.iter().enumerate() {
        let bytes = scene.extras.as_ref().map_or(0, |e| e.get().len());
        if bytes > MAX_SCENE_EXTRAS_BYTES {
            return Err(ReadError::new(format!(
                "scene {k}'s extras take {bytes} bytes; at most {MAX_SCENE_EXTRAS_BYTES} are read \
                 (a level's texture entries, zones and lights take a few megabytes at most)"
            )));
        }
    }
    Ok(())
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
