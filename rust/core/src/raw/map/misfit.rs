//! Where the vertex colours (block 11) went wrong, once what follows them did not read.
//!
//! A tile's colours are counted from its model's vertices and the sets its first entry says; a
//! block one entry short or long shifts every tile after it, and the reading stops only in the
//! strats or in a later tile. The strats and the rest of MAP read exactly to the end of the chunk
//! from one place only: where the colours really end. From there, the tile whose block is off is
//! the one that, taken as k entries off (the fewest that explain the bytes), leaves every tile
//! after it reading exactly up to that place. Tiles of one colour set each read alike shifted by
//! an entry, so the bytes often narrow it to a run of tiles between two of more sets, not to one:
//! the first tile of the run, where the reading may first have gone wrong, is named.

use super::{colour_models, MapArgs, Rgba};
use crate::raw::stream::{bad_value, labelled_culprit, Culprit, Record};
use crate::raw::{StratRecord, TileFloat, TileSwap};

/// The most entries a single tile's block is looked at as being off by.
const MOST_ENTRIES_OFF: i64 = 8;

/// The colours of block 11 and what counts them.
pub(super) struct Colours<'a> {
    /// From the start of block 11 to the end of MAP.
    bytes: &'a [u8],
    /// Where block 11 starts in the payload.
    start: u64,
    /// Each tile's model and swap model.
    models: Vec<(u32, Option<u32>)>,
    args: MapArgs<'a>,
}

impl Colours<'_> {
    pub(super) fn new<'a>(
        bytes: &'a [u8],
        start: u64,
        floats: &[TileFloat],
        model_index: &[u32],
        swaps: &[TileSwap],
        args: MapArgs<'a>,
    ) -> Colours<'a> {
        Colours {
            bytes,
            start,
            models: colour_models(floats, model_index, swaps).collect(),
            args,
        }
    }

    /// Bytes of a tile's colours (its model's, then its swap model's) starting at `at`, as their
    /// first entries count them, however far that reaches; None when a model does not exist or
    /// a first entry lies past the end.
    fn tile_len(&self, tile: usize, at: usize) -> Option<usize> {
        let (model, swap) = self.models[tile];
        let mut len = 0;
        for model in std::iter::once(model).chain(swap) {
            let &nv = self.args.model_vertex_counts.get(model as usize)?;
            if nv > 0 {
                let first: Rgba = self.bytes.get(at + len..at + len + 4)?.try_into().ok()?;
                len += 4 * nv * self.args.colour_rule.set_count(Some(&first));
            }
        }
        Some(len)
    }

    /// Whether tiles `from`.. read from `at` end exactly at `end`.
    fn reads_to(&self, from: usize, mut at: usize, end: usize) -> bool {
        for tile in from..self.models.len() {
            match self.tile_len(tile, at) {
                Some(len) if at + len <= end => at += len,
                _ => return false,
            }
        }
        at == end
    }

    /// The error that names the colours' misfit, given `tail_at`, which says whether blocks 12
    /// to 15 read exactly to the end of MAP from a place (counted from the start of block 11).
    /// None when no place reads so: then the colours are not what is wrong.
    pub(super) fn misfit(&self, mut tail_at: impl FnMut(usize) -> bool) -> Option<binrw::Error> {
        // Where each tile starts, read as the models count: right up to the tile that is off.
        let mut starts = vec![0];
        while starts.len() <= self.models.len() {
            let (tile, at) = (starts.len() - 1, starts[starts.len() - 1]);
            match self.tile_len(tile, at) {
                Some(len) if at + len <= self.bytes.len() => starts.push(at + len),
                _ => break,
            }
        }
        let read_all = starts.len() > self.models.len();
        let counted_end = *starts.last().expect("one start");
        let mut places: Vec<usize> = (0..self.bytes.len().saturating_sub(9))
            .step_by(4)
            .filter(|&at| tail_fits_by_count(self.bytes, at))
            .collect();
        places.sort_by_key(|&at| at.abs_diff(counted_end));
        let end = places.into_iter().find(|&at| tail_at(at))?;
        let strats = format!(
            "the strats that follow start at byte {:#x} of MAP",
            self.start + end as u64
        );
        let expected = "one colour per vertex of each tile's model and swap model, times the sets \
                        its first entry counts";
        let refusal = |at: usize, found: String| {
            bad_value(
                self.start + at as u64,
                "vertex colours (block 11)",
                expected,
                found,
            )
        };
        for off in 1..=MOST_ENTRIES_OFF {
            for entries in [-off, off] {
                let tiles: Vec<usize> = (0..self.models.len().min(starts.len()))
                    .filter(|&k| {
                        let next = self
                            .tile_len(k, starts[k])
                            .map(|len| (starts[k] + len) as i64 + 4 * entries);
                        next.is_some_and(|at| {
                            at >= starts[k] as i64 && self.reads_to(k + 1, at as usize, end)
                        })
                    })
                    .collect();
                let (Some(&first), Some(&last)) = (tiles.first(), tiles.last()) else {
                    continue;
                };
                // Tiles of one colour set read alike an entry early or late, so the bytes may
                // leave a run: the reading is right up to its first tile and may go wrong there,
                // the tile named (the culprit), with the others the bytes allow.
                let which = match first == last {
                    true => format!("tile {first}"),
                    false => format!(
                        "tile {first}, where the reading may first have gone wrong, or one of \
                         tiles {} to {last} after it (tiles of one colour set read alike an \
                         entry early or late)",
                        first + 1
                    ),
                };
                let err = refusal(
                    starts[first],
                    format!("{} in {which} ({strats})", entries_off(entries)),
                );
                return Some(labelled_culprit(err, Culprit::Tile(first as u32)));
            }
        }
        let found = match read_all {
            true => format!(
                "{} in all ({strats})",
                entries_off((end as i64 - counted_end as i64) / 4)
            ),
            false => format!("tiles reaching past the strats ({strats})"),
        };
        Some(refusal(0, found))
    }
}

/// "1 entry fewer", "3 entries more".
fn entries_off(entries: i64) -> String {
    let n = entries.unsigned_abs();
    let plural = if n == 1 { "y" } else { "ies" };
    let way = if entries < 0 { "fewer" } else { "more" };
    format!("{n} entr{plural} {way}")
}

/// Whether the strat count at a place leaves room for the strats (58 bytes each, after the count
/// and poolExtra, before the final u16): a test cheap enough for every place, before the full
/// reading.
fn tail_fits_by_count(bytes: &[u8], at: usize) -> bool {
    let count = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    count
        .checked_mul(StratRecord::SIZE)
        .is_some_and(|n| at + 8 + n + 2 <= bytes.len())
}
