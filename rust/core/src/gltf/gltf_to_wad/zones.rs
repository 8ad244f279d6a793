//! The zones: each cell's zone from the Zones mesh, and the zone masks from the scene's extras.

use super::attributes::per_triangle;
use super::error::{Cause, GltfToWadError};
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use crate::codes::Code;
use crate::gltf::read::integer_in;
use crate::level::map::REGION_COUNT;
use crate::level::Level;

/// Each cell's zone from the Zones mesh (`_CELL`, `_ZONE`).
pub(super) fn apply_zones(
    scene: &Scene,
    node: &Node,
    level: &mut Level,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let Some(mesh) = node.mesh else {
        return Ok(());
    };
    let culprit = node.culprit();
    let tris = scene
        .triangles(mesh)
        .map_err(|e| GltfToWadError::read(&culprit, e))?;
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
            return Err(GltfToWadError::faces(
                &culprit,
                vec![t],
                format!("zone {zone} is not 0 to 31"),
            )
            .code(Code::ZoneNumber)
            .cause(Cause {
                value: Some(zone),
                ..Cause::default()
            }));
        }
        if *slot != zone as u32 {
            *slot = zone as u32;
            rezoned[cell as usize] = true;
        }
    }
    report.cells_rezoned = rezoned.iter().filter(|&&r| r).count();
    Ok(())
}

/// Each zone's mask and value from the scene's extras (`regions`). A zone without both keeps the
/// base's; a mask that is no u32, a value that is no i32 or more zones than the table holds are
/// refused by name, never clamped or cut off.
pub(super) fn apply_zone_masks(
    scene: &Scene,
    level: &mut Level,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let Some(ours) = &scene.extras else {
        return Ok(());
    };
    let Some(regions) = ours["regions"].as_array() else {
        return Ok(());
    };
    let refuse = |message: String, cause: Cause| {
        Err(GltfToWadError::level(message)
            .code(Code::ZoneMask)
            .cause(cause))
    };
    if regions.len() > REGION_COUNT {
        return refuse(
            format!(
                "the scene's extras list {} zones; the zone table holds at most {REGION_COUNT}",
                regions.len()
            ),
            Cause::too_many(regions.len(), REGION_COUNT),
        );
    }
    let map = level.map_mut().expect("checked by the caller");
    for (k, (region, value)) in map.regions.iter_mut().zip(regions).enumerate() {
        let (mask, val) = (&value["mask"], &value["value"]);
        if mask.is_null() || val.is_null() {
            continue;
        }
        let (Some(mask), Some(val)) = (integer_in::<u32>(mask), integer_in::<i32>(val)) else {
            return refuse(
                format!(
                    "zone {k}: mask {mask} and value {val} must be whole numbers, the mask 0 to {} and the value {} to {}",
                    u32::MAX,
                    i32::MIN,
                    i32::MAX
                ),
                Cause {
                    zone: Some(k),
                    ..Cause::default()
                },
            );
        };
        if (mask, val) != (region.mask, region.value) {
            region.mask = mask;
            region.value = val;
            report.zone_masks_changed += 1;
        }
    }
    Ok(())
}
