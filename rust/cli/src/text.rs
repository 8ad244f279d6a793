//! The human-readable form of `llamawad info`. The JSON form is the `Info` struct itself, so this
//! module only lays out what `Info` already holds.

use std::io::{self, Write};

use llamawad::container::{Convention, TotalLength};
use llamawad::info::{Info, LightChunkInfo};
use llamawad::level::stpc::WFPC_STPC_EXTRA_BLOCK;

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
    let lights = match (&info.light_chunk, info.lights) {
        (None, _) => "(no LGHT chunk)".to_string(),
        (Some(_), Some(n)) => n.to_string(),
        (Some(_), None) => "(LGHT kept as bytes: see lights below)".to_string(),
    };
    let [width, height] = info.grid;
    let extra_block = match info.stpc_extra_block {
        Some(_) => "heads, items and models",
        None if info.wfpc & WFPC_STPC_EXTRA_BLOCK != 0 => "(kept with the strat code)",
        None => "(none)",
    };
    let rows: [(&str, String); 15] = [
        ("models", info.models.to_string()),
        ("model faces", info.model_faces.to_string()),
        ("model vertices", info.model_vertices.to_string()),
        // Each model's once; the add-on's import counts them over the tiles.
        (
            "model collision polygons",
            info.collision_polygons.to_string(),
        ),
        ("tiles", format!("{} (grid {width} x {height})", info.tiles)),
        ("faces over tiles", info.tile_faces.to_string()),
        ("tile swaps", info.tile_swaps.to_string()),
        ("palettes", info.palettes.to_string()),
        (
            "pages",
            format!("{} ({} bytes)", info.pages, info.page_bytes),
        ),
        ("texture entries", info.texture_entries.to_string()),
        (
            "object models",
            format!(
                "{} ({} skinned; `models` lists them)",
                info.object_models,
                info.object_model_list
                    .iter()
                    .filter(|m| m.bones > 0)
                    .count()
            ),
        ),
        ("animation sets", info.animation_sets.to_string()),
        ("WFPC 0x100 block", extra_block.to_string()),
        ("lights", lights),
        ("strats", info.strats.to_string()),
    ];
    for (label, value) in rows {
        writeln!(out, "  {label:<26}{value}")?;
    }
    writeln!(
        out,
        "\ncollision plane scale\n  {}",
        info.collision_scale.describe()
    )?;

    writeln!(out, "\nstrats by type")?;
    if info.strat_types.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for (name, count) in &info.strat_types {
        writeln!(out, "  {name:<20}{count}")?;
    }

    if let Some(chunk) = &info.light_chunk {
        write_light_chunk(out, chunk)?;
    }

    writeln!(out, "\nwarnings ({})", info.warnings.len())?;
    for w in &info.warnings {
        writeln!(out, "  - {w}")?;
    }
    Ok(())
}

/// What the LGHT chunk holds, how it was read and which way z is; or why it is kept as bytes.
fn write_light_chunk(out: &mut impl Write, chunk: &LightChunkInfo) -> io::Result<()> {
    writeln!(out, "\nlights (LGHT, {} bytes)", chunk.bytes)?;
    if let Some(why) = &chunk.kept_as_bytes {
        return writeln!(out, "  kept as bytes, no reading explains it: {why}");
    }
    let count: usize = chunk.types.iter().map(|t| t.count).sum();
    let types: Vec<String> = chunk
        .types
        .iter()
        .map(|t| match t.words {
            0 => format!("type {} ×{} (no words)", t.kind, t.count),
            1 => format!("type {} ×{} (1 word)", t.kind, t.count),
            n => format!("type {} ×{} ({n} words)", t.kind, t.count),
        })
        .collect();
    match types.is_empty() {
        true => writeln!(out, "  no lights")?,
        false => writeln!(out, "  {count} lights: {}", types.join(", "))?,
    }
    for line in [&chunk.read_as, &chunk.z_read_as].into_iter().flatten() {
        writeln!(out, "  {line}")?;
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

/// What `gltf2wad` changed, one line per kind of change.
pub fn write_change_report(
    out: &mut impl Write,
    file: &str,
    identical_to_base: bool,
    report: &llamawad::gltf::ChangeReport,
) -> io::Result<()> {
    if identical_to_base {
        writeln!(out, "{file}: nothing changed, byte-identical to the base")?;
    } else {
        writeln!(out, "{file}: written")?;
    }
    let tiles = |list: &[usize]| {
        let shown: Vec<String> = list.iter().take(12).map(usize::to_string).collect();
        let more = if list.len() > 12 {
            format!(" and {} more", list.len() - 12)
        } else {
            String::new()
        };
        format!("{} ({}{more})", list.len(), shown.join(", "))
    };
    let rows: [(&str, &[usize]); 13] = [
        ("tiles moved or turned", &report.tiles_moved),
        ("tiles with new geometry", &report.tiles_reshaped),
        ("tiles recoloured", &report.tiles_recoloured),
        ("tiles emptied", &report.tiles_emptied),
        ("tiles added", &report.tiles_added),
        ("strats moved or turned", &report.strats_moved),
        ("strats tuned", &report.strats_tuned),
        ("strats added", &report.strats_added),
        ("strats removed (bit 1)", &report.strats_removed),
        ("strats restored", &report.strats_restored),
        ("waypoints moved or turned", &report.waypoints_moved),
        ("waypoints inserted", &report.waypoints_added),
        ("strats renumbered", &report.strats_renumbered),
    ];
    for (label, list) in rows {
        if !list.is_empty() {
            writeln!(out, "  {label:<26} {}", tiles(list))?;
        }
    }
    let counts = [
        ("models added", report.models_added),
        (
            "collision polygons changed",
            report.collision_polygons_changed,
        ),
        ("texture entries appended", report.texture_entries_appended),
        ("cells given another zone", report.cells_rezoned),
        ("zone masks changed", report.zone_masks_changed),
        ("parameters appended", report.parameters_appended),
    ];
    for (label, n) in counts {
        if n > 0 {
            writeln!(out, "  {label:<26} {n}")?;
        }
    }
    for w in &report.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}
