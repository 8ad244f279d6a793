//! The colours the glTF shows: collision materials and zones (for telling them apart), and the
//! vertex colours as the game shows them.

use crate::level::map::Rgba;
use crate::raw::face_flags::IGNORE_COLOURS;

/// Colour of each collision material: ground neutral, the special ones loud.
pub fn collision_material_colour(material: u8) -> [f32; 3] {
    match material {
        0 => [0.45, 0.55, 0.45],
        16 => [1.0, 0.85, 0.0],
        17 => [0.0, 0.8, 1.0],
        18 => [0.2, 0.3, 1.0],
        30 => [1.0, 0.05, 0.05],
        m => hue(m as u32 * 37 % 360),
    }
}

/// Colour of each visibility zone, spread around the hue circle.
pub fn zone_colour(zone: u32) -> [f32; 3] {
    hue((zone * 137) % 360)
}

fn hue(degrees: u32) -> [f32; 3] {
    let h = degrees as f32 / 60.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    [0.15 + 0.7 * r, 0.15 + 0.7 * g, 0.15 + 0.7 * b]
}

/// The game doubles vertex colours and clamps (0x80 = 1.0); a glTF colour is linear.
pub fn displayed_colour(c: &Rgba, table: &[f32; 256]) -> [f32; 4] {
    let channel = |v: u8| table[(v as usize * 2).min(255)];
    [channel(c[0]), channel(c[1]), channel(c[2]), 1.0]
}

/// The colour a corner shows (COLOR_0): white on a face whose flags say it ignores vertex
/// colours, else its colour as the game shows it.
pub fn shown_colour(c: &Rgba, ignores_colours: bool, table: &[f32; 256]) -> [f32; 4] {
    if ignores_colours {
        [1.0; 4]
    } else {
        displayed_colour(c, table)
    }
}

/// [`shown_colour`] of each corner: its raw colour (R + G·256 + B·65536, byte 3 not read) and
/// its face's flags; four values a corner.
pub fn shown_colours(raw: &[u32], flags: &[u16]) -> Vec<f32> {
    let table = srgb_to_linear_table();
    raw.iter()
        .zip(flags)
        .flat_map(|(&c, &f)| shown_colour(&c.to_le_bytes(), f & IGNORE_COLOURS != 0, &table))
        .collect()
}

/// Linear values of the 256 sRGB byte values, the table [`displayed_colour`] reads.
pub fn srgb_to_linear_table() -> [f32; 256] {
    std::array::from_fn(|i| {
        let c = i as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            libm::powf((c + 0.055) / 1.055, 2.4)
        }
    })
}
