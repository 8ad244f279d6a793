//! Rules for the strats (FORMAT.md §6 block 12, §10) and what the floor test
//! says about the player's start and about needle spikes (FORMAT.md §4).

use crate::codes::Code;
use std::collections::HashMap;

use glam::DVec3;

use super::Problem;
use crate::game::cells::tile_cell;
use crate::game::floor::{
    edge_tolerance, test_polygon, World, FLAG_ALTERNATIVE_MATERIAL, MATERIAL_IGNORED,
};
use crate::game::space::world_polygon;
use crate::game::space::{from_fixed, to_fixed, TURN};
use crate::game::strats::{not_a_strat_start, PLAYER_STRATS};
use crate::level::stpc::StratCode;
use crate::level::{Level, Map, Model};
use crate::limits::{MAX_POOL_EXTRA, STRAT_POOL_BASE, STRAT_SLOT_BYTES};
use crate::raw::StratRecord;

/// A start this far (units) above the floor the test finds: the llama drops at the start.
const START_DROP: f64 = 0.1;
/// Needle spikes (FORMAT.md §4, floor test step 5): a tolerance zone reaching this far (units)
/// beyond the polygon…
const NEEDLE_REACH: f64 = 0.08;
/// …over a surface more than this much lower.
const NEEDLE_DROP: f64 = 0.05;

pub(super) fn check_strats(level: &Level, map: &Map, models: &[Model], out: &mut Vec<Problem>) {
    let code = level.stpc().map(|s| s.strat_code());
    for (i, s) in map.strats.iter().enumerate() {
        check_strat_record(i, s, map, code.as_ref(), out);
    }
    check_type_fields(map, out);
    check_pool(map, out);
    player_start(level, map, models, out);
    needles(map, models, &World::new(map, models), out);
}

/// A strat's record: its code the start of a type, its turn under one, its parameters and
/// waypoint in their lists, the fields note 003 has always 0 so.
fn check_strat_record(
    i: usize,
    s: &StratRecord,
    map: &Map,
    code: Option<&StratCode<'_>>,
    out: &mut Vec<Problem>,
) {
    if let Some(why) = code.and_then(|c| not_a_strat_start(c, s.code_offset)) {
        out.push(
            Problem::error(
                Code::StratCode,
                format!(
                    "strat {i}: code offset {:#x} is {why}; point it at its type's start (note 003: the type is the code address)",
                    s.code_offset
                ),
            )
            .strat(i),
        );
    }
    if let Some(r) = s.rotation.iter().find(|&&r| u32::from(r) >= TURN) {
        out.push(
            Problem::warning(
                Code::StratRotation,
                format!(
                    "strat {i}: rotation {:?} holds {r}, a turn or more (4096 to the turn); whether the game wraps it the notes do not say: use {}",
                    s.rotation,
                    u32::from(*r) % TURN
                ),
            )
            .strat(i),
        );
    }
    let params_ok = s.parameters(&map.parameters).is_some();
    if !params_ok {
        out.push(
            Problem::error(
                Code::StratParameters,
                format!(
                    "strat {i}: parameters {}..{} are outside the pool of {}",
                    s.parameter_index,
                    s.parameter_index as i64 + s.parameter_count as i64,
                    map.parameters.len()
                ),
            )
            .strat(i),
        );
    }
    if s.waypoint != -1 && (s.waypoint < 0 || s.waypoint as usize >= map.waypoints.len()) {
        out.push(
            Problem::error(
                Code::StratWaypoint,
                format!(
                    "strat {i}: waypoint {} does not exist ({} waypoints)",
                    s.waypoint,
                    map.waypoints.len()
                ),
            )
            .strat(i),
        );
    }
    for (offset, value) in [(50, s.reserved_32), (56, u32::from(s.reserved_38))] {
        if value != 0 {
            out.push(
                Problem::warning(
                    Code::StratReserved,
                    format!(
                        "strat {i}: the field at offset {offset} of its record is {value:#x}, where note 003 has always 0; what the game reads there is not known"
                    ),
                )
                .strat(i),
            );
        }
    }
}

/// The compiler's fields are the same for every strat of a type (FORMAT.md §6): each strat's are
/// those of the first of its type.
fn check_type_fields(map: &Map, out: &mut Vec<Problem>) {
    let fields = |s: &StratRecord| (s.variable_count, s.slot_count, s.type_flags, s.extra_memory);
    let mut first_of_type: HashMap<u32, usize> = HashMap::new();
    for (i, s) in map.strats.iter().enumerate() {
        let j = *first_of_type.entry(s.code_offset).or_insert(i);
        if j < i && fields(s) != fields(&map.strats[j]) {
            out.push(
                Problem::warning(
                    Code::StratTypeFields,
                    format!("strat {i}: its variables, slots, type flags or extra memory differ from strat {j} of the same type; copy them from the type"),
                )
                .strat(i),
            );
        }
    }
}

/// poolExtra: what the engine can allocate, and room for the level's strats and those spawned
/// while playing.
fn check_pool(map: &Map, out: &mut Vec<Problem>) {
    let strats = map.strats.len() as u64;
    let pool = map.strat_pool_extra as u64;
    if pool > MAX_POOL_EXTRA {
        let slots = pool + STRAT_POOL_BASE;
        let wraps = match slots * STRAT_SLOT_BYTES > u32::MAX as u64 {
            true => format!(
                ", which 32 bits do not hold (the engine would get {:#x})",
                (slots * STRAT_SLOT_BYTES) as u32
            ),
            false => String::new(),
        };
        out.push(Problem::error(
            Code::StratPool,
            format!(
                "poolExtra is {pool}: the engine allocates poolExtra + 30 strat slots of 0x154 bytes at level start, {} bytes{wraps}; at most {MAX_POOL_EXTRA} is taken as what it can allocate (FORMAT.md §10): a damaged file, or set it to the strats plus those spawned while playing",
                slots * STRAT_SLOT_BYTES
            ),
        ));
    } else if strats > pool + STRAT_POOL_BASE {
        out.push(Problem::error(
            Code::StratPool,
            format!(
                "{strats} strats, but room for only {} (poolExtra {pool} + 30)",
                pool + STRAT_POOL_BASE
            ),
        ));
    } else if strats > pool {
        out.push(Problem::warning(
            Code::StratPool,
            format!("poolExtra is {pool}, below the {strats} strats: the 30 slots for strats spawned while playing are partly taken; raise it to at least {strats}"),
        ));
    }
}

/// The player's start stands on a floor the floor test finds, not on the material that test
/// skips.
///
/// Assumption (FORMAT.md §11): the floor test against strat objects (`FUN_00403ad0`) is not
/// modelled, so a start on a crate or platform that is a strat, with nothing of the map below,
/// is reported as a fall, and a start over a map floor under such an object as standing on the
/// map's.
fn player_start(level: &Level, map: &Map, models: &[Model], out: &mut Vec<Problem>) {
    let Some(code) = level.stpc().map(|s| s.strat_code()) else {
        return;
    };
    let starts: Vec<(usize, String)> = map
        .strats
        .iter()
        .enumerate()
        .filter_map(|(i, s)| code.strat_name(s.code_offset).map(|n| (i, n)))
        .filter(|(_, n)| PLAYER_STRATS.contains(&n.as_str()))
        .collect();
    if starts.is_empty() {
        out.push(Problem::warning(
            Code::PlayerStart,
            format!(
                "no strat is the player ({}): the level has no start",
                PLAYER_STRATS.join(", ")
            ),
        ));
    }
    // A player strat not created at start is no start (a removed copy's record keeps the flag):
    // an error only when no player strat is created at start.
    if !starts
        .iter()
        .any(|&(i, _)| map.strats[i].created_at_start())
    {
        for (i, name) in &starts {
            out.push(
                Problem::error(
                    Code::PlayerStart,
                    format!(
                        "strat {i} ({name}) is not created at level start (flag bit 1 of its record, offset 54, is set): the level has no player; clear the bit"
                    ),
                )
                .strat(*i),
            );
        }
    }
    for (i, name) in starts {
        let record = &map.strats[i];
        let world = player_world(level, record, map, models);
        let [x, y, z] = record.position.map(|v| from_fixed(v as i64));
        let probe = world.probe(x, y, z);
        let at = |p: Problem| p.strat(i);
        match (probe.floor, probe.no_floor) {
            (Some(floor), _) if y - floor.height > START_DROP => out.push(at(Problem::warning(
                Code::PlayerStart,
                format!(
                    "strat {i} ({name}) starts at {x:.3}, {y:.3}, {z:.3}, {:.2} above the floor the game finds (tile {} polygon {}): the llama drops at the start",
                    y - floor.height,
                    floor.tile,
                    floor.polygon
                ),
            ))),
            (Some(_), _) => {}
            (None, Some(dead)) => out.push(at(Problem::error(
                Code::PlayerStart,
                format!(
                    "strat {i} ({name}) starts at {x:.3}, {y:.3}, {z:.3} over material {} (tile {} polygon {}): the llama dies at the start",
                    dead.material, dead.tile, dead.polygon
                ),
            ))),
            (None, None) => out.push(at(Problem::error(
                Code::PlayerStart,
                format!("strat {i} ({name}) starts at {x:.3}, {y:.3}, {z:.3}, where the floor test finds no floor: the llama falls at the start"),
            ))),
        }
        let skipped = world.ignored_material();
        let point = [to_fixed(x), to_fixed(y), to_fixed(z)].map(i64::from);
        for &t in probe.cell.map_or(&[][..], |c| world.lists().tiles(c)) {
            let tile = &map.tiles[t as usize];
            let Some(model) = models.get(tile.model_index as usize) else {
                continue;
            };
            for (p, poly) in model.collision_polygons().enumerate() {
                if poly.material != skipped {
                    continue;
                }
                let under = test_polygon(tile, poly, point, None)
                    .is_some_and(|c| c.passed && !c.above && c.dist <= 0.25 + START_DROP);
                if under {
                    out.push(at(Problem::error(
                        Code::PlayerStartMaterial,
                        format!(
                            "strat {i} ({name}) starts on material {skipped} (tile {t} polygon {p}), which its floor test skips: give the floor under the start another material"
                        ),
                    ))
                    .tile(t as usize)
                    .polygon(p));
                }
            }
        }
    }
}

/// The floor test as the player's strat runs it: skipping 0x11, or 0x12 instead with the flag
/// 0x8000000 (FORMAT.md §4 step 2). Which word holds that flag the notes leave open (§11): note
/// 001 reads strat+0xe8, taken here to be the record's type flags, and note 002 names WFPC
/// (*likely*); either one counts. Were it neither, the player would skip 0x11 wherever this
/// says 0x12.
fn player_world<'a>(
    level: &Level,
    record: &crate::raw::StratRecord,
    map: &'a Map,
    models: &'a [Model],
) -> World<'a> {
    let world = World::new(map, models);
    if (level.wfpc() | record.type_flags) & FLAG_ALTERNATIVE_MATERIAL != 0 {
        world.with_alternative_material()
    } else {
        world
    }
}

/// Polygons whose tolerance zone sticks out ≥ 0.08 at a sharp corner over a surface more than
/// 0.05 lower, where the floor test confirms the polygon wins: the llama floats there.
pub(super) fn needles(map: &Map, models: &[Model], world: &World, out: &mut Vec<Problem>) {
    for (t, tile) in map.tiles.iter().enumerate() {
        if tile_cell(tile, map.width, map.height).is_none() {
            continue;
        }
        let Some(model) = models.get(tile.model_index as usize) else {
            continue;
        };
        for (p, poly) in model.collision_polygons().enumerate() {
            let ny = poly.planes[0].normal[1];
            if ny <= 0 || poly.material == MATERIAL_IGNORED {
                continue;
            }
            let tolerance = -edge_tolerance(ny) as f64 / 4064.0;
            let corners = world_polygon(tile, poly);
            let n = corners.len();
            let spike = (0..n).find_map(|k| {
                let c = corners[k];
                let a = (corners[(k + n - 1) % n] - c).normalize_or_zero();
                let b = (corners[(k + 1) % n] - c).normalize_or_zero();
                let half = a.angle_between(b) / 2.0;
                let reach = tolerance / libm::sin(half).max(1e-6);
                if reach < NEEDLE_REACH || !reach.is_finite() {
                    return None;
                }
                let out_dir = -(a + b).normalize_or_zero();
                [0.3, 0.6, 0.9].into_iter().find_map(|f| {
                    let s: DVec3 = c + out_dir * (reach * f);
                    if reach * f < NEEDLE_REACH {
                        return None;
                    }
                    floats_at(world, t as u32, p as u32, s).then_some((k, s))
                })
            });
            if let Some((k, s)) = spike {
                out.push(
                    Problem::warning(
                        Code::Needle,
                        format!(
                            "tile {t} collision polygon {p}: its corner {k} is so sharp that the engine's edge tolerance reaches past it; at {:.3}, {:.3} the llama stands in the air over the surface below",
                            s.x, s.z
                        ),
                    )
                    .tile(t)
                    .model(tile.model_index as usize)
                    .polygon(p),
                );
            }
        }
    }
}

/// Feet on the polygon's plane at `spot`: the polygon wins, and the next floor is lower by more
/// than the needle drop.
fn floats_at(world: &World, tile: u32, polygon: u32, spot: DVec3) -> bool {
    let own = world
        .probe(spot.x, 1000.0, spot.z)
        .candidates
        .into_iter()
        .find(|c| c.tile == tile && c.polygon == polygon);
    let Some(own) = own.filter(|c| c.passed) else {
        return false;
    };
    let probe = world.probe(spot.x, own.height, spot.z);
    let wins = probe
        .floor
        .is_some_and(|f| (f.tile, f.polygon) == (tile, polygon));
    let next = probe
        .candidates
        .iter()
        .filter(|c| c.passed && !c.above && (c.tile, c.polygon) != (tile, polygon))
        .map(|c| c.height)
        .filter(|&h| h <= own.height)
        .fold(f64::MIN, f64::max);
    wins && own.height - next > NEEDLE_DROP
}
