//! `probe`, `floors` and `check`: what the engine will do with a level, from the core's
//! `game` module.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use llamawad::game::floor::{Probe, World};
use llamawad::game::floors::{compare_levels, FloorsError};
use llamawad::game::{check_bytes, Report, Severity};
use llamawad::limits::{excerpt, MAX_PROBE_POINTS};
use llamawad::Level;

use crate::{parse, Result};

fn world<'a>(level: &'a Level, path: &Path) -> Result<World<'a>> {
    World::of(level).ok_or_else(|| {
        format!(
            "{}: the level has no MAP or TRAK chunk: nothing to stand on",
            path.display()
        )
        .into()
    })
}

/// A points file larger than this is refused unread: a million points (the cap of `floors`) of
/// three numbers take about 30 MB.
const MAX_POINTS_FILE_BYTES: u64 = 1 << 26;

fn read_level(path: &Path) -> Result<Level> {
    parse(path, &llamawad::read_level_bytes(path)?)
}

/// Points from a file: one `x y z` per line (blank lines and `#` comments skipped).
fn read_points(path: &Path) -> Result<Vec<[f64; 3]>> {
    // A regular file only: /dev/zero never ends, and opening a pipe waits for a writer.
    let text = String::from_utf8(llamawad::read_bytes(path, MAX_POINTS_FILE_BYTES)?)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if points.len() == MAX_PROBE_POINTS {
            return Err(format!(
                "{} line {}: more than {MAX_PROBE_POINTS} points; at most {MAX_PROBE_POINTS} are \
                 probed at a time",
                path.display(),
                n + 1
            )
            .into());
        }
        let values: Vec<f64> = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| {
                format!(
                    "{} line {}: {e} in `{}`",
                    path.display(),
                    n + 1,
                    excerpt(line)
                )
            })?;
        match values[..] {
            [x, y, z] if values.iter().all(|v| v.is_finite()) => points.push([x, y, z]),
            _ => {
                return Err(format!(
                    "{} line {}: expected three numbers `x y z`, found `{}`",
                    path.display(),
                    n + 1,
                    excerpt(line)
                )
                .into())
            }
        }
    }
    Ok(points)
}

pub fn probe(
    level_path: &Path,
    point: Option<[f64; 3]>,
    points_file: Option<&PathBuf>,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let level = read_level(level_path)?;
    let world = world(&level, level_path)?;
    let points = match (point, points_file) {
        (Some(p), None) => vec![p],
        (None, Some(file)) => read_points(file)?,
        _ => return Err("give either X Y Z or --points FILE".into()),
    };

    for point in points {
        let probe = world.probe_point(point)?;
        if json {
            writeln!(out, "{}", serde_json::to_string(&probe)?)?;
        } else {
            write_probe(out, &probe)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_probe(out: &mut impl Write, p: &Probe) -> std::io::Result<()> {
    write!(out, "at {:.4} {:.4} {:.4}: ", p.x, p.y, p.z)?;
    match (&p.cell, &p.floor, &p.no_floor) {
        (None, ..) => writeln!(out, "outside the grid: no floor")?,
        (Some(_), Some(f), _) => writeln!(
            out,
            "floor at {:.4} (tile {} polygon {}, material {})",
            f.height, f.tile, f.polygon, f.material
        )?,
        (Some(_), None, Some(f)) => writeln!(
            out,
            "no floor: material {} wins (tile {} polygon {}, at {:.4}): water or death plane",
            f.material, f.tile, f.polygon, f.height
        )?,
        (Some(_), None, None) => writeln!(out, "no floor: the llama falls")?,
    }
    if let Some(a) = &p.surface_above {
        writeln!(
            out,
            "  surface above at {:.4} (tile {} polygon {})",
            a.height, a.tile, a.polygon
        )?;
    }
    for c in &p.candidates {
        let verdict = match (c.passed, c.above) {
            (true, false) => "passes",
            (true, true) => "above the feet",
            (false, _) => "outside its edges",
        };
        writeln!(
            out,
            "  tile {:>5} polygon {:>3}: height {:>9.4} dist {:>9.4} edges {:?} (tolerance {}) {verdict}",
            c.tile, c.polygon, c.height, c.dist, c.edges, c.tolerance
        )?;
    }
    Ok(())
}

pub fn floors(
    a_path: &Path,
    b_path: &Path,
    count: usize,
    seed: u64,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let (a, b) = (read_level(a_path)?, read_level(b_path)?);
    let c = compare_levels(&a, &b, count, seed).map_err(|e| match e {
        FloorsError::NothingToStandOn { level } => format!(
            "{}: the level has no MAP or TRAK chunk: nothing to stand on",
            [a_path, b_path][level].display()
        ),
        e => e.to_string(),
    })?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        let share = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        writeln!(
            out,
            "{} vs {}: {} points dropped from y = 60",
            a_path.display(),
            b_path.display(),
            c.points
        )?;
        writeln!(out, "  floor in both   {}", c.both)?;
        writeln!(out, "  lost            {}", c.lost)?;
        writeln!(out, "  gained          {}", c.gained)?;
        writeln!(
            out,
            "  within 1 mm     {} ({:.2} %)",
            c.within_1mm,
            share(c.within_1mm, c.both)
        )?;
        writeln!(
            out,
            "  within 5 mm     {} ({:.2} %)",
            c.within_5mm,
            share(c.within_5mm, c.both)
        )?;
        writeln!(out, "  largest         {:.1} mm", c.max_mm)?;
        writeln!(out, "  same material   {}", c.material_same)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn check_command(
    level_path: &Path,
    base_path: Option<&Path>,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let bytes = llamawad::read_level_bytes(level_path)?;
    let base = base_path.map(read_level).transpose()?;
    let report =
        check_bytes(&bytes, base.as_ref()).map_err(|e| format!("{}: {e}", level_path.display()))?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write_report(out, &level_path.display().to_string(), &report)?;
    }
    let new_error = report.new_problems().any(|p| p.severity == Severity::Error);
    Ok(if new_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn write_report(out: &mut impl Write, file: &str, r: &Report) -> std::io::Result<()> {
    let old = r.problems.iter().filter(|p| p.pre_existing).count();
    writeln!(
        out,
        "{file}: {} errors, {} warnings{}",
        r.errors,
        r.warnings,
        if old > 0 {
            format!(" ({old} already in the base)")
        } else {
            String::new()
        }
    )?;
    for p in &r.problems {
        let severity = match p.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let base = if p.pre_existing { " (in the base)" } else { "" };
        writeln!(out, "{severity} [{}]{base}: {}", p.code, p.message)?;
    }
    Ok(())
}
