//! `check` against the notes' checklists (notes 001–003): valid levels corrupted one rule at a
//! time, written, read back and checked; each broken rule is found with its culprit, and what the
//! notes allow is not reported.

mod support {
    pub mod checking;
}

use support::checking::*;

use llamawad::game::floor::World;
use llamawad::game::{check_against, Problem, Severity};
use llamawad::generate::{generate, Size};
use llamawad::raw::CollisionPlane;
use llamawad::Code;
use llamawad::Level;

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
