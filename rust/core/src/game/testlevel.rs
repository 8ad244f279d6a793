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

use crate::game::check::{check_against, Severity};
use crate::game::coverage::CoverageError;
use crate::game::floor::World;
use crate::game::space::to_fixed;
use crate::game::strats::{append_strat, PlacedStrat, Strats, PLAYER_STRATS};
use crate::level::{Level, Map};
use crate::limits::{MAX_GRID_CELLS, MAX_MODELS, MAX_TILES};
use crate::raw::{StratRecord, STRAT_NOT_CREATED_AT_START};

mod area;

use area::{enter_coverage, flat_floor, grow_grid, lay_plates, step_y, Area, STEPS};

/// Collision material of the exit floor: the LevelDoor ends the level only over it.
pub const MATERIAL_EXIT: u8 = 16;
/// The widest spacing between strats taken (cells).
pub const MAX_SPACING: u32 = 16;
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
    let mut types = Types::of(&strats, map);
    let area = Area::of(types.chosen.len(), spacing, map)?;

    let mut level = source.clone();
    let (map, trak) = level.map_and_trak_mut();
    let (map, models) = (
        map.expect("checked above"),
        &mut trak.expect("checked above").models,
    );
    grow_grid(map, &area, player.position);
    let plates = lay_plates(map, models, floor, &area);
    let coverage_tiles = enter_coverage(map, models, &area, plates.first_tile)?;
    if map.tiles.len() > MAX_TILES || models.len() > MAX_MODELS {
        return Err(TestLevelError::TooMany {
            tiles: map.tiles.len(),
            models: models.len(),
        });
    }
    let pool_extra = map.strat_pool_extra;
    let (player, placed) = place_strats(map, &area, player, &mut types);
    let pool_extra = [pool_extra, map.strat_pool_extra];

    if let Some(name) = &options.name {
        rename(&mut level, name)?;
    }
    let new_warnings = verify(&level, source, &player, &placed)?;
    let report = TestLevelReport {
        grid_before: area.grid_before,
        grid: area.grid,
        area: [area.origin[0], area.origin[1], area.width, area.plate[1]],
        floor_model: floor,
        plate_model: plates.model,
        exit_model: plates.exit_model,
        tiles_added: plates.tiles,
        coverage_tiles,
        player,
        placed,
        left_out: types.left_out,
        pool_extra,
        new_warnings,
    };
    Ok((level, report))
}

/// The level's types the test level places: one strat each on the plate, LevelDoor on the goal,
/// Coin on the steps too; and those left out, with why.
struct Types {
    chosen: Vec<NewStrat>,
    door: Option<NewStrat>,
    coin: Option<NewStrat>,
    left_out: Vec<LeftOut>,
}

impl Types {
    fn of(strats: &Strats, map: &Map) -> Types {
        let mut types = Types {
            chosen: Vec::new(),
            door: None,
            coin: None,
            left_out: Vec::new(),
        };
        for t in strats.types.iter().flatten() {
            let name = t
                .name
                .clone()
                .unwrap_or_else(|| format!("{:#x}", t.code_offset));
            if PLAYER_STRATS.contains(&name.as_str()) {
                continue;
            }
            let reason = if LEFT_OUT.iter().any(|p| name.starts_with(p)) || name.contains("Trigger")
            {
                "cameras, cut scenes, forces and triggers are left out (note 003)"
            } else if let Some(first) = t.first_instance.filter(|_| t.placeable) {
                let record = map.strats[first];
                let Some(parameters) = record.parameters(&map.parameters) else {
                    types.left_out.push(LeftOut {
                        name,
                        reason: "its first strat's parameters lie outside the pool".into(),
                    });
                    continue;
                };
                types.choose(NewStrat {
                    name,
                    record,
                    parameters: parameters.to_vec(),
                });
                continue;
            } else {
                t.why_not.as_deref().unwrap_or("not placeable")
            };
            types.left_out.push(LeftOut {
                name,
                reason: reason.into(),
            });
        }
        types
    }

    fn choose(&mut self, new: NewStrat) {
        match new.name.as_str() {
            "LevelDoor" => self.door = Some(new),
            "Coin" => {
                self.coin = Some(new.clone());
                self.chosen.push(new);
            }
            _ => self.chosen.push(new),
        }
    }
}

#[derive(Debug, Clone)]
struct NewStrat {
    name: String,
    /// The type's first strat: its type fields, flags and waypoint are copied.
    record: StratRecord,
    parameters: Vec<u32>,
}

/// The player moved to the plate's edge facing +x, the chosen types appended on the plate, coins
/// on the steps and the LevelDoor on the goal (or said to be missing).
fn place_strats(
    map: &mut Map,
    area: &Area,
    player: &PlacedStrat,
    types: &mut Types,
) -> (PlacedType, Vec<PlacedType>) {
    let start = area.stand(0, area.mid, 0.0);
    let record = &mut map.strats[player.index];
    record.position = start.map(to_fixed);
    record.rotation[1] = 1024;
    let player = PlacedType {
        strat: player.index,
        name: player.type_name.clone().unwrap_or_default(),
        position: start,
    };
    let mut placed = Vec::new();
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
    for (i, new) in types.chosen.iter().enumerate() {
        let (col, row) = area.on_plate(i);
        put(new, area.stand(col, row, 0.0));
    }
    if let Some(coin) = &types.coin {
        for k in 0..STEPS {
            put(coin, area.stand(area.step_col(k), area.mid, step_y(k)));
        }
    }
    let goal = area.goal();
    match &types.door {
        Some(door) => put(door, area.stand(goal.0, area.mid, goal.1)),
        None => types.left_out.push(LeftOut {
            name: "LevelDoor".into(),
            reason: "the level places no LevelDoor: the goal has no exit".into(),
        }),
    }
    (player, placed)
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
