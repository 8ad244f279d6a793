//! Any bytes as a GLB, converted against a fixed base level: a typed error or a level that
//! writes and reads back, never a panic, a hang or a huge allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = llamawad::gltf::Document::from_slice(data, None) {
        llamawad_fuzz::convert_against_base(&doc);
    }
});
