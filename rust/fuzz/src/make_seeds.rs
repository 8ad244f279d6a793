//! Writes the fuzzers' seed corpora from the level fixtures (pages shrunk to 8×8): the WADs for
//! `parse_wad` and `wad_to_gltf`, their glTFs as GLBs for `gltf_to_wad_glb` and as JSON with a
//! buffer for `gltf_to_wad_gltf`.

use std::path::Path;

use llamawad::gltf::{wad_to_gltf, Source};
use llamawad::Level;

fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/corpus").to_string());
    let root = Path::new(&root);
    for (name, bytes) in llamawad_fuzz::shrunk_fixtures() {
        let level = Level::parse(&bytes).expect("a shrunk fixture parses");
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).expect("a fixture converts");
        let json = gltf.to_gltf_json("level.bin");
        let seeds = [
            ("parse_wad", format!("{name}.wad"), bytes.clone()),
            ("wad_to_gltf", format!("{name}.wad"), bytes.clone()),
            ("gltf_to_wad_glb", format!("{name}.glb"), gltf.to_glb().expect("a fixture's GLB fits")),
            (
                "gltf_to_wad_gltf",
                format!("{name}.gltf+bin"),
                llamawad_fuzz::join_gltf_input(&json, &gltf.bin),
            ),
        ];
        for (target, file, data) in seeds {
            let dir = root.join(target);
            std::fs::create_dir_all(&dir).expect("create a corpus folder");
            let path = dir.join(file);
            std::fs::write(&path, &data).expect("write a seed");
            println!("{}: {} bytes", path.display(), data.len());
        }
    }
}
