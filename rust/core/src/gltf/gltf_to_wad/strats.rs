//! Strat nodes read back (MAPPING.md, "Strats"): a node's translation and turn about +y are its
//! strat's position and rotation y, its extras the record's other fields and its parameters; a
//! second node naming a strat is a new strat (appended, note 003 rules 4–5); a strat without a
//! node is not created at level start (flag bit 1), keeping its record and index, since the notes
//! do not say whether strat code names other strats by index.

use std::collections::BTreeMap;

use glam::Vec3;
use serde_json::Value;

use super::error::{Cause, GltfToWadError, NodeRef, Record};
use super::nodes::role;
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use crate::codes::Code;
use crate::game::space::TURN;
use crate::game::strats::{append_strat, TypeFields};
use crate::gltf::read::{integer_in, number};
use crate::gltf::wad_to_gltf::strat_node_name;
use crate::level::{Level, Map};
use crate::limits::{excerpt, MAX_STRATS, MAX_STRAT_REFERENCES};
use crate::raw::{StratRecord, STRAT_NOT_CREATED_AT_START};

/// The ranges of a record's fields.
pub(super) const U16: (i64, i64) = (0, u16::MAX as i64);
pub(super) const U32: (i64, i64) = (0, u32::MAX as i64);
pub(super) const I32: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);
/// A u32 given either way: a value written as a signed 32-bit number (Blender's integers) is
/// its two's complement.
pub(super) const U32_OR_I32: (i64, i64) = (i32::MIN as i64, u32::MAX as i64);

/// Whether the scene gives the level's strats: it has the `Strats` group or a strat node. A
/// scene without either (a tool that leaves the strats out, as the add-on's export did) keeps
/// every strat as the base has it; only a scene that gives them removes a strat by leaving out
/// its node.
fn strats_given(scene: &Scene) -> bool {
    scene
        .nodes
        .iter()
        .any(|n| role(n).is_some_and(|r| r.kind == "strats" || r.kind == "strat"))
}

/// A strat as its node gives it: the record with every field its extras give (the base's where
/// they say nothing), where the node stands and how it is turned, and its parameters.
struct Given<'a> {
    node: &'a Node,
    record: StratRecord,
    /// The node's translation in 20.12.
    position: [i32; 3],
    /// The node's turn about +y, 0..4096.
    turn: u16,
    /// The extras' `parameters`, as many as the record's `parameter_count` (checked).
    parameters: Option<Vec<u32>>,
}

/// Reads the strat nodes back into `level` (a clone of `base`), reporting each change; what a
/// node gives that the record cannot hold is refused by name into `refused`.
pub(super) fn apply_strats(
    scene: &Scene,
    base: &Level,
    level: &mut Level,
    report: &mut ChangeReport,
    refused: &mut Vec<GltfToWadError>,
) -> Result<(), GltfToWadError> {
    let (Some(base_map), true) = (base.map(), strats_given(scene)) else {
        return Ok(());
    };
    let code = base.stpc().map(|s| s.strat_code());
    let count = base_map.strats.len();

    // The nodes of each strat, in document order.
    let mut by_strat: BTreeMap<usize, Vec<(usize, &Node)>> = BTreeMap::new();
    for (order, node) in scene.nodes.iter().enumerate() {
        let Some(r) = role(node).filter(|r| r.kind == "strat") else {
            continue;
        };
        match r.index {
            Some(i) if i < count => by_strat.entry(i).or_default().push((order, node)),
            _ => refused.push(
                GltfToWadError::node(
                    &node.culprit(),
                    format!("names a strat the base level does not have ({count} strats)"),
                )
                .code(Code::UnknownStrat)
                .cause(Cause {
                    strat: r.index,
                    count: Some(count),
                    ..Cause::default()
                }),
            ),
        }
    }
    let copies: usize = by_strat.values().map(|n| n.len() - 1).sum();
    if count + copies > MAX_STRATS {
        return Err(GltfToWadError::level(format!(
            "the scene makes {} strats (the base's {count} and {copies} copies); a level written back holds at most {MAX_STRATS}",
            count + copies
        ))
        .code(Code::LevelSize)
        .cause(Cause::too_many(count + copies, MAX_STRATS)));
    }

    let map = level.map_mut().expect("cloned from the base");
    let mut added = Vec::new();
    for (i, base_record) in base_map.strats.iter().enumerate() {
        let Some(nodes) = by_strat.get(&i) else {
            // Removed: not created at level start, its record and index kept.
            if base_record.created_at_start() {
                map.strats[i].flags |= STRAT_NOT_CREATED_AT_START;
                report.strats_removed.push(i);
            }
            continue;
        };
        // Of several nodes the one with the name export gave keeps the strat (a duplicate is
        // renamed by the tool that made it), else the first; the others are copies.
        let type_name = code
            .as_ref()
            .and_then(|c| c.strat_name(base_record.code_offset));
        let name = strat_node_name(type_name.as_deref(), i);
        let keeper = nodes
            .iter()
            .position(|(_, n)| n.name.as_deref() == Some(name.as_str()))
            .unwrap_or(0);
        for (k, &(order, node)) in nodes.iter().enumerate() {
            if k != keeper {
                added.push((order, node, i));
            }
        }
        match read_node(nodes[keeper].1, i, base_record, report) {
            Ok(given) => edit(map, base_map, i, given, report),
            Err(e) => refused.extend(e),
        }
    }
    added.sort_by_key(|&(order, _, _)| order);
    for (_, node, i) in added {
        match read_node(node, i, &base_map.strats[i], report) {
            Ok(given) => copy(map, base_map, given, report)?,
            Err(e) => refused.extend(e),
        }
    }
    Ok(())
}

/// Refuses appending `n` more parameters to the pool past [`MAX_STRAT_REFERENCES`] appended by
/// the scene in all: each copy of a strat gets pool entries of its own, so a few copies of a
/// strat of many parameters would make a pool of gigabytes.
fn appending(report: &ChangeReport, n: usize) -> Result<(), GltfToWadError> {
    let appended = report.parameters_appended + n;
    if appended as u64 <= MAX_STRAT_REFERENCES {
        return Ok(());
    }
    Err(GltfToWadError::level(format!(
        "the scene's strats append {appended} or more parameters to the pool (each new strat's \
         and each changed shared one's are entries of its own); at most {MAX_STRAT_REFERENCES} \
         are appended"
    ))
    .code(Code::LevelSize)
    .cause(Cause::too_many(appended, MAX_STRAT_REFERENCES as usize)))
}

/// The base's strat `i` as its node gives it.
fn edit(map: &mut Map, base_map: &Map, i: usize, given: Given, report: &mut ChangeReport) {
    let base = &base_map.strats[i];
    let mut r = given.record;
    // The node's transform wins where it is no longer what export wrote; else the extras'.
    if given.position != base.position {
        r.position = given.position;
    }
    if u32::from(given.turn) != u32::from(base.rotation[1]) % TURN {
        r.rotation[1] = given.turn;
    }
    // Another type whose fields were not given: the new type's (note 003 rule 4).
    if r.code_offset != base.code_offset && TypeFields::of(&r) == TypeFields::of(base) {
        if let Some(fields) = TypeFields::of_type(base_map, r.code_offset) {
            fields.set(&mut r);
        }
    }
    let parameters_written = given
        .parameters
        .as_deref()
        .is_some_and(|values| set_parameters(map, base_map, i, &mut r, values, report));
    map.strats[i] = r;

    let moved = r.position != base.position || r.rotation[1] != base.rotation[1];
    let bit = |s: &StratRecord| s.flags & STRAT_NOT_CREATED_AT_START;
    let mut rest = r;
    (rest.position, rest.rotation[1]) = (base.position, base.rotation[1]);
    rest.flags = (rest.flags & !STRAT_NOT_CREATED_AT_START) | bit(base);
    let tuned = rest != *base || parameters_written;
    if moved {
        report.strats_moved.push(i);
    }
    if tuned {
        report.strats_tuned.push(i);
    }
    match (base.created_at_start(), r.created_at_start()) {
        (true, false) => report.strats_removed.push(i),
        (false, true) => report.strats_restored.push(i),
        _ => {}
    }
    if r != *base || parameters_written {
        report.strat_sources.push((i, given.node.raw_name()));
    }
}

/// A new strat from a second node of a strat: where its node stands, turned as it is, of the
/// type its extras name with the type's fields, its parameters in new pool entries of its own,
/// its waypoint and flags as given.
fn copy(
    map: &mut Map,
    base_map: &Map,
    given: Given,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let mut r = given.record;
    r.position = given.position;
    r.rotation[1] = given.turn;
    if let Some(fields) = TypeFields::of_type(base_map, r.code_offset) {
        fields.set(&mut r);
    }
    let values = given
        .parameters
        .as_deref()
        .or_else(|| r.parameters(&base_map.parameters));
    let index = match values {
        Some(values) => {
            appending(report, values.len())?;
            report.parameters_appended += values.len();
            append_strat(map, r, values)
        }
        // Parameters outside the pool: named as given (the check says so).
        None => {
            let k = append_strat(map, r, &[]);
            let s = &mut map.strats[k];
            (s.parameter_count, s.parameter_index) = (r.parameter_count, r.parameter_index);
            k
        }
    };
    report.strats_added.push(index);
    report.strat_sources.push((index, given.node.raw_name()));
    Ok(())
}

/// Gives strat `i` (its record `r`, as given) these parameters: unchanged when the pool holds
/// them already; written in place when its entries are its own; else appended as new entries
/// (another strat of the base shares them, or they lie outside the pool or changed their count).
/// Whether anything was written.
fn set_parameters(
    map: &mut Map,
    base_map: &Map,
    i: usize,
    r: &mut StratRecord,
    values: &[u32],
    report: &mut ChangeReport,
) -> bool {
    if r.parameters(&map.parameters) == Some(values) {
        return false;
    }
    let n = values.len();
    let overlaps = |start: usize, o: &StratRecord| {
        let Ok(other) = usize::try_from(o.parameter_index) else {
            return false;
        };
        o.parameter_count > 0 && other < start + n && start < other + o.parameter_count as usize
    };
    let own = usize::try_from(r.parameter_index)
        .ok()
        .filter(|&start| n > 0 && start + n <= map.parameters.len())
        .filter(|&start| {
            !base_map
                .strats
                .iter()
                .enumerate()
                .any(|(j, o)| j != i && overlaps(start, o))
        });
    match own {
        Some(start) => map.parameters[start..start + n].copy_from_slice(values),
        None => {
            r.parameter_index = match n {
                0 => -1,
                _ => map.parameters.len() as i32,
            };
            map.parameters.extend_from_slice(values);
            report.parameters_appended += n;
        }
    }
    true
}

/// The strat a node gives, every field its extras hold checked against the record's; what does
/// not fit is refused, naming the strat and the field.
fn read_node<'a>(
    node: &'a Node,
    i: usize,
    base: &StratRecord,
    report: &mut ChangeReport,
) -> Result<Given<'a>, Vec<GltfToWadError>> {
    let culprit = node.culprit();
    let mut errors = Vec::new();
    let mut fields = Fields::of(node, &culprit, Record::Strat(i), &mut errors);
    let mut r = *base;
    if let Some(v) = fields.list("rotation", Some(3), U16) {
        r.rotation = [0, 1, 2].map(|k| v[k] as u16);
    }
    if let Some(v) = fields.list("position", Some(3), I32) {
        r.position = [0, 1, 2].map(|k| v[k] as i32);
    }
    let mut u32_field = |key: &str, to: &mut u32| {
        if let Some(v) = fields.whole(key, U32) {
            *to = v as u32;
        }
    };
    u32_field("code_offset", &mut r.code_offset);
    u32_field("parameter_count", &mut r.parameter_count);
    u32_field("variable_count", &mut r.variable_count);
    u32_field("slot_count", &mut r.slot_count);
    u32_field("type_flags", &mut r.type_flags);
    u32_field("extra_memory", &mut r.extra_memory);
    u32_field("reserved_32", &mut r.reserved_32);
    if let Some(v) = fields.whole("parameter_index", I32) {
        r.parameter_index = v as i32;
    }
    if let Some(v) = fields.whole("waypoint", I32) {
        r.waypoint = v as i32;
    }
    if let Some(v) = fields.whole("flags", U16) {
        r.flags = v as u16;
    }
    if let Some(v) = fields.whole("reserved_38", U16) {
        r.reserved_38 = v as u16;
    }
    // Pool entries are u32, given either way.
    let parameters = fields
        .list("parameters", Some(r.parameter_count as usize), U32_OR_I32)
        .map(|v| v.into_iter().map(|p| p as u32).collect());

    let placed = placement(node, &culprit, Record::Strat(i), base.rotation, report);
    let (position, turn) = match placed {
        Ok(p) => p,
        Err(e) => {
            errors.extend(e);
            ([0; 3], 0)
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Given {
        node,
        record: r,
        position,
        turn,
        parameters,
    })
}

/// Where a strat's or waypoint's node (`what`: "strat 5") stands, in 20.12 rounded as a tile's
/// fixed-point copy is (level::map::fixed_from_float), and its turn about +y (0..4096). A scale
/// is warned of (the record holds none); a turn about x or z is refused, naming the rotations x
/// and z the record keeps, as is a place past what 20.12 holds.
pub(super) fn placement(
    node: &Node,
    culprit: &NodeRef,
    what: Record,
    rotation: [u16; 3],
    report: &mut ChangeReport,
) -> Result<([i32; 3], u16), Vec<GltfToWadError>> {
    let mut errors = Vec::new();
    let (scale, turned, translation) = node.world.to_scale_rotation_translation();
    if (scale - Vec3::ONE).abs().max_element() > 1e-3 {
        report.warnings.push(format!(
            "{culprit}: {what} is scaled by {scale}; its record holds no scale: its place and turn are written, the scale is not"
        ));
    }
    let up = turned * Vec3::Y;
    if (up - Vec3::Y).abs().max_element() > 1e-3 {
        errors.push(
            GltfToWadError::node(
                culprit,
                format!(
                    "{what} is turned about x or z; its record holds the turn about the vertical axis as the node shows it (its rotations x and z, {} and {}, are kept as stored): clear that rotation",
                    rotation[0], rotation[2]
                ),
            )
            .code(Code::StratTilted)
            .cause(what.cause()),
        );
    }
    let x_axis = turned * Vec3::X;
    let angle = libm::atan2f(-x_axis.z, x_axis.x);
    let turn = ((angle / std::f32::consts::TAU * TURN as f32).round() as i64)
        .rem_euclid(TURN as i64) as u16;
    let fixed = translation.to_array().map(|v| (v as f64 * 4096.0).round());
    let range = i32::MIN as f64..=i32::MAX as f64;
    if fixed.iter().any(|v| !range.contains(v)) {
        errors.push(
            GltfToWadError::node(
                culprit,
                format!(
                    "{what} stands at {translation}, past what its 20.12 position holds (±524,288 units)"
                ),
            )
            .code(Code::StratField)
            .cause(what.cause()),
        );
    }
    match errors.is_empty() {
        true => Ok((fixed.map(|v| v as i32), turn)),
        false => Err(errors),
    }
}

/// A value as a refusal quotes it: a list by its first values and its length, anything else by
/// its first characters (a list of millions of parameters is not echoed whole).
fn quoted(value: &Value) -> String {
    const FIRST: usize = 4;
    match value.as_array() {
        Some(items) if items.len() > FIRST => {
            let first: Vec<String> = items[..FIRST]
                .iter()
                .map(|v| excerpt(&v.to_string()))
                .collect();
            format!("[{}, … ({} values)]", first.join(", "), items.len())
        }
        _ => excerpt(&value.to_string()),
    }
}

/// The extras of a strat's or waypoint's node (`what`: "strat 5"), read field by field; what
/// does not fit its field is refused.
pub(super) struct Fields<'a> {
    pub extras: Option<&'a Value>,
    pub culprit: &'a NodeRef,
    pub what: Record,
    pub errors: &'a mut Vec<GltfToWadError>,
}

impl<'a> Fields<'a> {
    /// The fields of `node`'s extras, refusals naming `culprit` and `what` into `errors`.
    pub fn of(
        node: &'a Node,
        culprit: &'a NodeRef,
        what: Record,
        errors: &'a mut Vec<GltfToWadError>,
    ) -> Fields<'a> {
        Fields {
            extras: node.extras.as_ref(),
            culprit,
            what,
            errors,
        }
    }

    /// The field's value; None when the extras do not give it (absent or null).
    fn get(&self, key: &str) -> Option<&Value> {
        self.extras?.get(key).filter(|v| !v.is_null())
    }

    fn refuse(&mut self, key: &str, value: &Value, what: String) {
        self.errors.push(
            GltfToWadError::node(
                self.culprit,
                format!(
                    "{}: `{key}` is {}, which does not fit the record: {what}",
                    self.what,
                    quoted(value)
                ),
            )
            .code(Code::StratField)
            .cause(Cause {
                field: Some(key.to_string()),
                value: integer_in(value),
                ..self.what.cause()
            }),
        );
    }

    /// A whole number from `lo` to `hi`, however a tool wrote it.
    pub fn whole(&mut self, key: &str, (lo, hi): (i64, i64)) -> Option<i64> {
        let value = self.get(key)?.clone();
        let fits =
            number(&value).filter(|v| v.fract() == 0.0 && (lo as f64..=hi as f64).contains(v));
        if fits.is_none() {
            self.refuse(key, &value, format!("give a whole number {lo} to {hi}"));
        }
        fits.map(|v| v as i64)
    }

    /// A list of whole numbers from `lo` to `hi`, `len` of them when given.
    pub fn list(
        &mut self,
        key: &str,
        len: Option<usize>,
        (lo, hi): (i64, i64),
    ) -> Option<Vec<i64>> {
        let value = self.get(key)?.clone();
        let items = value.as_array().cloned().unwrap_or_default();
        let fits: Option<Vec<i64>> = items
            .iter()
            .map(|v| number(v).filter(|v| v.fract() == 0.0 && (lo as f64..=hi as f64).contains(v)))
            .map(|v| v.map(|v| v as i64))
            .collect();
        let what = match len {
            Some(n) if key == "parameters" => {
                format!("give {n} whole numbers {lo} to {hi} (as many as `parameter_count` says)")
            }
            Some(n) => format!("give {n} whole numbers {lo} to {hi}"),
            None => format!("give whole numbers {lo} to {hi}"),
        };
        match fits {
            Some(v) if value.is_array() && len.is_none_or(|n| v.len() == n) => Some(v),
            _ => {
                self.refuse(key, &value, what);
                None
            }
        }
    }
}
