//! `check` on coverage, the chunks a level needs, the tile cap and texture entries: each broken
//! rule found with its culprit, and what the notes allow not reported.

mod support {
    pub mod checking;
}

use support::checking::*;

use llamawad::container::Tag;
use llamawad::game::cells::{Cell, CellLists};
use llamawad::game::{check, check_against, Problem, Severity};
use llamawad::generate::{generate, Size};
use llamawad::level::{Model, Tile};
use llamawad::raw::CollisionPolygon;
use llamawad::Code;
use llamawad::Level;

/// A tile at the centre of cell (1, 1) of a copy of `base` whose only collision is `polygon`
/// (a collision-only model), and the cell east of it, (2, 1), emptied of collision or given
/// `neighbour` (a tile with that model at the same place, moved a cell east).
fn beside(base: &Level, polygon: CollisionPolygon, neighbour: Option<CollisionPolygon>) -> Level {
    let mut level = base.clone();
    let (map, trak) = level.map_and_trak_mut();
    let (map, models) = (map.unwrap(), &mut trak.unwrap().models);
    let lists = CellLists::of(map);
    let collision_only = |models: &mut Vec<Model>, polygon: Option<CollisionPolygon>| {
        models.push(Model {
            collision: [polygon.into_iter().collect(), vec![], vec![]],
            ..Model::default()
        });
        (models.len() - 1) as u32
    };
    let empty = collision_only(models, None);
    for &t in lists.tiles(Cell { col: 2, row: 1 }) {
        let tile = &mut map.tiles[t as usize];
        (tile.model_index, tile.float.model) = (empty, empty);
        (tile.colours, tile.swap_colours, tile.swap) = (vec![], vec![], None);
        tile.float.swap_flag = 0;
    }
    let owner = lists.tiles(Cell { col: 1, row: 1 })[0] as usize;
    let model = collision_only(models, Some(polygon));
    let tile = &mut map.tiles[owner];
    *tile = Tile::new([1.5, 0.0, -1.5], 0, model);
    if let Some(polygon) = neighbour {
        let model = collision_only(models, Some(polygon));
        map.tiles.push(Tile::new([2.5, 0.0, -1.5], 0, model));
    }
    level
}

/// The coverage problems of a level: (tile, cell).
fn coverage(level: &Level) -> Vec<(Option<usize>, Option<[u32; 2]>)> {
    problems(level)
        .into_iter()
        .filter(|p| p.code == Code::Coverage)
        .map(|p| (p.tile, p.cell))
        .collect()
}

/// Coverage from the floor test: beside a cell that tests nothing where a floor reaches into it
/// past the floor test's own edge tolerance (0.016 on the flat, at either plane scale), the
/// llama falls wherever it stands on that part, however narrow; a sliver over a floor of that
/// cell drops it by less than the engine's own edge tolerance blurs a ledge.
#[test]
fn a_sliver_of_floor_beside_a_cell_without_floor_is_a_hole() {
    let base = generate(2, Size::Tiny);
    let owner = CellLists::of(base.map().unwrap()).tiles(Cell { col: 1, row: 1 })[0] as usize;
    let reaching = |past: f64| {
        let mut floor = hand_square();
        floor.planes[3].d = -((4064.0 * (0.5 + past)).round() as i16);
        floor
    };
    let east = Some([2, 1]);
    assert_eq!(
        coverage(&beside(&base, reaching(0.03), None)),
        [(Some(owner), east)]
    );
    assert_eq!(
        coverage(&beside(&base, reaching(0.025), None)),
        [(Some(owner), east)]
    );
    // Within the edge tolerance, and 0.019 at the engine's scale, of which ×4096 explains 0.004.
    assert_eq!(coverage(&beside(&base, reaching(0.014), None)), []);
    assert_eq!(coverage(&beside(&base, reaching(0.019), None)), []);
    assert_eq!(coverage(&beside(&base, reaching(0.0), None)), []);
    // A floor of the next cell, 0.1 lower, under the sliver.
    let mut lower = hand_square();
    lower.planes[0].d = (4064.0 * 0.15) as i16;
    assert_eq!(coverage(&beside(&base, reaching(0.03), Some(lower))), []);
}

/// A level without one of the chunks the game needs, or with one of them twice (the second
/// once went unread, a tile at NaN in it unseen), is an error naming the chunk.
#[test]
fn a_needed_chunk_missing_or_twice_is_an_error() {
    let base = generate(2, Size::Tiny);
    let chunk_problems = |level: &Level| -> Vec<String> {
        problems(&reread(level))
            .into_iter()
            .filter(|p| p.code == Code::Chunks && p.severity == Severity::Error)
            .map(|p| p.message)
            .collect()
    };
    assert_eq!(chunk_problems(&base), Vec::<String>::new());
    for tag in [Tag::STPC, Tag::TEXT] {
        let mut level = base.clone();
        level.chunks.retain(|c| c.tag != tag);
        let found = chunk_problems(&level);
        assert!(
            found.len() == 1 && found[0].contains(&format!("no {tag} chunk")),
            "{found:?}"
        );
    }
    let mut level = base.clone();
    let map = level
        .chunks
        .iter()
        .find(|c| c.tag == Tag::MAP)
        .unwrap()
        .clone();
    level.chunks.push(map);
    let found = chunk_problems(&level);
    assert!(
        found.len() == 1 && found[0].contains("2 MAP chunks"),
        "{found:?}"
    );
}

/// Past the caps where the notes give no limit (more tiles than a level is taken to hold), the
/// level is an error naming the count and the cap.
#[test]
fn a_level_past_the_tile_cap_is_an_error() {
    let mut level = generate(2, Size::Tiny);
    let map = level.map_mut().unwrap();
    let copy = map.tiles[0].clone();
    map.tiles.resize(llamawad::limits::MAX_TILES + 1, copy);
    let found: Vec<String> = problems(&level)
        .into_iter()
        .filter(|p| p.code == Code::LevelSize)
        .map(|p| p.message)
        .collect();
    assert!(
        found.len() == 1 && found[0].contains("65537 tiles") && found[0].contains("at most 65536"),
        "{found:?}"
    );
}

/// The problems of `code` in the written level, each with the entry it names.
fn texture_problems(level: &Level, base: &Level, code: Code) -> Vec<(Option<usize>, bool)> {
    check_against(&reread(level), base)
        .problems
        .into_iter()
        .filter(|p| p.code == code)
        .map(|p| (p.entry, p.pre_existing))
        .collect()
}

/// Note 001 §7: a texture entry's rectangle is in its page's pixels (the UV rule divides by 256).
/// An entry naming a page that does not exist, or reaching past a page made smaller, is an error
/// naming it; a flat colour (flag bit 0) has no rectangle and names any page it likes.
#[test]
fn a_texture_entry_outside_its_page_is_an_error_naming_the_entry() {
    let base = generate(4, Size::Tiny);
    let text = base.text().unwrap();
    assert!(problems(&base)
        .iter()
        .all(|p| p.code != Code::EntryOutsidePage));
    let rect = text
        .entries
        .iter()
        .position(|e| !e.is_flat_colour())
        .unwrap();
    let flat = text
        .entries
        .iter()
        .position(|e| e.is_flat_colour())
        .unwrap();
    let pages = text.pages.len() as i8;

    let mut level = base.clone();
    let entries = &mut level.text_mut().unwrap().entries;
    entries[rect].page = pages;
    entries[flat].page = -7;
    assert_eq!(
        texture_problems(&level, &base, Code::EntryOutsidePage),
        [(Some(rect), false)]
    );
    let report = check(&reread(&level));
    let problem = report
        .problems
        .iter()
        .find(|p| p.code == Code::EntryOutsidePage)
        .unwrap();
    assert_eq!(problem.severity, Severity::Error);
    assert!(
        problem
            .message
            .starts_with(&format!("texture entry {rect} names page {pages}")),
        "{}",
        problem.message
    );

    // A page of 128 × 64 pixels: the entries on it reaching past x 127 or y 63 are named.
    let mut level = base.clone();
    let text = level.text_mut().unwrap();
    let page = text.entries[rect].page as usize;
    let small = &mut text.pages[page];
    let bytes = small.data.len() / (256 * 256);
    (small.width, small.height) = (128, 64);
    small.data.truncate(128 * 64 * bytes);
    let past: Vec<usize> = text
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_flat_colour() && e.page as usize == page)
        .filter(|(_, e)| e.u0.max(e.u1) >= 128 || e.v0.max(e.v1) >= 64)
        .map(|(i, _)| i)
        .collect();
    assert!(!past.is_empty());
    let found: Vec<usize> = texture_problems(&level, &base, Code::EntryOutsidePage)
        .into_iter()
        .map(|(entry, _)| entry.unwrap())
        .collect();
    assert_eq!(found, past);
}

/// Problems of texture entries are told apart by entry: against a base with one entry off its
/// page, another entry's is new.
#[test]
fn a_texture_entry_off_its_page_is_new_against_a_base_with_another() {
    let base = generate(4, Size::Tiny);
    let text = base.text().unwrap();
    let pages = text.pages.len() as i8;
    let mut rects = (0..text.entries.len()).filter(|&i| !text.entries[i].is_flat_colour());
    let (first, second) = (rects.next().unwrap(), rects.next().unwrap());
    let mut one = base.clone();
    one.text_mut().unwrap().entries[first].page = pages;
    let mut two = one.clone();
    two.text_mut().unwrap().entries[second].page = -1;
    assert_eq!(
        texture_problems(&two, &reread(&one), Code::EntryOutsidePage),
        [(Some(first), true), (Some(second), false)]
    );
}

/// A texture entry names its page with an i8: 128 pages (0 to 127) can be shown, a 129th not.
#[test]
fn more_pages_than_an_entry_can_name_is_an_error() {
    let base = generate(4, Size::Tiny);
    let tiny_page = llamawad::level::text::Page {
        flags: 1,
        width: 1,
        height: 1,
        data: vec![0xff, 0x7f],
    };
    let mut level = base.clone();
    let pages = &mut level.text_mut().unwrap().pages;
    pages.resize(128, tiny_page.clone());
    assert!(problems(&level).iter().all(|p| p.code != Code::PageCount));
    level.text_mut().unwrap().pages.push(tiny_page);
    let found: Vec<Problem> = problems(&level)
        .into_iter()
        .filter(|p| p.code == Code::PageCount)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].severity, Severity::Error);
    assert!(
        found[0].message.contains("129 texture pages"),
        "{}",
        found[0].message
    );
}
