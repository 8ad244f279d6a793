//! Strat edits through glTF (issue 22): a glTF written by `wad_to_gltf`, edited in its JSON as a
//! tool would (a node's translation, rotation and extras; a duplicated node; a node left out),
//! converted back through both doors (`doors::convert`), written, read back, and its strat
//! records, parameter pool and poolExtra read at note 003's offsets in the written bytes.

use llamawad::container::{self, Tag};
use llamawad::game::check_against;
use llamawad::game::strats::Strats;
use llamawad::generate::{generate, Size};
use llamawad::gltf::{
    wad_to_gltf, ChangeReport, Document, GltfToWadError, GltfToWadOptions, Source,
};
use llamawad::{Code, Level};
use serde_json::{json, Value};

mod doors;

const OPTIONS: GltfToWadOptions = GltfToWadOptions {
    force: false,
    generate_collision: false,
    snap_uvs: false,
    tile_collision_given: true,
};

/// A level's glTF as JSON with its buffer beside it in `dir`.
fn gltf_of(bytes: &[u8], dir: &std::path::Path) -> Value {
    let level = Level::parse(bytes).unwrap();
    let gltf = wad_to_gltf(&level, Source::of(bytes)).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("level.bin"), &gltf.bin).unwrap();
    serde_json::from_slice(&gltf.to_gltf_json("level.bin")).unwrap()
}

fn convert(
    base_bytes: &[u8],
    json: &Value,
    dir: &std::path::Path,
) -> Result<(Vec<u8>, ChangeReport), GltfToWadError> {
    let base = Level::parse(base_bytes).unwrap();
    let text = serde_json::to_vec(json).unwrap();
    let doc = Document::from_slice(&text, Some(dir)).unwrap();
    let (level, report) = doors::convert(&base, base_bytes, &doc, OPTIONS)?;
    let bytes = level.to_bytes().unwrap();
    // The check sees no new error (the conversion refuses those; asked again of the bytes).
    let read = Level::parse(&bytes).unwrap();
    let new_errors: Vec<_> = check_against(&read, &base)
        .new_problems()
        .filter(|p| p.severity == llamawad::game::Severity::Error)
        .cloned()
        .collect();
    assert!(new_errors.is_empty(), "{new_errors:#?}");
    Ok((bytes, report))
}

fn dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "llamawad-strat-edits-{what}-{}",
        std::process::id()
    ))
}

/// The JSON node of strat `i`.
fn strat_node(json: &mut Value, i: usize) -> &mut Value {
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["extras"]["llamawad"] == "strat" && n["extras"]["strat"] == i)
        .unwrap()
}

fn strat_node_number(json: &Value, i: usize) -> usize {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["extras"]["llamawad"] == "strat" && n["extras"]["strat"] == i)
        .unwrap()
}

/// The `Strats` group's children.
fn strat_children(json: &mut Value) -> &mut Vec<Value> {
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["extras"]["llamawad"] == "strats")
        .unwrap()["children"]
        .as_array_mut()
        .unwrap()
}

/// Where MAP's blocks lie in a written level, walked by note 003's layout: the parameter pool
/// (block 3, after its count) and the strat block (block 12: count, poolExtra, records).
struct MapBytes<'a> {
    map: &'a [u8],
    pool: usize,
    waypoints: usize,
    strats: usize,
}

impl<'a> MapBytes<'a> {
    fn of(bytes: &'a [u8]) -> MapBytes<'a> {
        let wad = container::split(bytes).unwrap();
        let map = wad
            .chunks
            .iter()
            .find(|c| c.tag == Tag::MAP)
            .unwrap()
            .payload;
        let level = Level::parse(bytes).unwrap();
        let m = level.map().unwrap();
        let n = m.tiles.len();
        let pool = 12 + 24 * n + 4;
        let mut at = pool + 4 * m.parameters.len();
        at += 4 + 90 * m.zones.len();
        let waypoints = at;
        at += 4 + 34 * m.waypoints.len();
        at += 256 + 4 * (m.width * m.height) as usize;
        at += 24 * n + 4 * n;
        if level.wfpc() & 0x10000 != 0 {
            at += 4 + 20 * m.tiles.iter().filter(|t| t.swap.is_some()).count();
        }
        at += m
            .tiles
            .iter()
            .map(|t| 4 * (t.colours.len() + t.swap_colours.len()))
            .sum::<usize>();
        let me = MapBytes {
            map,
            pool,
            waypoints,
            strats: at,
        };
        assert_eq!(
            me.u32(waypoints) as usize,
            m.waypoints.len(),
            "waypoint count at block 5"
        );
        assert_eq!(
            me.u32(at) as usize,
            m.strats.len(),
            "strat count at block 12"
        );
        me
    }

    fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.map[at..at + 2].try_into().unwrap())
    }
    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.map[at..at + 4].try_into().unwrap())
    }
    fn i32(&self, at: usize) -> i32 {
        self.u32(at) as i32
    }
    fn count(&self) -> usize {
        self.u32(self.strats) as usize
    }
    fn pool_extra(&self) -> u32 {
        self.u32(self.strats + 4)
    }
    fn pool_len(&self) -> usize {
        self.u32(self.pool - 4) as usize
    }
    fn pool(&self, k: usize) -> u32 {
        self.u32(self.pool + 4 * k)
    }
    fn waypoint_count(&self) -> usize {
        self.u32(self.waypoints) as usize
    }
    /// Waypoint `i` (note 003 block 5, 34 bytes): `next` at 0, rotation at 8, position at 14.
    fn waypoint(&self, i: usize) -> (u32, [u16; 3], [i32; 3]) {
        let w = self.waypoints + 4 + 34 * i;
        (
            self.u32(w),
            [8, 10, 12].map(|k| self.u16(w + k)),
            [14, 18, 22].map(|k| self.i32(w + k)),
        )
    }
    /// Strat `i`'s record: offset 0 rotation, 6 position, 18 code offset, 22 parameter count,
    /// 26 index, 30..46 type fields, 46 waypoint, 54 flags.
    fn record(&self, i: usize) -> Rec {
        let r = self.strats + 8 + 58 * i;
        Rec {
            rotation: [0, 2, 4].map(|k| self.u16(r + k)),
            position: [6, 10, 14].map(|k| self.i32(r + k)),
            code: self.u32(r + 18),
            parameter_count: self.u32(r + 22),
            parameter_index: self.i32(r + 26),
            fields: [30, 34, 38, 42].map(|k| self.u32(r + k)),
            waypoint: self.i32(r + 46),
            flags: self.u16(r + 54),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Rec {
    rotation: [u16; 3],
    position: [i32; 3],
    code: u32,
    parameter_count: u32,
    parameter_index: i32,
    fields: [u32; 4],
    waypoint: i32,
    flags: u16,
}

/// A generated level and its first strat of a type with parameters and a waypoint, if any, else
/// with parameters.
fn level_and_strat(seed: u64, size: Size) -> (Vec<u8>, usize, String) {
    let level = generate(seed, size);
    let bytes = level.to_bytes().unwrap();
    let strats = Strats::of(&level, false).unwrap();
    let pick = strats
        .strats
        .iter()
        .find(|s| s.parameter_count > 0 && s.waypoint >= 0 && !s.not_created_at_start)
        .or_else(|| {
            strats
                .strats
                .iter()
                .find(|s| s.parameter_count > 0 && !s.not_created_at_start)
        })
        .unwrap();
    (bytes, pick.index, pick.type_name.clone().unwrap())
}

#[test]
fn a_strat_moved_and_turned_gets_its_position_and_rotation_y() {
    for (size, seed) in [(Size::Tiny, 1), (Size::Small, 2)] {
        let (bytes, i, _) = level_and_strat(seed, size);
        let d = dir(&format!("move-{size}-{seed}"));
        let mut json = gltf_of(&bytes, &d);
        let before = MapBytes::of(&bytes).record(i);
        let node = strat_node(&mut json, i);
        let t: Vec<f64> = serde_json::from_value(node["translation"].clone()).unwrap();
        node["translation"] = json!([t[0] + 0.25, t[1] + 0.5, t[2] - 1.0]);
        // 90° about +y.
        let h = std::f64::consts::FRAC_PI_4;
        node["rotation"] = json!([0.0, libm::sin(h), 0.0, libm::cos(h)]);
        let (out, report) = convert(&bytes, &json, &d).unwrap();
        assert_eq!(report.strats_moved, vec![i]);
        assert!(report.strats_tuned.is_empty() && report.strats_added.is_empty());
        let m = MapBytes::of(&out);
        let after = m.record(i);
        let expect = [
            before.position[0] + 1024,
            before.position[1] + 2048,
            before.position[2] - 4096,
        ];
        assert_eq!(after.position, expect);
        assert_eq!(
            after.rotation,
            [before.rotation[0], 1024, before.rotation[2]]
        );
        assert_eq!(
            Rec {
                position: before.position,
                rotation: before.rotation,
                ..after
            },
            before
        );
        // Nothing else in the file moved: only the 2 + 12 bytes of the record's turn and place.
        assert_eq!(out.len(), bytes.len());
        let changed = out.iter().zip(&bytes).filter(|(a, b)| a != b).count();
        assert!(changed <= 14, "{changed} bytes changed");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn a_duplicated_strat_node_is_a_new_strat_appended_with_its_own_parameters() {
    for (size, seed) in [(Size::Tiny, 3), (Size::Small, 1)] {
        let (bytes, i, type_name) = level_and_strat(seed, size);
        let d = dir(&format!("copy-{size}-{seed}"));
        let mut json = gltf_of(&bytes, &d);
        let base = MapBytes::of(&bytes);
        let original = base.record(i);
        let (count, pool_len, pool_extra) = (base.count(), base.pool_len(), base.pool_extra());
        let values: Vec<u32> = (0..original.parameter_count as usize)
            .map(|k| base.pool(original.parameter_index as usize + k))
            .collect();

        // Blender's duplicate: same extras, a new name, moved by 2 units in x; listed before the
        // original, which keeps its index by its name.
        let number = strat_node_number(&json, i);
        let mut copy = json["nodes"][number].clone();
        copy["name"] = json!(format!("{type_name} · strat {i:03}.001"));
        let t: Vec<f64> = serde_json::from_value(copy["translation"].clone()).unwrap();
        copy["translation"] = json!([t[0] + 2.0, t[1], t[2]]);
        let nodes = json["nodes"].as_array_mut().unwrap();
        nodes.push(copy);
        let new_node = nodes.len() - 1;
        strat_children(&mut json).insert(0, json!(new_node));

        let (out, report) = convert(&bytes, &json, &d).unwrap();
        assert_eq!(report.strats_added, vec![count]);
        assert_eq!(report.parameters_appended, values.len());
        assert!(report.strats_moved.is_empty() && report.strats_removed.is_empty());
        let m = MapBytes::of(&out);
        assert_eq!(m.count(), count + 1);
        assert_eq!(m.pool_extra(), pool_extra + 1);
        assert_eq!(m.record(i), original, "the original keeps its record");
        for k in 0..count {
            assert_eq!(m.record(k), base.record(k), "strat {k} unchanged");
        }
        let new = m.record(count);
        assert_eq!(new.code, original.code);
        assert_eq!(new.fields, original.fields);
        assert_eq!(new.waypoint, original.waypoint);
        assert_eq!(new.flags, original.flags);
        assert_eq!(new.rotation, original.rotation);
        assert_eq!(
            new.position,
            [
                original.position[0] + 8192,
                original.position[1],
                original.position[2]
            ]
        );
        assert_eq!(new.parameter_count, original.parameter_count);
        assert_eq!(new.parameter_index, pool_len as i32);
        assert_eq!(m.pool_len(), pool_len + values.len());
        for (k, v) in values.iter().enumerate() {
            assert_eq!(m.pool(pool_len + k), *v);
            assert_eq!(m.pool(original.parameter_index as usize + k), *v);
        }
        let read = Level::parse(&out).unwrap();
        assert_eq!(
            read.map().unwrap().waypoints,
            Level::parse(&bytes).unwrap().map().unwrap().waypoints
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn a_strat_without_a_node_is_not_created_at_start_and_comes_back_byte_identical() {
    for (size, seed) in [(Size::Tiny, 2), (Size::Small, 3)] {
        let (bytes, i, _) = level_and_strat(seed, size);
        let d = dir(&format!("remove-{size}-{seed}"));
        let mut json = gltf_of(&bytes, &d);
        let number = strat_node_number(&json, i);
        strat_children(&mut json).retain(|c| c != &json!(number));
        let (removed, report) = convert(&bytes, &json, &d).unwrap();
        assert_eq!(report.strats_removed, vec![i]);
        assert!(report.strats_added.is_empty() && report.strats_tuned.is_empty());
        let (a, b) = (MapBytes::of(&bytes), MapBytes::of(&removed));
        assert_eq!(b.count(), a.count(), "indices never shift");
        assert_eq!(b.pool_extra(), a.pool_extra());
        assert_eq!(a.record(i).flags & 2, 0);
        assert_eq!(b.record(i).flags, a.record(i).flags | 2);
        assert_eq!(
            Rec {
                flags: a.record(i).flags,
                ..b.record(i)
            },
            a.record(i)
        );

        // Restored: the removed level's glTF shows the strat with bit 1; clearing it gives the
        // original bytes.
        let d2 = dir(&format!("restore-{size}-{seed}"));
        let mut json = gltf_of(&removed, &d2);
        let node = strat_node(&mut json, i);
        assert_eq!(node["extras"]["flags"], json!(b.record(i).flags));
        node["extras"]["flags"] = json!(a.record(i).flags);
        let (restored, report) = convert(&removed, &json, &d2).unwrap();
        assert_eq!(report.strats_restored, vec![i]);
        assert!(restored == bytes, "restored byte for byte");

        // A glTF whose strats are all left out (no Strats group) removes none.
        let mut json = gltf_of(&bytes, &d);
        let root: Vec<Value> = json["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|&n| {
                json["nodes"][n.as_u64().unwrap() as usize]["extras"]["llamawad"] != "strats"
            })
            .cloned()
            .collect();
        json["scenes"][0]["nodes"] = json!(root);
        let (out, report) = convert(&bytes, &json, &d).unwrap();
        assert!(report.is_empty(), "{report:?}");
        assert!(out == bytes);
        std::fs::remove_dir_all(&d).unwrap();
        std::fs::remove_dir_all(&d2).unwrap();
    }
}

#[test]
fn a_strat_tuned_in_its_extras_gets_its_fields_and_parameters() {
    let (bytes, i, _) = level_and_strat(4, Size::Small);
    let d = dir("tune");
    let mut json = gltf_of(&bytes, &d);
    let base = MapBytes::of(&bytes);
    let before = base.record(i);
    let node = strat_node(&mut json, i);
    let mut values: Vec<i64> =
        serde_json::from_value(node["extras"]["parameters"].clone()).unwrap();
    values[0] = 0x2800;
    node["extras"]["parameters"] = json!(values);
    // Blender's integers are signed: −1 is the entry 0xffffffff.
    if values.len() > 1 {
        values[1] = -1;
        node["extras"]["parameters"] = json!(values);
    }
    // The position typed into the extras (the node not moved).
    let mut position = before.position;
    position[1] += 4096;
    node["extras"]["position"] = json!(position);
    let (out, report) = convert(&bytes, &json, &d).unwrap();
    assert_eq!(report.strats_tuned, vec![i]);
    assert_eq!(report.strats_moved, vec![i]);
    assert_eq!(report.parameters_appended, 0, "its entries are its own");
    let m = MapBytes::of(&out);
    let after = m.record(i);
    assert_eq!(after.position, position);
    assert_eq!(after.parameter_index, before.parameter_index);
    assert_eq!(m.pool_len(), base.pool_len());
    let at = before.parameter_index as usize;
    assert_eq!(m.pool(at), 0x2800);
    if values.len() > 1 {
        assert_eq!(m.pool(at + 1), u32::MAX);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn strat_edits_the_record_cannot_hold_are_refused_by_name() {
    let (bytes, i, _) = level_and_strat(1, Size::Tiny);
    let d = dir("refuse");
    let json = gltf_of(&bytes, &d);
    let name = strat_node(&mut json.clone(), i)["name"]
        .as_str()
        .unwrap()
        .to_string();
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut json = json.clone();
        edit(&mut json);
        let e = convert(&bytes, &json, &d).unwrap_err();
        (e.code, e.object().map(str::to_string), e.message, e.cause)
    };
    // Turned about x.
    let (code, object, _, cause) = refused(&|j| {
        let h = 0.3f64;
        strat_node(j, i)["rotation"] = json!([libm::sin(h), 0.0, 0.0, libm::cos(h)]);
    });
    assert_eq!((code, object.as_deref()), (Code::StratTilted, Some(&*name)));
    assert_eq!(cause.strat, Some(i));
    // A parameter too many, a flag that is no whole number, a parameter past u32.
    let (code, object, message, cause) = refused(&|j| {
        let n = strat_node(j, i);
        let mut v: Vec<i64> = serde_json::from_value(n["extras"]["parameters"].clone()).unwrap();
        v.push(1);
        n["extras"]["parameters"] = json!(v);
    });
    assert_eq!((code, object.as_deref()), (Code::StratField, Some(&*name)));
    assert!(message.contains("`parameters`"), "{message}");
    assert_eq!(
        (cause.strat, cause.field.as_deref(), cause.value),
        (Some(i), Some("parameters"), None)
    );
    let (code, _, message, cause) = refused(&|j| strat_node(j, i)["extras"]["flags"] = json!(1.5));
    assert_eq!(code, Code::StratField);
    assert!(
        message.contains(&format!("strat {i}: `flags`")),
        "{message}"
    );
    assert_eq!((cause.field.as_deref(), cause.value), (Some("flags"), None));
    let (code, _, _, _) = refused(&|j| {
        let n = strat_node(j, i);
        let mut v: Vec<i64> = serde_json::from_value(n["extras"]["parameters"].clone()).unwrap();
        v[0] = 1 << 32;
        n["extras"]["parameters"] = json!(v);
    });
    assert_eq!(code, Code::StratField);
    let (_, _, _, cause) = refused(&|j| strat_node(j, i)["extras"]["flags"] = json!(70_000));
    assert_eq!(
        (cause.field.as_deref(), cause.value),
        (Some("flags"), Some(70_000))
    );
    // A waypoint that does not exist: the check's error, naming the node it came from.
    let (code, object, message, cause) =
        refused(&|j| strat_node(j, i)["extras"]["waypoint"] = json!(99_999));
    assert_eq!((code, object.as_deref()), (Code::GameRules, Some(&*name)));
    assert!(
        message.contains("waypoint 99999 does not exist"),
        "{message}"
    );
    // The first broken rule's strat.
    assert_eq!(cause.strat, Some(i));
    // A strat the base does not have.
    let (code, object, _, cause) =
        refused(&|j| strat_node(j, i)["extras"]["strat"] = json!(99_999));
    assert_eq!(
        (code, object.as_deref()),
        (Code::UnknownStrat, Some(&*name))
    );
    let strats = Level::parse(&bytes).unwrap().map().unwrap().strats.len();
    assert_eq!((cause.strat, cause.count), (Some(99_999), Some(strats)));
    std::fs::remove_dir_all(&d).unwrap();
}

/// The JSON node of waypoint `i`.
fn waypoint_node(json: &mut Value, i: usize) -> &mut Value {
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["extras"]["llamawad"] == "waypoint" && n["extras"]["waypoint"] == i)
        .unwrap()
}

/// A generated level with waypoint chains (seed 2, small: chains 0–3, 4–7 and 8–10, named by
/// two cameras and a Wompy).
fn level_with_waypoints() -> Vec<u8> {
    let bytes = generate(2, Size::Small).to_bytes().unwrap();
    let m = MapBytes::of(&bytes);
    assert!(m.waypoint_count() >= 8);
    bytes
}

#[test]
fn an_unchanged_gltf_with_waypoints_gives_the_base_and_a_waypoint_moved_gets_its_place() {
    let bytes = level_with_waypoints();
    let d = dir("waypoint-move");
    let mut json = gltf_of(&bytes, &d);
    let (same, report) = convert(&bytes, &json, &d).unwrap();
    assert!(same == bytes && report.is_empty());
    let base = MapBytes::of(&bytes);
    let node = waypoint_node(&mut json, 5);
    let t: Vec<f64> = serde_json::from_value(node["translation"].clone()).unwrap();
    node["translation"] = json!([t[0] + 0.5, t[1] + 1.0, t[2] - 0.25]);
    let (out, report) = convert(&bytes, &json, &d).unwrap();
    assert_eq!(report.waypoints_moved, vec![5]);
    assert!(report.waypoints_added.is_empty() && report.strats_renumbered.is_empty());
    let m = MapBytes::of(&out);
    let (next, rotation, position) = base.waypoint(5);
    assert_eq!(
        m.waypoint(5),
        (
            next,
            rotation,
            [position[0] + 2048, position[1] + 4096, position[2] - 1024]
        )
    );
    // Only the 12 bytes of its place changed.
    assert_eq!(out.len(), bytes.len());
    assert!(out.iter().zip(&bytes).filter(|(a, b)| a != b).count() <= 12);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_duplicated_waypoint_node_is_inserted_after_it_and_later_numbers_follow() {
    let bytes = level_with_waypoints();
    let base = MapBytes::of(&bytes);
    let n = base.waypoint_count();
    let strats: Vec<Rec> = (0..base.count()).map(|s| base.record(s)).collect();
    // Waypoint 1 continues its chain, waypoint 3 ends it (note 003: next 0 ends a chain).
    assert!(base.waypoint(1).0 != 0 && base.waypoint(3).0 == 0);
    let d = dir("waypoint-insert");
    let mut json = gltf_of(&bytes, &d);
    for (i, x) in [(1usize, 0.75f64), (3, -0.5)] {
        let mut copy = waypoint_node(&mut json, i).clone();
        copy["name"] = json!(format!("waypoint {i:03}.001"));
        let t: Vec<f64> = serde_json::from_value(copy["translation"].clone()).unwrap();
        copy["translation"] = json!([t[0] + x, t[1], t[2]]);
        let nodes = json["nodes"].as_array_mut().unwrap();
        nodes.push(copy);
        let k = nodes.len() - 1;
        json["nodes"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|g| g["extras"]["llamawad"] == "waypoints")
            .unwrap()["children"]
            .as_array_mut()
            .unwrap()
            .push(json!(k));
    }
    let (out, report) = convert(&bytes, &json, &d).unwrap();
    let m = MapBytes::of(&out);
    assert_eq!(m.waypoint_count(), n + 2);
    // Written: 0, 1, copy of 1, 2, 3, copy of 3, then the base's 4.. two places on.
    assert_eq!(report.waypoints_added, vec![2, 5]);
    let at = |w: usize| base.waypoint(w);
    for (written, from) in [(0, 0), (1, 1), (3, 2), (4, 3)] {
        let (next, rotation, position) = at(from);
        let expect_next = if from == 3 { 1 } else { next };
        assert_eq!(
            m.waypoint(written),
            (expect_next, rotation, position),
            "waypoint {written}"
        );
    }
    for w in 4..n {
        assert_eq!(m.waypoint(w + 2), at(w), "base waypoint {w}");
    }
    let (next_1, rotation_1, p1) = at(1);
    assert_eq!(
        m.waypoint(2),
        (next_1, rotation_1, [p1[0] + 3072, p1[1], p1[2]])
    );
    let (_, rotation_3, p3) = at(3);
    assert_eq!(m.waypoint(5), (0, rotation_3, [p3[0] - 2048, p3[1], p3[2]]));
    // Every strat naming a waypoint after an insertion names it at its new number.
    for (s, before) in strats.iter().enumerate() {
        let shift = match before.waypoint {
            w if w > 3 => 2,
            w if w > 1 => 1,
            _ => 0,
        };
        assert_eq!(m.record(s).waypoint, before.waypoint + shift, "strat {s}");
        assert_eq!(report.strats_renumbered.contains(&s), shift > 0);
    }
    assert!(!report.strats_renumbered.is_empty());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn waypoint_edits_the_entry_cannot_hold_are_refused_and_a_missing_node_is_kept() {
    let bytes = level_with_waypoints();
    let d = dir("waypoint-refuse");
    let json = gltf_of(&bytes, &d);
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut json = json.clone();
        edit(&mut json);
        let e = convert(&bytes, &json, &d).unwrap_err();
        (e.code, e.object().map(str::to_string), e.message)
    };
    let (code, object, _) = refused(&|j| {
        let h = 0.3f64;
        waypoint_node(j, 2)["rotation"] = json!([0.0, 0.0, libm::sin(h), libm::cos(h)]);
    });
    assert_eq!(
        (code, object.as_deref()),
        (Code::StratTilted, Some("waypoint 002"))
    );
    let (code, _, message) = refused(&|j| waypoint_node(j, 2)["extras"]["next"] = json!(-1));
    assert_eq!(code, Code::StratField);
    assert!(message.contains("waypoint 2: `next`"), "{message}");
    let (code, object, _) = refused(&|j| waypoint_node(j, 2)["extras"]["waypoint"] = json!(500));
    assert_eq!(
        (code, object.as_deref()),
        (Code::UnknownWaypoint, Some("waypoint 002"))
    );
    // A waypoint node left out: kept as it is, and said.
    let mut json = json.clone();
    let k = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["extras"]["llamawad"] == "waypoint" && n["extras"]["waypoint"] == 6)
        .unwrap();
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|g| g["extras"]["llamawad"] == "waypoints")
        .unwrap()["children"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c != &json!(k));
    json["nodes"][k]["extras"] = json!(null);
    let (out, report) = convert(&bytes, &json, &d).unwrap();
    assert_eq!(out, bytes);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.starts_with("waypoint 6 has no node: kept")));
    std::fs::remove_dir_all(&d).unwrap();
}
