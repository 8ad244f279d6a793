//! The STPC chunk: object models, animation sets, the WFPC & 0x100 block and the strat code
//! (note 001 §6, note 003). The code is kept as bytes; MAP strat records and the code itself refer
//! into it by absolute offsets from the start of the payload (FORMAT-DECISIONS §7).

use serde::Serialize;

use crate::error::{BuildError, ParseError};
use crate::level::model::{u32_count, ObjectModel};
use crate::raw::AnimationHeader;
use crate::reader::{Reader, Writer};

pub const WFPC_STPC_EXTRA_BLOCK: u32 = 0x100;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Animation {
    pub header: AnimationHeader,
    /// The table, frame table, compressed vertex deltas and bone matrices, as stored (the delta
    /// compression is only partly understood).
    pub data: Vec<u8>,
}

impl AnimationHeader {
    /// The length of the data after the header (note 001 §6). None when it overflows.
    pub fn data_len(&self) -> Option<u64> {
        let frames = self.frame_count as u64;
        let deltas = self.delta_count as u64;
        let table = self.table_count as u64 * 4;
        let frame_table = if self.frame_table == 0 { frames * 8 } else { 0 };
        let delta_bytes = if frames == 0 {
            0
        } else {
            let later_frame = deltas * 2 + (deltas & 1) * 2;
            deltas * 8 + (frames - 1) * later_frame
        };
        let matrices = frames
            .checked_mul(self.bone_count as u64)?
            .checked_mul(64)?;
        table
            .checked_add(frame_table)?
            .checked_add(delta_bytes)?
            .checked_add(matrices)
    }
}

/// An entry of the WFPC & 0x100 block (note 001 §6: `16-byte head (+4 count, +8 → n×8 bytes),
/// models`; meaning unknown): the head, whose u32 at +4 counts the 8-byte items that follow, and
/// the object models after them, one per item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtraEntry {
    pub head: [u8; 16],
    pub items: Vec<u8>,
    /// Empty when the block was read without models.
    pub models: Vec<ObjectModel>,
}

impl ExtraEntry {
    fn item_count(head: &[u8; 16]) -> u32 {
        u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"))
    }
}

/// How the WFPC & 0x100 block was read (FORMAT-DECISIONS §7: the preferred reading first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraReading {
    /// Note 001 §6: each entry's head, its items, and one object model per item.
    #[default]
    WithModels,
    /// Heads and items only: taken when what follows an entry's items is no object model
    /// (the layout this project's generator wrote before it wrote the models).
    ItemsOnly,
}

/// The WFPC & 0x100 block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtraBlock {
    pub entries: Vec<ExtraEntry>,
    pub reading: ExtraReading,
}

/// Whether an object model read from the WFPC & 0x100 block looks like one: its pointer slots
/// are 0 as in every model of every known file (note 001 §3), its vertex counts agree (nVerts
/// for a rigid model, per-bone counts adding up to nVerts for a skinned one), its faces use its
/// vertices and its header's floats are finite. Strat code or an entry head read as a model
/// fails this at once; the block is then read the other way.
fn plausible(m: &ObjectModel) -> bool {
    let model = &m.model;
    let slots = model.slots;
    let vertices = model.vertices.len();
    let counts_agree = if m.bone_vertex_counts.is_empty() {
        m.rigid_vertex_count as usize == vertices
    } else {
        m.rigid_vertex_count == 0
            && m.bone_vertex_counts
                .iter()
                .map(|&c| c as usize)
                .sum::<usize>()
                == vertices
    };
    let floats = model
        .centre
        .iter()
        .chain(model.box_corners.iter().flatten());
    slots.vertex_pointer == 0
        && slots.face_pointer == 0
        && slots.collision_pointer == 0
        && m.bone_pointer == 0
        && counts_agree
        && model
            .faces
            .iter()
            .all(|f| f.corners.iter().all(|&c| (c as usize) < vertices))
        && floats.into_iter().all(|v| v.is_finite())
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stpc {
    pub models: Vec<ObjectModel>,
    pub animations: Vec<Animation>,
    /// Present when WFPC & 0x100 is set and the block could be read.
    pub extra_block: Option<ExtraBlock>,
    /// Strat code and data up to the end of the chunk, verbatim.
    pub code: Vec<u8>,
}

impl Stpc {
    /// Parses STPC. When WFPC & 0x100 is set, the block after the animations is read with its
    /// models if it can be, else without; when neither reads, everything after the animations
    /// is kept as code and a warning is returned.
    pub fn parse(r: &mut Reader, wfpc: u32) -> Result<(Stpc, Option<String>), ParseError> {
        let count = r.u32("number of object models")?;
        let count = r.check_count(count as u64, 0x8c, "object models")?;
        let mut models = Vec::with_capacity(count);
        for i in 0..count {
            models.push(ObjectModel::parse(r, &format!("object model {i}"))?);
        }

        let count = r.u32("number of animation sets")?;
        let count = r.check_count(count as u64, 32, "animation sets")?;
        let mut animations = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("animation set {i}");
            let header: AnimationHeader = r.record(&what)?;
            let at = r.position();
            let len = header.data_len().ok_or_else(|| {
                r.bad_value(at, &what, "a data size that fits the file", "an overflow")
            })?;
            let data = r.counted_bytes(len, 1, &format!("{what}: data"))?.to_vec();
            animations.push(Animation { header, data });
        }

        let mut warning = None;
        let mut extra_block = None;
        if wfpc & WFPC_STPC_EXTRA_BLOCK != 0 {
            let start = r.position();
            let mut first_error = None;
            for reading in [ExtraReading::WithModels, ExtraReading::ItemsOnly] {
                r.seek(start);
                match Self::parse_extra_block(r, reading) {
                    Ok(entries) => {
                        extra_block = Some(ExtraBlock { entries, reading });
                        break;
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            if let (None, Some(e)) = (&extra_block, first_error) {
                r.seek(start);
                warning = Some(format!(
                    "STPC: the WFPC 0x100 block did not read ({e}); it is kept with the strat code"
                ));
            }
        }
        let code = r.rest().to_vec();
        Ok((
            Stpc {
                models,
                animations,
                extra_block,
                code,
            },
            warning,
        ))
    }

    fn parse_extra_block(
        r: &mut Reader,
        reading: ExtraReading,
    ) -> Result<Vec<ExtraEntry>, ParseError> {
        let count = r.u32("number of WFPC 0x100 entries")?;
        let count = r.check_count(count as u64, 16, "WFPC 0x100 entries")?;
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("WFPC 0x100 entry {i}");
            let head: [u8; 16] = r.array(&what)?;
            let n = ExtraEntry::item_count(&head) as u64;
            let items = r.counted_bytes(n, 8, &what)?.to_vec();
            let mut models = Vec::new();
            if reading == ExtraReading::WithModels {
                // At least a header per model must be left before any is allocated.
                let n = r.check_count(n, 0x8c, &format!("{what}: models"))?;
                for k in 0..n {
                    let at = r.position();
                    let what = format!("{what}: model {k}");
                    let model = ObjectModel::parse(r, &what)?;
                    if !plausible(&model) {
                        return Err(r.bad_value(
                            at,
                            what,
                            "an object model (pointer slots 0, vertex counts that agree)",
                            "other bytes",
                        ));
                    }
                    models.push(model);
                }
            }
            entries.push(ExtraEntry {
                head,
                items,
                models,
            });
        }
        Ok(entries)
    }

    pub fn write(&self, w: &mut Writer) -> Result<(), BuildError> {
        w.bytes.reserve(self.code_start() + self.code.len());
        w.u32(u32_count(self.models.len(), "object models")?);
        for (i, m) in self.models.iter().enumerate() {
            m.write(w, &format!("object model {i}"))?;
        }
        w.u32(u32_count(self.animations.len(), "animation sets")?);
        for (i, a) in self.animations.iter().enumerate() {
            if a.header.data_len() != Some(a.data.len() as u64) {
                return Err(BuildError::Inconsistent {
                    what: format!("animation set {i}"),
                    problem: format!(
                        "its header describes {:?} bytes of data but it has {}",
                        a.header.data_len(),
                        a.data.len()
                    ),
                });
            }
            w.record(&a.header);
            w.raw(&a.data);
        }
        if let Some(block) = &self.extra_block {
            w.u32(u32_count(block.entries.len(), "WFPC 0x100 entries")?);
            for (i, e) in block.entries.iter().enumerate() {
                let what = format!("WFPC 0x100 entry {i}");
                let count = ExtraEntry::item_count(&e.head) as usize;
                let models = match block.reading {
                    ExtraReading::WithModels => count,
                    ExtraReading::ItemsOnly => 0,
                };
                if count * 8 != e.items.len() || e.models.len() != models {
                    return Err(BuildError::Inconsistent {
                        what,
                        problem: format!(
                            "its head counts {count} items, it has {} bytes of items and {} models",
                            e.items.len(),
                            e.models.len()
                        ),
                    });
                }
                w.raw(&e.head);
                w.raw(&e.items);
                for (k, m) in e.models.iter().enumerate() {
                    m.write(w, &format!("{what}: model {k}"))?;
                }
            }
        }
        w.raw(&self.code);
        Ok(())
    }

    /// Offset of the first code byte from the start of the STPC payload.
    pub fn code_start(&self) -> usize {
        let models: usize = self.models.iter().map(ObjectModel::size).sum();
        let animations: usize = self.animations.iter().map(|a| 32 + a.data.len()).sum();
        let extra = self.extra_block.as_ref().map_or(0, |b| {
            let entry = |e: &ExtraEntry| {
                16 + e.items.len() + e.models.iter().map(ObjectModel::size).sum::<usize>()
            };
            4 + b.entries.iter().map(entry).sum::<usize>()
        });
        4 + models + 4 + animations + extra
    }

    /// The strat type name at a code offset (counted from the start of the STPC payload).
    ///
    /// Note 003: the name opcode is the words `0xd4, 0xea, s32 rel`, the name the C string at
    /// (offset after rel) + rel. Spawn stubs (`0xb2 <absolute offset>`) name the strat they
    /// spawn, reported as `Name(spawn)`.
    pub fn strat_name(&self, code_offset: u32) -> Option<String> {
        self.strat_name_in(code_offset, true)
    }

    fn strat_name_in(&self, code_offset: u32, follow_spawn: bool) -> Option<String> {
        const WINDOW_WORDS: usize = 16;
        let start = (code_offset as usize).checked_sub(self.code_start())?;
        let words: Vec<u32> = self
            .code
            .get(start..)?
            .chunks_exact(4)
            .take(WINDOW_WORDS + 2)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        for i in 0..words.len().min(WINDOW_WORDS) {
            if words[i] == 0xd4 && words.get(i + 1) == Some(&0xea) {
                let rel = *words.get(i + 2)? as i32 as i64;
                let after_rel = code_offset as i64 + (i as i64 + 3) * 4;
                return self.c_string_at(u32::try_from(after_rel + rel).ok()?);
            }
        }
        if follow_spawn {
            for i in 0..words.len().min(WINDOW_WORDS) {
                if words[i] == 0xb2 {
                    let target = *words.get(i + 1)?;
                    return self
                        .strat_name_in(target, false)
                        .map(|name| format!("{name}(spawn)"));
                }
            }
        }
        None
    }

    fn c_string_at(&self, offset: u32) -> Option<String> {
        let start = (offset as usize).checked_sub(self.code_start())?;
        let bytes = self.code.get(start..)?;
        let end = bytes.iter().take(256).position(|&b| b == 0)?;
        let name = &bytes[..end];
        if name.is_empty() || !name.iter().all(|b| b.is_ascii_graphic()) {
            return None;
        }
        Some(String::from_utf8_lossy(name).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Model;
    use crate::raw::{Face, Vertex};

    /// A rigid triangle.
    fn object_model() -> ObjectModel {
        let vertex = |x: f32| Vertex {
            position: [x, 0.0, 0.5],
            normal: [0.0, 1.0, 0.0],
        };
        ObjectModel {
            model: Model {
                vertices: vec![vertex(0.0), vertex(1.0), vertex(0.5)],
                faces: vec![Face {
                    corners: [0, 1, 2],
                    ..Face::default()
                }],
                ..Model::default()
            },
            rigid_vertex_count: 3,
            ..ObjectModel::default()
        }
    }

    fn entry(k: u32, count: u32, models: bool) -> ExtraEntry {
        let mut head = [0u8; 16];
        head[0..4].copy_from_slice(&k.to_le_bytes());
        head[4..8].copy_from_slice(&count.to_le_bytes());
        ExtraEntry {
            head,
            items: (0..count * 8).map(|b| b as u8).collect(),
            models: if models {
                (0..count).map(|_| object_model()).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// Strat code as the generator writes it: the name opcode, a relative offset, filler.
    const CODE: [u32; 8] = [0xd4, 0xea, 0x18, 0x01, 0x05, 0x12, 0x00, 0xe0];

    fn stpc(block: ExtraBlock) -> Stpc {
        Stpc {
            extra_block: Some(block),
            code: CODE.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ..Stpc::default()
        }
    }

    fn write(stpc: &Stpc) -> Vec<u8> {
        let mut w = Writer::with_capacity(0);
        stpc.write(&mut w).unwrap();
        w.bytes
    }

    fn parse(bytes: &[u8]) -> (Stpc, Option<String>) {
        Stpc::parse(&mut Reader::new(bytes, 0, "STPC"), WFPC_STPC_EXTRA_BLOCK).unwrap()
    }

    #[test]
    fn the_block_with_its_models_is_the_preferred_reading() {
        let written = stpc(ExtraBlock {
            entries: vec![entry(0, 2, true), entry(1, 1, true)],
            reading: ExtraReading::WithModels,
        });
        let bytes = write(&written);
        let (read, warning) = parse(&bytes);
        assert_eq!((read.clone(), warning), (written.clone(), None));
        assert_eq!(write(&read), bytes);
        assert_eq!(read.code_start(), bytes.len() - CODE.len() * 4);
    }

    #[test]
    fn a_block_without_models_is_read_the_other_way_and_written_back_as_it_was() {
        // What follows the items is the next head or the strat code, no object model.
        let written = stpc(ExtraBlock {
            entries: vec![entry(0, 3, false), entry(1, 1, false)],
            reading: ExtraReading::ItemsOnly,
        });
        let bytes = write(&written);
        let (read, warning) = parse(&bytes);
        assert_eq!((read.clone(), warning), (written, None));
        assert_eq!(write(&read), bytes);
    }

    #[test]
    fn a_model_with_pointers_or_disagreeing_counts_is_no_model() {
        let mut pointer = object_model();
        pointer.model.slots.vertex_pointer = 0x40_0000;
        let mut counts = object_model();
        counts.rigid_vertex_count = 2;
        let mut skinned = object_model();
        skinned.rigid_vertex_count = 0;
        skinned.bone_vertex_counts = vec![1, 2];
        assert!(plausible(&object_model()) && plausible(&skinned));
        assert!(!plausible(&pointer) && !plausible(&counts));
        for model in [pointer, counts] {
            let mut e = entry(0, 1, true);
            e.models = vec![model];
            let bytes = write(&stpc(ExtraBlock {
                entries: vec![e],
                reading: ExtraReading::WithModels,
            }));
            // Read as items only, the model's bytes become strat code: the same bytes back.
            let (read, warning) = parse(&bytes);
            assert_eq!(warning, None);
            let block = read.extra_block.as_ref().unwrap();
            assert_eq!(block.reading, ExtraReading::ItemsOnly);
            assert_eq!(write(&read), bytes);
        }
    }

    #[test]
    fn a_block_that_reads_neither_way_is_kept_with_the_code() {
        let mut bytes = write(&Stpc::default());
        // One entry whose head counts more items than there are bytes.
        bytes.extend(1u32.to_le_bytes());
        bytes.extend(
            [0u8; 4]
                .iter()
                .chain(&1000u32.to_le_bytes())
                .chain(&[0u8; 8]),
        );
        bytes.extend(CODE.iter().flat_map(|w| w.to_le_bytes()));
        let (read, warning) = parse(&bytes);
        assert!(read.extra_block.is_none());
        assert!(warning.unwrap().contains("kept with the strat code"));
        assert_eq!(write(&read), bytes);
    }
}
