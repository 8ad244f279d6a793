//! The STPC chunk: object models, animation sets, the WFPC & 0x100 block and the strat code
//! (note 001 §6, note 003). The code is kept as bytes; MAP strat records and the code itself refer
//! into it by absolute offsets from the start of the payload (FORMAT-DECISIONS §7).

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

/// An entry of the WFPC & 0x100 block: a 16-byte head whose u32 at +4 counts the 8-byte items that
/// follow (layout from note 001 §6; meaning unknown).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtraEntry {
    pub head: [u8; 16],
    pub items: Vec<u8>,
}

impl ExtraEntry {
    fn item_count(head: &[u8; 16]) -> u32 {
        u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"))
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stpc {
    pub models: Vec<ObjectModel>,
    pub animations: Vec<Animation>,
    /// Present when WFPC & 0x100 is set and the block could be read.
    pub extra_block: Option<Vec<ExtraEntry>>,
    /// Strat code and data up to the end of the chunk, verbatim.
    pub code: Vec<u8>,
}

impl Stpc {
    /// Parses STPC. When WFPC & 0x100 is set but the block after the animations does not read,
    /// everything after the animations is kept as code and a warning is returned.
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
            match Self::parse_extra_block(r) {
                Ok(block) => extra_block = Some(block),
                Err(e) => {
                    r.seek(start);
                    warning = Some(format!(
                        "STPC: the WFPC 0x100 block did not read ({e}); it is kept with the strat code"
                    ));
                }
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

    fn parse_extra_block(r: &mut Reader) -> Result<Vec<ExtraEntry>, ParseError> {
        let count = r.u32("number of WFPC 0x100 entries")?;
        let count = r.check_count(count as u64, 16, "WFPC 0x100 entries")?;
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            let what = format!("WFPC 0x100 entry {i}");
            let head: [u8; 16] = r.array(&what)?;
            let items = r
                .counted_bytes(ExtraEntry::item_count(&head) as u64, 8, &what)?
                .to_vec();
            entries.push(ExtraEntry { head, items });
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
            w.u32(u32_count(block.len(), "WFPC 0x100 entries")?);
            for (i, e) in block.iter().enumerate() {
                if ExtraEntry::item_count(&e.head) as usize * 8 != e.items.len() {
                    return Err(BuildError::Inconsistent {
                        what: format!("WFPC 0x100 entry {i}"),
                        problem: "its head's count does not match its items".to_string(),
                    });
                }
                w.raw(&e.head);
                w.raw(&e.items);
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
            4 + b.iter().map(|e| 16 + e.items.len()).sum::<usize>()
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
