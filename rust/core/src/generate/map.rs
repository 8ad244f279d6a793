//! MAP: strats, waypoints, zones, regions, paths; LGHT, NAME, SMPC.

use glam::Vec2;

use super::builder::WATER_Y;
use super::colours::SUN;
use super::plan::Plan;
use super::stpc::{CUT_SCENE_TRIGGER, LEVEL_DOOR, LLAMA, STRAT_TYPES};
use super::tiles::Placed;
use super::world::{fixed, World};
use crate::level::map::{
    ColourSetRule, Path, PathPoint, SubPath, REGION_COUNT, WFPC_PATHS, WFPC_PATH_POINT_EXTRA,
    WFPC_VIEW_DISTANCE,
};
use crate::level::{Light, Lights, Map, Name};
use crate::raw::{Region, StratRecord, Waypoint, ZoneRecord};
use crate::rng::{sin_cos_turns, Rng};

pub(super) fn build_map(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    placed: Placed,
    code: &[u32],
    wfpc: u32,
) -> Map {
    let islands = world.island_cells();
    let (strats, parameters, waypoints) = build_strats(rng, plan, world, &placed, &islands, code);
    let zones = build_zones(rng, plan, world, &placed, &islands, code);
    let paths = (wfpc & WFPC_PATHS != 0).then(|| build_paths(rng, world, &islands, wfpc));
    Map {
        width: plan.width as u32,
        height: plan.height as u32,
        tiles: placed.tiles,
        parameters,
        zones,
        waypoints,
        regions: regions(plan),
        region_grid: world.region.clone(),
        // FORMAT.md §6: at least the strats and the ones spawned while playing: room for the
        // splinters, heads and sparkles.
        strat_pool_extra: (strats.len() + 24) as u32,
        strats,
        paths,
        view_distance: (wfpc & WFPC_VIEW_DISTANCE != 0).then_some(200),
        last: 0,
        colour_rule: ColourSetRule::FrameCount,
    }
}

/// The plan's strats of each type, standing on islands (the llama at the start, the door at the
/// exit), with their parameters and a ring of waypoints where the type has them.
fn build_strats(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    placed: &Placed,
    islands: &[usize],
    code: &[u32],
) -> (Vec<StratRecord>, Vec<u32>, Vec<Waypoint>) {
    let mut parameters = Vec::new();
    let mut waypoints: Vec<Waypoint> = Vec::new();
    let mut strats = Vec::new();
    for (k, t) in STRAT_TYPES.iter().enumerate() {
        for instance in 0..t.counts[plan.strat_column] {
            let position = match k {
                LLAMA => placed.start,
                LEVEL_DOOR => world.stand(world.exit, Vec2::ZERO),
                _ => world.stand(
                    rng.pick(islands),
                    Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3)),
                ),
            };
            // Parameters (meaning per type unknown): the instance number, then small fixed-point
            // values; −1 and none for types without.
            let parameter_index = if t.parameters == 0 {
                -1
            } else {
                parameters.len() as i32
            };
            for p in 0..t.parameters {
                parameters.push(if p == 0 {
                    instance as u32
                } else {
                    rng.below(8) as u32 * 0x1000
                });
            }
            let waypoint = if t.waypoints == 0 {
                -1
            } else {
                waypoints.len() as i32
            };
            for w in 0..t.waypoints {
                let (sin, cos) = sin_cos_turns(w as f32 / t.waypoints as f32);
                let around = Vec2::new(cos, sin) * 1.5;
                waypoints.push(Waypoint {
                    next: (w + 1 < t.waypoints) as u32,
                    unknown_04: 0,
                    rotation: [0, rng.below(4096) as u16, 0],
                    position: [
                        position[0] + fixed(around.x),
                        position[1] + fixed(0.5),
                        position[2] + fixed(around.y),
                    ],
                    unknown_1a: [0, 0],
                });
            }
            let hidden = t.name == "Coin5" && rng.chance(0.1);
            strats.push(StratRecord {
                rotation: [0, rng.below(4096) as u16, 0],
                position,
                code_offset: code[k],
                parameter_count: t.parameters as u32,
                parameter_index,
                variable_count: t.variables,
                slot_count: t.slots,
                type_flags: t.type_flags,
                extra_memory: t.extra_memory,
                waypoint,
                reserved_32: 0,
                flags: if hidden { 2 } else { 0 },
                reserved_38: 0,
            });
        }
    }
    (strats, parameters, waypoints)
}

/// The zones (ZONE records): the first at the start, the second naming the cut scene trigger.
fn build_zones(
    rng: &mut Rng,
    plan: &Plan,
    world: &World,
    placed: &Placed,
    islands: &[usize],
    code: &[u32],
) -> Vec<ZoneRecord> {
    (0..plan.zones)
        .map(|k| {
            let cell = if k == 0 {
                placed.start_cell
            } else {
                rng.pick(islands)
            };
            let (col, row) = world.grid.col_row(cell);
            ZoneRecord {
                cell: [col as u32, world.level[cell] as u32, row as u32],
                position: world.stand(cell, Vec2::ZERO),
                unknown_18: 0,
                rotation: rng.below(4096) as u32,
                flags: if k == 0 { 0x100 } else { 0 },
                unknown_24: 0,
                stpc_offset: if k == 1 { code[CUT_SCENE_TRIGGER] } else { 0 },
                unknown_2c: [0; 3],
                unknown_38: 0,
                fog: [
                    fixed(12.0 + rng.range(0.0, 8.0)) as u32,
                    fixed(40.0 + rng.range(0.0, 30.0)) as u32,
                ],
                unknown_42: [0; 2],
                colours: [0x40_4040, 0x80_7060],
                unknown_52: [0; 2],
                music: 1 + rng.below(12) as u32,
            }
        })
        .collect()
}

/// A few paths of a few points on islands (WFPC 0x20), with the third word where WFPC says.
fn build_paths(rng: &mut Rng, world: &World, islands: &[usize], wfpc: u32) -> Vec<Path> {
    let third_word = wfpc & WFPC_PATH_POINT_EXTRA != 0;
    (0..1 + rng.below(3))
        .map(|_| Path {
            subpaths: (0..1 + rng.below(2))
                .map(|_| SubPath {
                    flags: rng.below(4) as u16,
                    points: (0..2 + rng.below(4))
                        .map(|_| {
                            let [x, y, z] = world.stand(rng.pick(islands), Vec2::ZERO);
                            PathPoint {
                                a: x as u32,
                                b: z as u32,
                                c: third_word.then_some(y as u32),
                                kind: rng.below(3) as u16,
                                extra: 0,
                            }
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

/// Each region sees itself and the regions around it; the rest of the 32 see only themselves.
/// The value is the water height (its meaning is unknown, FORMAT.md §6).
pub(super) fn regions(plan: &Plan) -> [Region; REGION_COUNT] {
    let (columns, rows) = plan.regions;
    std::array::from_fn(|k| {
        if k >= columns * rows {
            return Region {
                mask: 1 << k,
                value: 0,
            };
        }
        let (col, row) = ((k % columns) as isize, (k / columns) as isize);
        let mut mask = 0u32;
        for r in (row - 1).max(0)..=(row + 1).min(rows as isize - 1) {
            for c in (col - 1).max(0)..=(col + 1).min(columns as isize - 1) {
                mask |= 1 << (r * columns as isize + c);
            }
        }
        Region {
            mask,
            value: fixed(WATER_Y),
        }
    })
}
/// The sun (kind 1: a direction) and point lights (kind 2: a position and radius), each with
/// four words; positions and directions in game space with z negated, as note 003 says of LGHT
/// (`game::lights`).
pub(super) fn build_lights(rng: &mut Rng, plan: &Plan, world: &World) -> Lights {
    let islands = world.island_cells();
    let sun = SUN.normalize();
    let mut lights = vec![Light {
        kind: 1,
        colour: [0xa0, 0x98, 0x80],
        words: [fixed(sun.x), fixed(sun.y), fixed(-sun.z), 0]
            .map(|v| v as u32)
            .to_vec(),
    }];
    for _ in 1..plan.lights {
        let [x, y, z] = world.stand(rng.pick(&islands), Vec2::ZERO);
        lights.push(Light {
            kind: 2,
            colour: [
                0x80 + rng.below(0x60) as u8,
                0x60 + rng.below(0x40) as u8,
                0x30,
            ],
            words: [x, y + fixed(1.5), -z, fixed(rng.range(2.0, 6.0))]
                .map(|v| v as u32)
                .to_vec(),
        });
    }
    Lights {
        lights,
        ..Lights::default()
    }
}

/// NAME: a name in the originals' pattern, NUL-terminated and padded to an even length. The
/// u32 before it is taken to be the length of the name field (the notes say only "u32 + level
/// name"). Its 14-byte payload also ends two bytes short of a word, so a level whose convention
/// aligns chunks to 4 has padding right here and reads back with the same alignment.
pub(super) fn level_name(seed: u64) -> Name {
    let mut bytes = format!("t1l{}m{:03}", 1 + seed % 9, 1 + (seed / 9) % 999).into_bytes();
    bytes.resize(10, 0);
    Name {
        prefix: bytes.len() as u32,
        bytes,
    }
}

/// A stand-in SMPC chunk (sound bank of 'cvg ' VAG samples), which the project does not model
/// and keeps verbatim. Its odd length makes a convention that aligns chunks to 2 pad after it,
/// so that this alignment too is seen when the level is read back.
pub(super) fn sound_bank(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = b"cvg ".to_vec();
    let len = 297 + 2 * rng.below(100);
    bytes.extend(rng.bytes(len));
    bytes
}
