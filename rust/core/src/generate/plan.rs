//! What each size holds, and what each seed varies.

use super::Size;
use crate::container::{Convention, TotalLength};

/// The numbers a size decides; everything else is drawn from the seed.
pub(super) struct Plan {
    pub(super) width: usize,
    pub(super) height: usize,
    /// Keep the islands one cell away from the grid border (water all round).
    pub(super) margin: bool,
    pub(super) islands: usize,
    /// Share of the available cells that become island.
    pub(super) island_share: f32,
    pub(super) plateaus: usize,
    /// Tiles in MAP, the collision-only tiles that enter collision into the cells it reaches
    /// (coverage copies) included.
    pub(super) tiles: usize,
    /// Models in TRAK, the coverage copies' collision-only models included.
    pub(super) models: usize,
    /// Tiles kept for the props and their coverage copies (at least one per prop model); water
    /// planes go under as many sea cells as the rest of the budget allows.
    pub(super) prop_tiles: usize,
    /// Σ faces over all tiles to steer the choice of props towards (0: no steering).
    pub(super) tile_faces: usize,
    pub(super) ramps: usize,
    /// Island cells open on more than one side get a skirt tile for each further side.
    pub(super) extra_skirts: bool,
    /// Rocks standing in the sea at the grid's border and reaching up to 2.4 units beyond it.
    pub(super) backdrops: usize,
    pub(super) kit: KitPlan,
    pub(super) pages: usize,
    /// Pages stay 16-bit direct pages up to this number even when special pages are added.
    pub(super) min_direct_pages: usize,
    pub(super) object_models: usize,
    /// At most this many entries in the WFPC 0x100 block, and items (and models) in each.
    pub(super) extra_block: (usize, usize),
    pub(super) animations: usize,
    /// Regions in columns × rows of the grid.
    pub(super) regions: (usize, usize),
    pub(super) zones: usize,
    pub(super) lights: usize,
    /// Index into each strat type's `counts`.
    pub(super) strat_column: usize,
}

/// How many tile models of each kind the kit has.
pub(super) struct KitPlan {
    pub(super) floors: usize,
    pub(super) special_floors: usize,
    pub(super) edges: usize,
    pub(super) skirts: usize,
    pub(super) ramps_per_step: usize,
    pub(super) rocks: usize,
    pub(super) big_rocks: usize,
    pub(super) blocks: usize,
    pub(super) fences: usize,
    pub(super) pillars: usize,
    pub(super) doors: usize,
    pub(super) backdrops: usize,
}

impl Plan {
    pub(super) fn of(size: Size) -> Plan {
        match size {
            Size::Tiny => TINY,
            Size::Small => SMALL,
            Size::Full => FULL,
        }
    }
}

/// The fixtures' level: a few cells, one island.
const TINY: Plan = Plan {
    width: 4,
    height: 3,
    margin: false,
    islands: 1,
    island_share: 0.6,
    plateaus: 0,
    tiles: 12,
    models: 10,
    prop_tiles: 3,
    tile_faces: 0,
    ramps: 0,
    extra_skirts: false,
    backdrops: 0,
    kit: KitPlan {
        floors: 1,
        special_floors: 0,
        edges: 1,
        skirts: 0,
        ramps_per_step: 0,
        rocks: 1,
        big_rocks: 0,
        blocks: 1,
        fences: 0,
        pillars: 0,
        doors: 1,
        backdrops: 0,
    },
    pages: 2,
    min_direct_pages: 2,
    object_models: 4,
    extra_block: (1, 2),
    animations: 1,
    regions: (2, 1),
    zones: 2,
    lights: 2,
    strat_column: 0,
};

/// A level of some ten cells a side: the tests' everyday one.
const SMALL: Plan = Plan {
    width: 11,
    height: 10,
    margin: true,
    islands: 2,
    island_share: 0.85,
    plateaus: 1,
    tiles: 150,
    models: 55,
    prop_tiles: 40,
    tile_faces: 2_250,
    ramps: 3,
    extra_skirts: true,
    backdrops: 3,
    kit: KitPlan {
        floors: 9,
        special_floors: 1,
        edges: 6,
        skirts: 2,
        ramps_per_step: 1,
        rocks: 6,
        big_rocks: 0,
        blocks: 6,
        fences: 2,
        pillars: 2,
        doors: 1,
        backdrops: 2,
    },
    pages: 4,
    min_direct_pages: 3,
    object_models: 10,
    extra_block: (3, 6),
    animations: 3,
    regions: (2, 2),
    zones: 4,
    lights: 3,
    strat_column: 1,
};

/// A level the size of the game's: some 1,750 tiles over 38 × 34 cells.
const FULL: Plan = Plan {
    width: 38,
    height: 34,
    margin: true,
    islands: 4,
    island_share: 0.78,
    plateaus: 7,
    tiles: 1_750,
    models: 450,
    prop_tiles: 200,
    tile_faces: 26_000,
    ramps: 30,
    extra_skirts: true,
    backdrops: 14,
    kit: KitPlan {
        floors: 90,
        special_floors: 4,
        edges: 50,
        skirts: 10,
        ramps_per_step: 12,
        rocks: 60,
        big_rocks: 1,
        blocks: 60,
        fences: 30,
        pillars: 30,
        doors: 4,
        backdrops: 5,
    },
    pages: 8,
    min_direct_pages: 6,
    object_models: 30,
    extra_block: (3, 6),
    animations: 6,
    regions: (6, 5),
    zones: 12,
    lights: 6,
    strat_column: 2,
};

/// The WFPC layout flags, special texture pages and container convention of a seed.
pub(super) struct Variant {
    pub(super) wfpc: u32,
    pub(super) paletted_page: bool,
    pub(super) rle_page: bool,
    pub(super) convention: Convention,
}

pub(super) const fn convention(
    total: TotalLength,
    size_includes_header: bool,
    alignment: u32,
) -> Convention {
    Convention {
        total,
        size_includes_header,
        alignment,
    }
}

/// One row per `seed % 5`, a table rather than random draws: any five consecutive seeds then
/// set and clear every WFPC flag that changes the layout (0x10 view distance, 0x100 STPC block,
/// 0x10000 tile swaps, 0x200000 paths, 0x4000000 path points' third word, 0x10000000 no layout
/// change) and write every container convention. Seed 1 writes the project's default convention,
/// the one tools and tests expect of a new level.
pub(super) const VARIANTS: [Variant; 5] = [
    Variant {
        wfpc: 0x10 | 0x1_0000 | 0x20_0000,
        paletted_page: false,
        rle_page: true,
        convention: convention(TotalLength::FileSize, false, 2),
    },
    Variant {
        wfpc: 0x100 | 0x1_0000 | 0x1000_0000,
        paletted_page: true,
        rle_page: false,
        convention: Convention::DEFAULT,
    },
    Variant {
        wfpc: 0x10 | 0x100 | 0x20_0000 | 0x400_0000,
        paletted_page: false,
        rle_page: true,
        convention: convention(TotalLength::FileSizeMinus4, true, 2),
    },
    Variant {
        wfpc: 0x100 | 0x1000_0000,
        paletted_page: true,
        rle_page: false,
        convention: convention(TotalLength::FileSize, true, 4),
    },
    Variant {
        wfpc: 0x10 | 0x1_0000 | 0x20_0000 | 0x400_0000 | 0x1000_0000,
        paletted_page: false,
        rle_page: false,
        convention: convention(TotalLength::FileSizeMinus4, false, 4),
    },
];

/// WFPC bits without a layout of their own that the originals set: 0x800 renderer fog, 0x80000
/// read by a strat opcode, 0x8000000 collision materials 17/18 ignored.
pub(super) const OPTIONAL_WFPC_BITS: [u32; 3] = [0x800, 0x8_0000, 0x800_0000];
