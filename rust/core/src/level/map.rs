//! The MAP chunk: the tile grid, regions, vertex colours and the object blocks, all fifteen blocks
//! of note 003 in file order.

use serde::Serialize;

use crate::error::{BuildError, ParseError};
use crate::level::model::u32_count;
use crate::raw::{Region, StratRecord, TileFixed, TileFloat, TileSwap, Waypoint, ZoneRecord};
use crate::reader::{Reader, Writer};

pub const WFPC_VIEW_DISTANCE: u32 = 0x10;
pub const WFPC_TILE_SWAPS: u32 = 0x10000;
pub const WFPC_PATHS: u32 = 0x200000;
pub const WFPC_PATH_POINT_EXTRA: u32 = 0x4000000;

pub const REGION_COUNT: usize = 32;

/// One RGBA vertex colour as stored (0x80 = 1.0; the game doubles and clamps).
pub type Rgba = [u8; 4];

/// How the number of vertex-colour sets of a tile is read (FORMAT-DECISIONS §7).
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

/// One placed tile: the parallel entries of blocks 2, 8, 9, 10 and 11.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tile {
    /// Block 2: export-space position, rotation, model, swap flag.
    pub float: TileFloat,
    /// Block 8: the same in 20.12 fixed point, game space.
    pub fixed: TileFixed,
    /// Block 9: the TRAK model index (equal to `float.model` in every known level).
    pub model_index: u32,
    /// Block 10 entry (WFPC & 0x10000, tiles with a non-zero swap flag).
    pub swap: Option<TileSwap>,
    /// Block 11: nVerts × sets entries for the tile's model, all sets in order.
    pub colours: Vec<Rgba>,
    /// Block 11, for the swap model.
    pub swap_colours: Vec<Rgba>,
}

impl Tile {
    /// A tile at a cell-centred export-space position, with both copies in agreement.
    pub fn new(position: [f32; 3], rotation: u32, model: u32) -> Tile {
        let mut tile = Tile {
            model_index: model,
            ..Tile::default()
        };
        tile.float.model = model;
        tile.set_placement(position, rotation);
        tile
    }

    /// Moves and turns the tile, keeping the float and fixed-point copies in agreement.
    pub fn set_placement(&mut self, position: [f32; 3], rotation: u32) {
        self.float.position = position;
        self.float.rotation = rotation;
        self.fixed = fixed_from_float(&self.float);
    }
}

/// Block 8 derived from block 2 (note 003: "exactly derivable").
pub fn fixed_from_float(t: &TileFloat) -> TileFixed {
    let fixed = |v: f32| (v as f64 * 4096.0).round() as i32;
    TileFixed {
        rotation: [0, t.rotation as i32, 0],
        position: [
            fixed(t.position[0]),
            fixed(t.position[1]),
            fixed(-t.position[2]),
        ],
    }
}

/// A point of a path (block 13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PathPoint {
    pub a: u32,
    pub b: u32,
    /// Present when WFPC & 0x4000000.
    pub c: Option<u32>,
    pub kind: u16,
    pub extra: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SubPath {
    pub flags: u16,
    pub points: Vec<PathPoint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Path {
    pub subpaths: Vec<SubPath>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    pub width: u32,
    pub height: u32,
    pub tiles: Vec<Tile>,
    /// Block 3: strat parameters, referenced by index.
    pub parameters: Vec<u32>,
    /// Block 4: camera/fog/music areas.
    pub zones: Vec<ZoneRecord>,
    /// Block 5.
    pub waypoints: Vec<Waypoint>,
    /// Block 6: visibility mask and value of each of the 32 regions.
    pub regions: [Region; REGION_COUNT],
    /// Block 7: region number (0..31) of each cell, row-major, W·H entries.
    pub region_grid: Vec<u32>,
    /// Block 12 header: maximum simultaneous strats − 30.
    pub strat_pool_extra: u32,
    /// Block 12.
    pub strats: Vec<StratRecord>,
    /// Block 13 (WFPC & 0x200000).
    pub paths: Option<Vec<Path>>,
    /// Block 14 (WFPC & 0x10).
    pub view_distance: Option<u32>,
    /// Block 15 (meaning unknown).
    pub last: u16,
    /// How the vertex-colour sets were counted when the file was read.
    pub colour_rule: ColourSetRule,
}

/// What MAP needs from the other chunks to be read and written.
#[derive(Debug, Clone, Copy)]
pub struct MapContext<'a> {
    pub wfpc: u32,
    /// nVerts of every TRAK model.
    pub model_vertex_counts: &'a [usize],
}

impl MapContext<'_> {
    fn vertex_count(&self, model: u32) -> Option<usize> {
        self.model_vertex_counts.get(model as usize).copied()
    }
}

impl Map {
    /// Parses MAP, trying the preferred vertex-colour reading first and the other only when that
    /// is the one that reads the chunk exactly. Returns a note when the fallback was used.
    pub fn parse(
        payload: &[u8],
        base: u64,
        ctx: &MapContext,
    ) -> Result<(Map, Option<String>), ParseError> {
        let preferred = Self::parse_with(payload, base, ctx, ColourSetRule::FrameCount);
        match preferred {
            Ok(map) => Ok((map, None)),
            Err(err) => {
                let uses_second_set =
                    Self::parse_with(payload, base, ctx, ColourSetRule::AtMostTwo);
                match uses_second_set {
                    Ok(map) => Ok((
                        map,
                        Some(
                            "MAP: vertex-colour sets read as note 001 says (frame count ≥ 2 means \
                             two sets): the frame-count reading did not fit"
                                .to_string(),
                        ),
                    )),
                    _ => Err(err),
                }
            }
        }
    }

    fn parse_with(
        payload: &[u8],
        base: u64,
        ctx: &MapContext,
        colour_rule: ColourSetRule,
    ) -> Result<Map, ParseError> {
        let r = &mut Reader::new(payload, base, "MAP ");
        let tile_count = r.u32("number of tiles")? as u64;
        let width = r.u32("grid width")?;
        let height = r.u32("grid height")?;
        // Each tile has at least 24 + 24 + 4 bytes in blocks 2, 8 and 9.
        r.check_count(tile_count, 52, "tiles")?;
        let floats: Vec<TileFloat> = r.records(tile_count, "tiles (floats)")?;
        let parameters = {
            let n = r.u32("number of strat parameters")?;
            r.u32s(n as u64, "strat parameters")?
        };
        let zones = r.counted_records("zone records")?;
        let waypoints = r.counted_records("waypoints")?;
        let regions: Vec<Region> = r.records(REGION_COUNT as u64, "region table")?;
        let cells = width as u64 * height as u64;
        let region_grid = r.u32s(cells, "region grid")?;
        let fixed: Vec<TileFixed> = r.records(tile_count, "tiles (fixed point)")?;
        let model_index = r.u32s(tile_count, "tile model index")?;

        let mut swaps = Vec::new();
        if ctx.wfpc & WFPC_TILE_SWAPS != 0 {
            let at = r.position();
            swaps = r.counted_records::<TileSwap>("tile swaps")?;
            let flagged = floats.iter().filter(|t| t.swap_flag != 0).count();
            if swaps.len() != flagged {
                return Err(r.bad_value(
                    at,
                    "tile swaps",
                    format!("one entry per tile with the swap flag ({flagged})"),
                    format!("{} entries", swaps.len()),
                ));
            }
        }

        let mut swaps_iter = swaps.into_iter();
        let mut tiles = Vec::with_capacity(tile_count as usize);
        for (i, (float, (fixed, model_index))) in floats
            .into_iter()
            .zip(fixed.into_iter().zip(model_index))
            .enumerate()
        {
            let swap = if ctx.wfpc & WFPC_TILE_SWAPS != 0 && float.swap_flag != 0 {
                swaps_iter.next()
            } else {
                None
            };
            let colours = read_colours(r, ctx, model_index, colour_rule, &format!("tile {i}"))?;
            let swap_colours = match &swap {
                Some(s) => read_colours(
                    r,
                    ctx,
                    s.model_b,
                    colour_rule,
                    &format!("tile {i} swap model"),
                )?,
                None => Vec::new(),
            };
            tiles.push(Tile {
                float,
                fixed,
                model_index,
                swap,
                colours,
                swap_colours,
            });
        }

        let strat_count = r.u32("number of strats")?;
        let strat_pool_extra = r.u32("strat pool size")?;
        let strats = r.records(strat_count as u64, "strats")?;
        let paths = if ctx.wfpc & WFPC_PATHS != 0 {
            Some(read_paths(r, ctx.wfpc)?)
        } else {
            None
        };
        let view_distance = if ctx.wfpc & WFPC_VIEW_DISTANCE != 0 {
            Some(r.u32("view distance")?)
        } else {
            None
        };
        let last = r.u16("final u16")?;
        r.expect_end("the final u16 of MAP")?;

        Ok(Map {
            width,
            height,
            tiles,
            parameters,
            zones,
            waypoints,
            regions: regions.try_into().expect("32 regions read"),
            region_grid,
            strat_pool_extra,
            strats,
            paths,
            view_distance,
            last,
            colour_rule,
        })
    }

    pub fn write(&self, w: &mut Writer, ctx: &MapContext) -> Result<(), BuildError> {
        self.check_layout(ctx)?;
        let colour_entries: usize = self
            .tiles
            .iter()
            .map(|t| t.colours.len() + t.swap_colours.len())
            .sum();
        w.bytes.reserve(
            12 + self.tiles.len() * 72
                + self.parameters.len() * 4
                + self.zones.len() * 90
                + self.waypoints.len() * 34
                + 256
                + self.region_grid.len() * 4
                + colour_entries * 4
                + self.strats.len() * 58
                + 32,
        );
        w.u32(u32_count(self.tiles.len(), "tiles")?);
        w.u32(self.width);
        w.u32(self.height);
        for t in &self.tiles {
            w.record(&t.float);
        }
        w.u32(u32_count(self.parameters.len(), "strat parameters")?);
        w.u32s(&self.parameters);
        w.u32(u32_count(self.zones.len(), "zone records")?);
        w.records(&self.zones);
        w.u32(u32_count(self.waypoints.len(), "waypoints")?);
        w.records(&self.waypoints);
        w.records(&self.regions);
        w.u32s(&self.region_grid);
        for t in &self.tiles {
            w.record(&t.fixed);
        }
        for t in &self.tiles {
            w.u32(t.model_index);
        }
        if ctx.wfpc & WFPC_TILE_SWAPS != 0 {
            let swaps: Vec<&TileSwap> = self.tiles.iter().filter_map(|t| t.swap.as_ref()).collect();
            w.u32(u32_count(swaps.len(), "tile swaps")?);
            for s in swaps {
                w.record(s);
            }
        }
        for t in &self.tiles {
            for c in t.colours.iter().chain(&t.swap_colours) {
                w.raw(c);
            }
        }
        w.u32(u32_count(self.strats.len(), "strats")?);
        w.u32(self.strat_pool_extra);
        w.records(&self.strats);
        if let Some(paths) = &self.paths {
            write_paths(w, paths, ctx.wfpc)?;
        }
        if let Some(v) = self.view_distance {
            w.u32(v);
        }
        w.u16(self.last);
        Ok(())
    }

    /// The rules without which the bytes would be read back differently: parallel blocks, colour
    /// counts, optional blocks matching WFPC.
    fn check_layout(&self, ctx: &MapContext) -> Result<(), BuildError> {
        let inconsistent =
            |what: String, problem: String| BuildError::Inconsistent { what, problem };
        let cells = self.width as u64 * self.height as u64;
        if self.region_grid.len() as u64 != cells {
            return Err(inconsistent(
                "MAP region grid".into(),
                format!(
                    "has {} cells, the {}×{} grid needs {cells}",
                    self.region_grid.len(),
                    self.width,
                    self.height
                ),
            ));
        }
        let swaps_in_file = ctx.wfpc & WFPC_TILE_SWAPS != 0;
        for (i, t) in self.tiles.iter().enumerate() {
            let what = || format!("MAP tile {i}");
            if swaps_in_file && (t.float.swap_flag != 0) != t.swap.is_some() {
                return Err(inconsistent(
                    what(),
                    "a tile has a swap entry exactly when its swap flag is set".into(),
                ));
            }
            if !swaps_in_file && t.swap.is_some() {
                return Err(inconsistent(
                    what(),
                    "has a tile swap, but WFPC 0x10000 (tile swaps) is not set".into(),
                ));
            }
            check_colours(ctx, &t.colours, t.model_index, self.colour_rule, what)?;
            match &t.swap {
                Some(s) => {
                    check_colours(ctx, &t.swap_colours, s.model_b, self.colour_rule, || {
                        format!("MAP tile {i} swap model")
                    })?
                }
                None if !t.swap_colours.is_empty() => {
                    return Err(inconsistent(
                        what(),
                        "has swap colours but no swap model".into(),
                    ))
                }
                None => {}
            }
        }
        let flag_block = |flag: u32, present: bool, name: &str| {
            if (ctx.wfpc & flag != 0) != present {
                Err(inconsistent(
                    format!("MAP {name}"),
                    format!("present exactly when WFPC has {flag:#x}"),
                ))
            } else {
                Ok(())
            }
        };
        flag_block(WFPC_PATHS, self.paths.is_some(), "paths")?;
        flag_block(
            WFPC_VIEW_DISTANCE,
            self.view_distance.is_some(),
            "view distance",
        )?;
        Ok(())
    }
}

fn read_colours(
    r: &mut Reader,
    ctx: &MapContext,
    model: u32,
    rule: ColourSetRule,
    what: &str,
) -> Result<Vec<Rgba>, ParseError> {
    let at = r.position();
    let nv = ctx.vertex_count(model).ok_or_else(|| {
        r.bad_value(
            at,
            format!("{what}: model index"),
            format!(
                "below the number of TRAK models ({})",
                ctx.model_vertex_counts.len()
            ),
            model,
        )
    })?;
    let what = format!("{what}: vertex colours");
    let first = r.counted_bytes(nv as u64, 4, &what)?;
    let sets = rule.set_count(first.first_chunk::<4>());
    r.seek(at);
    let bytes = r.counted_bytes(nv as u64 * sets as u64, 4, &what)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| c.try_into().expect("4 bytes"))
        .collect())
}

fn check_colours(
    ctx: &MapContext,
    colours: &[Rgba],
    model: u32,
    rule: ColourSetRule,
    what: impl Fn() -> String,
) -> Result<(), BuildError> {
    let Some(nv) = ctx.vertex_count(model) else {
        return Err(BuildError::Inconsistent {
            what: what(),
            problem: format!(
                "uses model {model}, but TRAK has {} models",
                ctx.model_vertex_counts.len()
            ),
        });
    };
    let expected = nv * rule.set_count(colours.first());
    if colours.len() != expected {
        return Err(BuildError::Inconsistent {
            what: what(),
            problem: format!(
                "has {} vertex colours, its model's {nv} vertices need {expected}; anything else \
                 shifts the rest of MAP",
                colours.len()
            ),
        });
    }
    Ok(())
}

fn read_paths(r: &mut Reader, wfpc: u32) -> Result<Vec<Path>, ParseError> {
    let extra = wfpc & WFPC_PATH_POINT_EXTRA != 0;
    let point_size = if extra { 16 } else { 12 };
    let count = r.u32("number of paths")?;
    let count = r.check_count(count as u64, 4, "paths")?;
    let mut paths = Vec::with_capacity(count);
    for i in 0..count {
        let what = format!("path {i}");
        let n = r.u32(&what)?;
        let n = r.check_count(n as u64, 4, &what)?;
        let mut subpaths = Vec::with_capacity(n);
        for _ in 0..n {
            let points_count = r.u16(&what)?;
            let flags = r.u16(&what)?;
            let raw = r.counted_bytes(points_count as u64, point_size, &what)?;
            let mut pr = Reader::new(raw, 0, "MAP ");
            let mut points = Vec::with_capacity(points_count as usize);
            for _ in 0..points_count {
                points.push(PathPoint {
                    a: pr.u32(&what)?,
                    b: pr.u32(&what)?,
                    c: if extra { Some(pr.u32(&what)?) } else { None },
                    kind: pr.u16(&what)?,
                    extra: pr.u16(&what)?,
                });
            }
            subpaths.push(SubPath { flags, points });
        }
        paths.push(Path { subpaths });
    }
    Ok(paths)
}

fn write_paths(w: &mut Writer, paths: &[Path], wfpc: u32) -> Result<(), BuildError> {
    let extra = wfpc & WFPC_PATH_POINT_EXTRA != 0;
    w.u32(u32_count(paths.len(), "paths")?);
    for (i, p) in paths.iter().enumerate() {
        w.u32(u32_count(p.subpaths.len(), "sub-paths")?);
        for s in &p.subpaths {
            let n = u16::try_from(s.points.len()).map_err(|_| BuildError::TooMany {
                what: format!("path {i}: points of a sub-path"),
                count: s.points.len() as u64,
                max: u16::MAX as u64,
            })?;
            w.u16(n);
            w.u16(s.flags);
            for pt in &s.points {
                w.u32(pt.a);
                w.u32(pt.b);
                match (extra, pt.c) {
                    (true, Some(c)) => w.u32(c),
                    (false, None) => {}
                    _ => {
                        return Err(BuildError::Inconsistent {
                            what: format!("path {i}"),
                            problem: "points have a third word exactly when WFPC has 0x4000000"
                                .into(),
                        })
                    }
                }
                w.u16(pt.kind);
                w.u16(pt.extra);
            }
        }
    }
    Ok(())
}
