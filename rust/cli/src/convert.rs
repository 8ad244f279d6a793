//! `wad2gltf`, `gltf2wad` and `roundtrip`: a level to glTF and back, and written back as it is;
//! no output is ever one of the inputs.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use llamawad::limits::MAX_GLTF_BYTES;
use llamawad::{read_bytes, read_level_bytes, WadError};

use crate::{parse, text, Result};

/// Exit code of `roundtrip` when the written bytes differ from the input.
const EXIT_DIFFERS: u8 = 3;

pub fn wad2gltf(input: &Path, output: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let extension = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let is_glb = match extension.as_deref() {
        Some("glb") => true,
        Some("gltf") => false,
        _ => {
            return Err(
                format!("{}: the output must end in .glb or .gltf", output.display()).into(),
            )
        }
    };
    let bin_path = output.with_extension("bin");
    let written: &[&Path] = if is_glb {
        &[output]
    } else {
        &[output, &bin_path]
    };
    for path in written {
        refuse_overwriting(path, &[(input, "the input level")])?;
    }
    let bytes = read_level_bytes(input)?;
    let level = parse(input, &bytes)?;
    let gltf = llamawad::gltf::wad_to_gltf(&level, llamawad::gltf::Source::of(&bytes))?;
    if is_glb {
        llamawad::write_atomically(output, &gltf.to_glb()?)?;
    } else {
        let bin_name = bin_path
            .file_name()
            .expect("a path with an extension has a file name")
            .to_string_lossy();
        let json = gltf.to_gltf_json(&bin_name);
        llamawad::write_files_atomically(&[(&bin_path, &gltf.bin), (output, &json)])?;
    }
    writeln!(
        out,
        "{} -> {}: {} nodes, {} meshes, {} materials",
        input.display(),
        output.display(),
        gltf.root.nodes.len(),
        gltf.root.meshes.len(),
        gltf.root.materials.len()
    )?;
    for warning in &gltf.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn gltf2wad(
    base: &Path,
    input: &Path,
    output: &Path,
    options: llamawad::gltf::GltfToWadOptions,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    refuse_overwriting(
        output,
        &[(base, "the base level"), (input, "the input glTF")],
    )?;
    let base_bytes = read_level_bytes(base)?;
    let level = parse(base, &base_bytes)?;
    let gltf_bytes = read_bytes(input, MAX_GLTF_BYTES)?;
    let doc = llamawad::gltf::Document::from_slice(&gltf_bytes, input.parent())
        .map_err(|e| format!("{}: {e}", input.display()))?;
    for file in &doc.files {
        refuse_overwriting(output, &[(file, "a buffer of the input glTF")])?;
    }
    let (written, report) = llamawad::gltf::gltf_to_wad(&level, &base_bytes, &doc, options)
        .map_err(|e| format!("{}: {e}", input.display()))?;
    let bytes = written.to_bytes().map_err(WadError::from)?;
    llamawad::write_atomically(output, &bytes)?;
    if json {
        let text = serde_json::to_string_pretty(&report)?;
        writeln!(out, "{text}")?;
    } else {
        text::write_change_report(
            out,
            &output.display().to_string(),
            bytes == base_bytes,
            &report,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn roundtrip(input: &Path, output: &Path, out: &mut impl Write) -> Result<ExitCode> {
    refuse_overwriting(output, &[(input, "the input file")])?;
    let original = read_level_bytes(input)?;
    let written = parse(input, &original)?
        .to_bytes()
        .map_err(WadError::from)?;
    llamawad::write_atomically(output, &written)?;
    let (from, to) = (input.display(), output.display());
    match first_difference(&original, &written) {
        None => {
            writeln!(
                out,
                "{from} -> {to}: byte-identical ({} bytes)",
                written.len()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Some(at) => {
            writeln!(
                out,
                "{from} -> {to}: DIFFERS from the input ({} bytes in, {} bytes out, first difference at byte {at:#x})",
                original.len(),
                written.len()
            )?;
            Ok(ExitCode::from(EXIT_DIFFERS))
        }
    }
}

/// Refuses to write `output` when it is one of `inputs` (each with what it is to the command),
/// before anything is written.
pub(crate) fn refuse_overwriting(output: &Path, inputs: &[(&Path, &str)]) -> Result<()> {
    match inputs.iter().find(|(input, _)| same_file(input, output)) {
        Some((_, role)) => Err(format!(
            "{} is {role}, which is never overwritten: give another output",
            output.display()
        )
        .into()),
        None => Ok(()),
    }
}

/// Whether two paths name the same existing regular file, by identity (device and inode, or
/// volume and file index): other spellings, symbolic and hard links are seen through; a path
/// that does not exist yet is no input. Only regular files are compared: the comparison opens
/// them, and opening a pipe waits for a writer (what is not a regular file is refused later,
/// unread and unwritten).
fn same_file(a: &Path, b: &Path) -> bool {
    let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    regular(a) && regular(b) && same_file::is_same_file(a, b).unwrap_or(false)
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_finds_changed_and_missing_bytes() {
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"abc", b"abd"), Some(2));
        assert_eq!(first_difference(b"abc", b"ab"), Some(2));
        assert_eq!(first_difference(b"ab", b"abc"), Some(2));
        assert_eq!(first_difference(b"", b""), None);
    }

    #[test]
    fn same_file_sees_through_spellings_but_not_missing_files() {
        let dir = std::env::temp_dir().join(format!("llamawad-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.wad");
        std::fs::write(&file, b"x").unwrap();
        assert!(same_file(&file, &dir.join(".").join("a.wad")));
        assert!(!same_file(&file, &dir.join("b.wad")));
        std::fs::write(dir.join("b.wad"), b"x").unwrap();
        assert!(!same_file(&file, &dir.join("b.wad")));
        std::fs::hard_link(&file, dir.join("hard.wad")).unwrap();
        assert!(same_file(&file, &dir.join("hard.wad")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
