//! The level's own lights (LGHT): read when one layout explains the chunk, kept byte for byte
//! with a warning naming why when none or several do.

use llamawad::container::Tag;
use llamawad::generate::{generate, Size};
use llamawad::level::ChunkBody;
use llamawad::Level;

fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A generated level whose LGHT payload is `payload`, written and read again.
fn level_with_lights(payload: Vec<u8>) -> (Vec<u8>, Level) {
    let mut level = generate(2, Size::Tiny);
    let chunk = level
        .chunks
        .iter_mut()
        .find(|c| c.tag == Tag::LGHT)
        .unwrap();
    chunk.body = ChunkBody::Raw(payload);
    let bytes = level.to_bytes().unwrap();
    let read = Level::parse(&bytes).unwrap();
    (bytes, read)
}

#[test]
fn lights_of_different_sizes_by_type_are_read_and_written_back_the_same() {
    // A sun of three words and a point of four, twice each.
    let payload = words(&[
        4,
        0x8090_a001,
        0x800,
        0xffff_f000,
        0xb50,
        0x0030_6002,
        0x5000,
        0x1800,
        0xffff_9000,
        0x4000,
        0x00ff_ff01,
        0,
        0x1000,
        0,
        0x0040_8002,
        0x0001_2000,
        0x3000,
        0xfffe_8000,
        0x2000,
    ]);
    let (bytes, level) = level_with_lights(payload);
    assert_eq!(level.warnings, Vec::<String>::new());
    let lights = level.lights().expect("LGHT is read");
    let sizes: Vec<(u8, usize)> = lights
        .lights
        .iter()
        .map(|l| (l.kind, l.words.len()))
        .collect();
    assert_eq!(sizes, [(1, 3), (2, 4), (1, 3), (2, 4)]);
    assert_eq!(level.to_bytes().unwrap(), bytes);
}

#[test]
fn a_chunk_no_reading_explains_is_kept_as_bytes_and_the_reader_says_why() {
    // Type 1 with no words then type 2 with three, or type 1 with one and type 5 with two.
    let payload = words(&[2, 1, 2, 5, 0, 0]);
    let (bytes, level) = level_with_lights(payload.clone());
    assert!(level.lights().is_none());
    let chunk = level.chunks.iter().find(|c| c.tag == Tag::LGHT).unwrap();
    assert_eq!(chunk.body, ChunkBody::Raw(payload));
    assert_eq!(level.warnings.len(), 1, "{:?}", level.warnings);
    let warning = &level.warnings[0];
    assert!(warning.contains("read by more than one"), "{warning}");
    assert!(
        warning.ends_with("the LGHT chunk is kept verbatim"),
        "{warning}"
    );
    assert_eq!(level.to_bytes().unwrap(), bytes);
}
