//! `check` on levels damaged in their bytes (counts, vertex colours, swap entries, the
//! container's lengths): each damage is named where the reading went wrong, not after it.

use llamawad::container::{self, Tag};
use llamawad::game::{check_bytes, Severity};
use llamawad::generate::{generate, Size};
use llamawad::Code;
use llamawad::Level;

/// Where a chunk's payload starts in the file.
fn payload_at(bytes: &[u8], tag: Tag) -> usize {
    let wad = container::split(bytes).unwrap();
    wad.chunks.iter().find(|c| c.tag == tag).unwrap().offset as usize
}

/// Replaces `remove` bytes at `at` by `insert`, keeping the size of the chunk holding them and
/// the file's length field right.
fn splice(bytes: &mut Vec<u8>, at: usize, remove: usize, insert: &[u8]) {
    let wad = container::split(bytes).unwrap();
    let chunk = wad
        .chunks
        .iter()
        .find(|c| (c.offset as usize..=c.offset as usize + c.payload.len()).contains(&at))
        .unwrap();
    let size_at = chunk.offset as usize - 4;
    let total = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as i64;
    let short = bytes.len() as i64 - total;
    let grow = insert.len() as i64 - remove as i64;
    let size = u32::from_le_bytes(bytes[size_at..size_at + 4].try_into().unwrap()) as i64;
    bytes[size_at..size_at + 4].copy_from_slice(&((size + grow) as u32).to_le_bytes());
    bytes.splice(at..at + remove, insert.iter().copied());
    let total = bytes.len() as i64 - short;
    bytes[..4].copy_from_slice(&(total as u32).to_le_bytes());
}

/// Where a tile's vertex colours (MAP block 11) start in the MAP payload, counted from the
/// blocks before them as FORMAT.md §6 lays them out.
fn colours_at(level: &Level, tile: usize) -> usize {
    let map = level.map().unwrap();
    let n = map.tiles.len();
    let swaps = map.tiles.iter().filter(|t| t.swap.is_some()).count();
    let mut at = 12 + 24 * n;
    at += 4 + 4 * map.parameters.len() + 4 + 90 * map.zones.len() + 4 + 34 * map.waypoints.len();
    at += 32 * 8 + 4 * (map.width * map.height) as usize + 24 * n + 4 * n;
    if level.wfpc() & 0x1_0000 != 0 {
        at += 4 + 20 * swaps;
    }
    at + map.tiles[..tile]
        .iter()
        .map(|t| 4 * (t.colours.len() + t.swap_colours.len()))
        .sum::<usize>()
}

/// The reader's message for bytes it refuses.
fn refusal(bytes: &[u8]) -> String {
    Level::parse(bytes).unwrap_err().to_string()
}

/// A model count off by one in a TRAK header shifts every model after it; the reader names the
/// model whose data does not read as a model, not the last one, where the bytes ran out.
#[test]
fn a_count_off_in_a_trak_header_names_its_model() {
    let base = generate(1, Size::Small);
    let bytes = base.to_bytes().unwrap();
    let models = &base.trak().unwrap().models;
    let m = (1..models.len())
        .find(|&m| !models[m].faces.is_empty() && models[m].collision_count() > 0)
        .unwrap();
    let header = payload_at(&bytes, Tag::TRAK) + 4 + 0x84 * m;
    for (field, delta) in [(0x6c, 1i16), (0x6c, -1), (0x6e, 1), (0x6e, -1), (0x78, 1)] {
        let mut damaged = bytes.clone();
        let at = header + field;
        let count = u16::from_le_bytes(damaged[at..at + 2].try_into().unwrap());
        let changed = (count as i16 + delta) as u16;
        damaged[at..at + 2].copy_from_slice(&changed.to_le_bytes());
        let msg = refusal(&damaged);
        assert!(
            msg.contains(&format!("model {m}: ")),
            "header field {field:#x} {delta:+}: {msg}"
        );
    }
}

/// The first tile from `from` on with colours of its own model only, given two sets of colours
/// (FORMAT.md §6 block 11: byte 3 of the first entry counts them) as a valid level may have
/// them, and so is the next such tile: a tile whose colours the reader can tell apart.
fn between_two_sets(level: &mut Level, from: usize) -> usize {
    let tiles = &mut level.map_mut().unwrap().tiles;
    let coloured: Vec<usize> = (from..tiles.len())
        .filter(|&t| !tiles[t].colours.is_empty() && tiles[t].swap.is_none())
        .collect();
    let [tile, next, ..] = coloured[..] else {
        panic!("two tiles with colours")
    };
    for t in [tile, next] {
        let one = tiles[t].colours.clone();
        tiles[t].colours.extend(one);
        tiles[t].colours[0][3] = 2;
    }
    tile
}

/// A tile's vertex colours one entry short, or one too many: every block after it is read
/// shifted, and the reading stops in the strats or in a later tile. The reader names the
/// vertex colours, the entries they are off by, and the tile as far as the bytes tell: a block
/// of one set read an entry early or late counts as many entries as it should, so only tiles of
/// more sets around it narrow it down to one.
#[test]
fn vertex_colours_off_by_an_entry_are_named_not_the_blocks_after_them() {
    let mut base = generate(1, Size::Small);
    let tile = between_two_sets(&mut base, 100);
    let bytes = base.to_bytes().unwrap();
    let end = payload_at(&bytes, Tag::MAP) + colours_at(&base, tile + 1);
    let mut short = bytes.clone();
    splice(&mut short, end - 4, 4, &[]);
    let msg = refusal(&short);
    assert!(
        msg.contains("vertex colours (block 11)")
            && msg.contains(&format!("1 entry fewer in tile {tile} ")),
        "{msg}"
    );
    let mut long = bytes.clone();
    splice(&mut long, end, 0, &[0x40, 0x40, 0x40, 0]);
    let msg = refusal(&long);
    assert!(
        msg.contains(&format!("1 entry more in tile {tile} ")),
        "{msg}"
    );

    // One set between tiles of one set: a run of tiles.
    let base = generate(1, Size::Small);
    let map = base.map().unwrap();
    let single = (0..map.tiles.len())
        .rev()
        .find(|&t| map.tiles[t].colours.first().is_some_and(|c| c[3] < 2))
        .unwrap();
    let bytes = base.to_bytes().unwrap();
    let end = payload_at(&bytes, Tag::MAP) + colours_at(&base, single + 1);
    let mut short = bytes.clone();
    splice(&mut short, end - 4, 4, &[]);
    let msg = refusal(&short);
    // "tile F, where the reading may first have gone wrong, or one of tiles F+1 to L after it"
    let run = msg
        .split("1 entry fewer in tile ")
        .nth(1)
        .and_then(|rest| {
            let first: usize = rest.split(',').next()?.parse().ok()?;
            let tail = rest.split("or one of tiles ").nth(1)?;
            let mut words = tail.split(' ');
            let next: usize = words.next()?.parse().ok()?;
            let last: usize = words.nth(1)?.parse().ok()?;
            (next == first + 1).then_some(first..=last)
        })
        .unwrap_or_else(|| panic!("{msg}"));
    assert!(run.contains(&single), "{msg}");
    // The check names the run's first tile as the culprit.
    let (code, _, tile, _) = unreadable(&short);
    assert_eq!(
        (code, tile),
        (Code::Unreadable, Some(*run.start())),
        "{msg}"
    );
}

/// A tile given the swap flag without a swap entry: the entries no longer match the flagged
/// tiles; the reader names the tile without one.
#[test]
fn a_flagged_tile_without_a_swap_entry_is_named() {
    let base = generate(1, Size::Small);
    assert!(base.wfpc() & 0x1_0000 != 0);
    let map = base.map().unwrap();
    let tile = (0..map.tiles.len())
        .find(|&t| map.tiles[t].swap.is_none() && t > 3)
        .unwrap();
    let mut bytes = base.to_bytes().unwrap();
    let flag = payload_at(&bytes, Tag::MAP) + 12 + 24 * tile + 20;
    bytes[flag..flag + 4].copy_from_slice(&1u32.to_le_bytes());
    let msg = refusal(&bytes);
    assert!(msg.contains(&format!("tile {tile}")), "{msg}");
}

/// What `check` makes of bytes the reader refuses: one error, its culprit as the reader named it.
fn unreadable(bytes: &[u8]) -> (Code, Severity, Option<usize>, Option<usize>) {
    let report = check_bytes(bytes, None).expect("a WAD");
    let [p] = &report.problems[..] else {
        panic!("{:#?}", report.problems)
    };
    assert_eq!(report.errors, 1);
    (p.code, p.severity, p.tile, p.model)
}

/// The reader knows where it is: `check` reports a refused file with the tile, model or block
/// the reading stopped at, or found at fault.
#[test]
fn check_reports_a_refused_file_with_its_culprit() {
    let mut base = generate(1, Size::Small);
    let bytes = base.to_bytes().unwrap();

    let m = 1;
    let mut damaged = bytes.clone();
    let at = payload_at(&bytes, Tag::TRAK) + 4 + 0x84 * m + 0x6c;
    damaged[at] ^= 1;
    assert_eq!(
        unreadable(&damaged),
        (Code::Unreadable, Severity::Error, None, Some(m))
    );

    let map = base.map().unwrap();
    let flagged = (4..map.tiles.len())
        .find(|&t| map.tiles[t].swap.is_none())
        .unwrap();
    let mut damaged = bytes.clone();
    let at = payload_at(&bytes, Tag::MAP) + 12 + 24 * flagged + 20;
    damaged[at] = 1;
    assert_eq!(
        unreadable(&damaged),
        (Code::Unreadable, Severity::Error, Some(flagged), None)
    );

    let tile = between_two_sets(&mut base, 0);
    let mut damaged = base.to_bytes().unwrap();
    let end = payload_at(&damaged, Tag::MAP) + colours_at(&base, tile + 1);
    splice(&mut damaged, end - 4, 4, &[]);
    assert_eq!(
        unreadable(&damaged),
        (Code::Unreadable, Severity::Error, Some(tile), None)
    );
}

/// A length field that is neither the file's size nor 4 less, on chunks that fill the file:
/// a WAD with a wrong length, named so, not bytes that are no WAD.
#[test]
fn a_total_length_that_disagrees_with_the_file_is_a_container_error() {
    let mut bytes = generate(1, Size::Tiny).to_bytes().unwrap();
    let wrong = bytes.len() as u32 + 100;
    bytes[..4].copy_from_slice(&wrong.to_le_bytes());
    assert_eq!(
        unreadable(&bytes),
        (Code::Container, Severity::Error, None, None)
    );
    let report = check_bytes(&bytes, None).unwrap();
    assert!(
        report.problems[0].message.contains("length field"),
        "{:#?}",
        report.problems
    );
    assert!(check_bytes(b"not a level", None).is_err());
}
