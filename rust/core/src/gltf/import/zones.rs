//! The zones: each cell's zone from the Zones mesh, and the zone masks from the scene's extras.

use super::attributes::per_triangle;
use super::error::ImportError;
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use crate::gltf::read::number;
use crate::level::Level;

/// Each cell's zone from the Zones mesh (`_CELL`, `_ZONE`).
pub(super) fn apply_zones(
    scene: &Scene,
    node: &Node,
    level: &mut Level,
    report: &mut ChangeReport,
) -> Result<(), ImportError> {
    let Some(mesh) = node.mesh else {
        return Ok(());
    };
    let name = node.label();
    let tris = scene
        .triangles(mesh)
        .map_err(|e| ImportError::read(&name, e))?;
    let cells = per_triangle(&tris, "CELL");
    let zones = per_triangle(&tris, "ZONE");
    let map = level.map_mut().expect("checked by the caller");
    let mut rezoned = vec![false; map.region_grid.len()];
    for t in 0..tris.count() {
        let (Some(cell), Some(zone)) = (cells[t], zones[t]) else {
            continue;
        };
        let Some(slot) = usize::try_from(cell)
            .ok()
            .and_then(|c| map.region_grid.get_mut(c))
        else {
            continue;
        };
        if !(0..32).contains(&zone) {
            return Err(
                ImportError::faces(&name, vec![t], format!("zone {zone} is not 0 to 31"))
                    .code("zone-number"),
            );
        }
        if *slot != zone as u32 {
            *slot = zone as u32;
            rezoned[cell as usize] = true;
        }
    }
    report.cells_rezoned = rezoned.iter().filter(|&&r| r).count();
    Ok(())
}

pub(super) fn apply_zone_masks(scene: &Scene, level: &mut Level, report: &mut ChangeReport) {
    let Some(ours) = &scene.extras else {
        return;
    };
    let Some(regions) = ours["regions"].as_array() else {
        return;
    };
    let map = level.map_mut().expect("checked by the caller");
    for (region, value) in map.regions.iter_mut().zip(regions) {
        let mask = number(&value["mask"]).map(|v| v as u32);
        let val = number(&value["value"]).map(|v| v as i32);
        if let (Some(mask), Some(val)) = (mask, val) {
            if (mask, val) != (region.mask, region.value) {
                region.mask = mask;
                region.value = val;
                report.zone_masks_changed += 1;
            }
        }
    }
}
