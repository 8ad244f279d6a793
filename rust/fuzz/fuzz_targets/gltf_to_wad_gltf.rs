//! Any bytes as a `.gltf` (JSON) with a buffer file beside it in a folder of its own, converted
//! against a fixed base level: what `gltf_to_wad_glb` checks, and that nothing outside the folder
//! is read (a URI that leaves it is refused, whatever the files there).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Inside the fuzz crate's target folder, which git ignores: nothing left in /tmp.
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join(format!("gltf-folder-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("level")).expect("create the fuzz folder");
        dir.join("level")
    })
}

fuzz_target!(|data: &[u8]| {
    let (json, bin) = llamawad_fuzz::split_gltf_input(data);
    let dir = folder();
    std::fs::write(dir.join("level.bin"), bin).expect("write the buffer file");
    if let Ok(doc) = llamawad::gltf::Document::from_slice(json, Some(dir)) {
        for file in &doc.files {
            assert!(file.starts_with(dir.canonicalize().unwrap()), "{} was read", file.display());
        }
        llamawad_fuzz::convert_against_base(&doc);
    }
});
