//! The STPC chunk: object models, animation sets, the WFPC & 0x100 block and the strat code
//! (layout in [`crate::raw::stpc`]), read with the readings FORMAT.md §11 allows, and the
//! strat names the code holds.

use crate::error::ParseError;
pub use crate::raw::stpc::{Animation, ExtraBlock, ExtraEntry, Stpc, WFPC_STPC_EXTRA_BLOCK};
use crate::raw::stream::read_chunk;

/// The strat name instruction (note 003): these two words, then `s32 rel`; the name is the C
/// string at (offset after rel) + rel.
pub const NAME_OPCODE: [u32; 2] = [0xd4, 0xea];
/// A spawn: this word, then the absolute STPC offset of the strat spawned (note 003).
pub const SPAWN_OPCODE: u32 = 0xb2;
/// A strat start names its strat, or spawns one, within this many words (FORMAT.md §11).
const NAME_WINDOW_WORDS: u32 = 16;

impl Stpc {
    /// Parses STPC. When WFPC & 0x100 is set, the block after the animations is read as the
    /// notes lay it out (heads, items and a model per item); when it does not read so,
    /// everything after the animations is kept as code, written back byte for byte, and a
    /// warning is returned (FORMAT.md §11).
    pub fn parse(
        payload: &[u8],
        base: u64,
        wfpc: u32,
    ) -> Result<(Stpc, Option<String>), ParseError> {
        let read = |extra| read_chunk::<Stpc>(payload, base, (extra,));
        if wfpc & WFPC_STPC_EXTRA_BLOCK == 0 {
            return Ok((read(false)?, None));
        }
        let error = match read(true) {
            Ok(stpc) => return Ok((stpc, None)),
            Err(e) => e,
        };
        let stpc = read(false)?;
        let warning = format!(
            "STPC: the WFPC 0x100 block did not read ({error}); it is kept with the strat code"
        );
        Ok((stpc, Some(warning)))
    }

    /// The strat type name at a code offset (counted from the start of the STPC payload); see
    /// [`StratCode::strat_name`].
    pub fn strat_name(&self, code_offset: u32) -> Option<String> {
        self.strat_code().strat_name(code_offset)
    }

    /// The code word at an offset (counted from the start of the STPC payload), if the code
    /// holds four bytes there.
    pub fn word_at(&self, offset: u32) -> Option<u32> {
        self.strat_code().word_at(offset)
    }

    /// The strat code with where it starts, for looking up many offsets: the start is summed
    /// over the models and animations once.
    pub fn strat_code(&self) -> StratCode<'_> {
        StratCode {
            start: self.code_start(),
            code: &self.code,
        }
    }
}

/// The strat code of an STPC chunk and the offset of its first byte from the start of the
/// payload, which MAP strat records and the code itself count from (FORMAT.md §7).
#[derive(Debug, Clone, Copy)]
pub struct StratCode<'a> {
    start: usize,
    code: &'a [u8],
}

impl StratCode<'_> {
    /// Whether the code holds the byte at this offset.
    pub fn contains(&self, offset: u32) -> bool {
        (offset as usize)
            .checked_sub(self.start)
            .is_some_and(|k| k < self.code.len())
    }

    /// The strat type name at a code offset (counted from the start of the STPC payload).
    ///
    /// Note 003: the name opcode is the words `0xd4, 0xea, s32 rel`, the name the C string at
    /// (offset after rel) + rel. Spawn stubs (`0xb2 <absolute offset>`) name the strat they
    /// spawn, reported as `Name(spawn)`.
    pub fn strat_name(&self, code_offset: u32) -> Option<String> {
        if let Some(at) = self.name_instruction(code_offset) {
            return self.name_of_instruction(at);
        }
        let target = self.spawn_target(code_offset)?;
        let at = self.name_instruction(target)?;
        self.name_of_instruction(at)
            .map(|name| format!("{name}(spawn)"))
    }

    /// The offset of the name instruction (`0xd4, 0xea, rel`) of the strat starting at
    /// `code_offset`: the first within its first 16 words (FORMAT.md §11), if any.
    pub fn name_instruction(&self, code_offset: u32) -> Option<u32> {
        if !self.contains(code_offset) {
            return None;
        }
        (0..NAME_WINDOW_WORDS)
            .map_while(|i| code_offset.checked_add(4 * i))
            .find(|&at| self.is_name_instruction(at))
    }

    /// The absolute STPC offset a spawn stub at `code_offset` spawns: the operand of the first
    /// spawn word `0xb2` within its first 16 words (note 003: `push X; spawn(abs target, …)`).
    pub fn spawn_target(&self, code_offset: u32) -> Option<u32> {
        if !self.contains(code_offset) {
            return None;
        }
        let word = |i: u32| self.word_at(code_offset.checked_add(4 * i)?);
        let i = (0..NAME_WINDOW_WORDS).find(|&i| word(i) == Some(SPAWN_OPCODE))?;
        word(i + 1)
    }

    /// Every name instruction of the code whose name reads, in code order: its offset and the
    /// name. The code is read as words from its first byte. Lazy: take as many as wanted.
    pub fn named_strats(&self) -> impl Iterator<Item = (u32, String)> + '_ {
        (0..self.code.len() / 4)
            .map_while(|k| u32::try_from(self.start + 4 * k).ok())
            .filter(|&at| self.is_name_instruction(at))
            .filter_map(|at| Some((at, self.name_of_instruction(at)?)))
    }

    /// The code word at an offset (counted from the start of the STPC payload), if the code
    /// holds four bytes there.
    pub fn word_at(&self, offset: u32) -> Option<u32> {
        let start = (offset as usize).checked_sub(self.start)?;
        let bytes = self.code.get(start..start.checked_add(4)?)?;
        Some(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
    }

    fn is_name_instruction(&self, at: u32) -> bool {
        [
            self.word_at(at),
            at.checked_add(4).and_then(|o| self.word_at(o)),
        ] == NAME_OPCODE.map(Some)
    }

    /// The name a name instruction at `at` names: `rel` follows the two opcode words, and the
    /// name is the C string at (offset after rel) + rel.
    fn name_of_instruction(&self, at: u32) -> Option<String> {
        let rel = self.word_at(at.checked_add(8)?)? as i32 as i64;
        let after_rel = at as i64 + 12;
        self.c_string_at(u32::try_from(after_rel + rel).ok()?)
    }

    fn c_string_at(&self, offset: u32) -> Option<String> {
        let start = (offset as usize).checked_sub(self.start)?;
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
    use crate::level::{Model, ObjectModel};
    use crate::raw::stpc::plausible;
    use crate::raw::stream::write_chunk;
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

    fn entry(k: u32, count: u32) -> ExtraEntry {
        ExtraEntry {
            unknown_00: k,
            item_pointer: 0,
            unknown_0c: 3,
            items: (0..count).map(|i| [i as u8; 8]).collect(),
            models: (0..count).map(|_| object_model()).collect(),
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
        write_chunk(stpc, ()).unwrap()
    }

    fn parse(bytes: &[u8]) -> (Stpc, Option<String>) {
        Stpc::parse(bytes, 0, WFPC_STPC_EXTRA_BLOCK).unwrap()
    }

    #[test]
    fn the_block_is_read_with_its_models() {
        let written = stpc(ExtraBlock {
            entries: vec![entry(0, 2), entry(1, 1)],
        });
        let bytes = write(&written);
        let (read, warning) = parse(&bytes);
        assert_eq!((read.clone(), warning), (written.clone(), None));
        assert_eq!(write(&read), bytes);
        assert_eq!(read.code_start(), bytes.len() - CODE.len() * 4);
    }

    /// Heads and items without models: the layout this project's generator once wrote, which
    /// the notes do not give. Kept with the code, byte for byte, with a warning.
    #[test]
    fn a_block_without_models_is_kept_with_the_code() {
        let mut bytes = write(&Stpc::default());
        bytes.extend(2u32.to_le_bytes());
        for (k, count) in [(0u32, 3u32), (1, 1)] {
            for word in [k, count, 0, 3] {
                bytes.extend(word.to_le_bytes());
            }
            bytes.extend((0..count).flat_map(|i| [i as u8; 8]));
        }
        bytes.extend(CODE.iter().flat_map(|w| w.to_le_bytes()));
        let (read, warning) = parse(&bytes);
        assert!(read.extra_block.is_none());
        assert!(
            warning.unwrap().contains("kept with the strat code"),
            "a warning"
        );
        assert_eq!(read.code_start(), 8);
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
            let mut e = entry(0, 1);
            e.models = vec![model];
            let bytes = write(&stpc(ExtraBlock { entries: vec![e] }));
            // No model there: the block is kept with the code, the same bytes back.
            let (read, warning) = parse(&bytes);
            assert!(warning.unwrap().contains("kept with the strat code"));
            assert!(read.extra_block.is_none());
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
