//! `probe`, `floors` and `check` from the command line: what they print and how they exit.

use std::process::{Command, Output};

use llamawad::game::floor::World;
use llamawad::generate::{generate, Size};
use llamawad::Level;

mod support;
use support::{llamawad, Dir};

fn run(args: &[std::ffi::OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .args(args)
        .output()
        .unwrap()
}

fn the_llama(level: &Level) -> [f64; 3] {
    let stpc = level.stpc().unwrap();
    let s = level
        .map()
        .unwrap()
        .strats
        .iter()
        .find(|s| stpc.strat_name(s.code_offset).as_deref() == Some("Llama"))
        .unwrap();
    s.position.map(|v| v as f64 / 4096.0)
}

#[test]
fn probe_prints_the_floor_of_each_point() {
    let dir = Dir::new("probe");
    let level = generate(2, Size::Small);
    let wad = dir.write("level.wad", &level.to_bytes().unwrap());
    let [x, y, z] = the_llama(&level);
    let expected = World::of(&level).unwrap().probe(x, y, z);

    let out = run(&[
        "probe".into(),
        wad.clone().into(),
        x.to_string().into(),
        y.to_string().into(),
        z.to_string().into(),
        "--json".into(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let floor = expected.floor.unwrap();
    assert_eq!(line["floor"]["tile"], floor.tile);
    assert_eq!(line["floor"]["polygon"], floor.polygon);
    assert_eq!(line["floor"]["height"], floor.height);
    assert_eq!(
        line["candidates"].as_array().unwrap().len(),
        expected.candidates.len()
    );

    // A file of points: one JSON line each; a point outside the grid has no floor.
    let points = dir.write(
        "points.txt",
        format!("# the start, then the sea\n{x} {y} {z}\n-5 10 -5\n").as_bytes(),
    );
    let out = llamawad(&["probe"], &[&wad]);
    assert_eq!(out.status.code(), Some(2), "a point or a file is needed");
    let out = run(&[
        "probe".into(),
        wad.into(),
        "--points".into(),
        points.into(),
        "--json".into(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["floor"]["tile"], floor.tile);
    assert!(lines[1]["floor"].is_null() && lines[1]["cell"].is_null());
}

#[test]
fn floors_of_a_level_and_itself_agree_everywhere() {
    let dir = Dir::new("floors");
    let wad = dir.write("a.wad", &generate(3, Size::Small).to_bytes().unwrap());
    let out = run(&[
        "floors".into(),
        wad.clone().into(),
        "--compare".into(),
        wad.into(),
        "--points".into(),
        "500".into(),
        "--json".into(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["points"], 500);
    assert!(c["both"].as_u64().unwrap() > 100);
    assert_eq!(c["both"], c["within_1mm"]);
    assert_eq!(
        (c["lost"].as_u64(), c["gained"].as_u64()),
        (Some(0), Some(0))
    );
}

#[test]
fn check_reports_every_problem_and_exits_1_on_a_new_error() {
    let dir = Dir::new("check");
    let base = generate(2, Size::Tiny);
    let mut broken = base.clone();
    let map = broken.map_mut().unwrap();
    map.tiles[2].set_placement([-3.5, 0.0, -1.5], 0);
    map.strats[0].waypoint = 999;
    let base_wad = dir.write("base.wad", &base.to_bytes().unwrap());
    let broken_wad = dir.write("broken.wad", &broken.to_bytes().unwrap());

    let out = llamawad(&["check", "--json"], &[&broken_wad]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = report["problems"].as_array().unwrap();
    let has = |code: &str, key: &str, value: u64| {
        problems
            .iter()
            .any(|p| p["code"] == code && p[key] == value && p["severity"] == "error")
    };
    assert!(has("tile-in-grid", "tile", 2), "{problems:?}");
    assert!(has("strat-waypoint", "strat", 0), "{problems:?}");
    assert_eq!(
        report["errors"].as_u64().unwrap() + report["warnings"].as_u64().unwrap(),
        problems.len() as u64
    );

    // Against itself as the base every problem is pre-existing, and the exit status 0.
    let out = run(&[
        "check".into(),
        broken_wad.clone().into(),
        "--base".into(),
        broken_wad.clone().into(),
        "--json".into(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["pre_existing"] == true));
    // Against the unbroken level the two new ones are new.
    let out = run(&[
        "check".into(),
        broken_wad.into(),
        "--base".into(),
        base_wad.into(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("error [tile-in-grid]: tile 2 stands at x -3.500"),
        "{text}"
    );
}

/// A file the reader refuses is checked as one error with the culprit the reader named: here
/// TRAK model 1, whose vertex count is off by one.
#[test]
fn check_reports_a_refused_file_with_its_culprit_and_exits_1() {
    let dir = Dir::new("check-refused");
    let mut bytes = generate(1, Size::Small).to_bytes().unwrap();
    let wad = llamawad::container::split(&bytes).unwrap();
    let trak = wad
        .chunks
        .iter()
        .find(|c| c.tag == llamawad::container::Tag::TRAK)
        .unwrap()
        .offset as usize;
    bytes[trak + 4 + 0x84 + 0x6c] ^= 1;
    let broken = dir.write("broken.wad", &bytes);
    let out = llamawad(&["check", "--json"], &[&broken]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["code"], "unreadable");
    assert_eq!(problems[0]["model"], 1);
    assert!(problems[0]["tile"].is_null());
}
