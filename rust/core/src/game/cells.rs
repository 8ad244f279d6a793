//! Which tiles the engine tests where: the cell lists the MAP loader builds (FORMAT.md §4 "Cells":
//! `cell = ftol(x − 0.5) − ftol(z + 0.5)·W`) and the player's cell (`x >> 12`, `z >> 12`).

use crate::level::{Map, Tile};

/// A cell of the grid: column (x) and row (game-space z).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Cell {
    pub col: u32,
    pub row: u32,
}

impl Cell {
    pub fn index(self, width: u32) -> usize {
        self.col as usize + self.row as usize * width as usize
    }

    /// The cell of a game-space position (units) as the collision tests find the player's:
    /// `x >> 12`, `z >> 12` on the fixed-point position. None outside the grid.
    pub fn of_point(x: f64, z: f64, width: u32, height: u32) -> Option<Cell> {
        let (col, row) = (
            crate::game::space::to_fixed(x) >> 12,
            crate::game::space::to_fixed(z) >> 12,
        );
        ((0..width as i32).contains(&col) && (0..height as i32).contains(&row)).then_some(Cell {
            col: col as u32,
            row: row as u32,
        })
    }

    /// The centre of the cell in game space (x, z).
    pub fn centre(self) -> (f64, f64) {
        (self.col as f64 + 0.5, self.row as f64 + 0.5)
    }
}

/// The loader's column and row terms for a tile's export-space float position:
/// (ftol(x − 0.5), −ftol(z + 0.5)). ftol truncates towards zero, so tiles between −0.5 and 0.5
/// (x, or game z) land in column (row) 0 and a tile is listed under the cell whose centre is at
/// or below-left of its origin: for cell-centred tiles, the cell they stand in.
pub fn loader_col_row(position: [f32; 3]) -> (i64, i64) {
    let [x, _, z] = position.map(f64::from);
    ((x - 0.5).trunc() as i64, -((z + 0.5).trunc() as i64))
}

/// The cell a tile is listed under, or None when it lies outside the grid (where the loader
/// writes into foreign memory, FORMAT.md §10).
pub fn tile_cell(tile: &Tile, width: u32, height: u32) -> Option<Cell> {
    let (col, row) = loader_col_row(tile.float.position);
    ((0..width as i64).contains(&col) && (0..height as i64).contains(&row)).then_some(Cell {
        col: col as u32,
        row: row as u32,
    })
}

/// An export-space x (or negated z) for a tile to be listed under column (row) `cell`, keeping
/// the fractional offset of `like` within its own loader cell: moving a tile by whole cells
/// keeps its collision planes exactly translatable (see `coverage`).
pub fn coordinate_in_cell(cell: u32, like: f64) -> f64 {
    let offset = (like - 0.5) - (like - 0.5).floor();
    cell as f64 + 0.5 + offset
}

/// The tiles of every cell, in tile order, as the loader lists them.
///
/// Assumption (FORMAT.md §11): the loader links each cell's tiles into a list, and the notes do
/// not say whether it appends or prepends; tile order is taken. The order decides only ties of
/// the floor test between tiles (equal distances, the first wins): reversed, the last of them
/// would, with its polygon and material.
#[derive(Debug, Clone)]
pub struct CellLists {
    pub width: u32,
    pub height: u32,
    lists: Vec<Vec<u32>>,
}

impl CellLists {
    pub fn of(map: &Map) -> CellLists {
        let mut lists = vec![Vec::new(); map.width as usize * map.height as usize];
        for (i, tile) in map.tiles.iter().enumerate() {
            if let Some(cell) = tile_cell(tile, map.width, map.height) {
                lists[cell.index(map.width)].push(i as u32);
            }
        }
        CellLists {
            width: map.width,
            height: map.height,
            lists,
        }
    }

    pub fn tiles(&self, cell: Cell) -> &[u32] {
        self.lists
            .get(cell.index(self.width))
            .map_or(&[], Vec::as_slice)
    }

    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        let width = self.width;
        (0..self.lists.len() as u32).map(move |i| Cell {
            col: i % width,
            row: i / width,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f32, z: f32) -> Tile {
        Tile::new([x, 0.0, -z], 0, 0)
    }

    #[test]
    fn cell_centred_tiles_are_listed_in_their_cell() {
        assert_eq!(
            tile_cell(&at(57.5, 43.5), 64, 64),
            Some(Cell { col: 57, row: 43 })
        );
        assert_eq!(
            tile_cell(&at(0.5, 0.5), 64, 64),
            Some(Cell { col: 0, row: 0 })
        );
    }

    #[test]
    fn off_centre_tiles_are_listed_where_the_loader_truncates() {
        // floor(x) would say column 58; the loader's ftol(58.2 − 0.5) says 57.
        assert_eq!(
            tile_cell(&at(58.2, 43.2), 64, 64),
            Some(Cell { col: 57, row: 42 })
        );
        assert_eq!(
            tile_cell(&at(57.8, 43.8), 64, 64),
            Some(Cell { col: 57, row: 43 })
        );
        // Truncation towards zero: anything above −0.5 is column 0.
        assert_eq!(
            tile_cell(&at(0.2, 0.1), 64, 64),
            Some(Cell { col: 0, row: 0 })
        );
        assert_eq!(
            tile_cell(&at(-0.4, 0.5), 64, 64),
            Some(Cell { col: 0, row: 0 })
        );
        assert_eq!(tile_cell(&at(-0.6, 0.5), 64, 64), None);
        assert_eq!(
            tile_cell(&at(64.4, 0.5), 64, 64),
            Some(Cell { col: 63, row: 0 })
        );
        assert_eq!(tile_cell(&at(64.6, 0.5), 64, 64), None);
    }

    #[test]
    fn whole_cell_moves_keep_the_offset() {
        for like in [57.5, 57.8, 58.2, 0.2, 3.0] {
            for cell in [0, 5, 60] {
                let x = coordinate_in_cell(cell, like) as f32;
                assert_eq!(
                    loader_col_row([x, 0.0, -0.5]).0,
                    cell as i64,
                    "{like} {cell}"
                );
                let shift = x as f64 - like;
                assert!((shift - shift.round()).abs() < 1e-6, "{like} {cell} {x}");
            }
        }
    }

    #[test]
    fn the_player_cell_floors_the_fixed_point_position() {
        assert_eq!(
            Cell::of_point(57.204, 43.733, 64, 64),
            Some(Cell { col: 57, row: 43 })
        );
        assert_eq!(Cell::of_point(-0.1, 3.0, 64, 64), None);
        assert_eq!(Cell::of_point(3.0, 64.0, 64, 64), None);
    }
}
