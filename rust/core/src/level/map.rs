//! The MAP chunk as the level model: the tile grid with each tile's entries of the parallel
//! blocks 2, 8, 9, 10 and 11 gathered into a [`Tile`], and the object blocks (layout in
//! [`crate::raw::map`]). The conversion between the two is here and nowhere else.

use crate::error::{BuildError, ParseError};
use crate::raw::map::{MapArgs, MapBlocks, MapTail, Paths, TileColours};
use crate::raw::stream::{read_chunk, write_chunk};
use crate::raw::{Region, StratRecord, TileFixed, TileFloat, TileSwap, Waypoint, ZoneRecord};

pub use crate::raw::map::{
    ColourSetRule, Path, PathPoint, Rgba, SubPath, REGION_COUNT, WFPC_PATHS, WFPC_PATH_POINT_EXTRA,
    WFPC_TILE_SWAPS, WFPC_VIEW_DISTANCE,
};

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

/// Block 8 derived from block 2 (FORMAT.md §6: derived exactly).
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
    fn args(&self, colour_rule: ColourSetRule) -> MapArgs<'_> {
        MapArgs {
            wfpc: self.wfpc,
            model_vertex_counts: self.model_vertex_counts,
            colour_rule,
        }
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
        let read = |rule| {
            read_chunk::<MapBlocks>(payload, base, (ctx.args(rule),))
                .map(|blocks| Map::from_blocks(blocks, rule))
        };
        match read(ColourSetRule::FrameCount) {
            Ok(map) => Ok((map, None)),
            Err(err) => match read(ColourSetRule::AtMostTwo) {
                Ok(map) => Ok((
                    map,
                    Some(
                        "MAP: vertex-colour sets read the fallback way (a frame count of 2 or more \
                         means two sets): the frame-count reading did not fit"
                            .to_string(),
                    ),
                )),
                _ => Err(err),
            },
        }
    }

    /// The MAP payload.
    pub fn to_bytes(&self, ctx: &MapContext) -> Result<Vec<u8>, BuildError> {
        let blocks = self.to_blocks(ctx)?;
        write_chunk(&blocks, (ctx.args(self.colour_rule),))
    }

    fn from_blocks(b: MapBlocks, colour_rule: ColourSetRule) -> Map {
        let mut swaps = b.swaps.into_iter();
        let tiles = b
            .floats
            .into_iter()
            .zip(b.fixed)
            .zip(b.model_index)
            .zip(b.colours)
            .map(|(((float, fixed), model_index), colours)| Tile {
                swap: match float.swap_flag {
                    0 => None,
                    _ => swaps.next(),
                },
                float,
                fixed,
                model_index,
                colours: colours.colours,
                swap_colours: colours.swap_colours,
            })
            .collect();
        Map {
            width: b.width,
            height: b.height,
            tiles,
            parameters: b.parameters,
            zones: b.zones,
            waypoints: b.waypoints,
            regions: b.regions,
            region_grid: b.region_grid,
            strat_pool_extra: b.tail.strat_pool_extra,
            strats: b.tail.strats,
            paths: b.tail.paths.map(|p| p.paths),
            view_distance: b.tail.view_distance,
            last: b.tail.last,
            colour_rule,
        }
    }

    fn to_blocks(&self, ctx: &MapContext) -> Result<MapBlocks, BuildError> {
        if ctx.wfpc & WFPC_TILE_SWAPS != 0 {
            let astray = self
                .tiles
                .iter()
                .position(|t| (t.float.swap_flag != 0) != t.swap.is_some());
            if let Some(i) = astray {
                return Err(BuildError::Inconsistent {
                    what: format!("MAP tile {i}"),
                    problem: "a tile has a swap entry exactly when its swap flag is set".into(),
                });
            }
        }
        let tiles = &self.tiles;
        Ok(MapBlocks {
            width: self.width,
            height: self.height,
            floats: tiles.iter().map(|t| t.float).collect(),
            parameters: self.parameters.clone(),
            zones: self.zones.clone(),
            waypoints: self.waypoints.clone(),
            regions: self.regions,
            region_grid: self.region_grid.clone(),
            fixed: tiles.iter().map(|t| t.fixed).collect(),
            model_index: tiles.iter().map(|t| t.model_index).collect(),
            swaps: tiles.iter().filter_map(|t| t.swap).collect(),
            colours: tiles
                .iter()
                .map(|t| TileColours {
                    colours: t.colours.clone(),
                    swap_colours: t.swap_colours.clone(),
                })
                .collect(),
            tail: MapTail {
                strat_pool_extra: self.strat_pool_extra,
                strats: self.strats.clone(),
                paths: self.paths.clone().map(|paths| Paths { paths }),
                view_distance: self.view_distance,
                last: self.last,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, Size};
    use crate::Level;

    /// Note 001's reading of the colour sets: a first entry whose frame count is 3 followed by
    /// only two sets. The preferred reading does not fit it; the other does, and says so.
    #[test]
    fn colours_that_only_note_001_reads_are_read_that_way_and_written_back() {
        let mut level = generate(3, Size::Tiny);
        let (map, trak) = level.map_and_trak_mut();
        let (map, trak) = (map.unwrap(), trak.unwrap());
        // Every other tile gets one set, which both readings read alike.
        for t in &mut map.tiles {
            for colours in [&mut t.colours, &mut t.swap_colours] {
                let nv =
                    colours.len() / ColourSetRule::FrameCount.set_count(colours.first()).max(1);
                colours.truncate(nv);
                colours.iter_mut().for_each(|c| c[3] = 0);
            }
        }
        let tile = &mut map.tiles[2];
        let nv = trak.models[tile.model_index as usize].vertices.len();
        assert!(nv > 0 && tile.colours.len() == nv);
        tile.colours = (0..2 * nv).map(|i| [i as u8, 0x80, 0x40, 3]).collect();
        map.colour_rule = ColourSetRule::AtMostTwo;
        let bytes = level.to_bytes().unwrap();

        let read = Level::parse(&bytes).unwrap();
        assert_eq!(read.map().unwrap().colour_rule, ColourSetRule::AtMostTwo);
        assert_eq!(read.map().unwrap().tiles[2].colours.len(), 2 * nv);
        assert!(read
            .warnings
            .iter()
            .any(|w| w.contains("read the fallback way")));
        assert_eq!(read.to_bytes().unwrap(), bytes);

        level.map_mut().unwrap().colour_rule = ColourSetRule::FrameCount;
        let err = level.to_bytes().unwrap_err().to_string();
        assert!(err.starts_with("MAP tile 2: has"), "{err}");
    }
}
