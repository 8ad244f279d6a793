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
