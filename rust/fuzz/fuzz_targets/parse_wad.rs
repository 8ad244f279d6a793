//! Any bytes: the parser returns a level or a typed error, never panics, hangs or over-allocates;
//! a level that parses writes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(level) = llamawad::Level::parse(data) {
        let bytes = level.to_bytes().expect("a parsed level can be written");
        assert_eq!(bytes, data, "parse → write is not byte-identical");
        let _ = llamawad::info::Info::of(&level, data.len());
        let _ = llamawad::game::check(&level);
    }
});
