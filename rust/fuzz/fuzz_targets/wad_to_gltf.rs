//! Any bytes as a level converted to glTF (and handed over as the add-on's arrays), and the glTF
//! read and converted back against it: a typed error or a result, never a panic, a hang or a huge
//! allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(level) = llamawad::Level::parse(data) else {
        return;
    };
    let Ok(gltf) = llamawad::gltf::wad_to_gltf(&level, llamawad::gltf::Source::of(data)) else {
        return;
    };
    let _ = llamawad::gltf::wad_to_gltf::hand_over::hand_over(&gltf);
    let Ok(glb) = gltf.to_glb() else {
        return;
    };
    if let Ok(doc) = llamawad::gltf::Document::from_slice(&glb, None) {
        let _ = llamawad::gltf::gltf_to_wad(&level, data, &doc, Default::default());
    }
});
