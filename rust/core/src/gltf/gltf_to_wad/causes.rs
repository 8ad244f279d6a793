//! Which edit made a problem: a refusal shows the artist the tile they edited, not a neighbour
//! whose untouched floor now reaches over a cell the edit emptied.

use crate::game::cells::{tile_cell, Cell};
use crate::game::Problem;
use crate::level::{Level, Map};

use super::report::ChangeReport;

/// Names in each error that names a tile this conversion left alone, the edited tile whose cell
/// before or after the edit is the error's cell (`cause`), and says so in its message; errors of
/// edited tiles come first, so that the refusal names one.
pub(super) fn attribute(
    base: &Level,
    level: &Level,
    report: &ChangeReport,
    errors: &mut [Problem],
) {
    let (Some(before), Some(after)) = (base.map(), level.map()) else {
        return;
    };
    let cell = |map: &Map, t: usize| {
        map.tiles
            .get(t)
            .and_then(|tile| tile_cell(tile, map.width, map.height))
    };
    let mut edits: Vec<(usize, &str, Vec<Cell>)> = Vec::new();
    let mut edit = |tiles: &[usize], what: &'static str, was: bool, is: bool| {
        for &t in tiles {
            let cells = [was.then(|| cell(before, t)), is.then(|| cell(after, t))];
            edits.push((t, what, cells.into_iter().flatten().flatten().collect()));
        }
    };
    edit(&report.tiles_emptied, "deleted", true, false);
    edit(&report.tiles_moved, "moved", true, true);
    edit(&report.tiles_reshaped, "reshaped", true, true);
    edit(&report.tiles_retiled, "re-tiled", true, false);
    edit(&report.tiles_added, "added", false, true);
    let edited = |t: usize| edits.iter().any(|(e, ..)| *e == t);
    for p in errors.iter_mut() {
        if p.tile.is_none_or(edited) {
            continue;
        }
        let Some([col, row]) = p.cell else {
            continue;
        };
        let at = Cell { col, row };
        if let Some((t, what, _)) = edits.iter().find(|(_, _, cells)| cells.contains(&at)) {
            p.cause = Some(*t);
            p.message.push_str(&format!(
                " (cell {col}, {row} is where tile {t} was {what})"
            ));
        }
    }
    errors.sort_by_key(|p| !(p.cause.is_some() || p.tile.is_some_and(edited)));
}
