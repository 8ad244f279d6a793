//! The notes' rules for a level the game can load ("Writing new geometry – checklist", "Rules for
//! writing a new MAP"). `Level::to_bytes` refuses only what cannot be written at all; this check
//! finds everything else that would crash the game, corrupt the level or hide geometry.

use serde::Serialize;

use crate::level::{Level, Map, Model};
use crate::raw::{face_flags, Face, TextureEntry};

pub const MAX_MODEL_VERTICES: usize = 8000;
pub const MAX_BATCH_FACES: usize = 256;
const STRAT_POOL_BASE: u64 = 30;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Short name of the rule.
    pub rule: &'static str,
    /// What is at fault, in the game's terms (`TRAK model 12 face 3`, `tile 40`, `strat 7`).
    pub culprit: String,
    pub message: String,
}

/// The render state a face switches to: its page and the entry's blend and mode bits, and the
/// face's special modes. Faces of one batch share it.
pub fn render_state(face: &Face, entries: &[TextureEntry]) -> (i8, u16, u16) {
    let entry = entries
        .get(face.texture as usize)
        .copied()
        .unwrap_or_default();
    (entry.page, entry.flags & 0x7f00, face.flags & 0x3)
}

impl Level {
    pub fn check(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let entries = self.text().map(|t| t.entries.as_slice()).unwrap_or(&[]);
        if let Some(trak) = self.trak() {
            for (i, model) in trak.models.iter().enumerate() {
                check_model(model, &format!("TRAK model {i}"), entries, &mut problems);
            }
        }
        if let Some(map) = self.map() {
            let model_count = self.trak().map_or(0, |t| t.models.len());
            check_map(map, model_count, &mut problems);
            let code_names = self.stpc().map(|s| (s, s.code_start()));
            for (i, s) in map.strats.iter().enumerate() {
                let culprit = || format!("strat {i}");
                if let Some((stpc, code_start)) = code_names {
                    let in_code = (s.code_offset as usize) >= code_start
                        && (s.code_offset as usize) < code_start + stpc.code.len();
                    if !in_code {
                        problems.push(Problem {
                            rule: "strat code offset",
                            culprit: culprit(),
                            message: format!(
                                "code offset {:#x} is outside this level's strat code",
                                s.code_offset
                            ),
                        });
                    }
                }
                let params_end = s.parameter_index as i64 + s.parameter_count as i64;
                let params_ok = if s.parameter_count == 0 {
                    true
                } else {
                    s.parameter_index >= 0 && params_end <= map.parameters.len() as i64
                };
                if !params_ok {
                    problems.push(Problem {
                        rule: "strat parameters",
                        culprit: culprit(),
                        message: format!(
                            "parameters {}..{} are outside the pool of {}",
                            s.parameter_index,
                            params_end,
                            map.parameters.len()
                        ),
                    });
                }
                if s.waypoint != -1
                    && (s.waypoint < 0 || s.waypoint as usize >= map.waypoints.len())
                {
                    problems.push(Problem {
                        rule: "strat waypoint",
                        culprit: culprit(),
                        message: format!(
                            "waypoint {} does not exist ({} waypoints)",
                            s.waypoint,
                            map.waypoints.len()
                        ),
                    });
                }
            }
            if map.strats.len() as u64 > map.strat_pool_extra as u64 + STRAT_POOL_BASE {
                problems.push(Problem {
                    rule: "strat pool",
                    culprit: "MAP strats".into(),
                    message: format!(
                        "{} strats but room for only {} (pool size + 30)",
                        map.strats.len(),
                        map.strat_pool_extra as u64 + STRAT_POOL_BASE
                    ),
                });
            }
        }
        problems
    }
}

fn check_model(model: &Model, name: &str, entries: &[TextureEntry], problems: &mut Vec<Problem>) {
    let mut push = |rule, culprit: String, message: String| {
        problems.push(Problem {
            rule,
            culprit,
            message,
        })
    };
    if model.vertices.len() > MAX_MODEL_VERTICES {
        push(
            "vertex limit",
            name.to_string(),
            format!(
                "{} vertices; the engine transforms at most {MAX_MODEL_VERTICES} per model",
                model.vertices.len()
            ),
        );
    }
    let mut previous_state = None;
    let mut batch_len = 0usize;
    for (f, face) in model.faces.iter().enumerate() {
        let culprit = || format!("{name} face {f}");
        if face
            .corners
            .iter()
            .any(|&c| c as usize >= model.vertices.len())
        {
            push(
                "face corners",
                culprit(),
                format!(
                    "corners {:?} but the model has {} vertices",
                    face.corners,
                    model.vertices.len()
                ),
            );
        }
        if face.texture as usize >= entries.len() {
            push(
                "texture entry",
                culprit(),
                format!(
                    "texture entry {} but the table has {}",
                    face.texture,
                    entries.len()
                ),
            );
        }
        let state = render_state(face, entries);
        let new_batch = face.flags & face_flags::NEW_BATCH != 0;
        if !new_batch && previous_state != Some(state) {
            push(
                "batch bit",
                culprit(),
                "starts a new page or render state but lacks flag 0x8".into(),
            );
        }
        batch_len = if new_batch { 1 } else { batch_len + 1 };
        if batch_len == MAX_BATCH_FACES + 1 {
            push(
                "batch length",
                culprit(),
                format!("more than {MAX_BATCH_FACES} faces since the last flag 0x8"),
            );
        }
        previous_state = Some(state);
    }
}

fn check_map(map: &Map, model_count: usize, problems: &mut Vec<Problem>) {
    let mut push = |rule, culprit: String, message: String| {
        problems.push(Problem {
            rule,
            culprit,
            message,
        })
    };
    for (i, tile) in map.tiles.iter().enumerate() {
        let culprit = || format!("tile {i}");
        let Some(cell) = tile.cell(map.width, map.height) else {
            push(
                "tile in grid",
                culprit(),
                format!(
                    "at {:?}, outside the {}×{} grid; the game would write into foreign memory",
                    tile.float.position, map.width, map.height
                ),
            );
            continue;
        };
        if tile.fixed != crate::level::map::fixed_from_float(&tile.float) {
            push(
                "tile copies agree",
                culprit(),
                "its fixed-point copy (block 8) does not match its float copy (block 2)".into(),
            );
        }
        if tile.model_index != tile.float.model {
            push(
                "tile copies agree",
                culprit(),
                format!(
                    "model index block says {}, the tile record says {}",
                    tile.model_index, tile.float.model
                ),
            );
        }
        for m in [Some(tile.model_index), tile.swap.map(|s| s.model_b)]
            .into_iter()
            .flatten()
        {
            if m as usize >= model_count {
                push(
                    "model index",
                    culprit(),
                    format!("model {m} does not exist ({model_count} models)"),
                );
            }
        }
        let region = map.region_grid.get(cell as usize).copied().unwrap_or(0);
        if region as usize >= map.regions.len() {
            push(
                "region number",
                format!("cell {cell}"),
                format!("region {region} is not 0..31"),
            );
        } else if !map
            .regions
            .iter()
            .any(|r| r.mask == 0 || r.mask & (1u32 << region) != 0)
        {
            push(
                "visible region",
                culprit(),
                format!("its cell is in region {region}, which no region's mask can see"),
            );
        }
    }
}
