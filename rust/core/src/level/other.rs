//! The small, loosely described chunks: NAME, LNFO and LGHT (FORMAT.md §9), laid out
//! in [`crate::raw::other`] and [`crate::raw::lights`].
//!
//! Their layouts are only sketched in the notes, so a payload that does not fit is kept verbatim
//! with a warning instead of failing the whole level.

use binrw::BinRead;

use crate::container::RawChunk;
use crate::level::ChunkBody;
use crate::raw::stream::{read_chunk, ChunkLayout};

pub use crate::raw::lights::{Light, LightReading, Lights};
pub use crate::raw::other::Name;

/// Reads a loosely described chunk with its layout `T`, or keeps it verbatim with a warning.
pub(crate) fn parse_loose<T: ChunkLayout + for<'a> BinRead<Args<'a> = ()>>(
    c: &RawChunk,
    warnings: &mut Vec<String>,
    wrap: impl FnOnce(T) -> ChunkBody,
) -> ChunkBody {
    match read_chunk::<T>(c.payload, c.offset, ()) {
        Ok(v) => wrap(v),
        Err(e) => {
            warnings.push(format!("{e}; the {} chunk is kept verbatim", c.tag));
            ChunkBody::Raw(c.payload.to_vec())
        }
    }
}
