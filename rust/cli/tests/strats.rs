//! `strats` and `strat-table` from the command line: what they print, as text and JSON, and how
//! they refuse what is no level.

use std::path::Path;
use std::process::{Command, Output};

use llamawad::container::Tag;
use llamawad::generate::{generate, Size};

mod support;
use support::{stdout, Dir};

fn llamawad(args: &[&str], path: &Path) -> Output {
    support::llamawad(args, &[path])
}

/// Exit 1 with one `error: ` line naming `path`, and no panic.
fn refused(out: &Output, path: &Path, saying: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.starts_with(&format!("error: {}", path.display())),
        "{stderr}"
    );
    assert!(stderr.contains(saying), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"));
}

#[test]
fn strats_prints_every_placed_strat() {
    let dir = Dir::new("strats-text");
    let level = generate(2, Size::Tiny);
    let wad = dir.write("level.wad", &level.to_bytes().unwrap());
    let map = level.map().unwrap();
    let text = stdout(&llamawad(&["strats"], &wad));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{}: {} strats, poolExtra {} (room for {}), parameter pool of {}, {} waypoints",
            wad.display(),
            map.strats.len(),
            map.strat_pool_extra,
            map.strat_pool_extra + 30,
            map.parameters.len(),
            map.waypoints.len()
        )
    );
    assert!(lines[2].trim_start().starts_with("#  type"), "{}", lines[2]);
    // One row per strat, its index first; the Llama's row as the record says.
    let rows = &lines[3..];
    assert_eq!(rows.len(), map.strats.len());
    let llama = rows.iter().find(|r| r.contains(" Llama ")).unwrap();
    let i: usize = llama.split_whitespace().next().unwrap().parse().unwrap();
    let record = &map.strats[i];
    let [x, y, z] = record.position;
    assert!(
        llama.contains(&format!("{:.3}", x as f64 / 4096.0)),
        "{llama}"
    );
    assert!(llama.contains(&format!("{x}, {y}, {z}")), "{llama}");
    let r = record.rotation;
    assert!(
        llama.contains(&format!("{}/{}/{}", r[0], r[1], r[2])),
        "{llama}"
    );
    let degrees = format!("{:.2}", r[1] as f64 * 360.0 / 4096.0);
    assert!(llama.contains(&degrees), "{llama}");
    assert!(llama.contains("0x0000  yes"), "{llama}");
    assert!(rows
        .iter()
        .any(|r| r.contains("CameraSide") && r.contains("in its chain")));
    assert!(!text.contains("\ntypes ("), "no types without --all");
}

#[test]
fn strats_all_lists_the_types_and_which_can_be_placed() {
    let dir = Dir::new("strats-all");
    let level = generate(3, Size::Small);
    let wad = dir.write("level.wad", &level.to_bytes().unwrap());
    let text = stdout(&llamawad(&["strats", "--all"], &wad));
    let types = text.split("\ntypes (").nth(1).unwrap();
    assert!(types.starts_with("15, 11 placeable)"), "{types}");
    let row = |name: &str| {
        types
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in {types}"))
            .to_string()
    };
    let llama = row("Llama");
    assert!(
        llama.contains("variables 78") && llama.ends_with("yes"),
        "{llama}"
    );
    let sparkle = row("CoinSparkle");
    assert!(sparkle.split_whitespace().next().unwrap().ends_with('*'));
    assert!(
        sparkle.contains("no: never placed in this level"),
        "{sparkle}"
    );
    assert!(row("SmashPot").contains("spawn stub"));
    assert!(row("SmashPot(spawn)").ends_with("yes"));
    assert!(text.contains("* never placed: the offset of its name instruction"));
}

#[test]
fn strats_json_is_the_same_data() {
    let dir = Dir::new("strats-json");
    let level = generate(1, Size::Small);
    let wad = dir.write("level.wad", &level.to_bytes().unwrap());
    let map = level.map().unwrap();
    let stpc = level.stpc().unwrap();

    let json: serde_json::Value =
        serde_json::from_str(&stdout(&llamawad(&["strats", "--json"], &wad))).unwrap();
    assert_eq!(json["pool_extra"], map.strat_pool_extra);
    assert_eq!(json["parameter_pool"], map.parameters.len());
    assert!(json.get("types").is_none());
    let strats = json["strats"].as_array().unwrap();
    assert_eq!(strats.len(), map.strats.len());
    for (i, (s, record)) in strats.iter().zip(&map.strats).enumerate() {
        assert_eq!(s["index"], i);
        assert_eq!(
            s["type_name"].as_str(),
            stpc.strat_name(record.code_offset).as_deref()
        );
        assert_eq!(s["code_offset"], record.code_offset);
        assert_eq!(s["position_fixed"], serde_json::json!(record.position));
        assert_eq!(
            s["position"],
            serde_json::json!(record.position.map(|v| v as f64 / 4096.0))
        );
        assert_eq!(s["rotation"], serde_json::json!(record.rotation));
        assert_eq!(
            s["rotation_y_degrees"],
            record.rotation[1] as f64 * 360.0 / 4096.0
        );
        assert_eq!(s["flags"], record.flags);
        assert_eq!(s["not_created_at_start"], record.flags & 2 != 0);
        let parameters: Vec<u32> = match record.parameter_count {
            0 => vec![],
            n => {
                let at = record.parameter_index as usize;
                map.parameters[at..at + n as usize].to_vec()
            }
        };
        assert_eq!(s["parameters"], serde_json::json!(parameters));
        assert_eq!(s["waypoint"], record.waypoint);
        assert_eq!(s["type_fields"]["variables"], record.variable_count);
    }

    let json: serde_json::Value =
        serde_json::from_str(&stdout(&llamawad(&["strats", "--all", "--json"], &wad))).unwrap();
    let types = json["types"].as_array().unwrap();
    assert_eq!(types.len(), 15);
    let sparkle = types.iter().find(|t| t["name"] == "CoinSparkle").unwrap();
    assert_eq!(sparkle["placeable"], false);
    assert_eq!(sparkle["instances"], 0);
    assert_eq!(sparkle["offset_source"], "name_instruction");
    assert!(sparkle["type_fields"].is_null());
    let coin = types.iter().find(|t| t["name"] == "Coin").unwrap();
    assert_eq!(
        (coin["placeable"].clone(), coin["instances"].clone()),
        (true.into(), 20.into())
    );
    assert!(coin["why_not"].is_null());
}

#[test]
fn strats_refuses_what_is_no_level_by_name() {
    let dir = Dir::new("strats-bad");
    let garbage = dir.write("garbage.wad", b"\x20\0\0\0not a level at all, just text");
    refused(
        &llamawad(&["strats"], &garbage),
        &garbage,
        "not a level WAD",
    );
    let missing = dir.0.join("missing.wad");
    refused(&llamawad(&["strats", "--json"], &missing), &missing, "");
    refused(&llamawad(&["strats"], &dir.0), &dir.0, "not a regular file");
    let mut level = generate(1, Size::Tiny);
    level.chunks.retain(|c| c.tag != Tag::MAP);
    let no_map = dir.write("no-map.wad", &level.to_bytes().unwrap());
    refused(
        &llamawad(&["strats", "--all"], &no_map),
        &no_map,
        "MAP chunk is needed by the strats",
    );
}

#[test]
fn strat_table_counts_types_by_level_and_skips_what_it_cannot_read() {
    let dir = Dir::new("strat-table");
    dir.write("one.wad", &generate(1, Size::Tiny).to_bytes().unwrap());
    dir.write("two.wad", &generate(2, Size::Small).to_bytes().unwrap());
    dir.write("zzz.wad", &[0xff; 300]);
    dir.write("readme.txt", b"not read");

    let text = stdout(&llamawad(&["strat-table"], &dir.0));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("{}: 2 levels, 11 types, 1 file skipped", dir.0.display())
    );
    let header: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(header, ["type", "one", "two", "total", "levels"]);
    let row = |name: &str| -> Vec<String> {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name));
        line.unwrap().split_whitespace().map(String::from).collect()
    };
    assert_eq!(row("Llama"), ["Llama", "1", "1", "2", "2"]);
    assert_eq!(row("Coin"), ["Coin", "3", "20", "23", "2"]);
    let skipped = text.split("\nskipped\n").nth(1).unwrap();
    assert!(
        skipped.starts_with("  zzz.wad: the file is not a level WAD"),
        "{skipped}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&stdout(&llamawad(&["strat-table", "--json"], &dir.0))).unwrap();
    assert_eq!(json["levels"], serde_json::json!(["one.wad", "two.wad"]));
    let llama = json["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Llama")
        .unwrap();
    assert_eq!(llama["counts"], serde_json::json!([1, 1]));
    assert_eq!(llama["total"], 2);
    assert_eq!(json["skipped"][0]["file"], "zzz.wad");
    assert!(json["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("not a level WAD"));

    let missing = dir.0.join("no such folder");
    refused(&llamawad(&["strat-table"], &missing), &missing, "");
    let file = dir.0.join("one.wad");
    refused(&llamawad(&["strat-table"], &file), &file, "");
}

#[test]
fn testlevel_writes_a_level_check_and_strats_agree_with() {
    let dir = Dir::new("testlevel");
    let source = generate(2, Size::Small);
    let src = dir.write("src.wad", &source.to_bytes().unwrap());
    let out_path = dir.0.join("out.wad");
    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("testlevel")
        .arg(&src)
        .arg(&out_path)
        .args(["--name", "test", "--spacing", "4"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.starts_with(&format!("{} -> {}: ", src.display(), out_path.display())));
    assert!(text.contains("player: strat "), "{text}");
    assert!(text.contains("LevelDoor"), "{text}");
    assert!(text.contains("CameraSide: cameras, cut scenes"), "{text}");

    // check against the source: nothing new; strats: one more LevelDoor, six more coins.
    let checked = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("check")
        .arg(&out_path)
        .arg("--base")
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let table = |path: &Path| -> serde_json::Value {
        serde_json::from_str(&stdout(&llamawad(&["info", "--json"], path))).unwrap()
    };
    let (before, after) = (table(&src), table(&out_path));
    let count = |v: &serde_json::Value, name: &str| v["strat_types"][name].as_u64().unwrap();
    assert_eq!(count(&after, "LevelDoor"), count(&before, "LevelDoor") + 1);
    assert_eq!(count(&after, "Coin"), count(&before, "Coin") + 7);
    assert_eq!(count(&after, "Wompy"), count(&before, "Wompy") + 1);
    assert_eq!(count(&after, "CameraSide"), count(&before, "CameraSide"));
    assert_eq!(after["name"], "test");

    // --json is the report; the source is never the output.
    let again = dir.0.join("again.wad");
    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("testlevel")
        .arg(&src)
        .arg(&again)
        .arg("--json")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["player"]["name"], "Llama");
    assert_eq!(report["placed"].as_array().unwrap().len(), 14);
    let before = std::fs::read(&src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("testlevel")
        .arg(&src)
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never overwritten"));
    assert_eq!(std::fs::read(&src).unwrap(), before);

    let garbage = dir.write("garbage.wad", b"\x20\0\0\0not a level at all, just text");
    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("testlevel")
        .arg(&garbage)
        .arg(dir.0.join("x.wad"))
        .output()
        .unwrap();
    refused(&out, &garbage, "not a level WAD");
    assert!(!dir.0.join("x.wad").exists());
    let out = Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .arg("testlevel")
        .arg(&src)
        .arg(dir.0.join("y.wad"))
        .args(["--spacing", "0"])
        .output()
        .unwrap();
    refused(&out, &src, "spacing 0");
    assert!(!dir.0.join("y.wad").exists());
}
