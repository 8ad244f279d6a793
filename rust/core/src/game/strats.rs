//! A level's strats (note 003 "Strats", "Object types"; FORMAT.md §6 block 12) in the game's
//! terms: every placed strat with its type name, position in units, turn in degrees, whether it
//! is created at level start, its parameters and waypoints; every type this level's code names,
//! with how often it is placed and whether another can be placed (note 003 rule 4); and the
//! types placed across many levels. What `llamawad strats` and `strat-table` print, for the
//! Python binding and the add-on to ask the same.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::error::{catch_panic, ParseError, WadError};
use crate::game::space::{degrees, from_fixed};
use crate::level::stpc::{StratCode, NAME_OPCODE, SPAWN_OPCODE};
use crate::level::{Level, Map};
use crate::limits::{LimitError, MAX_STRAT_REFERENCES};
use crate::raw::StratRecord;

/// The strats that are the player at the level's start (FORMAT.md §6).
pub const PLAYER_STRATS: [&str; 4] = [
    "Llama",
    "KuscoAndPachaTogetherOnATree",
    "RollerCoaster",
    "LlamaChase",
];
/// The type name counted for strats whose name is not found (as `info` counts them).
pub const UNNAMED: &str = "?";
/// At most this many named strats are read from one level's code: the originals name about 500
/// (~300 placed types and ~200 spawned internally, note 003), so a code of more holds no names
/// the game uses but crafted repeats, each of which costs a string.
pub const MAX_NAMED_STRATS: usize = 1 << 14;

/// The fields the strat compiler sets, the same for every strat of a type (note 003 rule 4:
/// copied from the type for a new strat).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TypeFields {
    pub variables: u32,
    pub slots: u32,
    pub type_flags: u32,
    pub extra_memory: u32,
}

impl TypeFields {
    pub fn of(record: &StratRecord) -> TypeFields {
        TypeFields {
            variables: record.variable_count,
            slots: record.slot_count,
            type_flags: record.type_flags,
            extra_memory: record.extra_memory,
        }
    }

    /// The type fields of the first strat of `map` with this code offset (the type's, note 003
    /// rule 4), None when no strat of the type is placed.
    pub fn of_type(map: &Map, code_offset: u32) -> Option<TypeFields> {
        map.strats
            .iter()
            .find(|s| s.code_offset == code_offset)
            .map(TypeFields::of)
    }

    /// Gives `record` these type fields.
    pub fn set(&self, record: &mut StratRecord) {
        record.variable_count = self.variables;
        record.slot_count = self.slots;
        record.type_flags = self.type_flags;
        record.extra_memory = self.extra_memory;
    }
}

/// Appends a strat as note 003's "Rules for writing a new MAP" 4–5 say: `record` carries its
/// type (a code offset of this level's code and the type fields copied from a placed strat of
/// the type), its place, turn, flags and waypoint; its parameters become new pool entries of its
/// own (count and index set, −1 without any); poolExtra grows by one, so that the slots the
/// level had for strats spawned while playing stay. No other strat changes its index. Returns
/// the new strat's index.
pub fn append_strat(map: &mut Map, mut record: StratRecord, parameters: &[u32]) -> usize {
    record.parameter_count = parameters.len() as u32;
    record.parameter_index = match parameters.len() {
        0 => -1,
        _ => map.parameters.len() as i32,
    };
    map.parameters.extend_from_slice(parameters);
    map.strats.push(record);
    map.strat_pool_extra = map.strat_pool_extra.saturating_add(1);
    map.strats.len() - 1
}

/// One placed strat: a MAP strat record read in the game's terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacedStrat {
    /// Its index in MAP (what `check` and the glTF call it by).
    pub index: usize,
    /// The type's name from the code (`Name(spawn)` for a spawn stub); None when the code names
    /// none at its offset.
    pub type_name: Option<String>,
    /// The type: its code's offset from the start of the STPC payload.
    pub code_offset: u32,
    /// Game units (x east, y up, z the grid row): the record's 20.12 numbers ÷ 4096.
    pub position: [f64; 3],
    /// The record's 20.12 fixed-point numbers (note 003, offset 6).
    pub position_fixed: [i32; 3],
    /// Rotations about x, y and z, 4096 to the turn (note 003, offset 0).
    pub rotation: [u16; 3],
    /// The rotation about y (the one the game uses) in degrees, not wrapped.
    pub rotation_y_degrees: f64,
    /// The record's flags (note 003, offset 54).
    pub flags: u16,
    /// Flag bit 1: the game does not create it at level start.
    pub not_created_at_start: bool,
    /// The pool entries it is given, as stored; None when its index and count reach outside
    /// the pool (`check` reports that).
    pub parameters: Option<Vec<u32>>,
    pub parameter_index: i32,
    pub parameter_count: u32,
    /// Its first waypoint (MAP block 5), −1 for none.
    pub waypoint: i32,
    /// The waypoints of its chain from the first (each entry's `next` ≠ 0 continues it); empty
    /// when it has none or the index is outside the waypoints.
    pub waypoint_chain: Vec<usize>,
    pub type_fields: TypeFields,
}

/// Where a type's code offset comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetSource {
    /// A placed strat points there: the type's start.
    Placed,
    /// No strat of this level is placed there: the offset of the type's name instruction. The
    /// code is not decoded, so its start is there or up to 16 words before (FORMAT.md §11).
    NameInstruction,
}

/// A strat type of the level: a code offset that placed strats point at, or a strat the code
/// names that none points at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratType {
    /// The name from the code (`Name(spawn)` for a spawn stub); None when the code names none
    /// at a placed offset.
    pub name: Option<String>,
    pub code_offset: u32,
    pub offset_source: OffsetSource,
    /// Strats of this level placed at this offset.
    pub instances: usize,
    /// Whether a new strat of this type can be placed in this level: its offset is a strat start
    /// in this level's code and its type fields are known from an instance (note 003 rule 4).
    pub placeable: bool,
    /// Why it cannot be placed; None when it can.
    pub why_not: Option<String>,
    /// The type fields of its first instance, which a new strat copies.
    pub type_fields: Option<TypeFields>,
    /// Its first instance.
    pub first_instance: Option<usize>,
    /// Instances whose type fields differ from the first's (`check` warns of them).
    pub differing_instances: Vec<usize>,
}

/// What `llamawad strats` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Strats {
    /// MAP's poolExtra: the engine has poolExtra + 30 strat slots.
    pub pool_extra: u32,
    /// Entries of the parameter pool (MAP block 3).
    pub parameter_pool: usize,
    /// Entries of the waypoints (MAP block 5).
    pub waypoints: usize,
    pub strats: Vec<PlacedStrat>,
    /// Every type, in code order (with `all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<StratType>>,
    /// With `all`: what the type list could not hold (no STPC chunk, more names than are read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Strats {
    /// The level's strats, and with `all` its types. A level without MAP has none to list; one
    /// whose strats name more than [`MAX_STRAT_REFERENCES`] parameters and waypoints is refused
    /// from the counts, before the list is built.
    pub fn of(level: &Level, all: bool) -> Result<Strats, WadError> {
        let map = level.map().ok_or_else(|| ParseError::MissingChunk {
            chunk: "MAP".into(),
            needed_by: "the strats (MAP block 12)".into(),
        })?;
        let ends = chain_ends(map);
        check_references(map, &ends, true)?;
        let code = level.stpc().map(|s| s.strat_code());
        let strats = map
            .strats
            .iter()
            .enumerate()
            .map(|(i, s)| placed(i, s, map, &ends, code.as_ref()))
            .collect();
        let mut notes = Vec::new();
        let types = all.then(|| types(map, code.as_ref(), &mut notes));
        Ok(Strats {
            pool_extra: map.strat_pool_extra,
            parameter_pool: map.parameters.len(),
            waypoints: map.waypoints.len(),
            strats,
            types,
            notes,
        })
    }
}

fn placed(
    index: usize,
    s: &StratRecord,
    map: &Map,
    ends: &[usize],
    code: Option<&StratCode>,
) -> PlacedStrat {
    PlacedStrat {
        index,
        type_name: code.and_then(|c| c.strat_name(s.code_offset)),
        code_offset: s.code_offset,
        position: s.position.map(|v| from_fixed(v.into())),
        position_fixed: s.position,
        rotation: s.rotation,
        rotation_y_degrees: degrees(s.rotation[1].into()),
        flags: s.flags,
        not_created_at_start: !s.created_at_start(),
        parameters: s.parameters(&map.parameters).map(<[u32]>::to_vec),
        parameter_index: s.parameter_index,
        parameter_count: s.parameter_count,
        waypoint: s.waypoint,
        waypoint_chain: chain(ends, s.waypoint).collect(),
        type_fields: TypeFields::of(s),
    }
}

/// Where the chain through each waypoint ends: the first entry from it on whose `next` is 0, or
/// the last entry (note 003 block 5). Found once for the level, so that a chain is a range of
/// the waypoints however many strats run along it.
pub fn chain_ends(map: &Map) -> Vec<usize> {
    let mut ends = vec![0; map.waypoints.len()];
    let mut end = map.waypoints.len().saturating_sub(1);
    for (k, w) in map.waypoints.iter().enumerate().rev() {
        if w.next == 0 {
            end = k;
        }
        ends[k] = end;
    }
    ends
}

/// The chain from waypoint `first` (`ends` from [`chain_ends`]): empty when it is −1 or outside
/// the waypoints.
pub fn chain(ends: &[usize], first: i32) -> std::ops::Range<usize> {
    match usize::try_from(first)
        .ok()
        .and_then(|f| Some(f..ends.get(f)? + 1))
    {
        Some(range) => range,
        None => 0..0,
    }
}

/// Refuses a level whose strats name more than [`MAX_STRAT_REFERENCES`] parameters (and with
/// `chains` waypoints of their chains), each counted once for every strat naming it: a list or
/// glTF of them copies each strat's, so its size is reckoned here from the records' counts.
pub fn check_references(map: &Map, ends: &[usize], chains: bool) -> Result<(), LimitError> {
    let (mut parameters, mut waypoints) = (0u64, 0u64);
    for s in &map.strats {
        parameters += s.parameters(&map.parameters).map_or(0, |p| p.len() as u64);
        if chains {
            waypoints += chain(ends, s.waypoint).len() as u64;
        }
    }
    if parameters + waypoints <= MAX_STRAT_REFERENCES {
        return Ok(());
    }
    let named = match chains {
        true => format!("{parameters} parameters and {waypoints} waypoints"),
        false => format!("{parameters} parameters"),
    };
    Err(LimitError(format!(
        "the level's {} strats name {named} in all, each counted for every strat naming it; \
         at most {MAX_STRAT_REFERENCES} are listed or converted (the game's levels name a few thousand)",
        map.strats.len()
    )))
}

/// Every code offset placed strats point at, and every strat the code names that none points at
/// (its spawn stubs' targets say so), in code order.
fn types(map: &Map, code: Option<&StratCode>, notes: &mut Vec<String>) -> Vec<StratType> {
    // Placed offsets: instances in MAP order.
    let mut by_offset: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, s) in map.strats.iter().enumerate() {
        by_offset.entry(s.code_offset).or_default().push(i);
    }
    if code.is_none() {
        notes.push("the level has no STPC chunk: no strat code, no type names".into());
    }
    let mut types: Vec<StratType> = by_offset
        .iter()
        .map(|(&offset, instances)| {
            let first = &map.strats[instances[0]];
            let fields = TypeFields::of(first);
            let why_not = match code {
                Some(code) => not_a_strat_start(code, offset),
                None => Some("the level has no STPC chunk".into()),
            };
            StratType {
                name: code.and_then(|c| c.strat_name(offset)),
                code_offset: offset,
                offset_source: OffsetSource::Placed,
                instances: instances.len(),
                placeable: why_not.is_none(),
                why_not,
                type_fields: Some(fields),
                first_instance: Some(instances[0]),
                differing_instances: instances[1..]
                    .iter()
                    .copied()
                    .filter(|&i| TypeFields::of(&map.strats[i]) != fields)
                    .collect(),
            }
        })
        .collect();
    let Some(code) = code else { return types };

    // The name instructions the placed strat starts resolve to, and the spawn stubs' targets
    // (an offset that is no strat start places nothing the code names).
    let mut named_by_placed = std::collections::BTreeSet::new();
    let mut stubs: BTreeMap<u32, Vec<(u32, usize)>> = BTreeMap::new();
    let starts = types.iter().filter(|t| t.placeable);
    for (offset, instances) in starts.map(|t| (t.code_offset, t.instances)) {
        match code.name_instruction(offset) {
            Some(at) => {
                named_by_placed.insert(at);
            }
            None => {
                let target = code.spawn_target(offset);
                if let Some(at) = target.and_then(|t| code.name_instruction(t)) {
                    stubs.entry(at).or_default().push((offset, instances));
                }
            }
        }
    }
    let mut named = code.named_strats();
    for (at, name) in named.by_ref().take(MAX_NAMED_STRATS) {
        if named_by_placed.contains(&at) {
            continue;
        }
        let mut why = "never placed in this level: its variables, slots, type flags and extra \
                       memory are known only from a placed strat (note 003 rule 4)"
            .to_string();
        for (stub, count) in stubs.get(&at).into_iter().flatten() {
            why.push_str(&format!(
                "; placed {count}× through the spawn stub at {stub:#x} ({name}(spawn))"
            ));
        }
        types.push(StratType {
            name: Some(name),
            code_offset: at,
            offset_source: OffsetSource::NameInstruction,
            instances: 0,
            placeable: false,
            why_not: Some(why),
            type_fields: None,
            first_instance: None,
            differing_instances: Vec::new(),
        });
    }
    if named.next().is_some() {
        notes.push(format!(
            "the code names more than {MAX_NAMED_STRATS} strats (the game's levels about 500): \
             only the first {MAX_NAMED_STRATS} are listed"
        ));
    }
    types.sort_by_key(|t| t.code_offset);
    types
}

/// Why a code offset is no strat start in this level's code (note 003 rule 4: the type is the
/// code address), or None when it is one. The code is kept, not decoded, so a start is an offset
/// whose first 16 words hold the name instruction `0xd4, 0xea, rel` or a spawn `0xb2`, and that
/// splits neither (FORMAT.md §11).
pub fn not_a_strat_start(code: &StratCode, offset: u32) -> Option<String> {
    if !code.contains(offset) {
        return Some("outside this level's strat code".into());
    }
    let word = |back: u32| offset.checked_sub(back).and_then(|o| code.word_at(o));
    let name_at = |back: u32| [word(back), word(back - 4)] == NAME_OPCODE.map(Some);
    let why = if name_at(4) || name_at(8) {
        "it lies inside a strat's name instruction (0xd4, 0xea, rel)"
    } else if word(4) == Some(SPAWN_OPCODE) {
        "it is the offset a spawn (0xb2) names, not an instruction"
    } else if code.strat_name(offset).is_none() {
        "no strat is named there (no 0xd4, 0xea in its first 16 words, no spawn 0xb2)"
    } else {
        return None;
    };
    Some(format!(
        "inside this level's strat code but at no strat start: {why}"
    ))
}

/// Strats of a level by type name, [`UNNAMED`] for those whose name is not found.
pub fn counts_by_name(level: &Level) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let (Some(map), code) = (level.map(), level.stpc().map(|s| s.strat_code())) else {
        return counts;
    };
    for s in &map.strats {
        let name = code.as_ref().and_then(|c| c.strat_name(s.code_offset));
        *counts
            .entry(name.unwrap_or_else(|| UNNAMED.into()))
            .or_insert(0) += 1;
    }
    counts
}

/// A file of the folder that is no level with strats, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// One type's row of the table: its instances in each level, in the order of `levels`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableRow {
    pub name: String,
    pub counts: Vec<usize>,
    pub total: usize,
    /// Levels that place it.
    pub levels: usize,
}

/// Instance counts of every type across levels (type × level), as note 003's `strat_table.py`
/// makes them: what `llamawad strat-table` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct StratTable {
    /// The levels read, the table's columns: their file names.
    pub levels: Vec<String>,
    /// The types by name, [`UNNAMED`] for strats whose name was not found.
    pub types: Vec<TableRow>,
    /// Files named `*.wad` that were not read, with the reason.
    pub skipped: Vec<Skipped>,
}

impl StratTable {
    /// The table of levels already read: each with its name (a column) and its counts.
    pub fn of(levels: Vec<(String, BTreeMap<String, usize>)>) -> StratTable {
        let mut rows: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (column, (_, counts)) in levels.iter().enumerate() {
            for (name, &count) in counts {
                rows.entry(name.clone())
                    .or_insert_with(|| vec![0; levels.len()])[column] = count;
            }
        }
        StratTable {
            levels: levels.into_iter().map(|(name, _)| name).collect(),
            types: rows
                .into_iter()
                .map(|(name, counts)| TableRow {
                    name,
                    total: counts.iter().sum(),
                    levels: counts.iter().filter(|&&c| c > 0).count(),
                    counts,
                })
                .collect(),
            skipped: Vec::new(),
        }
    }

    /// Every `*.wad` of a folder (not its subfolders; the extension in any case), in the order
    /// of their names. A file that is no readable level with a MAP chunk is skipped and named
    /// with the reason; only a folder that cannot be listed is an error. One level is held at a
    /// time.
    pub fn of_folder(dir: &Path) -> Result<StratTable, WadError> {
        let io = |source| WadError::Io {
            path: dir.display().to_string(),
            source,
        };
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(io)?
            .into_iter()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wad")))
            .collect();
        files.sort();
        let mut levels = Vec::new();
        let mut skipped = Vec::new();
        for path in files {
            let file = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            let counted = catch_panic(|| path.display().to_string(), || read_counts(&path))
                .unwrap_or_else(|internal| Err(internal.to_string()));
            match counted {
                Ok(counts) => levels.push((file, counts)),
                Err(reason) => skipped.push(Skipped { file, reason }),
            }
        }
        let mut table = StratTable::of(levels);
        table.skipped = skipped;
        Ok(table)
    }
}

/// One level's counts by name, or why it has none.
fn read_counts(path: &Path) -> Result<BTreeMap<String, usize>, String> {
    let bytes = crate::read_level_bytes(path).map_err(|e| match e {
        // The error names the file, which the table names already.
        WadError::Io { source, .. } => source.to_string(),
        e => e.to_string(),
    })?;
    let level = Level::parse(&bytes).map_err(|e| e.to_string())?;
    if level.map().is_none() {
        return Err("no MAP chunk: no strats".into());
    }
    Ok(counts_by_name(&level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Stpc;

    /// Code of `n` name instructions all naming one 255-character name, after them.
    fn repeated_names(n: usize) -> Stpc {
        let mut words = Vec::new();
        let names_at = 8 + 12 * n as i64;
        for k in 0..n as i64 {
            let after_rel = 8 + 12 * k + 12;
            words.extend([0xd4, 0xea, (names_at - after_rel) as i32 as u32]);
        }
        let mut code: Vec<u8> = words.iter().flat_map(|w: &u32| w.to_le_bytes()).collect();
        code.extend([b'N'; 255].iter().chain(&[0]));
        Stpc {
            code,
            ..Stpc::default()
        }
    }

    #[test]
    fn a_code_naming_more_strats_than_any_level_is_listed_in_part() {
        let stpc = repeated_names(MAX_NAMED_STRATS + 5);
        let code = stpc.strat_code();
        assert_eq!(code.named_strats().count(), MAX_NAMED_STRATS + 5);
        let mut notes = Vec::new();
        let listed = types(&Map::default(), Some(&code), &mut notes);
        assert_eq!(listed.len(), MAX_NAMED_STRATS);
        assert!(listed
            .iter()
            .all(|t| t.name.as_deref() == Some(&*"N".repeat(255))));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("only the first 16384"), "{}", notes[0]);
    }

    #[test]
    fn no_strat_start_says_why() {
        let stpc = repeated_names(2);
        let code = stpc.strat_code();
        assert_eq!(not_a_strat_start(&code, 8), None);
        assert_eq!(not_a_strat_start(&code, 20), None);
        let why = |offset| not_a_strat_start(&code, offset).unwrap();
        assert!(why(4).contains("outside"));
        assert!(why(12).contains("inside a strat's name instruction"));
        assert!(why(16).contains("inside a strat's name instruction"));
        assert!(why(32).contains("no strat is named there"));
        assert!(why(u32::MAX).contains("outside"));
    }
}
