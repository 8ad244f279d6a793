//! `info`: the level's summary (the core's `Info`), as text or JSON.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use llamawad::info::Info;
use llamawad::read_level_bytes;

use crate::{parse, text, Result};

pub fn info(path: &Path, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let bytes = read_level_bytes(path)?;
    let info = Info::of(&parse(path, &bytes)?, bytes.len());
    if json {
        // Serialised first and written as text, so that a write error stays an io::Error.
        let json = serde_json::to_string_pretty(&info)?;
        writeln!(out, "{json}")?;
    } else {
        text::write_info(out, &path.display().to_string(), &info)?;
    }
    Ok(ExitCode::SUCCESS)
}
