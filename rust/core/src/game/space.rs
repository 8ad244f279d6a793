//! The engine's fixed-point game space: 20.12 numbers (4096 = 1 unit), angles of 4096 steps to the
//! turn, and the tile frame the collision tests work in (FORMAT.md §2 and §4, floor test step 1),
//! with a tile's collision polygons placed in world space.

use std::sync::OnceLock;

use glam::DVec3;

use crate::geometry::{decode_collision_polygon, PlaneScale};
use crate::level::Tile;
use crate::raw::CollisionPolygon;

/// One unit in 20.12 fixed point.
pub const ONE: i32 = 4096;
/// Angle steps in a full turn (MAP rotations).
pub const TURN: u32 = 4096;

/// 20.12 fixed point of a game-space number, rounded to the nearest step.
pub fn to_fixed(v: f64) -> i32 {
    (v * ONE as f64).round() as i32
}

pub fn from_fixed(v: i64) -> f64 {
    v as f64 / ONE as f64
}

/// A MAP angle (4096 steps to the turn) in degrees: 1024 is 90°. Not wrapped: 4096 is 360°.
pub fn degrees(angle: u32) -> f64 {
    angle as f64 * 360.0 / TURN as f64
}

/// The engine's static sine table (`DAT_00574318`, 4096 entries; cos = sin[i + 0x400]).
///
/// The notes give the table's size and use, not its values: taken as round(4096·sin(2πi/4096)),
/// which is exact at the quarter turns every known tile uses (0, ±4096), so every original
/// level's tests come out the same whatever the table's rounding. The sine is the pure-Rust
/// libm's, the same bits on every platform (and no entry lies near enough to a rounding boundary
/// for a last bit to matter: `generate::tests`).
fn sine_table() -> &'static [i32; 4096] {
    static TABLE: OnceLock<[i32; 4096]> = OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let turn = i as f64 * std::f64::consts::TAU / TURN as f64;
            (ONE as f64 * libm::sin(turn)).round() as i32
        })
    })
}

/// (sin, cos) of a MAP angle, ×4096 as the table holds them.
///
/// Assumption (FORMAT.md §11): an angle of a turn or more wraps (`% 4096`). The notes give a
/// table of 4096 entries and read cos at i + 0x400, so the engine must wrap or hold more; if it
/// reads on past the table instead, a tile turned by 4096 or more collides with other numbers
/// (`check` warns of such rotations).
pub fn sin_cos(angle: u32) -> (i64, i64) {
    let table = sine_table();
    let i = (angle % TURN) as usize;
    (table[i] as i64, table[(i + 0x400) % 4096] as i64)
}

/// A point relative to a tile's origin, turned into the tile's own frame as the collision tests
/// do it: rotated by −ry with the sine table, arithmetic shift back to 20.12.
///
/// Assumption (FORMAT.md §11): the rescale is `>> 12` (flooring), in 64 bits. At quarter turns
/// it is exact whatever the engine does (products are whole multiples of 4096). At other angles
/// a C division by 4096 would truncate instead and differs by one step for most negative
/// products, and the table's values are guesses too: the probe lands a step or two elsewhere,
/// which changes the floor found near edges. The engine's 32-bit products would overflow once
/// the point lies 128 units from the tile (dx·4096 past 2³¹), where this goes on.
///
/// The tile transform of FORMAT.md §2 (export space) is, in game space (z negated),
/// world = origin + R·local with R = [[cos, sin], [−sin, cos]] on (x, z); this is Rᵀ. With the
/// crate case (FORMAT.md §4, ry 3072) it gives the note's local (0.2329, ·, 0.2959) exactly.
pub fn to_tile_frame(dx: i64, dz: i64, rotation: u32) -> (i64, i64) {
    let (s, c) = sin_cos(rotation);
    ((dx * c - dz * s) >> 12, (dx * s + dz * c) >> 12)
}

/// A tile-local game-space point in world game space (units), for drawing and for finding the
/// cells a polygon covers: the inverse of [`to_tile_frame`] with the same table.
pub fn to_world(origin: DVec3, local: DVec3, rotation: u32) -> DVec3 {
    let (s, c) = sin_cos(rotation);
    let (s, c) = (s as f64 / ONE as f64, c as f64 / ONE as f64);
    DVec3::new(
        origin.x + local.x * c + local.z * s,
        origin.y + local.y,
        origin.z - local.x * s + local.z * c,
    )
}

/// A world game-space direction in a tile's frame (float twin of [`to_tile_frame`]).
pub fn to_local(origin: DVec3, world: DVec3, rotation: u32) -> DVec3 {
    let (s, c) = sin_cos(rotation);
    let (s, c) = (s as f64 / ONE as f64, c as f64 / ONE as f64);
    let d = world - origin;
    DVec3::new(d.x * c - d.z * s, d.y, d.x * s + d.z * c)
}

/// A tile's fixed-point origin in world game space, units.
pub fn tile_origin(tile: &Tile) -> DVec3 {
    DVec3::from_array(tile.fixed.position.map(|v| from_fixed(v as i64)))
}

/// A tile's polygon in world game space: its corners where the engine's planes meet.
pub fn world_polygon(tile: &Tile, poly: &CollisionPolygon) -> Vec<DVec3> {
    world_polygon_at(tile, poly, PlaneScale::Engine)
}

/// A tile's polygon in world game space read at `scale`: at note 001's ×4096 the engine's
/// outline shrunk about the tile's origin by 4064/4096.
pub fn world_polygon_at(tile: &Tile, poly: &CollisionPolygon, scale: PlaneScale) -> Vec<DVec3> {
    let origin = tile_origin(tile);
    let rotation = tile.fixed.rotation[1] as u32;
    let factor = scale.from_engine();
    decode_collision_polygon(poly)
        .into_iter()
        .map(|c| to_world(origin, c.as_dvec3() * factor, rotation))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_are_exact() {
        assert_eq!(sin_cos(0), (0, 4096));
        assert_eq!(sin_cos(1024), (4096, 0));
        assert_eq!(sin_cos(2048), (0, -4096));
        assert_eq!(sin_cos(3072), (-4096, 0));
        assert_eq!(sin_cos(4096 + 1024), (4096, 0));
    }

    #[test]
    fn frames_are_inverse() {
        let origin = DVec3::new(57.5, 2.0, 43.5);
        for rotation in [0, 512, 1024, 1500, 3072] {
            let p = DVec3::new(57.204, 2.5, 43.733);
            let local = to_local(origin, p, rotation);
            let back = to_world(origin, local, rotation);
            assert!((back - p).abs().max_element() < 1e-3, "{rotation}: {back}");
            let (lx, lz) = to_tile_frame(
                (to_fixed(p.x) - to_fixed(origin.x)) as i64,
                (to_fixed(p.z) - to_fixed(origin.z)) as i64,
                rotation,
            );
            assert!((from_fixed(lx) - local.x).abs() < 2e-3);
            assert!((from_fixed(lz) - local.z).abs() < 2e-3);
        }
    }

    #[test]
    fn the_crate_case_local_point_of_note_001() {
        // Kuzco at 57.204 / 43.733, tile 443 at B (57.5, 2.0, 43.5), ry 3072.
        let (lx, lz) = to_tile_frame(
            (to_fixed(57.204) - to_fixed(57.5)) as i64,
            (to_fixed(43.733) - to_fixed(43.5)) as i64,
            3072,
        );
        assert_eq!(
            (
                format!("{:.4}", from_fixed(lx)),
                format!("{:.4}", from_fixed(lz))
            ),
            ("0.2329".into(), "0.2959".into())
        );
    }
}
