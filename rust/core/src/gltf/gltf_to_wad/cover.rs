//! Collision entered into every cell it covers, for every tile a conversion placed or changed.

use crate::codes::Code;
use std::collections::HashMap;

use super::error::{Cause, GltfToWadError};
use super::report::ChangeReport;
use crate::game::coverage;
use crate::level::Level;

/// Enters the collision of every tile this conversion placed or changed into every cell it
/// covers, and frees the coverage tiles that served the base's versions of them.
pub(super) fn cover(
    base: &Level,
    level: &mut Level,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let base_map = base.map().expect("checked by gltf_to_wad");
    let base_models = &base.trak().expect("checked by gltf_to_wad").models;
    let changed_base: Vec<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .chain(&report.tiles_emptied)
        .chain(&report.tiles_retiled)
        .copied()
        .collect();
    let edited: std::collections::HashSet<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .copied()
        .collect();
    let stale: Vec<usize> = coverage::copies_of(base_map, base_models, &changed_base)
        .into_iter()
        .filter(|k| !edited.contains(k))
        .collect();
    let mut owners: Vec<usize> = report
        .tiles_moved
        .iter()
        .chain(&report.tiles_reshaped)
        .chain(&report.tiles_added)
        .copied()
        .collect();
    owners.sort_unstable();
    owners.dedup();
    if owners.is_empty() && stale.is_empty() {
        return Ok(());
    }
    let (map, trak) = level.map_and_trak_mut();
    let (Some(map), Some(trak)) = (map, trak) else {
        unreachable!("cloned from a base with MAP and TRAK");
    };
    let models_before = trak.models.len();
    let change = coverage::rebuild(map, &mut trak.models, &owners, &stale).map_err(|e| {
        GltfToWadError::level(format!(
            "{e}: keep the tile's collision within about 8 units of its origin"
        ))
        .code(Code::CollisionReach)
        .cause(Cause {
            tile: Some(e.tile),
            polygon: Some(e.polygon),
            cell: Some([e.cell.col, e.cell.row].map(i64::from)),
            ..Cause::default()
        })
    })?;
    report.models_added += trak.models.len() - models_before;
    let source_of: HashMap<usize, String> = report.sources.iter().cloned().collect();
    for (&copy, owner) in change.copies.iter().zip(&change.owners) {
        if let Some(name) = source_of.get(owner) {
            report.sources.push((copy, name.clone()));
        }
    }
    report.coverage_tiles = change.copies;
    report.coverage_freed = change.freed;
    report.coverage_removed = change.removed;
    Ok(())
}
