//! Which level a glTF was made from: the scene's extras against the base.

use super::error::GltfToWadError;
use super::report::{ChangeReport, GltfToWadOptions};
use super::scene::Scene;
use crate::codes::Code;
use crate::gltf::read::number;
use crate::gltf::wad_to_gltf::Source;
use crate::level::Level;

pub(super) fn check_source(
    base: &Level,
    base_bytes: &[u8],
    scene: &Scene,
    options: GltfToWadOptions,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let Some(ours) = &scene.extras else {
        report.warnings.push(
            "the glTF does not say which level it was made from; the base is taken as given".into(),
        );
        return Ok(());
    };
    let source = Source::of(base_bytes);
    let size = number(&ours["source"]["size"]).map(|v| v as u64);
    let crc = number(&ours["source"]["crc32"]).map(|v| v as u32);
    if size == Some(source.size) && crc == Some(source.crc32) {
        return Ok(());
    }
    let made_from = ours["level_name"].as_str().unwrap_or("?");
    let message = format!(
        "the glTF was made from another level ({made_from}, {} bytes, CRC-32 {}) than the base \
         ({}, {} bytes, CRC-32 {:08x})",
        size.map_or("?".to_string(), |s| s.to_string()),
        crc.map_or("?".to_string(), |c| format!("{c:08x}")),
        base.name().map(|n| n.text()).unwrap_or_else(|| "?".into()),
        source.size,
        source.crc32
    );
    if options.force {
        report
            .warnings
            .push(format!("{message}; converted anyway (forced)"));
        Ok(())
    } else {
        Err(GltfToWadError::level(format!(
            "{message}: give the level it was made from as the base, or force"
        ))
        .code(Code::OtherLevel))
    }
}
