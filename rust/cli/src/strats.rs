//! `strats`, `strat-table` and `testlevel`: the core's `game::strats` and `game::testlevel` laid
//! out as text. The JSON forms are the core's structs themselves.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use llamawad::game::strats::{OffsetSource, PlacedStrat, StratTable, StratType, Strats, UNNAMED};
use llamawad::game::testlevel::{test_level, TestLevelOptions};
use llamawad::WadError;

use crate::{parse, Result};

pub fn strats(path: &Path, all: bool, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let level = parse(path, &llamawad::read_level_bytes(path)?)?;
    let strats = Strats::of(&level, all).map_err(|e| format!("{}: {e}", path.display()))?;
    if json {
        // Serialised first and written as text, so that a write error stays an io::Error.
        let json = serde_json::to_string_pretty(&strats)?;
        writeln!(out, "{json}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{}: {}, poolExtra {} (room for {}), parameter pool of {}, {}",
        path.display(),
        counted(strats.strats.len(), "strat"),
        strats.pool_extra,
        strats.pool_extra as u64 + llamawad::limits::STRAT_POOL_BASE,
        strats.parameter_pool,
        counted(strats.waypoints, "waypoint")
    )?;
    if !strats.strats.is_empty() {
        writeln!(out)?;
        let mut rows = vec![[
            "#",
            "type",
            "x",
            "y",
            "z",
            "x, y, z (20.12)",
            "rotation x/y/z",
            "y°",
            "flags",
            "at start",
            "waypoint",
            "parameters",
        ]
        .map(String::from)
        .to_vec()];
        rows.extend(strats.strats.iter().map(placed_row));
        write_table(out, &rows, "rlrrrrlrllll")?;
    }
    if let Some(types) = &strats.types {
        writeln!(
            out,
            "\ntypes ({}, {} placeable)",
            types.len(),
            types.iter().filter(|t| t.placeable).count()
        )?;
        let mut rows = vec![["offset", "type", "placed", "type fields", "placeable"]
            .map(String::from)
            .to_vec()];
        rows.extend(types.iter().map(type_row));
        write_table(out, &rows, "llrll")?;
        if types
            .iter()
            .any(|t| t.offset_source == OffsetSource::NameInstruction)
        {
            writeln!(
                out,
                "* never placed: the offset of its name instruction; the code is not decoded, so \
                 the type starts there or up to 16 words before"
            )?;
        }
        for t in types.iter().filter(|t| !t.differing_instances.is_empty()) {
            writeln!(
                out,
                "{}: strats {:?} have other type fields than strat {} (check warns of them)",
                t.name.as_deref().unwrap_or(UNNAMED),
                t.differing_instances,
                t.first_instance.unwrap_or_default()
            )?;
        }
    }
    for note in &strats.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn placed_row(s: &PlacedStrat) -> Vec<String> {
    let [x, y, z] = s.position.map(|v| format!("{v:.3}"));
    let [fx, fy, fz] = s.position_fixed;
    let [rx, ry, rz] = s.rotation;
    let waypoint = match s.waypoint_chain.len() {
        0 if s.waypoint == -1 => "-".to_string(),
        0 => format!("{} (none such)", s.waypoint),
        1 => s.waypoint.to_string(),
        n => format!("{} ({n} in its chain)", s.waypoint),
    };
    let parameters = match &s.parameters {
        Some(p) if p.is_empty() => "-".to_string(),
        Some(p) => p.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
        None => format!(
            "{} from {}: outside the pool",
            s.parameter_count, s.parameter_index
        ),
    };
    vec![
        s.index.to_string(),
        s.type_name.clone().unwrap_or_else(|| UNNAMED.into()),
        x,
        y,
        z,
        format!("{fx}, {fy}, {fz}"),
        format!("{rx}/{ry}/{rz}"),
        format!("{:.2}", s.rotation_y_degrees),
        format!("{:#06x}", s.flags),
        if s.not_created_at_start { "no" } else { "yes" }.into(),
        waypoint,
        parameters,
    ]
}

fn type_row(t: &StratType) -> Vec<String> {
    let offset = match t.offset_source {
        OffsetSource::Placed => format!("{:#x}", t.code_offset),
        OffsetSource::NameInstruction => format!("{:#x}*", t.code_offset),
    };
    let placeable = match &t.why_not {
        None => "yes".to_string(),
        Some(why) => format!("no: {why}"),
    };
    let fields = t.type_fields.map_or_else(String::new, |f| {
        format!(
            "variables {}, slots {}, type flags {:#x}, extra memory {}",
            f.variables, f.slots, f.type_flags, f.extra_memory
        )
    });
    vec![
        offset,
        t.name.clone().unwrap_or_else(|| UNNAMED.into()),
        t.instances.to_string(),
        fields,
        placeable,
    ]
}

pub fn strat_table(dir: &Path, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let table = StratTable::of_folder(dir)?;
    if json {
        let json = serde_json::to_string_pretty(&table)?;
        writeln!(out, "{json}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{}: {}, {}, {} skipped",
        dir.display(),
        counted(table.levels.len(), "level"),
        counted(table.types.len(), "type"),
        counted(table.skipped.len(), "file")
    )?;
    if !table.types.is_empty() {
        writeln!(out)?;
        // Columns headed by the file name without `.wad`; a level without the type shows `.`.
        let stems = table.levels.iter().map(|name| {
            Path::new(name)
                .file_stem()
                .map_or_else(|| name.clone(), |s| s.to_string_lossy().into())
        });
        let mut header = vec!["type".to_string()];
        header.extend(stems);
        header.extend(["total".into(), "levels".into()]);
        let mut rows = vec![header];
        for row in &table.types {
            let mut cells = vec![row.name.clone()];
            cells.extend(row.counts.iter().map(|&c| match c {
                0 => ".".to_string(),
                c => c.to_string(),
            }));
            cells.extend([row.total.to_string(), row.levels.to_string()]);
            rows.push(cells);
        }
        let align = format!("l{}", "r".repeat(table.levels.len() + 2));
        write_table(out, &rows, &align)?;
    }
    if !table.skipped.is_empty() {
        writeln!(out, "\nskipped")?;
        for s in &table.skipped {
            writeln!(out, "  {}: {}", s.file, s.reason)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn testlevel(
    source: &Path,
    output: &Path,
    options: &TestLevelOptions,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let level = parse(source, &llamawad::read_level_bytes(source)?)?;
    let (made, report) =
        test_level(&level, options).map_err(|e| format!("{}: {e}", source.display()))?;
    let bytes = made.to_bytes().map_err(WadError::from)?;
    llamawad::write_atomically(output, &bytes)?;
    if json {
        let json = serde_json::to_string_pretty(&report)?;
        writeln!(out, "{json}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let [w0, h0] = report.grid_before;
    let [w, h] = report.grid;
    let [col, row, width, depth] = report.area;
    writeln!(
        out,
        "{} -> {}: {} bytes",
        source.display(),
        output.display(),
        bytes.len()
    )?;
    writeln!(
        out,
        "grid {w0} x {h0} -> {w} x {h}; test area {width} x {depth} cells from column {col}, row {row}"
    )?;
    writeln!(
        out,
        "{} plates of model {} (the level's flat floor {}; exit floor model {}), {}",
        report.tiles_added,
        report.plate_model,
        report.floor_model,
        report.exit_model,
        counted(report.coverage_tiles, "collision-only tile")
    )?;
    let [x, y, z] = report.player.position;
    writeln!(
        out,
        "player: strat {} ({}) moved to {x:.3}, {y:.3}, {z:.3}",
        report.player.strat, report.player.name
    )?;
    writeln!(
        out,
        "{} placed (poolExtra {} -> {}):",
        counted(report.placed.len(), "strat"),
        report.pool_extra[0],
        report.pool_extra[1]
    )?;
    let mut rows = vec![["strat", "type", "x", "y", "z"].map(String::from).to_vec()];
    rows.extend(report.placed.iter().map(|p| {
        let [x, y, z] = p.position.map(|v| format!("{v:.3}"));
        vec![p.strat.to_string(), p.name.clone(), x, y, z]
    }));
    write_table(out, &rows, "rlrrr")?;
    if !report.left_out.is_empty() {
        writeln!(out, "left out")?;
        for l in &report.left_out {
            writeln!(out, "  {}: {}", l.name, l.reason)?;
        }
    }
    for w in &report.new_warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// Rows of cells in columns as wide as their widest cell, two spaces apart, each column aligned
/// `l`eft or `r`ight as `align` says; the last column is not padded.
pub(crate) fn write_table(
    out: &mut impl Write,
    rows: &[Vec<String>],
    align: &str,
) -> std::io::Result<()> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let align: Vec<char> = align.chars().collect();
    for row in rows {
        let mut line = String::from("  ");
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            let last = c + 1 == row.len();
            if align.get(c) == Some(&'r') {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if !last {
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            if !last {
                line.push_str("  ");
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
