//! The level's ground: the grid, islands, plateaus, regions, the exit and the start.

use glam::Vec2;

use super::builder::TOP;
use super::plan::Plan;
use crate::rng::Rng;

#[derive(Debug, Clone, Copy)]
pub(super) struct Grid {
    pub(super) width: usize,
    pub(super) height: usize,
}

impl Grid {
    pub(super) fn cells(self) -> usize {
        self.width * self.height
    }

    pub(super) fn col_row(self, cell: usize) -> (usize, usize) {
        (cell % self.width, cell / self.width)
    }

    /// The neighbour across `side` (0: row − 1, which is +z in export space; 1: column − 1;
    /// 2: row + 1; 3: column + 1), None at the border. A tile turned by side × 1024 has its local
    /// +z on that side: the tile transform turns local +z to (−sin a, cos a) (FORMAT.md §2).
    pub(super) fn neighbour(self, cell: usize, side: usize) -> Option<usize> {
        let (col, row) = self.col_row(cell);
        let (dc, dr) = [(0, -1), (-1, 0), (0, 1), (1, 0)][side];
        let col = col.checked_add_signed(dc).filter(|&c| c < self.width)?;
        let row = row.checked_add_signed(dr).filter(|&r| r < self.height)?;
        Some(row * self.width + col)
    }
}

/// Takes up to `count` cells into `member`, starting at `seeds` and each step taking a random
/// cell next to one already taken, among those `allowed`: blobby shapes of the size asked for.
fn grow_region(
    rng: &mut Rng,
    grid: Grid,
    seeds: &[usize],
    count: usize,
    allowed: impl Fn(usize) -> bool,
    member: &mut [bool],
) -> Vec<usize> {
    let mut frontier = seeds.to_vec();
    let mut taken = Vec::with_capacity(count);
    while taken.len() < count && !frontier.is_empty() {
        let cell = frontier.swap_remove(rng.below(frontier.len()));
        if member[cell] || !allowed(cell) {
            continue;
        }
        member[cell] = true;
        taken.push(cell);
        frontier.extend((0..4).filter_map(|side| grid.neighbour(cell, side)));
    }
    taken
}

/// The level's ground: islands over water, some raised plateaus, regions, and where the exit
/// and the start are.
pub(super) struct World {
    pub(super) grid: Grid,
    pub(super) island: Vec<bool>,
    /// Ground height of each cell in half units.
    pub(super) level: Vec<u8>,
    /// Region (0..31) of each cell.
    pub(super) region: Vec<u32>,
    /// The cell of the level door, whose floor has the exit material.
    pub(super) exit: usize,
    /// The cell kept for the Llama's start: no ramp, prop or special surface in it
    /// (`tiles::start_position` confirms it with the floor test).
    pub(super) start: usize,
}

impl World {
    pub(super) fn grow(rng: &mut Rng, plan: &Plan) -> World {
        let grid = Grid {
            width: plan.width,
            height: plan.height,
        };
        let inside = |cell: usize| {
            let (col, row) = grid.col_row(cell);
            !plan.margin || (col > 0 && row > 0 && col + 1 < grid.width && row + 1 < grid.height)
        };
        let available: Vec<usize> = (0..grid.cells()).filter(|&c| inside(c)).collect();
        let seeds: Vec<usize> = (0..plan.islands).map(|_| rng.pick(&available)).collect();
        let target = (available.len() as f32 * plan.island_share).round() as usize;
        let mut island = vec![false; grid.cells()];
        let islands = grow_region(rng, grid, &seeds, target, inside, &mut island);

        let mut level = vec![0u8; grid.cells()];
        for _ in 0..plan.plateaus {
            let seed = rng.pick(&islands);
            let size = 4 + rng.below(24);
            let height = 1 + rng.below(2) as u8;
            let mut member = vec![false; grid.cells()];
            let flat = |cell: usize| island[cell] && level[cell] == 0;
            for cell in grow_region(rng, grid, &[seed], size, flat, &mut member) {
                level[cell] = height;
            }
        }

        let (columns, rows) = plan.regions;
        let region = (0..grid.cells())
            .map(|cell| {
                let (col, row) = grid.col_row(cell);
                (col * columns / grid.width + row * rows / grid.height * columns) as u32
            })
            .collect();
        let mut world = World {
            grid,
            island,
            level,
            region,
            exit: 0,
            start: 0,
        };
        // Both want a cell of their own inside an island, where no skirt is needed.
        let mut inner: Vec<usize> = islands
            .iter()
            .copied()
            .filter(|&c| world.open_sides(c).is_empty())
            .collect();
        let mut others = islands;
        rng.shuffle(&mut inner);
        rng.shuffle(&mut others);
        let mut choices = inner.into_iter().chain(others);
        world.exit = choices.next().expect("the islands have cells");
        world.start = choices.find(|&c| c != world.exit).unwrap_or(world.exit);
        world
    }

    pub(super) fn island_cells(&self) -> Vec<usize> {
        (0..self.grid.cells()).filter(|&c| self.island[c]).collect()
    }

    fn ground_y(&self, cell: usize) -> f32 {
        self.level[cell] as f32 * 0.5
    }

    /// The tile position of a cell: its centre in export space (z negative), at ground height.
    pub(super) fn centre(&self, cell: usize) -> [f32; 3] {
        let (col, row) = self.grid.col_row(cell);
        [col as f32 + 0.5, self.ground_y(cell), -(row as f32 + 0.5)]
    }

    /// The sides of an island cell that need a cliff skirt: towards water, the grid border or
    /// lower ground.
    pub(super) fn open_sides(&self, cell: usize) -> Vec<usize> {
        (0..4)
            .filter(|&side| match self.grid.neighbour(cell, side) {
                None => true,
                Some(n) => !self.island[n] || self.level[n] < self.level[cell],
            })
            .collect()
    }

    /// A point standing on the cell's floor, `offset` from its centre, in game-space 20.12
    /// fixed point (z positive).
    pub(super) fn stand(&self, cell: usize, offset: Vec2) -> [i32; 3] {
        let [x, y, z] = self.centre(cell);
        [fixed(x + offset.x), fixed(y + TOP), fixed(-z + offset.y)]
    }
}

/// 20.12 fixed point.
pub(super) fn fixed(v: f32) -> i32 {
    (v as f64 * 4096.0).round() as i32
}
