//! Levels written byte by byte here from the notes' layouts, not by the project's writer or
//! generator: what the generator never makes (an empty model, a model without collision, no
//! object models, no strats, no lights, a 2 × 2 grid, the largest model the engine transforms)
//! reads, writes back byte for byte, converts to glTF and back, and passes the check; and no glTF
//! of one holds an empty list, whatever its lights.

mod support {
    pub mod arrays;
    pub mod bytes;
    pub mod handmade;
}

use support::handmade::*;

use llamawad::game::{check, Severity};
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::Code;
use llamawad::Level;

#[test]
fn a_handmade_level_reads_as_written_and_writes_back_byte_for_byte() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        assert!(level.warnings.is_empty(), "{:?}", level.warnings);
        let models = &level.trak().unwrap().models;
        assert_eq!(models.len(), 2);
        assert!(models[0].vertices.is_empty() && models[0].faces.is_empty());
        assert_eq!(models[0].collision_count(), 0);
        assert_eq!(models[1].vertices.len(), if big { 8000 } else { 3 });
        assert_eq!(models[1].collision_count(), 0);
        let map = level.map().unwrap();
        assert_eq!((map.width, map.height, map.tiles.len()), (2, 2, 1));
        assert_eq!(map.tiles[0].float.position, [0.5, 0.0, -0.5]);
        assert!(map.strats.is_empty());
        assert!(level.stpc().unwrap().models.is_empty());
        assert_eq!(level.to_bytes().unwrap(), bytes, "big: {big}");
    }
}

#[test]
fn a_handmade_level_goes_through_gltf_unchanged_and_keeps_the_rules() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
        let (back, report) =
            gltf_to_wad(&level, &bytes, &doc, GltfToWadOptions::default()).unwrap();
        assert!(report.is_empty(), "{report:?}");
        assert_eq!(back.to_bytes().unwrap(), bytes);
        // No errors; the one warning: no strat is the player (the level has no strats).
        let report = check(&level);
        let codes: Vec<_> = report
            .problems
            .iter()
            .map(|p| (p.code, p.severity))
            .collect();
        assert_eq!(
            codes,
            [(Code::PlayerStart, Severity::Warning)],
            "{:#?}",
            report.problems
        );
    }
}

#[test]
fn a_handmade_level_is_handed_to_the_add_on_as_its_gltf_holds_it() {
    for big in [false, true] {
        let bytes = handmade(big);
        let level = Level::parse(&bytes).unwrap();
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let (hand_over, compared) = support::arrays::check_hand_over(&gltf);
        // No strats, no object models: no batch for them, nothing missed.
        assert!(!hand_over.info.batches.contains_key("object_model"));
        assert!(hand_over.info.batches.contains_key("tile"));
        assert!(compared.held > 0, "big: {big}");
    }
}

#[test]
fn one_vertex_more_than_the_engine_transforms_is_an_error() {
    let mut level = Level::parse(&handmade(true)).unwrap();
    let model = &mut level.trak_mut().unwrap().models[1];
    let v = model.vertices[0];
    model.vertices.push(v);
    level.map_mut().unwrap().tiles[0]
        .colours
        .push([0x80, 0x80, 0x80, 0]);
    let report = check(&level);
    assert!(report.problems.iter().any(|p| p.code == Code::VertexLimit
        && p.severity == Severity::Error
        && p.model == Some(1)));
}

/// Where the JSON holds an empty list or object outside `extras` (which glTF leaves to the
/// application): the validator's EMPTY_ENTITY.
fn empty_entities(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Array(items) => {
            if items.is_empty() {
                out.push(path.to_string());
            }
            for (i, item) in items.iter().enumerate() {
                empty_entities(item, &format!("{path}/{i}"), out);
            }
        }
        serde_json::Value::Object(fields) => {
            for (key, field) in fields {
                if key != "extras" {
                    empty_entities(field, &format!("{path}/{key}"), out);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn no_gltf_of_a_handmade_level_holds_an_empty_list() {
    // No lights; lights no reading explains (kept as bytes); a light of type 0 and a sun, read
    // by the notes' word counts. No strats, waypoints or object models in any.
    let cases = [
        ("no LGHT", handmade(false), None),
        (
            "LGHT kept as bytes",
            handmade_lights(words(&[2, 0x100, 0, 0])),
            None,
        ),
        (
            "LGHT of types 0 and 1",
            handmade_lights(words(&[2, 0x0040_4000, 0x0080_8001, 0, 0x1000, 0])),
            Some(2),
        ),
    ];
    for (what, bytes, lights) in cases {
        let level = Level::parse(&bytes).unwrap();
        assert_eq!(level.lights().map(|l| l.lights.len()), lights, "{what}");
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&gltf.to_gltf_json("x.bin")).unwrap();
        let mut empty = Vec::new();
        empty_entities(&json, "", &mut empty);
        assert!(empty.is_empty(), "{what}: empty lists at {empty:?}");
        // The groups are there, without children where they hold nothing.
        let group = |role: &str| {
            json["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["extras"]["llamawad"] == role)
                .unwrap_or_else(|| panic!("{what}: no {role} group"))
                .clone()
        };
        assert_eq!(
            group("lights")["children"].as_array().map(Vec::len),
            lights,
            "{what}"
        );
        assert!(group("strats").get("children").is_none(), "{what}");
        // The way back gives the level byte for byte.
        let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
        let (back, _) = gltf_to_wad(&level, &bytes, &doc, GltfToWadOptions::default()).unwrap();
        assert_eq!(back.to_bytes().unwrap(), bytes, "{what}");
    }
}
