//! `llamawad info --json` on a full-size generated level reports what the generator put in.

use std::process::Command;

use llamawad::generate::{generate, Size};

#[test]
fn info_json_reports_the_generated_level() {
    let level = generate(1, Size::Full);
    let bytes = level.to_bytes().unwrap();
    let dir = std::env::temp_dir().join(format!("llamawad-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("full.wad");
    std::fs::write(&path, &bytes).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .args(["info", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // Counted here from the model, independently of the summary code.
    let trak = level.trak().unwrap();
    let map = level.map().unwrap();
    let text = level.text().unwrap();
    let stpc = level.stpc().unwrap();
    let tile_faces: usize = map
        .tiles
        .iter()
        .map(|t| trak.models[t.model_index as usize].faces.len())
        .sum();
    let collision: usize = trak
        .models
        .iter()
        .map(|m| m.collision.iter().map(Vec::len).sum::<usize>())
        .sum();
    assert_eq!(info["file_size"], bytes.len());
    assert_eq!(info["tiles"], map.tiles.len());
    assert_eq!(info["models"], trak.models.len());
    assert_eq!(info["tile_faces"], tile_faces);
    assert_eq!(info["collision_polygons"], collision);
    assert_eq!(info["pages"], text.pages.len());
    // Each page: flags, width, height, an RLE16 page's length, its pixels.
    let page_bytes: usize = text
        .pages
        .iter()
        .map(|p| 12 + 4 * (p.flags & 0x80 != 0) as usize + p.data.len())
        .sum();
    assert_eq!(info["page_bytes"], page_bytes);
    assert_eq!(info["texture_entries"], text.entries.len());
    assert_eq!(info["object_models"], stpc.models.len());
    assert_eq!(info["strats"], map.strats.len());
    assert_eq!(info["wfpc"], level.wfpc());
    assert_eq!(level.wfpc() & 0x100, 0x100, "seed 1 has the STPC block");
    assert_eq!(info["stpc_extra_block"], "with_models");
    let extra_models: usize = stpc
        .extra_block
        .as_ref()
        .unwrap()
        .entries
        .iter()
        .map(|e| e.models.len())
        .sum();
    assert!(extra_models > 0);
    assert_eq!(info["grid"], serde_json::json!([map.width, map.height]));
    assert_eq!(info["strat_types"]["Llama"], 1);
    let by_type: u64 = info["strat_types"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(by_type as usize, map.strats.len());
    let chunk_sizes: u64 = info["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["size"].as_u64().unwrap() + 8)
        .sum();
    assert!(chunk_sizes as usize <= bytes.len() - 4);

    // The size of the originals' first level, as the generator promises.
    let near = |key: &str, target: f64| {
        let v = info[key].as_f64().unwrap();
        assert!(
            (v - target).abs() <= target * 0.1,
            "{key} = {v}, expected about {target}"
        );
    };
    near("tiles", 1750.0);
    near("models", 450.0);
    near("tile_faces", 26000.0);
    assert_eq!(info["pages"], 8);
    assert_eq!(info["object_models"], 30);
}

/// `info` and `info --json` of a generated level whose LGHT payload is `payload`.
fn info_with_lights(payload: &[u8], what: &str) -> (String, serde_json::Value) {
    use llamawad::container::Tag;
    use llamawad::level::ChunkBody;
    let mut level = generate(2, Size::Tiny);
    let chunk = level
        .chunks
        .iter_mut()
        .find(|c| c.tag == Tag::LGHT)
        .unwrap();
    chunk.body = ChunkBody::Raw(payload.to_vec());
    let dir = std::env::temp_dir().join(format!("llamawad-info-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("level.wad");
    std::fs::write(&path, level.to_bytes().unwrap()).unwrap();
    let run = |json: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_llamawad"));
        command.arg("info");
        if json {
            command.arg("--json");
        }
        let out = command.arg(&path).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (text, json) = (run(false), run(true));
    std::fs::remove_dir_all(&dir).unwrap();
    (text, serde_json::from_str(&json).unwrap())
}

fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn info_says_what_the_lght_chunk_holds_and_how_it_was_read() {
    // A light of type 0, then a sun of type 1 with three words, and a point of type 2 stored at
    // z 1.5 (positive: over the 3-row grid as note 002 has it, past it negated).
    let payload = words(&[
        3,
        0x0020_2000,
        0x0080_8001,
        0,
        4096,
        0,
        0x0040_6002,
        0x2800,
        0x1000,
        0x1800,
    ]);
    let (text, json) = info_with_lights(&payload, "read");
    assert!(text.contains("  lights                    3\n"), "{text}");
    assert!(!text.contains("no LGHT chunk"), "{text}");
    assert!(
        text.contains(
            "lights (LGHT, 40 bytes)\n  3 lights: type 0 ×1 (no words), type 1 ×1 (3 words), \
             type 2 ×1 (3 words)\n  read with the notes' word counts"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "z is stored as game space has it, the grid row (note 002): only this reading puts \
             every point light over the grid"
        ),
        "{text}"
    );
    let chunk = &json["light_chunk"];
    assert_eq!(json["lights"], 3);
    assert_eq!(chunk["bytes"], 40);
    assert_eq!(chunk["reading"]["by"], "notes");
    assert_eq!(chunk["z"]["z"], "game_space");
    assert_eq!(chunk["z"]["why"], "only_this_inside");
    assert_eq!(
        chunk["types"],
        serde_json::json!([
            {"kind": 0, "count": 1, "words": 0},
            {"kind": 1, "count": 1, "words": 3},
            {"kind": 2, "count": 1, "words": 3},
        ])
    );
    assert!(chunk["kept_as_bytes"].is_null());
}

#[test]
fn info_says_why_an_lght_chunk_is_kept_as_bytes() {
    // Two lights in 12 bytes: types 0 and 0 leave 4 bytes over, and nothing else reads them.
    let (text, json) = info_with_lights(&words(&[2, 0x100, 0, 0]), "bytes");
    assert!(!text.contains("no LGHT chunk"), "{text}");
    assert!(
        text.contains("  lights                    (LGHT kept as bytes: see lights below)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "lights (LGHT, 16 bytes)\n  kept as bytes, no reading explains it: LGHT chunk, byte"
        ),
        "{text}"
    );
    assert!(text.contains("neither the notes' word counts"), "{text}");
    assert!(json["lights"].is_null());
    let chunk = &json["light_chunk"];
    assert_eq!(chunk["bytes"], 16);
    assert!(chunk["reading"].is_null());
    assert!(chunk["kept_as_bytes"]
        .as_str()
        .unwrap()
        .contains("expected 2 lights one reading explains"));
}
