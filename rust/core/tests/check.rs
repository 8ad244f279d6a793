//! `check` against the notes' checklists (notes 001–003): valid levels corrupted one rule at a
//! time, written, read back and checked; each broken rule is found with its culprit, and what the
//! notes allow is not reported.

use llamawad::container::{self, Tag};
use llamawad::game::cells::{Cell, CellLists};
use llamawad::game::floor::World;
use llamawad::game::{check, check_against, check_bytes, Problem, Severity};
use llamawad::generate::{generate, Size};
use llamawad::level::{ChunkBody, Model, Tile};
use llamawad::raw::{CollisionPlane, CollisionPolygon};
use llamawad::Code;
use llamawad::Level;

/// The level written and read back, as `check` meets it in a file.
fn reread(level: &Level) -> Level {
    Level::parse(&level.to_bytes().expect("writable")).expect("readable")
}

/// The problems of the written level.
fn problems(level: &Level) -> Vec<Problem> {
    check(&reread(level)).problems
}

fn set_wfpc(level: &mut Level, flags: u32) {
    for chunk in &mut level.chunks {
        if let ChunkBody::Flags(f) = &mut chunk.body {
            *f = flags;
        }
    }
}

/// The index of the player's strat and where it stands, in game units.
fn the_llama(level: &Level) -> (usize, [f64; 3]) {
    let stpc = level.stpc().unwrap();
    let map = level.map().unwrap();
    let i = map
        .strats
        .iter()
        .position(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    (i, map.strats[i].position.map(|v| v as f64 / 4096.0))
}

/// Note 001, floor test step 2: the player skips 0x11, or 0x12 *instead* with the flag
/// 0x8000000 (note 002: WFPC 0x8000000). Only the skipped one under the start is an error.
#[test]
fn the_start_is_refused_only_on_the_material_the_players_floor_test_skips() {
    let base = generate(2, Size::Tiny);
    let (_, [x, y, z]) = the_llama(&base);
    let floor = World::of(&base).unwrap().probe(x, y, z).floor.unwrap();
    let model = base.map().unwrap().tiles[floor.tile as usize].model_index as usize;
    for (material, wfpc_flag, refused) in [
        (18, false, false),
        (17, false, true),
        (18, true, true),
        (17, true, false),
    ] {
        let mut level = base.clone();
        let flags = level.wfpc() & !0x800_0000 | if wfpc_flag { 0x800_0000 } else { 0 };
        set_wfpc(&mut level, flags);
        let polygon = level.trak_mut().unwrap().models[model]
            .collision
            .iter_mut()
            .flatten()
            .nth(floor.polygon as usize)
            .unwrap();
        polygon.material = material;
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == Code::PlayerStartMaterial)
            .map(|p| (p.tile, p.polygon))
            .collect();
        let expected = if refused {
            vec![(Some(floor.tile as usize), Some(floor.polygon as usize))]
        } else {
            vec![]
        };
        assert_eq!(
            found, expected,
            "material {material}, WFPC flag {wfpc_flag}"
        );
    }
}

/// A square floor 1 × 1 at y 0.25 around the tile origin, written by hand (FORMAT.md §4: normals
/// ×127, d = 4064 × the plane's distance): surface up, then the edges x ≥ −0.5, z ≥ −0.5,
/// x ≤ 0.5, z ≤ 0.5 with their normals pointing inwards.
fn hand_square() -> CollisionPolygon {
    let plane = |normal: [i8; 3], d: i16| CollisionPlane { normal, pad: 0, d };
    CollisionPolygon {
        kind: 1,
        material: 0,
        planes: [
            plane([0, 127, 0], 1016),
            plane([127, 0, 0], -2032),
            plane([0, 0, 127], -2032),
            plane([-127, 0, 0], -2032),
            plane([0, 0, -127], -2032),
        ],
    }
}

/// The first polygon of the model the first tile with collision uses, replaced.
fn with_polygon(base: &Level, polygon: CollisionPolygon) -> (Level, usize) {
    let mut level = base.clone();
    let (map, trak) = level.map_and_trak_mut();
    let models = &mut trak.unwrap().models;
    let model = map
        .unwrap()
        .tiles
        .iter()
        .map(|t| t.model_index as usize)
        .find(|&m| models[m].collision_count() > 0)
        .unwrap();
    *models[model].collision.iter_mut().flatten().next().unwrap() = polygon;
    (level, model)
}

/// Note 001 §3: edge normals point inwards. One pointing outwards leaves no point inside all
/// edges: the engine never finds the polygon.
#[test]
fn an_edge_normal_pointing_outwards_is_an_error_naming_the_polygon() {
    let base = generate(2, Size::Tiny);
    let edge_problems = |polygon| {
        let (level, model) = with_polygon(&base, polygon);
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == Code::CollisionEdge)
            .map(|p| (p.severity, p.model, p.polygon))
            .collect();
        (found, model)
    };
    let (found, _) = edge_problems(hand_square());
    assert_eq!(found, []);
    let mut flipped = hand_square();
    flipped.planes[3] = CollisionPlane {
        normal: [127, 0, 0],
        pad: 0,
        d: 2032,
    };
    let (found, model) = edge_problems(flipped);
    assert_eq!(found, [(Severity::Error, Some(model), Some(0))]);
}

/// The kind byte knows 0x1 (a quad) and 0x4 (facing down): other bits are a warning naming the
/// polygon, and the level still converts to glTF and back byte for byte (the byte kept).
#[test]
fn an_unknown_collision_kind_is_a_warning_naming_the_polygon() {
    use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
    let base = generate(2, Size::Tiny);
    let kinds = |kind: u8| {
        let mut polygon = hand_square();
        polygon.kind = kind;
        let (level, model) = with_polygon(&base, polygon);
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == Code::CollisionKind)
            .map(|p| (p.severity, p.model, p.polygon, p.message))
            .collect();
        (found, model, level)
    };
    for known in [0, 1, 4, 5] {
        assert_eq!(kinds(known).0, [], "kind {known}");
    }
    let (found, model, level) = kinds(0xff);
    let [(severity, m, polygon, message)] = &found[..] else {
        panic!("{found:#?}")
    };
    assert_eq!(
        (*severity, *m, *polygon),
        (Severity::Warning, Some(model), Some(0))
    );
    assert!(message.contains("kind 0xff has bits 0xfa"), "{message}");
    let bytes = level.to_bytes().unwrap();
    let level = Level::parse(&bytes).unwrap();
    let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    let (back, _) = gltf_to_wad(&level, &bytes, &doc, GltfToWadOptions::default()).unwrap();
    assert_eq!(back.to_bytes().unwrap(), bytes);
}

/// The problems of `bytes` read back that `base` does not have.
fn new_problems_of_bytes(bytes: &[u8], base: &Level) -> Vec<Problem> {
    check_against(&Level::parse(bytes).expect("readable"), base)
        .new_problems()
        .cloned()
        .collect()
}

/// Note 002: the layout flags "must stay as they are"; note 003 rule 6: WFPC flags are not to be
/// changed. Any bit changed against the base is an error.
#[test]
fn wfpc_changed_against_the_base_is_an_error() {
    let base = generate(2, Size::Tiny);
    for bit in [0x800, 0x800_0000] {
        let mut level = base.clone();
        set_wfpc(&mut level, base.wfpc() ^ bit);
        let found: Vec<_> = new_problems_of_bytes(&level.to_bytes().unwrap(), &base)
            .into_iter()
            .filter(|p| p.code == Code::Wfpc)
            .map(|p| p.severity)
            .collect();
        assert_eq!(found, [Severity::Error], "bit {bit:#x}");
    }
    let same = new_problems_of_bytes(&base.to_bytes().unwrap(), &base);
    assert_eq!(same, []);
}

/// The length field no longer counting what the base's counts (the file size, or 4 bytes less):
/// the file still reads, as the other convention, but it is not what the game was given.
#[test]
fn a_total_length_that_disagrees_with_the_base_is_an_error() {
    let base = generate(2, Size::Tiny);
    let mut bytes = base.to_bytes().unwrap();
    let total = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
    let other = if total == bytes.len() {
        bytes.len() - 4
    } else {
        bytes.len()
    };
    bytes[..4].copy_from_slice(&(other as u32).to_le_bytes());
    let found: Vec<_> = new_problems_of_bytes(&bytes, &base)
        .into_iter()
        .map(|p| (p.code, p.severity))
        .collect();
    assert_eq!(found, [(Code::Container, Severity::Error)]);
}

/// Rotations are 4096 to the turn (notes 001, 003). One of a turn or more is looked up in the
/// engine's 4096-entry sine table; whether the engine wraps it the notes do not say.
#[test]
fn rotations_of_a_turn_or_more_are_named() {
    let base = generate(2, Size::Tiny);
    let mut level = base.clone();
    let map = level.map_mut().unwrap();
    let tile = &mut map.tiles[1];
    let position = tile.float.position;
    tile.set_placement(position, tile.float.rotation + 4096);
    map.strats[0].rotation[1] = 5000;
    let found: Vec<_> = problems(&level)
        .into_iter()
        .filter(|p| p.code.as_str().ends_with("rotation"))
        .map(|p| (p.code, p.severity, p.tile, p.strat))
        .collect();
    assert_eq!(
        found,
        [
            (Code::TileRotation, Severity::Warning, Some(1), None),
            (Code::StratRotation, Severity::Warning, None, Some(0)),
        ]
    );
}

/// Note 003 rule 4: a strat's code offset must be "a strat start in this STPC". One inside the
/// code but inside the name instruction of a strat, or where no strat is named, is not.
#[test]
fn a_code_offset_inside_the_code_but_at_no_strat_start_is_an_error() {
    let base = generate(2, Size::Tiny);
    let (llama, _) = the_llama(&base);
    let stpc = base.stpc().unwrap();
    let end = (stpc.code_start() + stpc.code.len()) as u32;
    let start = base.map().unwrap().strats[llama].code_offset;
    for offset in [start + 4, start + 8, end - 4] {
        let mut level = base.clone();
        level.map_mut().unwrap().strats[llama].code_offset = offset;
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == Code::StratCode)
            .map(|p| (p.severity, p.strat))
            .collect();
        assert_eq!(
            found,
            [(Severity::Error, Some(llama))],
            "offset {offset:#x}"
        );
    }
}

/// Face planes are n = normalize((v1 − v0) × (v2 − v0)), d = n·v0 of the stored corners (note
/// 001 §3, verified for every original face): a plane 0.001 off is not float rounding.
#[test]
fn a_face_plane_off_by_a_thousandth_is_named() {
    let base = generate(2, Size::Tiny);
    for component in [0, 3] {
        let mut level = base.clone();
        level.trak_mut().unwrap().models[1].faces[0].plane[component] += 0.001;
        let found: Vec<_> = new_problems_of_bytes(&level.to_bytes().unwrap(), &base)
            .into_iter()
            .map(|p| (p.code, p.model, p.face))
            .collect();
        assert_eq!(
            found,
            [(Code::FacePlane, Some(1), Some(0))],
            "component {component}"
        );
    }
}

/// Collision d is an i16 in 20.12 (notes 001, 002): polygons within ±8 units of the tile origin.
/// A floor written by hand reaching 8.03 units out is named; one reaching 7.99 is not.
#[test]
fn collision_reaching_past_8_units_is_named() {
    let base = generate(2, Size::Tiny);
    let reach = |far: f64| {
        let mut strip = hand_square();
        let at = |x: f64| (4064.0 * x).round() as i16;
        strip.planes[1].d = at(far - 0.5);
        strip.planes[3].d = -at(far);
        let (level, model) = with_polygon(&base, strip);
        let found: Vec<_> = problems(&level)
            .into_iter()
            .filter(|p| p.code == Code::CollisionReach)
            .map(|p| (p.model, p.polygon))
            .collect();
        (found, model)
    };
    let (found, model) = reach(8.03);
    assert_eq!(found, [(Some(model), Some(0))]);
    assert_eq!(reach(7.99).0, []);
}

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
