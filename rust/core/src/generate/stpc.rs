//! STPC: object models, animation sets, the WFPC 0x100 block and the strat code.

use glam::{Vec2, Vec3};

use super::builder::{revolve, Group, ModelBuilder, Rect, Skin, MATERIAL_NORMAL};
use super::plan::Plan;
use super::textures::{Surface, Textures};
use super::world::fixed;
use crate::geometry::PlaneScale;
use crate::level::stpc::{
    Animation, ExtraBlock, ExtraEntry, NAME_OPCODE, SPAWN_OPCODE, WFPC_STPC_EXTRA_BLOCK,
};
use crate::level::{ObjectModel, Stpc};
use crate::raw::AnimationHeader;
use crate::rng::{sin_cos_turns, Rng};

/// A strat type as the MAP records use it. Variables, slots, type flags and extra memory come
/// from the compiled code and are the same for every instance of a type (FORMAT.md §6), so every
/// record copies them from here.
pub(super) struct StratType {
    pub(super) name: &'static str,
    pub(super) variables: u32,
    pub(super) slots: u32,
    pub(super) type_flags: u32,
    pub(super) extra_memory: u32,
    pub(super) parameters: usize,
    /// Length of the waypoint chain each instance follows (0: none).
    pub(super) waypoints: usize,
    /// Placed through a spawn stub (`push; spawn <unit>; end`) rather than at its own unit.
    pub(super) spawned: bool,
    /// Instances in a tiny, small and full level.
    pub(super) counts: [usize; 3],
}

pub(super) const fn strat(
    name: &'static str,
    [variables, slots, type_flags, extra_memory]: [u32; 4],
    parameters: usize,
    counts: [usize; 3],
) -> StratType {
    StratType {
        name,
        variables,
        slots,
        type_flags,
        extra_memory,
        parameters,
        waypoints: 0,
        spawned: false,
        counts,
    }
}

/// The placed types. The player start is the one `Llama` (nvars 78, flags 0x248000, FORMAT.md §6);
/// the level door stands on the exit floor.
pub(super) const STRAT_TYPES: [StratType; 11] = [
    strat("Llama", [78, 4, 0x24_8000, 1], 0, [1, 1, 1]),
    strat("LevelDoor", [31, 2, 0x8000, 1], 2, [1, 1, 1]),
    strat("Coin", [9, 0, 0x4_0000, 0], 0, [3, 20, 110]),
    strat("Coin5", [9, 0, 0x4_0000, 0], 1, [1, 3, 12]),
    strat("CheckPointPost", [22, 1, 0x8000, 0], 1, [1, 2, 5]),
    strat("Health", [12, 0, 0x4_0000, 0], 0, [1, 3, 8]),
    StratType {
        spawned: true,
        ..strat("SmashPot", [17, 1, 0x8_0000, 0], 1, [1, 4, 14])
    },
    StratType {
        waypoints: 4,
        ..strat("CameraSide", [40, 0, 0, 2], 3, [1, 2, 6])
    },
    strat("CheatTeleport", [8, 0, 0, 0], 0, [1, 1, 1]),
    StratType {
        waypoints: 3,
        ..strat("Wompy", [24, 1, 0x8000, 0], 0, [1, 1, 2])
    },
    strat("CutSceneTrigger", [20, 0, 0, 0], 2, [1, 1, 3]),
];
pub(super) const LLAMA: usize = 0;
pub(super) const LEVEL_DOOR: usize = 1;
pub(super) const CUT_SCENE_TRIGGER: usize = 10;

/// Types that exist only in the code, spawned at run time by the type named second.
const INTERNAL_STRATS: [(&str, &str); 3] = [
    ("CheckPointHead", "CheckPointPost"),
    ("SmashPotPiece", "SmashPot"),
    ("CoinSparkle", "Coin"),
];

/// Strat code words besides the name and spawn opcodes (FORMAT.md §6): end. The push opcode and
/// the filler are stand-ins; the notes name only these.
const OP_END: u32 = 0xe0;
const OP_PUSH: u32 = 0x9c;
const FILLER_OPCODES: [u32; 10] = [0x01, 0x03, 0x0a, 0x12, 0x1f, 0x24, 0x38, 0x41, 0x57, 0x6c];

/// The strat code: one unit per type, the spawn stubs, then the names. Returns the code and, per
/// `STRAT_TYPES`, the offset MAP records point at (from the STPC payload start).
///
/// The names sit after all code so that a stub is followed by no name opcode: `Stpc::strat_name`
/// looks for one in the 16 words at an offset before it follows a spawn.
fn strat_code(rng: &mut Rng, code_start: usize) -> (Vec<u8>, Vec<u32>) {
    let names: Vec<&str> = STRAT_TYPES
        .iter()
        .map(|t| t.name)
        .chain(INTERNAL_STRATS.iter().map(|(name, _)| *name))
        .collect();
    let unit_index = |name: &str| names.iter().position(|&n| n == name).expect("a named unit");
    let spawns: Vec<Option<usize>> = names
        .iter()
        .map(|&name| {
            INTERNAL_STRATS
                .iter()
                .find(|(_, by)| *by == name)
                .map(|(spawned, _)| unit_index(spawned))
        })
        .collect();
    let fillers: Vec<Vec<u32>> = names
        .iter()
        .map(|_| {
            let pairs = 4 + rng.below(16);
            (0..pairs)
                .flat_map(|_| [rng.pick(&FILLER_OPCODES), rng.below(64) as u32])
                .collect()
        })
        .collect();

    let mut unit_at = Vec::with_capacity(names.len());
    let mut at = 0;
    for (spawn, filler) in spawns.iter().zip(&fillers) {
        unit_at.push(at);
        at += 4 * (NAME_OPCODE.len() + 1 + if spawn.is_some() { 2 } else { 0 } + filler.len() + 1);
    }
    let stubs: Vec<usize> = (0..STRAT_TYPES.len())
        .filter(|&k| STRAT_TYPES[k].spawned)
        .collect();
    let stub_at: Vec<usize> = (0..stubs.len()).map(|k| at + k * 20).collect();
    let mut name_at = at + stubs.len() * 20;
    let absolute = |offset: usize| (code_start + offset) as u32;

    let mut words = Vec::new();
    let mut strings = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let after_rel = unit_at[k] + 4 * (NAME_OPCODE.len() + 1);
        words.extend(NAME_OPCODE);
        words.push((name_at as i64 - after_rel as i64) as i32 as u32);
        if let Some(target) = spawns[k] {
            words.extend([SPAWN_OPCODE, absolute(unit_at[target])]);
        }
        words.extend(&fillers[k]);
        words.push(OP_END);
        strings.extend(name.bytes().chain([0]));
        name_at += name.len() + 1;
    }
    for &k in &stubs {
        words.extend([
            OP_PUSH,
            rng.below(8) as u32,
            SPAWN_OPCODE,
            absolute(unit_at[k]),
            OP_END,
        ]);
    }
    let mut code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    code.extend(strings);
    code.resize(code.len().next_multiple_of(4), 0);

    let offsets = (0..STRAT_TYPES.len())
        .map(|k| match stubs.iter().position(|&s| s == k) {
            Some(stub) => absolute(stub_at[stub]),
            None => absolute(unit_at[k]),
        })
        .collect();
    (code, offsets)
}

#[derive(Debug, Clone, Copy)]
enum ObjectKind {
    /// Skinned, one bone per box (the llama and other animals).
    Creature,
    Coin,
    Pot,
    /// With a collision model: strats can stand on it.
    Crate,
    Post,
    Gem,
}

/// Bones of a creature: body, neck, head, four legs, tail.
const CREATURE_BONES: u32 = 8;

pub(super) fn build_stpc(rng: &mut Rng, plan: &Plan, t: &Textures, wfpc: u32) -> (Stpc, Vec<u32>) {
    const KINDS: [ObjectKind; 7] = [
        ObjectKind::Creature,
        ObjectKind::Coin,
        ObjectKind::Pot,
        ObjectKind::Crate,
        ObjectKind::Post,
        ObjectKind::Gem,
        ObjectKind::Coin,
    ];
    let models = (0..plan.object_models)
        .map(|k| object_model(rng, KINDS[k % KINDS.len()], t))
        .collect();
    let animations = (0..plan.animations)
        .map(|k| animation(rng, if k % 2 == 0 { CREATURE_BONES } else { 0 }))
        .collect();
    let extra_block = (wfpc & WFPC_STPC_EXTRA_BLOCK != 0).then(|| extra_block(rng, plan, t));
    let mut stpc = Stpc {
        models,
        animations,
        extra_block,
        code: Vec::new(),
    };
    let (code, offsets) = strat_code(rng, stpc.code_start());
    stpc.code = code;
    (stpc, offsets)
}

fn object_model(rng: &mut Rng, kind: ObjectKind, t: &Textures) -> ObjectModel {
    let mut b = ModelBuilder::new(rng, PlaneScale::Engine);
    let scale = b.rng.range(0.7, 1.3);
    let mut bone_vertex_counts = Vec::new();
    match kind {
        ObjectKind::Creature => {
            let surface = b.rng.pick(&[Surface::Dirt, Surface::Wood]);
            let fur = Skin::new(t.pick(&mut b.rng, surface));
            let mut parts = vec![
                (Vec3::new(-0.15, 0.35, -0.3), Vec3::new(0.15, 0.6, 0.3)),
                (Vec3::new(-0.06, 0.55, 0.2), Vec3::new(0.06, 0.95, 0.32)),
                (Vec3::new(-0.08, 0.9, 0.22), Vec3::new(0.08, 1.05, 0.45)),
            ];
            for (x, z) in [(-0.1, -0.2), (0.1, -0.2), (-0.1, 0.2), (0.1, 0.2)] {
                parts.push((
                    Vec3::new(x - 0.04, 0.0, z - 0.04),
                    Vec3::new(x + 0.04, 0.4, z + 0.04),
                ));
            }
            parts.push((Vec3::new(-0.03, 0.45, -0.38), Vec3::new(0.03, 0.55, -0.3)));
            for (min, max) in parts {
                let first = b.positions.len();
                let (min, max) = (min * scale, max * scale);
                b.cuboid(min, max, fur, fur);
                let size = max - min;
                b.rect(
                    &Rect {
                        centre: Vec3::new((min.x + max.x) / 2.0, min.y, (min.z + max.z) / 2.0),
                        outward: Vec3::NEG_Y,
                        up: Vec3::Z,
                        size: Vec2::new(size.x, size.z),
                        cells: (1, 1),
                    },
                    fur,
                );
                bone_vertex_counts.push((b.positions.len() - first) as u16);
            }
        }
        ObjectKind::Coin | ObjectKind::Pot | ObjectKind::Post | ObjectKind::Gem => {
            let (sides, profile): (usize, Vec<(f32, f32)>) = match kind {
                ObjectKind::Coin => (
                    10,
                    vec![(0.0, 0.33), (0.15, 0.33), (0.15, 0.27), (0.0, 0.27)],
                ),
                ObjectKind::Pot => (
                    8 + b.rng.below(5),
                    vec![
                        (0.12, 0.5),
                        (0.2, 0.42),
                        (0.26, 0.25),
                        (0.2, 0.08),
                        (0.0, 0.0),
                    ],
                ),
                ObjectKind::Post => (6, vec![(0.0, 1.2), (0.08, 1.2), (0.08, 0.6), (0.08, 0.0)]),
                _ => (6, vec![(0.0, 0.3), (0.12, 0.15), (0.0, 0.0)]),
            };
            let profile: Vec<(f32, f32)> = profile
                .into_iter()
                .map(|(r, h)| (r * scale, h * scale))
                .collect();
            let rings = revolve(&mut b.rng, Vec3::ZERO, sides, &profile, Vec2::ONE, 0.0);
            let surface = b.rng.pick(&[Surface::Brick, Surface::Mat, Surface::Stone]);
            let sides_skin = Skin::new(t.pick(&mut b.rng, surface));
            let caps = Skin::new(t.pick(&mut b.rng, Surface::Flat));
            b.revolved(&rings, sides_skin, caps);
        }
        ObjectKind::Crate => {
            let wood = Skin::new(t.pick(&mut b.rng, Surface::Wood));
            let half = 0.3 * scale;
            let faces = b.cuboid(
                Vec3::new(-half, 0.0, -half),
                Vec3::new(half, 2.0 * half, half),
                wood,
                wood,
            );
            for corners in faces {
                b.collide_vertices(Group::A, MATERIAL_NORMAL, &corners);
            }
        }
    }
    let model = b.finish(t.entries());
    let rigid_vertex_count = if bone_vertex_counts.is_empty() {
        model.vertices.len() as u16
    } else {
        0
    };
    ObjectModel {
        model,
        rigid_vertex_count,
        bone_vertex_counts,
        bone_pointer: 0,
    }
}

/// An animation set: skeletal (a frame table and a 4×4 matrix per bone and frame, a gentle sway)
/// or, without bones, compressed vertex deltas only. Its data length is what the header says
/// (FORMAT.md §7).
fn animation(rng: &mut Rng, bones: u32) -> Animation {
    let skeletal = bones > 0;
    let frames = if skeletal {
        6 + rng.below(11)
    } else {
        4 + rng.below(5)
    } as u32;
    let header = AnimationHeader {
        table_count: if skeletal { 2 } else { 1 },
        unknown_04: 0,
        frame_count: frames,
        frame_table: if skeletal { 0 } else { 1 },
        delta_count: if skeletal {
            0
        } else {
            9 + rng.below(32) as u32
        },
        unknown_14: 0,
        bone_count: bones,
        unknown_1c: 0,
    };
    let mut data = Vec::new();
    for k in 0..header.table_count {
        data.extend(((k + 1) * frames).to_le_bytes());
    }
    if header.frame_table == 0 {
        for frame in 0..frames {
            data.extend((frame * 2).to_le_bytes());
            data.extend(0u32.to_le_bytes());
        }
    }
    let deltas = header.delta_count as usize;
    for frame in 0..frames {
        // Frame 0 holds four i16 per delta, later frames one, padded to a whole word.
        let values = if frame == 0 {
            4 * deltas
        } else {
            deltas + (deltas & 1)
        };
        for _ in 0..values {
            data.extend((rng.below(64) as i16 - 32).to_le_bytes());
        }
        let sway = sin_cos_turns(frame as f32 / frames as f32).0;
        for bone in 0..bones {
            let (sin, cos) = sin_cos_turns(0.02 * (bone + 1) as f32 * sway);
            let lift = 0.05 * bone as f32;
            let matrix = [
                cos, 0.0, -sin, 0.0, 0.0, 1.0, 0.0, 0.0, sin, 0.0, cos, 0.0, 0.0, lift, 0.0, 1.0,
            ];
            data.extend(matrix.iter().flat_map(|v| v.to_le_bytes()));
        }
    }
    debug_assert_eq!(header.data_len(), Some(data.len() as u64));
    Animation { header, data }
}

/// The WFPC 0x100 block (FORMAT.md §7): entries whose 16-byte head counts (at +4) the 8-byte
/// items after it, each item followed by an object model. Their meaning is unknown, so the items
/// are points on the grid and the models small pickups.
fn extra_block(rng: &mut Rng, plan: &Plan, t: &Textures) -> ExtraBlock {
    let (most_entries, most_items) = plan.extra_block;
    let entries = (0..1 + rng.below(most_entries))
        .map(|k| {
            let count = 1 + rng.below(most_items);
            let unknown_0c = rng.below(4) as u32;
            let items = (0..count)
                .map(|_| {
                    let x = fixed(rng.range(0.0, plan.width as f32));
                    let z = fixed(rng.range(0.0, plan.height as f32));
                    let mut item = [0u8; 8];
                    item[..4].copy_from_slice(&x.to_le_bytes());
                    item[4..].copy_from_slice(&z.to_le_bytes());
                    item
                })
                .collect();
            let models = (0..count)
                .map(|i| {
                    let kind = [ObjectKind::Gem, ObjectKind::Coin][i % 2];
                    object_model(rng, kind, t)
                })
                .collect();
            ExtraEntry {
                unknown_00: k as u32,
                item_pointer: 0,
                unknown_0c,
                items,
                models,
            }
        })
        .collect();
    ExtraBlock { entries }
}
