//! Note 003's test level (`make_testlevel.py`, issue 22): a level with one strat of every type it
//! can place standing on a floor plate, the player at the plate's edge, and a parkour of six
//! stepping plates, each 0.5 higher, with coins on them, to a goal platform whose LevelDoor
//! stands on the exit floor (material 16).
//!
//! The area is new grid: rows are added past the grid's far edge (z), three rows beyond the old
//! edge (tiles reach up to 2.4 units out), and columns when the grid is narrower than the area,
//! so no tile of the level lies under it. Everything of the source level is kept, at its index:
//! tiles, models, strats (only the player's strat is moved), parameters and waypoints. New tiles,
//! the floor model's copies of normal ground and of the exit material when it is not of those,
//! collision-only tiles entering
//! collision into the new cells it reaches, strats and pool entries are appended, and poolExtra
//! grows by the strats added (note 003 "Rules for writing a new MAP"). The result is checked
//! against the source: a new error, or a placed strat the floor test finds no floor under,
//! refuses it.

use serde::Serialize;

use crate::game::cells::Cell;
use crate::game::check::{check_against, Severity};
use crate::game::coverage::{copies, reaches, CoverageError, Reach, SharedModels};
use crate::game::floor::World;
use crate::game::space::to_fixed;
use crate::game::strats::{append_strat, Strats, PLAYER_STRATS};
use crate::geometry::decode_collision_polygon;
use crate::level::{Level, Model, Tile};
use crate::limits::{MAX_GRID_CELLS, MAX_MODELS, MAX_TILES};
use crate::raw::{StratRecord, STRAT_NOT_CREATED_AT_START};

/// Collision material of the exit floor: the LevelDoor ends the level only over it.
pub const MATERIAL_EXIT: u8 = 16;
/// The widest spacing between strats taken (cells).
pub const MAX_SPACING: u32 = 16;
/// Stepping plates of the parkour, each this much higher than the one before (units).
const STEPS: u32 = 6;
const STEP_RISE: f32 = 0.5;
/// Rows between the old grid's far edge and the area: tiles reach up to 2.4 units beyond their
/// cell (note 001 §1).
const REACH_ROWS: u32 = 3;
/// Strats are left out when their name starts with one of these or holds `Trigger` (note 003:
/// cameras, cut scenes, forces and triggers do nothing on their own in a test level).
const LEFT_OUT: [&str; 3] = ["Camera", "CutScene", "Force"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestLevelOptions {
    /// The level's new name (NAME chunk), Latin-1, at most 64 characters.
    pub name: Option<String>,
    /// Cells from one strat to the next on the plate.
    pub spacing: u32,
}

impl Default for TestLevelOptions {
    fn default() -> Self {
        TestLevelOptions {
            name: None,
            spacing: 3,
        }
    }
}

/// A strat the test level places or moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacedType {
    /// Its index in MAP.
    pub strat: usize,
    pub name: String,
    /// Game units.
    pub position: [f64; 3],
}

/// A type of the level not placed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    pub name: String,
    pub reason: String,
}

/// What the test level holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestLevelReport {
    /// Grid width and height before and after.
    pub grid_before: [u32; 2],
    pub grid: [u32; 2],
    /// The area's first column and row, width and depth (cells).
    pub area: [u32; 4],
    /// The level's most used flat floor model; the plates' (it, or its copy of normal ground,
    /// material 0) and the one under the LevelDoor (of the exit material), appended when it is
    /// not of that material.
    pub floor_model: u32,
    pub plate_model: u32,
    pub exit_model: u32,
    /// Tiles appended: floor plates, and collision-only tiles entering collision into new cells.
    pub tiles_added: usize,
    pub coverage_tiles: usize,
    /// The player's strat, moved to the plate's edge.
    pub player: PlacedType,
    /// Strats appended: one per placeable type, coins on the steps, the LevelDoor on the goal.
    pub placed: Vec<PlacedType>,
    pub left_out: Vec<LeftOut>,
    pub pool_extra: [u32; 2],
    /// Warnings `check` gives the test level that the source does not have.
    pub new_warnings: Vec<String>,
}

/// Why no test level was made, with what is at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TestLevelError {
    #[error("spacing {spacing}: give 1 to {MAX_SPACING} cells")]
    Spacing { spacing: u32 },
    #[error("{0}")]
    Strats(String),
    #[error("the level needs TRAK, STPC and MAP chunks")]
    MissingChunks,
    #[error("no strat is the player ({}): nothing to start the test level from", PLAYER_STRATS.join(", "))]
    NoPlayer,
    #[error(
        "the level has no flat floor tile (a model of faces at y + 0.25 over its whole cell, its \
         collision facing up over all of it) to build the plates of"
    )]
    NoFlatFloor,
    #[error("a grid of {width} x {height} cells for the test area is past the {MAX_GRID_CELLS} cells the check allows")]
    GridTooLarge { width: u32, height: u32 },
    /// A tile reaching into the test area whose coverage copies cannot be made.
    #[error("{0}")]
    Coverage(#[from] CoverageError),
    #[error(
        "{tiles} tiles and {models} models: past the {MAX_TILES} and {MAX_MODELS} the check allows"
    )]
    TooMany { tiles: usize, models: usize },
    #[error("name {name:?}: give 1 to 64 Latin-1 characters, no control characters")]
    Name { name: String },
    #[error("the level has no NAME chunk to rename")]
    NoNameChunk,
    /// `check`'s errors of the test level that the source does not have, in its words.
    #[error("the test level would break the game's rules: {}", errors.join("; "))]
    BreaksRules { errors: Vec<String> },
    #[error("strat {strat} ({name}) at {}, {}, {}: the floor test finds no floor under it", position[0], position[1], position[2])]
    NoFloorUnder {
        strat: usize,
        name: String,
        position: [f64; 3],
    },
}

/// The test level of `source`.
pub fn test_level(
    source: &Level,
    options: &TestLevelOptions,
) -> Result<(Level, TestLevelReport), TestLevelError> {
    let spacing = options.spacing;
    if !(1..=MAX_SPACING).contains(&spacing) {
        return Err(TestLevelError::Spacing { spacing });
    }
    let strats = Strats::of(source, true).map_err(|e| TestLevelError::Strats(e.to_string()))?;
    let (Some(map), Some(trak), Some(_)) = (source.map(), source.trak(), source.stpc()) else {
        return Err(TestLevelError::MissingChunks);
    };
    let Some(player) = strats.strats.iter().find(|s| {
        s.type_name
            .as_deref()
            .is_some_and(|n| PLAYER_STRATS.contains(&n))
    }) else {
        return Err(TestLevelError::NoPlayer);
    };
    let Some(floor) = flat_floor(&map.tiles, &trak.models) else {
        return Err(TestLevelError::NoFlatFloor);
    };

    // The types: one strat each on the plate, LevelDoor on the goal, Coin on the steps too.
    let mut chosen = Vec::new();
    let (mut door, mut coin) = (None, None);
    let mut left_out = Vec::new();
    for t in strats.types.iter().flatten() {
        let name = t
            .name
            .clone()
            .unwrap_or_else(|| format!("{:#x}", t.code_offset));
        let leave = |reason: &str| LeftOut {
            name: name.clone(),
            reason: reason.into(),
        };
        if PLAYER_STRATS.contains(&name.as_str()) {
            continue;
        }
        if LEFT_OUT.iter().any(|p| name.starts_with(p)) || name.contains("Trigger") {
            left_out.push(leave(
                "cameras, cut scenes, forces and triggers are left out (note 003)",
            ));
            continue;
        }
        let Some(first) = t.first_instance.filter(|_| t.placeable) else {
            left_out.push(leave(t.why_not.as_deref().unwrap_or("not placeable")));
            continue;
        };
        let record = map.strats[first];
        let Some(parameters) = record.parameters(&map.parameters) else {
            left_out.push(leave("its first strat's parameters lie outside the pool"));
            continue;
        };
        let new = NewStrat {
            name: name.clone(),
            record,
            parameters: parameters.to_vec(),
        };
        match name.as_str() {
            "LevelDoor" => door = Some(new),
            "Coin" => {
                coin = Some(new.clone());
                chosen.push(new);
            }
            _ => chosen.push(new),
        }
    }

    // The layout, in cells of the area: the plate (the player's column, then the strats every
    // `spacing` cells), a gap, the six steps with gaps, and the 3 × 3 goal.
    let n = chosen.len().max(1) as u32;
    let columns = (n as f64).sqrt().ceil() as u32;
    let rows = n.div_ceil(columns);
    let plate = [1 + columns * spacing, (rows * spacing).max(3)];
    let mid = plate[1] / 2;
    let area_width = plate[0] + 1 + 2 * STEPS + 3;
    let (old_w, old_h) = (map.width, map.height);
    let (col0, row0) = (1, old_h + REACH_ROWS);
    let width = old_w.max(col0 + area_width + 1);
    let height = row0 + plate[1] + 1;
    if width as u64 * height as u64 > MAX_GRID_CELLS {
        return Err(TestLevelError::GridTooLarge { width, height });
    }

    let mut level = source.clone();
    let (map, trak) = level.map_and_trak_mut();
    let (map, trak) = (map.expect("checked above"), trak.expect("checked above"));
    let models = &mut trak.models;

    // The grid grows; new cells are in a zone that sees itself (else the player's).
    let region = new_cells_region(map, player.position);
    let mut grid = Vec::with_capacity((width * height) as usize);
    for row in 0..height {
        for col in 0..width {
            grid.push(match (col < old_w, row < old_h) {
                (true, true) => map.region_grid[(col + row * old_w) as usize],
                _ => region,
            });
        }
    }
    (map.width, map.height, map.region_grid) = (width, height, grid);

    // The plates.
    let colours = map
        .tiles
        .iter()
        .find(|t| t.model_index == floor)
        .map(|t| t.colours.clone())
        .expect("the floor model is that of a tile");
    let plates = with_material(models, floor, 0);
    let exit = with_material(models, floor, MATERIAL_EXIT);
    let first_new = map.tiles.len();
    let mut plate_at = |col: u32, row: u32, y: f32, model: u32| {
        let (x, z) = (col0 + col, row0 + row);
        let mut tile = Tile::new([x as f32 + 0.5, y, -(z as f32 + 0.5)], 0, model);
        tile.colours = colours.clone();
        map.tiles.push(tile);
    };
    for row in 0..plate[1] {
        for col in 0..plate[0] {
            plate_at(col, row, 0.0, plates);
        }
    }
    let step_col = |k: u32| plate[0] + 1 + 2 * k;
    let step_y = |k: u32| STEP_RISE * (k + 1) as f32;
    for k in 0..STEPS {
        plate_at(step_col(k), mid, step_y(k), plates);
    }
    let goal = (step_col(STEPS) + 1, step_y(STEPS - 1));
    for row in mid - 1..=mid + 1 {
        for col in goal.0 - 1..=goal.0 + 1 {
            let centre = (col, row) == (goal.0, mid);
            plate_at(col, row, goal.1, if centre { exit } else { plates });
        }
    }
    let tiles_added = map.tiles.len() - first_new;

    // Collision entered into the new cells it reaches: of the new plates, and of old tiles
    // reaching past the old grid's edges.
    let is_new = |c: &Tile| {
        let [x, _, z] = c.fixed.position.map(i64::from);
        x >= old_w as i64 * 4096 || z >= old_h as i64 * 4096
    };
    let mut shared = SharedModels::of(models);
    let mut coverage = Vec::new();
    for (i, tile) in map.tiles.iter().enumerate() {
        let Some(model) = models.get(tile.model_index as usize) else {
            continue;
        };
        let reaches_new = |r: &Reach| r.cell.col >= old_w || r.cell.row >= old_h;
        if i < first_new && !reaches(tile, model, width, height).iter().any(reaches_new) {
            continue;
        }
        let made = copies(i, tile, model, width, height)?;
        for (mut copy, copy_model) in made {
            if i < first_new && !is_new(&copy) {
                continue; // an old cell: its coverage is the source's
            }
            shared.give(&mut copy, copy_model, models);
            coverage.push(copy);
        }
    }
    let coverage_tiles = coverage.len();
    map.tiles.extend(coverage);
    if map.tiles.len() > MAX_TILES || models.len() > MAX_MODELS {
        return Err(TestLevelError::TooMany {
            tiles: map.tiles.len(),
            models: models.len(),
        });
    }

    // The strats: the player moved to the plate's edge facing +x, the rest appended.
    let stand = |col: u32, row: u32, y: f32| {
        let (x, z) = (col0 + col, row0 + row);
        [x as f64 + 0.5, y as f64 + 0.25, z as f64 + 0.5]
    };
    let start = stand(0, mid, 0.0);
    let record = &mut map.strats[player.index];
    record.position = start.map(to_fixed);
    record.rotation[1] = 1024;
    let player = PlacedType {
        strat: player.index,
        name: player.type_name.clone().unwrap_or_default(),
        position: start,
    };
    let mut placed = Vec::new();
    let pool_extra = map.strat_pool_extra;
    let mut put = |new: &NewStrat, at: [f64; 3]| {
        let mut record = new.record;
        record.position = at.map(to_fixed);
        record.rotation[1] = 0;
        record.flags &= !STRAT_NOT_CREATED_AT_START;
        if record.waypoint < -1 || record.waypoint >= map.waypoints.len() as i32 {
            record.waypoint = -1;
        }
        placed.push(PlacedType {
            strat: append_strat(map, record, &new.parameters),
            name: new.name.clone(),
            position: at,
        });
    };
    for (i, new) in chosen.iter().enumerate() {
        let i = i as u32;
        let col = 1 + (i % columns) * spacing + spacing / 2;
        let row = (i / columns) * spacing + spacing / 2;
        put(new, stand(col, row, 0.0));
    }
    if let Some(coin) = &coin {
        for k in 0..STEPS {
            put(coin, stand(step_col(k), mid, step_y(k)));
        }
    }
    if let Some(door) = &door {
        put(door, stand(goal.0, mid, goal.1));
    } else {
        left_out.push(LeftOut {
            name: "LevelDoor".into(),
            reason: "the level places no LevelDoor: the goal has no exit".into(),
        });
    }
    let pool_extra = [pool_extra, map.strat_pool_extra];

    if let Some(name) = &options.name {
        rename(&mut level, name)?;
    }
    let new_warnings = verify(&level, source, &player, &placed)?;
    let report = TestLevelReport {
        grid_before: [old_w, old_h],
        grid: [width, height],
        area: [col0, row0, area_width, plate[1]],
        floor_model: floor,
        plate_model: plates,
        exit_model: exit,
        tiles_added,
        coverage_tiles,
        player,
        placed,
        left_out,
        pool_extra,
        new_warnings,
    };
    Ok((level, report))
}

#[derive(Debug, Clone)]
struct NewStrat {
    name: String,
    /// The type's first strat: its type fields, flags and waypoint are copied.
    record: StratRecord,
    parameters: Vec<u32>,
}

/// `model` when all its collision is of `material`, else its copy with that material, appended.
fn with_material(models: &mut Vec<Model>, model: u32, material: u8) -> u32 {
    let mut copy = models[model as usize].clone();
    if copy.collision_polygons().all(|p| p.material == material) {
        return model;
    }
    for poly in copy.collision.iter_mut().flatten() {
        poly.material = material;
    }
    models.push(copy);
    (models.len() - 1) as u32
}

/// The level's most used flat floor model (ties: the first): faces at y 0.25 over the whole
/// cell, its collision facing straight up and covering the cell.
fn flat_floor(tiles: &[Tile], models: &[Model]) -> Option<u32> {
    let mut uses = vec![0usize; models.len()];
    for t in tiles {
        if let Some(u) = uses.get_mut(t.model_index as usize) {
            *u += 1;
        }
    }
    let flat = |m: &Model| {
        let square = |k: usize| {
            let (lo, hi) = m
                .vertices
                .iter()
                .map(|v| v.position[k])
                .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            (lo + 0.5).abs() < 0.01 && (hi - 0.5).abs() < 0.01
        };
        let area: f32 = m
            .collision_polygons()
            .map(|p| {
                let c = decode_collision_polygon(p);
                let twice: f32 = (0..c.len())
                    .map(|k| {
                        let (a, b) = (c[k], c[(k + 1) % c.len()]);
                        a.x * b.z - b.x * a.z
                    })
                    .sum();
                twice.abs() / 2.0
            })
            .sum();
        !m.faces.is_empty()
            && m.vertices
                .iter()
                .all(|v| (v.position[1] - 0.25).abs() < 1e-3)
            && square(0)
            && square(2)
            && m.collision_count() > 0
            && m.collision_polygons()
                .all(|p| p.planes[0].normal == [0, 127, 0])
            && (area - 1.0).abs() < 0.02
    };
    (0..models.len())
        .filter(|&k| uses[k] > 0 && flat(&models[k]))
        .max_by_key(|&k| (uses[k], std::cmp::Reverse(k)))
        .map(|k| k as u32)
}

/// The zone of the new cells: that of the player's old cell when it sees itself, else the first
/// zone that does, else the player's.
fn new_cells_region(map: &crate::level::Map, player: [f64; 3]) -> u32 {
    let sees_itself = |r: u32| {
        map.regions
            .get(r as usize)
            .is_some_and(|z| z.mask == 0 || z.mask & (1u32 << (r % 32)) != 0)
    };
    let players = Cell::of_point(player[0], player[2], map.width, map.height)
        .and_then(|c| map.region_grid.get(c.index(map.width)).copied())
        .unwrap_or(0);
    if sees_itself(players) {
        return players;
    }
    (0..map.regions.len() as u32)
        .find(|&r| sees_itself(r))
        .unwrap_or(players)
}

fn rename(level: &mut Level, name: &str) -> Result<(), TestLevelError> {
    let bytes: Option<Vec<u8>> = name
        .chars()
        .map(|c| {
            u8::try_from(u32::from(c))
                .ok()
                .filter(|&b| b >= 0x20 && b != 0x7f)
        })
        .collect();
    let Some(mut bytes) = bytes.filter(|b| !b.is_empty() && b.len() <= 64) else {
        return Err(TestLevelError::Name {
            name: name.to_string(),
        });
    };
    let Some(chunk) = level.name_mut() else {
        return Err(TestLevelError::NoNameChunk);
    };
    bytes.push(0);
    chunk.prefix = bytes.len() as u32;
    chunk.bytes = bytes;
    Ok(())
}

/// Refuses a test level with an error `check` does not find in the source, or a placed strat
/// the floor test finds no floor under; returns the new warnings.
fn verify(
    level: &Level,
    source: &Level,
    player: &PlacedType,
    placed: &[PlacedType],
) -> Result<Vec<String>, TestLevelError> {
    let report = check_against(level, source);
    let new: Vec<_> = report.problems.iter().filter(|p| !p.pre_existing).collect();
    let errors: Vec<String> = new
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.message.clone())
        .collect();
    if !errors.is_empty() {
        return Err(TestLevelError::BreaksRules { errors });
    }
    let world = World::of(level).expect("the level has MAP and TRAK");
    for s in std::iter::once(player).chain(placed) {
        let [x, y, z] = s.position;
        if world.probe(x, y, z).floor.is_none() {
            return Err(TestLevelError::NoFloorUnder {
                strat: s.strat,
                name: s.name.clone(),
                position: s.position,
            });
        }
    }
    Ok(new
        .iter()
        .filter(|p| p.severity == Severity::Warning)
        .map(|p| p.message.clone())
        .collect())
}
