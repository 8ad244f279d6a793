//! `build(parse(x)) == x` for every generated level and every committed fixture.

use llamawad::generate::{generate, Size};
use llamawad::Level;

fn assert_roundtrip(bytes: &[u8], what: &str) {
    let level = Level::parse(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    let written = level.to_bytes().unwrap_or_else(|e| panic!("{what}: {e}"));
    if written != bytes {
        let at = written.iter().zip(bytes).position(|(a, b)| a != b);
        panic!(
            "{what}: written {} bytes, read {}; first difference at {at:?}",
            written.len(),
            bytes.len()
        );
    }
    assert!(level.warnings.is_empty(), "{what}: {:?}", level.warnings);
}

#[test]
fn generated_levels_round_trip_byte_for_byte() {
    for size in Size::ALL {
        for seed in 1..=20 {
            let bytes = generate(seed, size).to_bytes().unwrap();
            assert_roundtrip(&bytes, &format!("{size} seed {seed}"));
        }
    }
}

#[test]
fn fixtures_round_trip_byte_for_byte() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wad") {
            assert_roundtrip(&std::fs::read(&path).unwrap(), &path.display().to_string());
            count += 1;
        }
    }
    assert!(
        count >= 3,
        "expected the committed fixtures in {}",
        dir.display()
    );
}
