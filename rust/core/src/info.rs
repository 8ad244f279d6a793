//! A summary of a level: what `llamawad info` prints.

use serde::Serialize;
use std::collections::BTreeMap;

use crate::container::{Convention, Tag};
use crate::game::lights::{light_z, LightZChoice};
use crate::game::object_models::{object_models, ObjectModelInfo};
use crate::game::plane_scale::LevelScale;
use crate::level::{ChunkBody, Level, LightReading, Lights};
use crate::raw::stream::read_chunk;

#[derive(Debug, Clone, Serialize)]
pub struct ChunkInfo {
    pub tag: Tag,
    /// Payload size in bytes as written.
    pub size: usize,
    /// `typed` when the project models the chunk, `verbatim` when it keeps it as bytes.
    pub kept_as: &'static str,
}

/// [`Info::stpc_extra_block`] of a level whose WFPC 0x100 block was read.
pub const EXTRA_BLOCK_WITH_MODELS: &str = "with_models";

#[derive(Debug, Clone, Serialize)]
pub struct Info {
    pub file_size: usize,
    pub convention: Convention,
    pub chunks: Vec<ChunkInfo>,
    pub wfpc: u32,
    pub name: Option<String>,
    pub models: usize,
    pub model_faces: usize,
    pub model_vertices: usize,
    pub collision_polygons: usize,
    pub tiles: usize,
    /// Faces drawn over all tiles (each tile draws its model's faces).
    pub tile_faces: usize,
    pub grid: [u32; 2],
    pub palettes: usize,
    pub pages: usize,
    /// Bytes the pages take in the file (headers and pixels).
    pub page_bytes: usize,
    pub texture_entries: usize,
    pub object_models: usize,
    /// Each object model: rigid or skinned, counts, pages (`llamawad models`).
    pub object_model_list: Vec<ObjectModelInfo>,
    pub animation_sets: usize,
    /// `with_models` when STPC's WFPC 0x100 block was read (heads, items and a model per item,
    /// the one layout the notes give); None when there is no such block, or when it did not
    /// read so and is kept with the strat code (`warnings` then says so).
    pub stpc_extra_block: Option<&'static str>,
    /// The number of lights, when the LGHT chunk is read.
    pub lights: Option<usize>,
    /// What the LGHT chunk holds, or why it is kept as bytes; None without one.
    pub light_chunk: Option<LightChunkInfo>,
    pub strats: usize,
    /// Strat instances per type name; `?` for strats whose type name was not found.
    pub strat_types: BTreeMap<String, usize>,
    pub tile_swaps: usize,
    /// The scale the collision planes of the models its tiles use were written at, model by
    /// model.
    pub collision_scale: LevelScale,
    pub warnings: Vec<String>,
}

impl Info {
    pub fn of(level: &Level, file_size: usize) -> Info {
        let trak = level.trak();
        let map = level.map();
        let text = level.text();
        let stpc = level.stpc();
        let models = trak.map_or(&[][..], |t| &t.models[..]);
        let strat_types = crate::game::strats::counts_by_name(level);
        // Sizes of the payloads as the writer produces them: for an unedited level, the sizes in
        // the file.
        let payloads = level.payloads().unwrap_or_default();
        let chunks = level
            .chunks
            .iter()
            .zip(payloads.iter().map(Vec::len).chain(std::iter::repeat(0)))
            .map(|(c, size)| ChunkInfo {
                tag: c.tag,
                size,
                kept_as: if matches!(c.body, ChunkBody::Raw(_)) {
                    "verbatim"
                } else {
                    "typed"
                },
            })
            .collect();
        Info {
            file_size,
            convention: level.convention,
            chunks,
            wfpc: level.wfpc(),
            name: level.name().map(|n| n.text()),
            models: models.len(),
            model_faces: models.iter().map(|m| m.faces.len()).sum(),
            model_vertices: models.iter().map(|m| m.vertices.len()).sum(),
            collision_polygons: models.iter().map(|m| m.collision_count()).sum(),
            tiles: map.map_or(0, |m| m.tiles.len()),
            tile_faces: map.map_or(0, |m| {
                m.tiles
                    .iter()
                    .filter_map(|t| models.get(t.model_index as usize))
                    .map(|m| m.faces.len())
                    .sum()
            }),
            grid: map.map_or([0, 0], |m| [m.width, m.height]),
            palettes: text.map_or(0, |t| t.palettes.len()),
            pages: text.map_or(0, |t| t.pages.len()),
            page_bytes: text.map_or(0, |t| t.pages.iter().map(|p| p.stored_size()).sum()),
            texture_entries: text.map_or(0, |t| t.entries.len()),
            object_models: stpc.map_or(0, |s| s.models.len()),
            object_model_list: object_models(level),
            animation_sets: stpc.map_or(0, |s| s.animations.len()),
            stpc_extra_block: stpc
                .and_then(|s| s.extra_block.as_ref())
                .map(|_| EXTRA_BLOCK_WITH_MODELS),
            lights: level.lights().map(|l| l.lights.len()),
            light_chunk: LightChunkInfo::of(level),
            strats: map.map_or(0, |m| m.strats.len()),
            strat_types,
            tile_swaps: map.map_or(0, |m| m.tiles.iter().filter(|t| t.swap.is_some()).count()),
            collision_scale: LevelScale::of(level),
            warnings: level.warnings.clone(),
        }
    }
}

/// The lights of one type in an LGHT chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LightTypeInfo {
    pub kind: u8,
    pub count: usize,
    pub words: usize,
}

/// What the LGHT chunk holds (FORMAT.md §9, §11): its lights by type, how its bytes were told
/// apart into lights and which way z is read; or why it is kept as bytes.
#[derive(Debug, Clone, Serialize)]
pub struct LightChunkInfo {
    /// The payload's size.
    pub bytes: usize,
    /// The lights by type, in the order the types are first met (empty when kept as bytes).
    pub types: Vec<LightTypeInfo>,
    /// How the bytes were told apart into lights; None when kept as bytes.
    pub reading: Option<LightReading>,
    /// The reading in words.
    pub read_as: Option<String>,
    /// Which way the lights' z is read (notes 002 and 003 disagree) and why.
    pub z: Option<LightZChoice>,
    /// The z reading in words.
    pub z_read_as: Option<String>,
    /// Why no reading explains the chunk, which is kept as bytes.
    pub kept_as_bytes: Option<String>,
}

impl LightChunkInfo {
    fn of(level: &Level) -> Option<LightChunkInfo> {
        let chunk = level.chunks.iter().find(|c| c.tag == Tag::LGHT)?;
        let payload = level.payloads().ok().and_then(|p| {
            let i = level.chunks.iter().position(|c| c.tag == Tag::LGHT)?;
            p.get(i).map(Vec::len)
        });
        let mut info = LightChunkInfo {
            bytes: payload.unwrap_or(0),
            types: Vec::new(),
            reading: None,
            read_as: None,
            z: None,
            z_read_as: None,
            kept_as_bytes: None,
        };
        match &chunk.body {
            ChunkBody::Lights(lights) => {
                for light in &lights.lights {
                    match info.types.iter_mut().find(|t| t.kind == light.kind) {
                        Some(t) => t.count += 1,
                        None => info.types.push(LightTypeInfo {
                            kind: light.kind,
                            count: 1,
                            words: light.words.len(),
                        }),
                    }
                }
                info.reading = Some(lights.reading);
                info.read_as = Some(lights.reading.describe());
                let z = light_z(level);
                info.z = Some(z);
                info.z_read_as = Some(z.describe());
            }
            ChunkBody::Raw(bytes) => {
                // The reader's own words (with the chunk's place in the file), else read again.
                let why = level
                    .warnings
                    .iter()
                    .find(|w| w.starts_with("LGHT chunk"))
                    .map(|w| {
                        w.trim_end_matches("; the LGHT chunk is kept verbatim")
                            .to_string()
                    })
                    .or_else(|| {
                        read_chunk::<Lights>(bytes, 0, ())
                            .err()
                            .map(|e| e.to_string())
                    });
                info.kept_as_bytes = Some(why.unwrap_or_else(|| "kept as bytes".to_string()));
            }
            _ => {}
        }
        Some(info)
    }
}
