//! `bake` and `fit-light`: sun, sky and ambient occlusion baked into tiles' vertex colours, and
//! the light that explains a level's colours (every rule is the core's `game::light`).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use llamawad::game::light::{self, BakeOptions, FitOptions, Lighting};
use llamawad::{read_level_bytes, write_atomically, WadError};

use crate::convert::refuse_overwriting;
use crate::{parse, Result};

/// What `bake` lights with: given, or fitted to the level's own colours first.
pub enum Light {
    Given(Lighting),
    Fitted,
}

impl Light {
    /// From `bake`'s flags: given when the sun, its colour and the sky are all given without
    /// `--fit`, else fitted.
    pub fn of(
        fit: bool,
        sun: Option<[f32; 3]>,
        sun_colour: Option<[f32; 3]>,
        sky: Option<[f32; 3]>,
        occlusion: Option<f32>,
    ) -> Light {
        match (fit, sun, sun_colour, sky) {
            (false, Some(sun_direction), Some(sun_colour), Some(sky_colour)) => {
                Light::Given(Lighting {
                    sun_direction,
                    sun_colour,
                    sky_colour,
                    occlusion: occlusion.unwrap_or(1.0),
                })
            }
            _ => Light::Fitted,
        }
    }
}

/// A triple of numbers given as `X,Y,Z`.
pub fn triple(text: &str) -> std::result::Result<[f32; 3], String> {
    let numbers: Vec<f32> = text
        .split(',')
        .map(|v| v.trim().parse::<f32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("{text}: {e}; give three numbers, as 0.3,-1,0.2"))?;
    numbers
        .try_into()
        .map_err(|_| format!("{text}: give three numbers, as 0.3,-1,0.2"))
}

/// `bake`: `level` with the chosen tiles' colours baked, written to `output`.
pub fn bake(
    level: &Path,
    output: &Path,
    light: Light,
    options: &BakeOptions,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    refuse_overwriting(output, &[(level, "the input level")])?;
    let bytes = read_level_bytes(level)?;
    let mut parsed = parse(level, &bytes)?;
    let lighting = match light {
        Light::Given(lighting) => lighting,
        Light::Fitted => {
            let fitted = light::fit(&parsed, &FitOptions { rays: options.rays })
                .map_err(|e| format!("{}: {e}", level.display()))?;
            fitted.lighting
        }
    };
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal && total > done {
            eprint!("\rbaking: {done} of {total} vertices");
        }
    };
    let report = light::bake(&mut parsed, &lighting, options, &progress)
        .map_err(|e| format!("{}: {e}", level.display()))?;
    if terminal {
        eprint!("\r\x1b[K");
    }
    let written = parsed.to_bytes().map_err(WadError::from)?;
    write_atomically(output, &written)?;
    if json {
        let answer = serde_json::json!({ "lighting": lighting, "report": report });
        writeln!(out, "{answer}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "wrote {}: {} tiles baked ({} vertices)",
        output.display(),
        report.baked.len(),
        report.vertices
    )?;
    writeln!(out, "  light: {}", arguments(&lighting))?;
    if !report.animated_kept.is_empty() {
        writeln!(
            out,
            "  {} tiles with animated colours kept as they were (--animated bakes them too)",
            report.animated_kept.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `fit-light`: the light that explains the level's colours best, and how well.
pub fn fit_light(level: &Path, rays: u32, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let bytes = read_level_bytes(level)?;
    let parsed = parse(level, &bytes)?;
    let fitted = light::fit(&parsed, &FitOptions { rays })
        .map_err(|e| format!("{}: {e}", level.display()))?;
    if json {
        writeln!(out, "{}", serde_json::to_string(&fitted)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let l = &fitted.lighting;
    let [x, y, z] = l.sun_direction;
    let height = libm::asinf(-y / (x * x + y * y + z * z).sqrt()).to_degrees();
    writeln!(
        out,
        "{}: the light that explains its colours best",
        level.display()
    )?;
    writeln!(
        out,
        "  sun going {} ({height:.0}° over the horizon)",
        numbers(l.sun_direction)
    )?;
    writeln!(
        out,
        "  sun colour {}, sky colour {}",
        numbers(l.sun_colour),
        numbers(l.sky_colour)
    )?;
    writeln!(out, "  occlusion {:.2}", l.occlusion)?;
    writeln!(
        out,
        "  unexplained: {:.2} colour steps (root mean square over {} vertices)",
        fitted.error, fitted.vertices
    )?;
    writeln!(out, "  to bake with it: llamawad bake {}", arguments(l))?;
    Ok(ExitCode::SUCCESS)
}

fn numbers(v: [f32; 3]) -> String {
    format!("{:.3},{:.3},{:.3}", v[0], v[1], v[2])
}

/// The light as `bake`'s arguments.
fn arguments(l: &Lighting) -> String {
    format!(
        "--sun {} --sun-colour {} --sky {} --occlusion {:.3}",
        numbers(l.sun_direction),
        numbers(l.sun_colour),
        numbers(l.sky_colour),
        l.occlusion
    )
}
