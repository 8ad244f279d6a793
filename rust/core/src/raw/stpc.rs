//! The STPC chunk (FORMAT.md §7): `u32 n`, n object models, `u32 n`, n animation sets,
//! the WFPC & 0x100 block when that flag is set, and the strat code up to the end of the chunk.
//! The code is kept as bytes; MAP strat records and the code itself refer into it by absolute
//! offsets from the start of the payload (FORMAT.md §7).

use binrw::io::{Read, Seek};
use binrw::{binrw, BinRead, BinResult, Endian};

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::model::{ObjectModel, OBJECT_HEADER_SIZE};
use crate::raw::stream::{
    bad_value, check_count, elements, labelled, records, rest, u32_count, write_elements,
    ChunkLayout, Record,
};
use crate::raw::AnimationHeader;

pub const WFPC_STPC_EXTRA_BLOCK: u32 = 0x100;

/// The STPC chunk. Read with the WFPC & 0x100 block or without it (when the flag is not set,
/// or when the block is kept with the code).
#[binrw]
#[brw(little)]
#[br(import(extra: bool))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stpc {
    #[br(temp)]
    #[bw(try_calc = u32_count(models.len(), "object models"))]
    model_count: u32,
    #[br(parse_with = elements(model_count, OBJECT_HEADER_SIZE as u64, "object model"))]
    #[bw(write_with = write_elements("object model"))]
    pub models: Vec<ObjectModel>,
    #[br(temp)]
    #[bw(try_calc = u32_count(animations.len(), "animation sets"))]
    animation_count: u32,
    #[br(parse_with = elements(animation_count, AnimationHeader::SIZE as u64, "animation set"))]
    #[bw(write_with = write_elements("animation set"))]
    pub animations: Vec<Animation>,
    /// Present when WFPC & 0x100 is set and the block could be read.
    #[br(if(extra))]
    pub extra_block: Option<ExtraBlock>,
    /// Strat code and data up to the end of the chunk, verbatim.
    #[br(parse_with = rest)]
    pub code: Vec<u8>,
}

impl ChunkLayout for Stpc {
    const TAG: Tag = Tag::STPC;
    const LAST: &'static str = "the strat code";
}

impl Stpc {
    /// Offset of the first code byte from the start of the STPC payload.
    pub fn code_start(&self) -> usize {
        let models: usize = self.models.iter().map(ObjectModel::size).sum();
        let animations: usize = self
            .animations
            .iter()
            .map(|a| AnimationHeader::SIZE + a.data.len())
            .sum();
        let extra = self.extra_block.as_ref().map_or(0, |b| {
            let entry = |e: &ExtraEntry| {
                16 + e.items.len() * 8 + e.models.iter().map(ObjectModel::size).sum::<usize>()
            };
            4 + b.entries.iter().map(entry).sum::<usize>()
        });
        4 + models + 4 + animations + extra
    }
}

/// An animation set: its header and the data the header describes.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Animation {
    pub header: AnimationHeader,
    /// The table, frame table, compressed vertex deltas and bone matrices, as stored (the delta
    /// compression is only partly understood).
    #[br(parse_with = animation_data(&header))]
    #[bw(assert(
        header.data_len() == Some(data.len() as u64),
        BuildError::Inconsistent {
            what: "data".into(),
            problem: format!(
                "its header describes {:?} bytes of data but it has {}",
                header.data_len(),
                data.len()
            ),
        }
    ))]
    pub data: Vec<u8>,
}

impl AnimationHeader {
    /// The length of the data after the header (FORMAT.md §7). None when it overflows.
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

fn animation_data<R: Read + Seek>(
    header: &AnimationHeader,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<u8>> {
    let len = header.data_len();
    move |r, endian, ()| match len {
        Some(len) => records(len, "data")(r, endian, ()),
        None => Err(bad_value(
            r.stream_position()?,
            "data",
            "a data size that fits the file",
            "an overflow",
        )),
    }
}

/// The WFPC & 0x100 block: `u32 n`, n entries. Read in the one layout the notes give (note 001
/// §6), with an object model per item; a block that does not read so is kept with the strat
/// code (FORMAT.md §11).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtraBlock {
    #[br(temp)]
    #[bw(try_calc = u32_count(entries.len(), "WFPC 0x100 entries"))]
    entry_count: u32,
    #[br(parse_with = elements(entry_count, 16, "WFPC 0x100 entry"))]
    #[bw(write_with = write_elements("WFPC 0x100 entry"))]
    pub entries: Vec<ExtraEntry>,
}

/// An entry of the WFPC & 0x100 block (FORMAT.md §7: `16-byte head (+4 count, +8 → n×8 bytes),
/// models`; meaning unknown): the head, whose u32 at +4 counts the 8-byte items that follow, and
/// the object models after them, one per item.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtraEntry {
    pub unknown_00: u32,
    #[br(temp)]
    #[bw(try_calc = u32_count(items.len(), "items"))]
    item_count: u32,
    /// The head's word at +8, which the notes say points to the items.
    pub item_pointer: u32,
    pub unknown_0c: u32,
    #[br(parse_with = records(item_count, "items"))]
    pub items: Vec<[u8; 8]>,
    /// One per item.
    #[br(parse_with = models_per_item(item_count))]
    #[bw(assert(
        models.len() == items.len(),
        BuildError::Inconsistent {
            what: "models".into(),
            problem: format!("{} items and {} models", items.len(), models.len()),
        }
    ))]
    pub models: Vec<ObjectModel>,
}

fn models_per_item<R: Read + Seek>(
    count: u32,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<ObjectModel>> {
    move |r, endian, ()| {
        // At least a header per model must be left before any is allocated.
        let n = check_count(r, count.into(), OBJECT_HEADER_SIZE as u64, "models")?;
        let mut models = Vec::with_capacity(n);
        for k in 0..n {
            let at = r.stream_position()?;
            let model = ObjectModel::read_options(r, endian, ())
                .map_err(|e| labelled(e, format!("model {k}")))?;
            if !plausible(&model) {
                return Err(bad_value(
                    at,
                    format!("model {k}"),
                    "an object model (pointer slots 0, vertex counts that agree)",
                    "other bytes",
                ));
            }
            models.push(model);
        }
        Ok(models)
    }
}

/// Whether an object model read from the WFPC & 0x100 block looks like one: its pointer slots
/// are 0 as in every model of every known file (FORMAT.md §3), its vertex counts agree (nVerts
/// for a rigid model, per-bone counts adding up to nVerts for a skinned one), its faces use its
/// vertices and its header's floats are finite. Strat code or an entry head read as a model
/// fails this at once; the block is then kept with the code.
pub(crate) fn plausible(m: &ObjectModel) -> bool {
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
