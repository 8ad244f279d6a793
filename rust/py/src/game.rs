//! The game's rules asked of a level: the floor test, `check`, the strats (and the strat table of
//! a folder), note 003's test level, the texture rule's UVs and the colours corners show.

use std::borrow::Cow;
use std::path::PathBuf;

use llamawad::game::floor::World;
use llamawad::game::floors::compare_levels;
use llamawad::gltf::uv;
use llamawad::gltf::wad_to_gltf as to_gltf;
use llamawad::raw::TextureEntry;
use llamawad::{Level, WadError as CoreError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{bytes_input, detach, items, to_python, wad_error, Failure, WadError};
use llamawad::limits::MAX_PROBE_POINTS;

/// Refuses more points (or polygons) than a probe takes, before any is probed.
fn probe_count(what: &str, count: usize) -> PyResult<()> {
    if count > MAX_PROBE_POINTS {
        return Err(WadError::new_err(format!(
            "{count} {what}; at most {MAX_PROBE_POINTS} are probed at a time"
        )));
    }
    Ok(())
}

/// A texture entry as the level document lists it (`texture_entries` of the glTF scene extras);
/// the rectangle and the flags are all the texture rule reads.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct EntryItem {
    flags: u16,
    u0: u8,
    u1: u8,
    v0: u8,
    v1: u8,
}

impl EntryItem {
    fn entry(&self) -> TextureEntry {
        TextureEntry {
            flags: self.flags,
            u0: self.u0,
            u1: self.u1,
            v0: self.v0,
            v1: self.v1,
            ..TextureEntry::default()
        }
    }
}

/// probe(level: bytes, points: list[tuple[float, float, float]]) -> list[dict]
///
/// The game's floor test (FUN_004036d0) at each point (game units: x east, y up, z the grid
/// row): per point a dict like one line of `llamawad probe --json` (`floor` None or
/// {height, tile, polygon, material}, `no_floor`, `surface_above`, `candidates`). Raises
/// WadError if the level cannot be read or has no MAP or TRAK chunk, for a point that is
/// not three finite numbers, or for more than 65,536 points.
#[pyfunction]
pub fn probe<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    points: Vec<(f64, f64, f64)>,
) -> PyResult<Bound<'py, PyAny>> {
    probe_count("points", points.len())?;
    let probes = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            let world = World::of(&level).ok_or("the level has no MAP or TRAK chunk")?;
            let probes = points
                .iter()
                .enumerate()
                .map(|(k, &(x, y, z))| {
                    world
                        .probe_point([x, y, z])
                        .map_err(|e| format!("point {k}: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, Failure>(probes)
        },
    )??;
    to_python(py, &probes)
}

/// floors(a: bytes, b: bytes, points: int = 2800, seed: int = 1) -> dict
///
/// Drops the floor test from y = 60 at `points` random points of the grid (the same for the
/// same seed) in both levels and compares: points, both, lost, gained, within_1mm,
/// within_5mm, max_mm, material_same (what `llamawad floors --json` prints). Raises WadError
/// for more than 1,000,000 points.
#[pyfunction]
#[pyo3(signature = (a, b, points = 2800, seed = 1))]
pub fn floors<'py>(
    py: Python<'py>,
    a: Cow<'_, [u8]>,
    b: Cow<'_, [u8]>,
    points: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let compared = detach(
        py,
        || {
            format!(
                "{} and {}",
                bytes_input("a level", &a),
                bytes_input("a level", &b)
            )
        },
        || {
            let (a, b) = (Level::parse(&a)?, Level::parse(&b)?);
            compare_levels(&a, &b, points, seed).map_err(|e| Failure::from(e.to_string()))
        },
    )??;
    to_python(py, &compared)
}

/// check(level: bytes, base: bytes | None = None) -> dict
///
/// Every rule of the notes over the level: {"problems": [...], "errors": n, "warnings": n},
/// each problem with `code`, `severity` ("error" or "warning"), `message` and its culprit
/// (`tile`, `model`, `polygon`, `face`, `strat`, `cell` [x, z], None where they do not
/// apply); with a base, problems it already has carry `pre_existing` True. A level the
/// reader refuses is one error (`unreadable`, or `container`) naming the tile or model the
/// reader was at. What `llamawad check --json` prints. Raises WadError for bytes that are
/// no level WAD, or a base that cannot be read.
#[pyfunction]
#[pyo3(signature = (level, base = None))]
pub fn check<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    base: Option<Cow<'_, [u8]>>,
) -> PyResult<Bound<'py, PyAny>> {
    let report = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let base = base.as_deref().map(Level::parse).transpose()?;
            Ok::<_, CoreError>(llamawad::game::check_bytes(&level, base.as_ref())?)
        },
    )?
    .map_err(wad_error)?;
    to_python(py, &report)
}

/// strats(level: bytes) -> dict
///
/// The level's placed strats and every strat type its code names, with whether a new strat
/// of it can be placed and why not (what `llamawad strats --all --json` prints). Raises
/// WadError if the level cannot be read or has no MAP chunk, or when its strats name more than
/// 1,048,576 parameters and waypoints, each counted for every strat naming it.
#[pyfunction]
pub fn strats<'py>(py: Python<'py>, level: Cow<'_, [u8]>) -> PyResult<Bound<'py, PyAny>> {
    let strats = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            llamawad::game::strats::Strats::of(&level, true)
        },
    )?
    .map_err(wad_error)?;
    to_python(py, &strats)
}

/// polygon_outlines(level: bytes, polygons: list[tuple[int, int]]) -> list[dict | None]
///
/// Per (tile, polygon) as `probe` names them: the collision polygon's `corners` in world game
/// space, its `zone` (the outline the floor test's edge tolerance lets pass) and that
/// `tolerance` in units; None where the level has no such tile or polygon. Raises WadError
/// if the level cannot be read, or for more than 65,536 polygons.
#[pyfunction]
pub fn polygon_outlines<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    polygons: Vec<(usize, usize)>,
) -> PyResult<Bound<'py, PyAny>> {
    probe_count("polygons", polygons.len())?;
    let outlines = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            let world = World::of(&level);
            Ok::<_, CoreError>(
                polygons
                    .iter()
                    .map(|&(t, p)| world.as_ref()?.polygon_outline(t, p))
                    .collect::<Vec<_>>(),
            )
        },
    )?
    .map_err(wad_error)?;
    to_python(py, &outlines)
}

/// face_uvs(entries: list[dict], textures: list[int], flags: list[int]) -> tuple[list[float], list[bool]]
///
/// The texture rule (FORMAT.md §3: the engine has no free UVs) for faces with these texture
/// entries and flags: six numbers a face, the texture coordinates of its three corners in
/// the order the glTF lists them (origin top-left, what TEXCOORD_0 holds), and whether the
/// face shows a texture rectangle at all (not for a flat colour or a missing entry, whose
/// numbers are 0). `entries` as the level document lists them ({flags, u0, u1, v0, v1, …}).
/// Raises WadError when `textures` and `flags` differ in length, or for an entry that is no
/// such dict (naming it: `entries[k]`).
#[pyfunction]
pub fn face_uvs(
    py: Python<'_>,
    entries: Vec<Bound<'_, PyAny>>,
    textures: Vec<i64>,
    flags: Vec<u16>,
) -> PyResult<(Vec<f32>, Vec<bool>)> {
    if textures.len() != flags.len() {
        return Err(WadError::new_err(format!(
            "{} texture entries but {} flags: one of each a face",
            textures.len(),
            flags.len()
        )));
    }
    let entries: Vec<TextureEntry> = items::<EntryItem>("entries", &entries)?
        .iter()
        .map(EntryItem::entry)
        .collect();
    detach(
        py,
        || format!("{} faces", textures.len()),
        || uv::faces_uvs(&entries, &textures, &flags),
    )
}

/// shown_colours(raw: list[int], flags: list[int] | None = None) -> list[float]
///
/// What the game shows at corners with these raw vertex colours (R + G·256 + B·65536) on
/// faces with these flags: each byte doubled and clamped, 0x80 full brightness, white where
/// the face ignores vertex colours (0x4000); four linear floats (RGBA) a corner, as COLOR_0
/// holds them. Raises WadError when `flags` and `raw` differ in length.
#[pyfunction]
#[pyo3(signature = (raw, flags = None))]
pub fn shown_colours(py: Python<'_>, raw: Vec<u32>, flags: Option<Vec<u16>>) -> PyResult<Vec<f32>> {
    let flags = flags.unwrap_or_else(|| vec![0; raw.len()]);
    if flags.len() != raw.len() {
        return Err(WadError::new_err(format!(
            "{} colours but {} flags: one of each a corner",
            raw.len(),
            flags.len()
        )));
    }
    detach(
        py,
        || format!("{} colours", raw.len()),
        || to_gltf::shown_colours(&raw, &flags),
    )
}

/// test_level(level: bytes, name: str | None = None, spacing: int = 3) -> tuple[bytes, dict]
///
/// Note 003's test level of the level (what `llamawad testlevel` writes): in new grid rows past
/// its far edge, a floor plate with one strat of every type the level can place every
/// `spacing` cells, the player's strat moved to the plate's edge, and a parkour of stepping
/// plates to a LevelDoor on the exit floor; `name` renames the level (its NAME chunk). The
/// level's bytes, and the report `testlevel --json` prints (`grid_before`, `grid`, `area`,
/// `player`, `placed`, `left_out`, `pool_extra`, `new_warnings`, …). Raises WadError when the
/// level cannot be read or no test level can be made of it (the message says why: no player,
/// no flat floor, a rule the result would break that the level keeps, …).
#[pyfunction]
#[pyo3(signature = (level, name = None, spacing = 3))]
pub fn test_level<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    name: Option<String>,
    spacing: u32,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    use llamawad::game::testlevel::{test_level, TestLevelOptions};

    let (bytes, report) = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let level = Level::parse(&level)?;
            let (made, report) = test_level(&level, &TestLevelOptions { name, spacing })
                .map_err(|e| e.to_string())?;
            let bytes = made.to_bytes().map_err(CoreError::from)?;
            Ok::<_, Failure>((bytes, report))
        },
    )??;
    Ok((PyBytes::new(py, &bytes), to_python(py, &report)?))
}

/// strat_table(folder: str | os.PathLike) -> dict
///
/// How many strats of each type every level of a folder places, as note 003's `strat_table.py`
/// makes it (what `llamawad strat-table --json` prints): `levels` (the file names read, the
/// table's columns), `types` (each `name` with its `counts` per level, `total` and the number
/// of `levels` placing it) and `skipped` (each `file` not read, with the `reason`). Every
/// `*.wad` of the folder is read, not its subfolders. Raises WadError when the folder cannot be
/// read.
#[pyfunction]
pub fn strat_table(py: Python<'_>, folder: PathBuf) -> PyResult<Bound<'_, PyAny>> {
    let table = detach(
        py,
        || format!("the folder {}", folder.display()),
        || llamawad::game::strats::StratTable::of_folder(&folder),
    )?
    .map_err(wad_error)?;
    to_python(py, &table)
}
