//! MAP's blocks on a hand-made one-tile map, and the checks of what the other chunks decide.

use super::*;
use crate::raw::stream::{read_chunk, write_chunk};

/// One tile on a 1×1 grid whose model has two vertices, a swap to model 1 (one vertex), a
/// path of one point with its third word and a view distance.
fn blocks() -> MapBlocks {
    MapBlocks {
        width: 1,
        height: 1,
        floats: vec![TileFloat {
            swap_flag: 1,
            ..TileFloat::default()
        }],
        parameters: vec![7],
        region_grid: vec![0],
        fixed: vec![TileFixed::default()],
        model_index: vec![0],
        swaps: vec![TileSwap {
            model_b: 1,
            ..TileSwap::default()
        }],
        colours: vec![TileColours {
            colours: vec![[1, 2, 3, 1], [4, 5, 6, 0]],
            swap_colours: vec![[7, 8, 9, 0]],
        }],
        tail: MapTail {
            paths: Some(Paths {
                paths: vec![Path {
                    subpaths: vec![SubPath {
                        flags: 2,
                        points: vec![PathPoint {
                            c: Some(9),
                            ..PathPoint::default()
                        }],
                    }],
                }],
            }),
            view_distance: Some(40),
            last: 0xbeef,
            ..MapTail::default()
        },
        ..MapBlocks::default()
    }
}

const WFPC: u32 = WFPC_TILE_SWAPS | WFPC_PATHS | WFPC_PATH_POINT_EXTRA | WFPC_VIEW_DISTANCE;

fn args(wfpc: u32) -> MapArgs<'static> {
    MapArgs {
        wfpc,
        model_vertex_counts: &[2, 1],
        colour_rule: ColourSetRule::FrameCount,
    }
}

fn read(bytes: &[u8], wfpc: u32) -> Result<MapBlocks, String> {
    read_chunk(bytes, 0, (args(wfpc),)).map_err(|e| e.to_string())
}

#[test]
fn every_block_reads_and_writes_back() {
    let bytes = write_chunk(&blocks(), (args(WFPC),)).unwrap();
    // Blocks 1 to 7, 8, 9, 10, 11, 12, 13, 14 and 15.
    let len = 12 + 24 + 8 + 4 + 4 + 32 * 8 + 4 + 24 + 4 + 24 + 12 + 8 + 28 + 4 + 2;
    assert_eq!(bytes.len(), len);
    assert_eq!(read(&bytes, WFPC).unwrap(), blocks());
}

#[test]
fn what_the_other_chunks_decide_is_checked_where_it_is_read() {
    let bytes = write_chunk(&blocks(), (args(WFPC),)).unwrap();
    let colours_at = 12 + 24 + 8 + 4 + 4 + 32 * 8 + 4 + 24 + 4 + 24;
    let mut damaged = bytes.clone();
    damaged[colours_at - 28..colours_at - 24].copy_from_slice(&5u32.to_le_bytes());
    assert_eq!(
        read(&damaged, WFPC).unwrap_err(),
        format!(
            "MAP chunk, byte {colours_at:#x}: tile 0: model index: expected below the number \
             of TRAK models (2), found 5"
        )
    );
    let mut damaged = bytes.clone();
    damaged[colours_at - 24..colours_at - 20].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(
        read(&damaged, WFPC).unwrap_err(),
        format!(
            "MAP chunk, byte {:#x}: tile swaps: expected one entry per tile with the swap \
             flag (1), found 2 entries",
            colours_at - 24
        )
    );
    // Without the view distance in WFPC, its four bytes are too many.
    assert!(read(&bytes, WFPC & !WFPC_VIEW_DISTANCE)
        .unwrap_err()
        .ends_with("4 bytes left over after the final u16 of MAP"));

    let err = |b: &MapBlocks, wfpc| write_chunk(b, (args(wfpc),)).unwrap_err();
    assert_eq!(
        err(&blocks(), WFPC & !WFPC_PATHS).to_string(),
        "MAP paths: present exactly when WFPC has 0x200000"
    );
    assert_eq!(
        err(&blocks(), WFPC & !WFPC_PATH_POINT_EXTRA).to_string(),
        "path 0: path point: points have a third word exactly when WFPC has 0x4000000"
    );
    let mut extra_colour = blocks();
    extra_colour.colours[0].swap_colours.push([0; 4]);
    assert_eq!(
        err(&extra_colour, WFPC).to_string(),
        "MAP tile 0 swap model: has 2 vertex colours, its model's 1 vertices need 1; \
         anything else shifts the rest of MAP"
    );
}
