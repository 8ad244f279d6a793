//! `bake` and `fit-light` from the command line: the core's bake written with every other byte
//! kept, the tiles asked for and no others, the light found again, and what is refused.

use std::path::Path;

use llamawad::game::light::{bake, BakeOptions, Lighting};
use llamawad::generate::{generate, Size};
use llamawad::Level;

mod support;
use support::{llamawad as run, refused, stdout, Dir};

const LIGHT: [&str; 6] = [
    "--sun",
    "0.5,-1,0.3",
    "--sun-colour",
    "0.7,0.6,0.45",
    "--sky",
    "0.25,0.3,0.4",
];

fn lighting() -> Lighting {
    Lighting {
        sun_direction: [0.5, -1.0, 0.3],
        sun_colour: [0.7, 0.6, 0.45],
        sky_colour: [0.25, 0.3, 0.4],
        occlusion: 1.0,
    }
}

fn read(path: &Path) -> Level {
    Level::parse(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn bake_writes_the_cores_bake_and_leaves_its_input() {
    let dir = Dir::new("bake");
    let base = generate(1, Size::Small);
    let bytes = base.to_bytes().unwrap();
    let level = dir.write("level.wad", &bytes);
    let out = dir.0.join("baked.wad");
    let said = stdout(&run(&[&["bake"][..], &LIGHT].concat(), &[&level, &out]));
    assert!(
        said.contains("tiles baked") && said.contains("--occlusion 1.000"),
        "{said}"
    );
    let mut want = base.clone();
    bake(&mut want, &lighting(), &BakeOptions::default(), &|_, _| {}).unwrap();
    assert!(std::fs::read(&out).unwrap() == want.to_bytes().unwrap());
    assert!(std::fs::read(&level).unwrap() == bytes);

    // Two tiles by number: only theirs change.
    let args = [&["bake", "--tiles", "3,5"][..], &LIGHT].concat();
    stdout(&run(&args, &[&level, &out]));
    let (written, old) = (read(&out), base.map().unwrap().tiles.clone());
    for (t, tile) in written.map().unwrap().tiles.iter().enumerate() {
        assert_eq!(tile.colours != old[t].colours, t == 3 || t == 5, "tile {t}");
    }
}

#[test]
fn fit_light_finds_the_light_bake_used_and_bake_fit_lights_alike() {
    let dir = Dir::new("fit-light");
    let level = dir.write("level.wad", &generate(3, Size::Small).to_bytes().unwrap());
    let baked = dir.0.join("baked.wad");
    stdout(&run(&[&["bake"][..], &LIGHT].concat(), &[&level, &baked]));
    let said = stdout(&run(&["fit-light", "--json"], &[&baked]));
    let fit: serde_json::Value = serde_json::from_str(&said).unwrap();
    let sun: Vec<f64> = serde_json::from_value(fit["lighting"]["sun_colour"].clone()).unwrap();
    for (found, want) in sun.iter().zip([0.7, 0.6, 0.45]) {
        assert!((found - want).abs() * 128.0 <= 3.0, "{said}");
    }
    let text = stdout(&run(&["fit-light"], &[&baked]));
    assert!(
        text.contains("to bake with it: llamawad bake --sun "),
        "{text}"
    );

    // Baked again with the light found, the colours stay within a step or two.
    let again = dir.0.join("again.wad");
    stdout(&run(&["bake", "--fit"], &[&baked, &again]));
    let (a, b) = (read(&baked), read(&again));
    for (x, y) in a.map().unwrap().tiles.iter().zip(&b.map().unwrap().tiles) {
        for (p, q) in x.colours.iter().zip(&y.colours) {
            assert!((0..3).all(|k| p[k].abs_diff(q[k]) <= 2), "{p:?} {q:?}");
        }
    }
}

#[test]
fn bake_refuses_what_it_cannot_light_and_writes_nothing() {
    let dir = Dir::new("bake-refused");
    let level = dir.write("level.wad", &generate(1, Size::Tiny).to_bytes().unwrap());
    let out = dir.0.join("out.wad");
    let no_sun = [
        "bake",
        "--sun",
        "0,0,0",
        "--sun-colour",
        "1,1,1",
        "--sky",
        "1,1,1",
    ];
    refused(&run(&no_sun, &[&level, &out]), "has no length");
    let args = [&["bake", "--tiles", "99999"][..], &LIGHT].concat();
    refused(&run(&args, &[&level, &out]), "tile 99999 does not exist");
    assert!(!out.exists());
    refused(
        &run(&[&["bake"][..], &LIGHT].concat(), &[&level, &level]),
        "never overwritten",
    );
    let bad = [
        "bake",
        "--sun",
        "1,2",
        "--sun-colour",
        "1,1,1",
        "--sky",
        "1,1,1",
    ];
    let usage = run(&bad, &[&level, &out]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("give three numbers"));
}
