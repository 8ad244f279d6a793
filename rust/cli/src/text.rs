//! The human-readable form of `llamawad info`. The JSON form is the `Info` struct itself, so this
//! module only lays out what `Info` already holds.

use std::io::{self, Write};

use llamawad::container::{Convention, TotalLength};
use llamawad::info::Info;

pub fn write_info(out: &mut impl Write, file: &str, info: &Info) -> io::Result<()> {
    writeln!(out, "{file}: {} bytes", info.file_size)?;
    writeln!(out, "container   {}", convention(&info.convention))?;
    writeln!(out, "WFPC flags  {:#010x}", info.wfpc)?;
    writeln!(
        out,
        "name        {}",
        info.name.as_deref().unwrap_or("(no NAME chunk)")
    )?;

    writeln!(out, "\nchunks ({})", info.chunks.len())?;
    for c in &info.chunks {
        writeln!(
            out,
            "  {:<4}  {:>10} bytes  {}",
            c.tag.name(),
            c.size,
            c.kept_as
        )?;
    }

    writeln!(out, "\ncounts")?;
    let lights = info
        .lights
        .map_or_else(|| "(no LGHT chunk)".to_string(), |n| n.to_string());
    let [width, height] = info.grid;
    let rows: [(&str, String); 14] = [
        ("models", info.models.to_string()),
        ("model faces", info.model_faces.to_string()),
        ("model vertices", info.model_vertices.to_string()),
        ("collision polygons", info.collision_polygons.to_string()),
        ("tiles", format!("{} (grid {width} x {height})", info.tiles)),
        ("faces over tiles", info.tile_faces.to_string()),
        ("tile swaps", info.tile_swaps.to_string()),
        ("palettes", info.palettes.to_string()),
        ("pages", info.pages.to_string()),
        ("texture entries", info.texture_entries.to_string()),
        ("object models", info.object_models.to_string()),
        ("animation sets", info.animation_sets.to_string()),
        ("lights", lights),
        ("strats", info.strats.to_string()),
    ];
    for (label, value) in rows {
        writeln!(out, "  {label:<20}{value}")?;
    }

    writeln!(out, "\nstrats by type")?;
    if info.strat_types.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for (name, count) in &info.strat_types {
        writeln!(out, "  {name:<20}{count}")?;
    }

    writeln!(out, "\nwarnings ({})", info.warnings.len())?;
    for w in &info.warnings {
        writeln!(out, "  - {w}")?;
    }
    Ok(())
}

fn convention(c: &Convention) -> String {
    let total = match c.total {
        TotalLength::FileSize => "length field = file size",
        TotalLength::FileSizeMinus4 => "length field = file size - 4",
    };
    let size = if c.size_includes_header {
        "chunk sizes include the 8-byte header"
    } else {
        "chunk sizes exclude the header"
    };
    let align = match c.alignment {
        1 => "no padding".to_string(),
        n => format!("chunks aligned to {n} bytes"),
    };
    format!("{total}; {size}; {align}")
}
