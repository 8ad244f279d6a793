//! The MAP chunk: all fifteen blocks of FORMAT.md §6 in file order. The blocks that describe tiles
//! (2, 8, 9, 10 and 11) are parallel lists here; [`crate::level::Map`] gathers them into tiles.
//!
//! MAP cannot be read alone: the number of vertex colours of a tile is the vertex count of its
//! TRAK model, and WFPC decides which of blocks 10, 13 and 14 exist ([`MapArgs`]).

use binrw::io::{Read, Seek, SeekFrom, Write};
use binrw::{binrw, BinRead, BinResult, Endian};
use serde::Serialize;

use crate::container::Tag;
use crate::error::BuildError;
use crate::raw::stream::{
    bad_value, bytes_left, check_count, elements, labelled_culprit, ran_out, records,
    records_of_at_least, u16_count, u32_count, unwritable, write_elements, ChunkLayout, Culprit,
};
use crate::raw::{Region, StratRecord, TileFixed, TileFloat, TileSwap, Waypoint, ZoneRecord};

pub const WFPC_VIEW_DISTANCE: u32 = 0x10;
pub const WFPC_TILE_SWAPS: u32 = 0x10000;
pub const WFPC_PATHS: u32 = 0x200000;
pub const WFPC_PATH_POINT_EXTRA: u32 = 0x4000000;

pub const REGION_COUNT: usize = 32;

/// One RGBA vertex colour as stored (0x80 = 1.0; the game doubles and clamps).
pub type Rgba = [u8; 4];

/// How the number of vertex-colour sets of a tile is read (FORMAT.md §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ColourSetRule {
    #[default]
    /// Preferred: F = byte 3 of the tile's first entry (0 and 1 mean one set), (F − 1) × nVerts
    /// more entries follow.
    FrameCount,
    /// Note 001's reading: byte 3 ≥ 2 means exactly one more set.
    AtMostTwo,
}

impl ColourSetRule {
    pub fn set_count(self, first: Option<&Rgba>) -> usize {
        let Some(first) = first else { return 0 };
        match (self, first[3]) {
            (_, 0 | 1) => 1,
            (ColourSetRule::FrameCount, f) => f as usize,
            (ColourSetRule::AtMostTwo, _) => 2,
        }
    }
}

/// What MAP needs from the other chunks, and the vertex-colour reading, to be read and written.
#[derive(Debug, Clone, Copy, Default)]
pub struct MapArgs<'a> {
    pub wfpc: u32,
    /// nVerts of every TRAK model.
    pub model_vertex_counts: &'a [usize],
    pub colour_rule: ColourSetRule,
}

impl MapArgs<'_> {
    fn has(&self, flag: u32) -> bool {
        self.wfpc & flag != 0
    }
}

#[binrw]
#[brw(little, import(args: MapArgs<'_>))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MapBlocks {
    #[br(temp)]
    #[bw(try_calc = u32_count(floats.len(), "tiles"))]
    tile_count: u32,
    pub width: u32,
    pub height: u32,
    /// Block 2: the tiles in export-space floats. Each tile has at least 24 + 24 + 4 bytes in
    /// blocks 2, 8 and 9.
    #[br(parse_with = records_of_at_least(tile_count, 52, "tiles"))]
    #[bw(assert(
        [fixed.len(), model_index.len(), colours.len()] == [floats.len(); 3],
        inconsistent("MAP tiles", "the tile blocks 2, 8, 9 and 11 have one entry per tile")
    ))]
    pub floats: Vec<TileFloat>,
    #[br(temp)]
    #[bw(try_calc = u32_count(parameters.len(), "strat parameters"))]
    parameter_count: u32,
    /// Block 3: strat parameters, referenced by index.
    #[br(parse_with = records(parameter_count, "strat parameters"))]
    pub parameters: Vec<u32>,
    #[br(temp)]
    #[bw(try_calc = u32_count(zones.len(), "zone records"))]
    zone_count: u32,
    /// Block 4: camera/fog/music areas.
    #[br(parse_with = records(zone_count, "zone records"))]
    pub zones: Vec<ZoneRecord>,
    #[br(temp)]
    #[bw(try_calc = u32_count(waypoints.len(), "waypoints"))]
    waypoint_count: u32,
    /// Block 5.
    #[br(parse_with = records(waypoint_count, "waypoints"))]
    pub waypoints: Vec<Waypoint>,
    /// Block 6: visibility mask and value of each of the 32 regions.
    pub regions: [Region; REGION_COUNT],
    /// Block 7: region number (0..31) of each cell, row-major, W·H entries.
    #[br(parse_with = records(width as u64 * height as u64, "region grid"))]
    #[bw(assert(
        region_grid.len() as u64 == *width as u64 * *height as u64,
        inconsistent(
            "MAP region grid",
            format!(
                "has {} cells, the {width}×{height} grid needs {}",
                region_grid.len(),
                *width as u64 * *height as u64
            )
        )
    ))]
    pub region_grid: Vec<u32>,
    /// Block 8: the tiles in 20.12 fixed point, game space.
    #[br(parse_with = records(tile_count, "tiles (fixed point)"))]
    pub fixed: Vec<TileFixed>,
    /// Block 9: the TRAK model of each tile.
    #[br(parse_with = records(tile_count, "tile model index"))]
    pub model_index: Vec<u32>,
    #[br(
        temp,
        if(args.has(WFPC_TILE_SWAPS)),
        parse_with = one_per_flagged_tile(&floats, &fixed, &model_index)
    )]
    #[bw(
        if(args.has(WFPC_TILE_SWAPS)),
        try_calc = u32_count(swaps.len(), "tile swaps")
    )]
    swap_count: u32,
    /// Block 10 (WFPC & 0x10000): one entry per tile with the swap flag, in tile order.
    #[br(parse_with = records(swap_count, "tile swaps"))]
    #[bw(assert(
        swaps.len() == if args.has(WFPC_TILE_SWAPS) { flagged(floats) } else { 0 },
        inconsistent(
            "MAP tile swaps",
            format!(
                "{} entries; the file has one per tile with the swap flag ({}) when WFPC has \
                 0x10000, else none",
                swaps.len(),
                flagged(floats)
            )
        )
    ))]
    pub swaps: Vec<TileSwap>,
    /// Block 11: for each tile, the colours of its model's vertices, then its swap model's.
    #[br(parse_with = read_colours(&floats, &model_index, &swaps, args))]
    #[bw(write_with = write_colours(floats, model_index, swaps, args))]
    pub colours: Vec<TileColours>,
    /// Blocks 12 to 15.
    #[brw(args(args))]
    pub tail: MapTail,
}

impl ChunkLayout for MapBlocks {
    const TAG: Tag = Tag::MAP;
    const LAST: &'static str = "the final u16 of MAP";
}

/// Blocks 12 to 15: the strats and what follows them to the end of MAP. Read on its own, it
/// tells where the vertex colours end.
#[binrw]
#[brw(little, import(args: MapArgs<'_>))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MapTail {
    #[br(temp)]
    #[bw(try_calc = u32_count(strats.len(), "strats"))]
    strat_count: u32,
    /// Block 12 header: maximum simultaneous strats − 30.
    pub strat_pool_extra: u32,
    /// Block 12.
    #[br(parse_with = records(strat_count, "strats"))]
    pub strats: Vec<StratRecord>,
    /// Block 13 (WFPC & 0x200000).
    #[br(if(args.has(WFPC_PATHS)), args(args.has(WFPC_PATH_POINT_EXTRA)))]
    #[bw(
        args(args.has(WFPC_PATH_POINT_EXTRA)),
        assert(paths.is_some() == args.has(WFPC_PATHS), present_with_flag("paths", WFPC_PATHS))
    )]
    pub paths: Option<Paths>,
    /// Block 14 (WFPC & 0x10).
    #[br(if(args.has(WFPC_VIEW_DISTANCE)))]
    #[bw(assert(
        view_distance.is_some() == args.has(WFPC_VIEW_DISTANCE),
        present_with_flag("view distance", WFPC_VIEW_DISTANCE)
    ))]
    pub view_distance: Option<u32>,
    /// Block 15 (meaning unknown).
    pub last: u16,
}

fn inconsistent(what: &str, problem: impl Into<String>) -> BuildError {
    BuildError::Inconsistent {
        what: what.into(),
        problem: problem.into(),
    }
}

fn present_with_flag(block: &str, flag: u32) -> BuildError {
    inconsistent(
        &format!("MAP {block}"),
        format!("present exactly when WFPC has {flag:#x}"),
    )
}

fn flagged(floats: &[TileFloat]) -> usize {
    floats.iter().filter(|t| t.swap_flag != 0).count()
}

/// The swap count, one per flagged tile; when it is not, the error names the tile the entries
/// and the flags disagree on, where the entries tell it.
fn one_per_flagged_tile<R: Read + Seek>(
    floats: &[TileFloat],
    fixed: &[TileFixed],
    model_index: &[u32],
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<u32> {
    let expected = flagged(floats);
    let tiles: Vec<SwapOwner> = floats
        .iter()
        .zip(fixed)
        .zip(model_index)
        .map(|((float, fixed), &model)| SwapOwner {
            flagged: float.swap_flag != 0,
            model,
            y: fixed.position[1] as u32,
        })
        .collect();
    move |r, endian, ()| {
        let at = r.stream_position()?;
        let count = u32::read_options(r, endian, ())?;
        if count as usize == expected {
            return Ok(count);
        }
        let refusal = |found: String| {
            let expected = format!("one entry per tile with the swap flag ({expected})");
            bad_value(at, "tile swaps", expected, found)
        };
        let entries: Vec<TileSwap> = match records(count, "tile swaps")(r, endian, ()) {
            Ok(entries) => entries,
            Err(_) => return Err(refusal(format!("{count} entries"))),
        };
        Err(match swap_culprit(&tiles, &entries) {
            Some((tile, why)) => labelled_culprit(
                refusal(format!("{count} entries: {why}")),
                Culprit::Tile(tile as u32),
            ),
            None => refusal(format!("{count} entries")),
        })
    }
}

/// What a tile's swap entry is known by: whether the tile has the swap flag, its model and its
/// fixed-point height.
struct SwapOwner {
    flagged: bool,
    model: u32,
    y: u32,
}

/// The tile the swap entries and the swap flags disagree on. An entry is known as its tile's by
/// the tile's model as model A and its fixed-point height as y (FORMAT.md §11); entries follow
/// the flagged tiles in tile order.
fn swap_culprit(tiles: &[SwapOwner], entries: &[TileSwap]) -> Option<(usize, &'static str)> {
    let owns = |e: &TileSwap, t: usize| e.model_a == tiles[t].model && e.y == tiles[t].y;
    let mut flagged = (0..tiles.len()).filter(|&t| tiles[t].flagged);
    let fewer = entries.len() < flagged.clone().count();
    let mut entries = entries.iter();
    loop {
        match (flagged.next(), entries.next()) {
            (Some(t), Some(e)) if owns(e, t) => continue,
            (Some(t), _) if fewer => return Some((t, "this tile has the swap flag but no entry")),
            (_, Some(e)) => {
                let t = (0..tiles.len()).find(|&t| !tiles[t].flagged && owns(e, t))?;
                return Some((t, "an entry is this tile's, but it lacks the swap flag"));
            }
            _ => return None,
        }
    }
}

/// Block 11 of one tile.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TileColours {
    /// nVerts × sets entries for the tile's model, all sets in order.
    pub colours: Vec<Rgba>,
    /// The same for the swap model.
    pub swap_colours: Vec<Rgba>,
}

/// The models whose colours block 11 holds for each tile: its own and, when it has a swap entry,
/// the swap entry's model B (FORMAT.md §11).
fn colour_models<'a>(
    floats: &'a [TileFloat],
    model_index: &'a [u32],
    swaps: &'a [TileSwap],
) -> impl Iterator<Item = (u32, Option<u32>)> + 'a {
    let mut swaps = swaps.iter();
    floats.iter().zip(model_index).map(move |(float, &model)| {
        let swap = match float.swap_flag {
            0 => None,
            _ => swaps.next().map(|s| s.model_b),
        };
        (model, swap)
    })
}

/// Block 11, which must end where blocks 12 to 15 read exactly to the end of MAP; when it does
/// not, the error names the tile whose colours are off, as far as the bytes tell ([`misfit`]).
fn read_colours<'a, R: Read + Seek>(
    floats: &'a [TileFloat],
    model_index: &'a [u32],
    swaps: &'a [TileSwap],
    args: MapArgs<'a>,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<TileColours>> + 'a {
    move |r, endian, ()| {
        let start = r.stream_position()?;
        let read = each_tiles_colours(r, floats, model_index, swaps, args);
        let end = r.stream_position()?;
        // A model that does not exist is wrong wherever the colours end.
        let shifted = match &read {
            Ok(_) => !tail_reads_from(r, end, endian, args)?,
            Err(e) => ran_out(e),
        };
        if !shifted {
            r.seek(SeekFrom::Start(end))?;
            return read;
        }
        r.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes)?;
        let colours = misfit::Colours::new(&bytes, start, floats, model_index, swaps, args);
        let misfit = colours
            .misfit(|at| tail_reads_from(r, start + at as u64, endian, args).unwrap_or(false));
        r.seek(SeekFrom::Start(end))?;
        misfit.map_or(read, Err)
    }
}

/// Whether blocks 12 to 15 read from `at` exactly to the end of MAP.
fn tail_reads_from<R: Read + Seek>(
    r: &mut R,
    at: u64,
    endian: Endian,
    args: MapArgs,
) -> BinResult<bool> {
    r.seek(SeekFrom::Start(at))?;
    Ok(MapTail::read_options(r, endian, (args,)).is_ok() && bytes_left(r)?.1 == 0)
}

/// Each tile's colours in turn, counted by its models.
fn each_tiles_colours<R: Read + Seek>(
    r: &mut R,
    floats: &[TileFloat],
    model_index: &[u32],
    swaps: &[TileSwap],
    args: MapArgs,
) -> BinResult<Vec<TileColours>> {
    colour_models(floats, model_index, swaps)
        .enumerate()
        .map(|(i, (model, swap))| {
            let mut tile = || {
                let colours = colour_sets(r, args, model, "")?;
                let swap_colours = match swap {
                    Some(model) => colour_sets(r, args, model, "swap model: ")?,
                    None => Vec::new(),
                };
                Ok(TileColours {
                    colours,
                    swap_colours,
                })
            };
            tile().map_err(|e| labelled_culprit(e, Culprit::Tile(i as u32)))
        })
        .collect()
}

/// The colours of one model: nVerts entries, then as many more sets as the first entry says.
fn colour_sets<R: Read + Seek>(
    r: &mut R,
    args: MapArgs,
    model: u32,
    of: &str,
) -> BinResult<Vec<Rgba>> {
    let at = r.stream_position()?;
    let Some(&nv) = args.model_vertex_counts.get(model as usize) else {
        return Err(bad_value(
            at,
            format!("{of}model index"),
            format!(
                "below the number of TRAK models ({})",
                args.model_vertex_counts.len()
            ),
            model,
        ));
    };
    let what = format!("{of}vertex colours");
    let n = check_count(r, nv as u64, 4, &what)?;
    let mut colours = vec![[0u8; 4]; n];
    r.read_exact(colours.as_flattened_mut())?;
    let sets = args.colour_rule.set_count(colours.first());
    if sets > 1 {
        r.seek(std::io::SeekFrom::Start(at))?;
        let n = check_count(r, nv as u64 * sets as u64, 4, &what)?;
        colours.resize(n, [0; 4]);
        r.read_exact(colours.as_flattened_mut())?;
    }
    Ok(colours)
}

fn write_colours<'a, W: Write + Seek>(
    floats: &'a [TileFloat],
    model_index: &'a [u32],
    swaps: &'a [TileSwap],
    args: MapArgs<'a>,
) -> impl FnOnce(&Vec<TileColours>, &mut W, Endian, ()) -> BinResult<()> + 'a {
    move |colours, w, _, ()| {
        for (i, (tile, (model, swap))) in colours
            .iter()
            .zip(colour_models(floats, model_index, swaps))
            .enumerate()
        {
            let what = |of: &str| format!("MAP tile {i}{of}");
            check_colours(args, &tile.colours, model, &what("")).map_err(unwritable)?;
            match swap {
                Some(model) => check_colours(args, &tile.swap_colours, model, &what(" swap model"))
                    .map_err(unwritable)?,
                None if !tile.swap_colours.is_empty() => {
                    return Err(unwritable(inconsistent(
                        &what(""),
                        "has swap colours but no swap model",
                    )))
                }
                None => {}
            }
            w.write_all(tile.colours.as_flattened())?;
            w.write_all(tile.swap_colours.as_flattened())?;
        }
        Ok(())
    }
}

/// Colours that would be read back as written: the model exists and the count is its nVerts
/// times the sets the first entry says; anything else shifts the rest of MAP.
fn check_colours(
    args: MapArgs,
    colours: &[Rgba],
    model: u32,
    what: &str,
) -> Result<(), BuildError> {
    let Some(&nv) = args.model_vertex_counts.get(model as usize) else {
        return Err(inconsistent(
            what,
            format!(
                "uses model {model}, but TRAK has {} models",
                args.model_vertex_counts.len()
            ),
        ));
    };
    let expected = nv * args.colour_rule.set_count(colours.first());
    if colours.len() != expected {
        return Err(inconsistent(
            what,
            format!(
                "has {} vertex colours, its model's {nv} vertices need {expected}; anything else \
                 shifts the rest of MAP",
                colours.len()
            ),
        ));
    }
    Ok(())
}

/// Block 13: `u32 n`, n paths.
#[binrw]
#[brw(little, import(third_word: bool))]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Paths {
    #[br(temp)]
    #[bw(try_calc = u32_count(paths.len(), "paths"))]
    path_count: u32,
    #[br(parse_with = elements(path_count, 4, "path"), args(third_word))]
    #[bw(write_with = write_elements("path"), args(third_word))]
    pub paths: Vec<Path>,
}

/// A path: `u32 n`, n sub-paths.
#[binrw]
#[brw(little, import(third_word: bool))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Path {
    #[br(temp)]
    #[bw(try_calc = u32_count(subpaths.len(), "sub-paths"))]
    subpath_count: u32,
    #[br(parse_with = elements(subpath_count, 4, "sub-path"), args(third_word))]
    #[bw(args(third_word))]
    pub subpaths: Vec<SubPath>,
}

/// A sub-path: `u16 n`, its flags, n points.
#[binrw]
#[brw(little, import(third_word: bool))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SubPath {
    #[br(temp)]
    #[bw(try_calc = u16_count(points.len(), "points of a sub-path"))]
    point_count: u16,
    pub flags: u16,
    #[br(
        parse_with = elements(point_count, if third_word { 16 } else { 12 }, "point"),
        args(third_word)
    )]
    #[bw(args(third_word))]
    pub points: Vec<PathPoint>,
}

/// A point of a path.
#[binrw]
#[brw(little, import(third_word: bool))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PathPoint {
    pub a: u32,
    pub b: u32,
    /// Present when WFPC & 0x4000000.
    #[br(if(third_word))]
    #[bw(assert(
        c.is_some() == third_word,
        inconsistent(
            "path point",
            "points have a third word exactly when WFPC has 0x4000000"
        )
    ))]
    pub c: Option<u32>,
    pub kind: u16,
    pub extra: u16,
}

mod misfit;
#[cfg(test)]
mod tests;
