//! Any bytes: the parser returns a level or a typed error, never panics, hangs or over-allocates;
//! a level that parses writes back to the same bytes, and its light bakes and fits (few rays)
//! to a level or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(level) = llamawad::Level::parse(data) {
        let bytes = level.to_bytes().expect("a parsed level can be written");
        assert_eq!(bytes, data, "parse → write is not byte-identical");
        let _ = llamawad::info::Info::of(&level, data.len());
        let _ = llamawad::game::check(&level);
        light(level);
    }
});

fn light(mut level: llamawad::Level) {
    use llamawad::game::light::{bake, fit, BakeOptions, FitOptions, Lighting};
    let lighting = Lighting {
        sun_direction: [0.4, -1.0, 0.3],
        sun_colour: [0.7, 0.6, 0.5],
        sky_colour: [0.3, 0.35, 0.4],
        occlusion: 1.0,
    };
    let _ = fit(&level, &FitOptions { rays: 1 });
    let options = BakeOptions {
        rays: 4,
        ..BakeOptions::default()
    };
    if bake(&mut level, &lighting, &options, &|_, _| {}).is_ok() {
        level.to_bytes().expect("a baked level can be written");
    }
}
