//! `check` on handmade levels damaged byte by byte where the game reads floats, flags, strat
//! fields and poolExtra: each damage is named with its culprit.

mod support {
    pub mod bytes;
    pub mod handmade;
}

use support::handmade::*;

use llamawad::game::{check, Severity};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::Code;
use llamawad::Level;

/// The problems of `bytes` with `code`, as (severity, tile, model, face, strat).
type Culprits = Vec<(
    Severity,
    Option<usize>,
    Option<usize>,
    Option<usize>,
    Option<usize>,
)>;

fn culprits(bytes: &[u8], code: Code) -> (Culprits, Vec<String>) {
    let report = check(&Level::parse(bytes).unwrap());
    let found: Vec<_> = report.problems.iter().filter(|p| p.code == code).collect();
    (
        found
            .iter()
            .map(|p| (p.severity, p.tile, p.model, p.face, p.strat))
            .collect(),
        found.iter().map(|p| p.message.clone()).collect(),
    )
}

/// The level converted to glTF (JSON that parses, every number finite: glTF holds no other)
/// and back unchanged gives its bytes.
fn unchanged_through_gltf(bytes: &[u8], what: &str) {
    let level = Level::parse(bytes).unwrap();
    let gltf = wad_to_gltf(&level, Source::of(bytes)).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&gltf.to_gltf_json("x.bin"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Every float accessor's values (a NaN position once made its bounds null).
    for (i, accessor) in json["accessors"].as_array().unwrap().iter().enumerate() {
        if accessor["componentType"] != 5126 {
            continue;
        }
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
        let components = match accessor["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let n = accessor["count"].as_u64().unwrap() as usize * components;
        let finite = gltf.bin[start..start + 4 * n]
            .chunks_exact(4)
            .all(|w| f32::from_le_bytes(w.try_into().unwrap()).is_finite());
        assert!(
            finite,
            "{what}: accessor {i} holds a value that is not finite"
        );
    }
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (back, _) = gltf_to_wad(&level, bytes, &doc, GltfToWadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(back.to_bytes().unwrap(), bytes, "{what}");
}

#[test]
fn floats_the_game_reads_that_are_no_numbers_are_errors_naming_where() {
    let base = handmade(false);
    let trak = payload_of(&base, b"TRAK");
    let map = payload_of(&base, b"MAP ");
    // TRAK: the count, two headers of 0x84 bytes (model 1's at 4 + 0x84), model 0 has no data,
    // then model 1's three vertices of 24 bytes and its face of 28 (plane at +12).
    let header_1 = trak + 4 + 0x84;
    let vertex = move |v: usize| trak + 4 + 2 * 0x84 + 24 * v;
    let face_0 = vertex(3);
    let nan = f32::NAN.to_le_bytes();
    let inf = f32::INFINITY.to_le_bytes();
    /// What is damaged: the bytes put where, the culprit `check` names (tile, model, face) and
    /// words of its message.
    struct Case {
        what: &'static str,
        put: Vec<(usize, [u8; 4])>,
        culprit: (Option<usize>, Option<usize>, Option<usize>),
        words: &'static str,
    }
    let cases = [
        Case {
            what: "vertex position",
            put: vec![(vertex(1) + 4, nan)],
            culprit: (None, Some(1), None),
            words: "TRAK model 1 vertex 1: position [",
        },
        Case {
            what: "vertex normal",
            put: vec![(vertex(2) + 12, inf)],
            culprit: (None, Some(1), None),
            words: "TRAK model 1 vertex 2: normal [inf, 1.0, 0.0]",
        },
        Case {
            what: "the whole box",
            put: (0..27).map(|k| (header_1 + 4 * k, nan)).collect(),
            culprit: (None, Some(1), None),
            words: "TRAK model 1 box: its centre [NaN, NaN, NaN]",
        },
        Case {
            what: "face plane",
            put: vec![(face_0 + 12 + 12, nan)],
            culprit: (None, Some(1), Some(0)),
            words: "TRAK model 1 face 0: its plane [",
        },
        Case {
            what: "tile y",
            // MAP: nTiles, W, H, then tile 0's floats x, y, z.
            put: vec![(map + 12 + 4, nan)],
            culprit: (Some(0), None, None),
            words: "tile 0: its position (block 2) x 0.5, y NaN, z 0.5 is not a finite number",
        },
    ];
    for Case {
        what,
        put: values,
        culprit: (tile, model, face),
        words,
    } in cases
    {
        let mut bytes = base.clone();
        for (at, value) in values {
            put(&mut bytes, at, &value);
        }
        let (found, messages) = culprits(&bytes, Code::NotFinite);
        assert_eq!(
            found,
            [(Severity::Error, tile, model, face, None)],
            "{what}: {messages:?}"
        );
        assert!(messages[0].contains(words), "{what}: {messages:?}");
        // No other problem comes of it (no plane or box compared with a NaN).
        let report = check(&Level::parse(&bytes).unwrap());
        // A tile whose x and z are numbers stands in a cell, which is named too.
        let cells: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.code == Code::NotFinite)
            .map(|p| p.cell)
            .collect();
        assert_eq!(cells, [tile.map(|_| [0, 0])], "{what}");
        let others: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.code != Code::NotFinite && p.code != Code::PlayerStart)
            .collect();
        assert!(others.is_empty(), "{what}: {others:#?}");
        unchanged_through_gltf(&bytes, what);
    }
}

#[test]
fn the_swap_flag_without_wfpc_0x10000_is_a_warning() {
    let mut bytes = handmade(false);
    let map = payload_of(&bytes, b"MAP ");
    assert_eq!(culprits(&bytes, Code::TileSwap).0, []);
    // Tile 0's hasAlt (the sixth field of its floats); WFPC is 0.
    put(&mut bytes, map + 12 + 20, &1u32.to_le_bytes());
    let (found, messages) = culprits(&bytes, Code::TileSwap);
    assert_eq!(
        found,
        [(Severity::Warning, Some(0), None, None, None)],
        "{messages:?}"
    );
    assert!(messages[0].contains("WFPC lacks 0x10000"), "{messages:?}");
    unchanged_through_gltf(&bytes, "hasAlt");
}

#[test]
fn a_tile_no_zone_of_a_cell_sees_is_named_though_an_unused_zone_has_mask_0() {
    let mut bytes = handmade(false);
    let map = payload_of(&bytes, b"MAP ");
    // MAP: header, one tile (24), no parameters, zones or waypoints, then the visibility table
    // of 32 {mask, value}. Every cell is in zone 0; zone 0 sees only zone 1, which no cell is
    // in and whose mask 0 would see everything.
    let table = map + 12 + 24 + 4 + 4 + 4;
    put(&mut bytes, table, &2u32.to_le_bytes());
    let (found, messages) = culprits(&bytes, Code::VisibleZone);
    assert_eq!(
        found,
        [(Severity::Warning, Some(0), None, None, None)],
        "{messages:?}"
    );
    // A cell in zone 1 makes zone 1 a camera's zone: its mask 0 sees the tile.
    let grid = table + 32 * 8;
    put(&mut bytes, grid + 4 * 3, &1u32.to_le_bytes());
    assert_eq!(culprits(&bytes, Code::VisibleZone).0, []);
}

/// [`handmade_strats`] with the record of strat `strat` changed by `edit` (its 58 bytes).
fn with_record(strat: usize, edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut bytes = handmade_strats();
    let strats = Level::parse(&bytes).unwrap().map().unwrap().strats.len();
    // MAP is the last chunk; the strats are its last records, 58 bytes each, then the final
    // u16.
    let at = bytes.len() - 2 - 58 * (strats - strat);
    edit(&mut bytes[at..at + 58]);
    bytes
}

#[test]
fn a_player_start_not_created_at_start_is_an_error() {
    // Strat 1 is the Llama; flag bit 1 at offset 54.
    let bytes = with_record(1, |r| r[54] |= 2);
    let (found, messages) = culprits(&bytes, Code::PlayerStart);
    assert!(
        found.contains(&(Severity::Error, None, None, None, Some(1))),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("strat 1 (Llama) is not created at level start")),
        "{messages:?}"
    );
    let created = culprits(&handmade_strats(), Code::PlayerStart).1;
    assert!(
        !created.iter().any(|m| m.contains("not created")),
        "{created:?}"
    );
    unchanged_through_gltf(&bytes, "Llama not created");
}

#[test]
fn an_always_0_strat_field_that_is_not_is_a_warning() {
    let bytes = with_record(2, |r| r[50] = 7);
    let (found, messages) = culprits(&bytes, Code::StratReserved);
    assert_eq!(
        found,
        [(Severity::Warning, None, None, None, Some(2))],
        "{messages:?}"
    );
    assert!(messages[0].contains("offset 50"), "{messages:?}");
    let bytes = with_record(0, |r| r[56] = 1);
    let (found, messages) = culprits(&bytes, Code::StratReserved);
    assert_eq!(found, [(Severity::Warning, None, None, None, Some(0))]);
    assert!(messages[0].contains("offset 56"), "{messages:?}");
    assert_eq!(culprits(&handmade_strats(), Code::StratReserved).0, []);
    unchanged_through_gltf(&bytes, "always 0");
}

#[test]
fn a_pool_extra_past_what_the_engine_can_allocate_is_an_error() {
    let pool = |value: u32| {
        let mut bytes = handmade_strats();
        let strats = Level::parse(&bytes).unwrap().map().unwrap().strats.len();
        // MAP is the last chunk: u32 nStrats, u32 poolExtra, the records, the final u16.
        let at = bytes.len() - 2 - 58 * strats - 4;
        put(&mut bytes, at, &value.to_le_bytes());
        bytes
    };
    let errors = |bytes: &[u8]| {
        let (found, messages) = culprits(bytes, Code::StratPool);
        (
            found.iter().filter(|p| p.0 == Severity::Error).count(),
            messages,
        )
    };
    assert_eq!(errors(&pool(65_536)).0, 0);
    let (n, messages) = errors(&pool(65_537));
    assert_eq!(n, 1, "{messages:?}");
    let bytes = pool(u32::MAX);
    let (n, messages) = errors(&bytes);
    assert_eq!(n, 1, "{messages:?}");
    assert!(
        messages[0].contains("poolExtra is 4294967295")
            && messages[0].contains("which 32 bits do not hold"),
        "{messages:?}"
    );
    unchanged_through_gltf(&bytes, "poolExtra");
}
