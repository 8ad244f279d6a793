//! `models`: the level's object models (the core's `game::object_models`) as a table.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use llamawad::game::object_models::object_models;

use crate::strats::write_table;
use crate::{parse, Result};

pub fn models(path: &Path, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let level = parse(path, &llamawad::read_level_bytes(path)?)?;
    let models = object_models(&level);
    if json {
        // Serialised first and written as text, so that a write error stays an io::Error.
        let json = serde_json::to_string_pretty(&models)?;
        writeln!(out, "{json}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}: {} object models", path.display(), models.len())?;
    if models.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out)?;
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join(" ")
        }
    };
    let mut rows = vec![[
        "#",
        "kind",
        "vertices",
        "faces",
        "collision",
        "pages",
        "animation sets with its bones",
    ]
    .map(String::from)
    .to_vec()];
    for m in &models {
        let kind = match m.bones {
            0 => "rigid".to_string(),
            1 => "skinned, 1 bone".to_string(),
            n => format!("skinned, {n} bones"),
        };
        rows.push(vec![
            m.index.to_string(),
            kind,
            m.vertices.to_string(),
            m.faces.to_string(),
            m.collision_polygons.to_string(),
            list(m.pages.iter().map(i8::to_string).collect()),
            list(
                m.animation_sets_with_its_bones
                    .iter()
                    .map(usize::to_string)
                    .collect(),
            ),
        ]);
    }
    write_table(out, &rows, "rlrrrll")?;
    writeln!(
        out,
        "\nEach can be reshaped and retextured in place; its vertex, face and bone counts stay, since the strat code refers into STPC by byte offsets. Which model an animation set moves the notes do not say."
    )?;
    Ok(ExitCode::SUCCESS)
}
