//! Vertex colours from the glTF: exact raw bytes where the shown colour was left alone, the
//! shown colour halved where it was painted (the game doubles, FORMAT.md §6).

use super::attributes::integer;
use crate::gltf::read::Triangles;
use crate::level::map::Rgba;
use crate::raw::face_flags;

/// Displayed colours survive a tool that stores them as 8-bit sRGB within this (in 0..1).
const COLOUR_TOLERANCE: f32 = 2.5 / 255.0;

/// What the game shows for a raw colour byte, in 0..1 (sRGB): doubled and clamped.
pub(super) fn shown(byte: u8) -> f32 {
    (byte as f32 * 2.0).min(255.0) / 255.0
}

/// The raw byte that shows a colour (0..1, sRGB): halved, as the game doubles.
pub(super) fn halve(shown: f32) -> u8 {
    (shown * 255.0 / 2.0).round().clamp(0.0, 255.0) as u8
}

/// Whether two corners ask for the same colour: within a step of the raw bytes, what a tool
/// storing colours as 8-bit sRGB keeps.
pub(super) fn same_colour(a: [u8; 3], b: [u8; 3]) -> bool {
    (0..3).all(|k| a[k].abs_diff(b[k]) <= 1)
}

/// Whether the corners of some vertex ask for different colours (painted per corner), which
/// only vertices of their own can show.
pub(super) fn colours_differ(corners: &[CornerColour], vertex_of_corner: &[usize]) -> bool {
    let mut asked: std::collections::HashMap<usize, [u8; 3]> = Default::default();
    vertex_of_corner
        .iter()
        .zip(corners)
        .any(|(&v, c)| match c.wanted() {
            Some(w) => !same_colour(*asked.entry(v).or_insert(w), w),
            None => false,
        })
}

pub(super) fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * libm::powf(c, 1.0 / 2.4) - 0.055
    }
}

/// One corner's colour as the file carries it: the raw frames when they are there, and what the
/// viewer shows (sRGB).
pub(super) struct CornerColour {
    /// Frame 0's raw bytes, apart from the others: most tiles have one frame, and a corner's
    /// colour then needs no allocation of its own.
    raw: Option<Rgba>,
    later_frames: Vec<Option<Rgba>>,
    shown: Option<[f32; 3]>,
    /// Faces with flag 0x4000 show white whatever their colour: they say nothing about it.
    ignored: bool,
}

pub(super) fn corner_colours(
    tris: &Triangles,
    frames: usize,
    flags: &[Option<u16>],
) -> Vec<CornerColour> {
    let rgb: Vec<Option<&[f32]>> = (0..frames)
        .map(|k| tris.scalar(&format!("RGB_{k}")))
        .collect();
    let alpha: Vec<Option<&[f32]>> = (0..frames)
        .map(|k| tris.scalar(&format!("ALPHA_{k}")))
        .collect();
    (0..tris.positions.len())
        .map(|c| {
            let raw = |k: usize| {
                let packed = integer(rgb[k]?[c])?;
                let a = integer(alpha[k]?[c])?;
                (0..1 << 24).contains(&packed).then_some(())?;
                (0..256).contains(&a).then_some(())?;
                Some([
                    packed as u8,
                    (packed >> 8) as u8,
                    (packed >> 16) as u8,
                    a as u8,
                ])
            };
            let shown = tris.colours.as_ref().and_then(|cs| {
                let [r, g, b, _] = cs[c];
                [r, g, b]
                    .iter()
                    .all(|v| v.is_finite())
                    .then(|| [r, g, b].map(|v| linear_to_srgb(v.clamp(0.0, 1.0))))
            });
            CornerColour {
                raw: (frames > 0).then(|| raw(0)).flatten(),
                later_frames: (1..frames).map(raw).collect(),
                shown,
                ignored: flags[c / 3].is_some_and(|f| f & face_flags::IGNORE_COLOURS != 0),
            }
        })
        .collect()
}

impl CornerColour {
    /// The colour (frame 0, RGB) the corner asks its vertex for: its raw bytes where the shown
    /// colour was left alone, else the shown colour halved; None when it says nothing (no colour,
    /// or a face that ignores colours).
    pub(super) fn wanted(&self) -> Option<[u8; 3]> {
        if let Some(raw) = self.trusted_raw(0) {
            return Some([raw[0], raw[1], raw[2]]);
        }
        match (self.shown, self.ignored) {
            (Some(s), false) => Some(s.map(halve)),
            _ => None,
        }
    }

    /// The raw bytes of frame 0 when the shown colour still agrees with them.
    fn trusted_raw(&self, frame: usize) -> Option<Rgba> {
        let raw = match frame {
            0 => self.raw?,
            k => self.later_frames.get(k - 1).copied().flatten()?,
        };
        if frame > 0 || self.ignored {
            return Some(raw);
        }
        match self.shown {
            Some(s) if (0..3).any(|k| (s[k] - shown(raw[k])).abs() > COLOUR_TOLERANCE) => None,
            _ => Some(raw),
        }
    }
}

/// Colours for a model's vertices from the corners that use them: the raw bytes where the shown
/// colour was not changed, otherwise the shown colour halved (the game doubles). Vertices no
/// corner speaks for keep `base` (the tile's colours when its model is unchanged).
pub(super) fn vertex_colours(
    corners: &[CornerColour],
    vertex_of_corner: &[usize],
    vertex_count: usize,
    frames: usize,
    base: Option<&[Rgba]>,
) -> Vec<Rgba> {
    let frames = frames.max(1);
    let has_frame = |k: usize| {
        (0..vertex_count).all(|v| {
            vertex_of_corner
                .iter()
                .zip(corners)
                .any(|(&cv, c)| cv == v && c.trusted_raw(k).is_some())
        })
    };
    let base = base.filter(|b| b.len() == vertex_count * frames);
    let frames = if base.is_some() || (1..frames).all(has_frame) {
        frames
    } else {
        1
    };
    let mut out = match base {
        Some(b) => b.to_vec(),
        None => vec![[0x80, 0x80, 0x80, 0]; vertex_count * frames],
    };
    let mut sum = vec![[0.0f32; 3]; vertex_count];
    let mut n = vec![0u32; vertex_count];
    let mut raw0: Vec<Option<Rgba>> = vec![None; vertex_count];
    for (&v, c) in vertex_of_corner.iter().zip(corners) {
        for k in 1..frames {
            if let Some(raw) = c.trusted_raw(k) {
                out[k * vertex_count + v] = raw;
            }
        }
        if let Some(raw) = c.trusted_raw(0) {
            raw0[v].get_or_insert(raw);
        } else if let (Some(s), false) = (c.shown, c.ignored) {
            for k in 0..3 {
                sum[v][k] += s[k];
            }
            n[v] += 1;
        }
    }
    for v in 0..vertex_count {
        if let Some(raw) = raw0[v] {
            out[v] = raw;
        } else if n[v] > 0 {
            let [r, g, b] = sum[v].map(|s| halve(s / n[v] as f32));
            out[v] = [r, g, b, out[v][3]];
        }
    }
    // Byte 3 of a tile's first entry is its number of colour sets.
    if let Some(first) = out.first_mut() {
        if frames > 1 {
            first[3] = frames as u8;
        } else if first[3] > 1 {
            first[3] = 1;
        }
    }
    out
}
