//! The level's own lights (LGHT): read when one layout explains the chunk, kept byte for byte
//! with a warning naming why when none or several do.

use llamawad::container::Tag;
use llamawad::generate::{generate, Size};
use llamawad::level::ChunkBody;
use llamawad::{Code, Level};

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
    // A light of type 3 with no words before each sun of three: 40 bytes for four lights.
    let payload = words(&[
        4,
        0x00a0_a003,
        0x8090_a001,
        0x800,
        0xffff_f000,
        0xb50,
        0x00ff_ff03,
        0x0040_8001,
        0,
        0x1000,
        0,
    ]);
    let (bytes, level) = level_with_lights(payload);
    assert_eq!(level.warnings, Vec::<String>::new());
    let lights = &level.lights().expect("LGHT is read").lights;
    let sizes: Vec<(u8, usize)> = lights.iter().map(|l| (l.kind, l.words.len())).collect();
    assert_eq!(sizes, [(3, 0), (1, 3), (3, 0), (1, 3)]);
    assert_eq!(level.to_bytes().unwrap(), bytes);
}

#[test]
fn a_chunk_no_reading_explains_is_kept_as_bytes_and_the_reader_says_why() {
    // Two lights in 12 bytes: not of one size, and the first's type byte is 0, a type of no
    // words in every reading, as is the next: two lights of 4 bytes leave 4 bytes over.
    let payload = words(&[2, 0x100, 0, 0]);
    let (bytes, level) = level_with_lights(payload.clone());
    assert!(level.lights().is_none());
    let chunk = level.chunks.iter().find(|c| c.tag == Tag::LGHT).unwrap();
    assert_eq!(chunk.body, ChunkBody::Raw(payload));
    assert_eq!(level.warnings.len(), 1, "{:?}", level.warnings);
    let warning = &level.warnings[0];
    assert!(
        warning.contains("neither the notes' word counts (type 0 none, types 1 and 2 three), nor one size for every light, nor word counts per type"),
        "{warning}"
    );
    assert!(
        warning.ends_with("the LGHT chunk is kept verbatim"),
        "{warning}"
    );
    assert_eq!(level.to_bytes().unwrap(), bytes);
}

mod doors;

use llamawad::gltf::{wad_to_gltf, Document, GltfToWadOptions, Source};
use serde_json::{json, Value};

const OPTIONS: GltfToWadOptions = GltfToWadOptions {
    force: false,
    generate_collision: false,
    snap_uvs: false,
    tile_collision_given: true,
};

/// The level's glTF as JSON, its buffer in `dir`.
fn gltf_of(level: &Level, bytes: &[u8], dir: &std::path::Path) -> Value {
    let gltf = wad_to_gltf(level, Source::of(bytes)).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("level.bin"), &gltf.bin).unwrap();
    serde_json::from_slice(&gltf.to_gltf_json("level.bin")).unwrap()
}

fn light_node(json: &mut Value, light: usize) -> &mut Value {
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["extras"]["llamawad"] == "light" && n["extras"]["light"] == light)
        .unwrap()
}

fn convert(
    base: &Level,
    bytes: &[u8],
    json: &Value,
    dir: &std::path::Path,
) -> Result<(Level, llamawad::gltf::ChangeReport), llamawad::gltf::GltfToWadError> {
    let doc = Document::from_slice(&serde_json::to_vec(json).unwrap(), Some(dir)).unwrap();
    doors::convert(base, bytes, &doc, OPTIONS)
}

/// A generated level, read, and its glTF as JSON with its buffer in a folder of its own.
fn generated(what: &str) -> (Vec<u8>, Level, std::path::PathBuf, Value) {
    let bytes = generate(3, Size::Tiny).to_bytes().unwrap();
    let base = Level::parse(&bytes).unwrap();
    let dir = std::env::temp_dir().join(format!("llamawad-lights-{what}-{}", std::process::id()));
    let json = gltf_of(&base, &bytes, &dir);
    (bytes, base, dir, json)
}

#[test]
fn a_moved_point_and_a_recoloured_turned_sun_are_written_into_their_words() {
    let (bytes, base, dir, mut json) = generated("edits");
    let (same, report) = convert(&base, &bytes, &json, &dir).unwrap();
    assert!(report.is_empty(), "{report:?}");
    assert_eq!(
        same.to_bytes().unwrap(),
        bytes,
        "an unchanged scene gives the base"
    );

    let base_lights = &base.lights().unwrap().lights;
    assert_eq!((base_lights[0].kind, base_lights[1].kind), (1, 2));
    light_node(&mut json, 1)["translation"] = json!([3.0, 2.0, 4.5]);
    let sun = light_node(&mut json, 0);
    sun["extras"]["colour"] = json!([255, 0, 16]);
    // Unturned, the sun stands straight overhead.
    sun["rotation"] = json!([0.0, 0.0, 0.0, 1.0]);
    let (level, report) = convert(&base, &bytes, &json, &dir).unwrap();
    assert_eq!(report.lights_changed, [0, 1]);
    let read = Level::parse(&level.to_bytes().unwrap()).unwrap();
    let lights = &read.lights().unwrap().lights;
    let stored = |w: &[u32]| w.iter().map(|&v| v as i32).collect::<Vec<_>>();
    assert_eq!(
        stored(&lights[1].words),
        [3 * 4096, 2 * 4096, -18432, base_lights[1].words[3] as i32],
        "z negated, the radius kept"
    );
    assert_eq!(lights[1].colour, base_lights[1].colour);
    assert_eq!(lights[0].colour, [255, 0, 16]);
    let length = stored(&base_lights[0].words[..3])
        .iter()
        .map(|&v| (v as f64).powi(2))
        .sum::<f64>()
        .sqrt();
    assert_eq!(stored(&lights[0].words), [0, length.round() as i32, 0, 0]);
    assert_eq!(&lights[2..], &base_lights[2..]);
}

#[test]
fn a_copied_light_or_a_changed_type_is_refused_naming_the_light() {
    let (bytes, base, dir, mut json) = generated("copy");
    light_node(&mut json, 0)["extras"]["kind"] = json!(3);
    let copy = light_node(&mut json, 1).clone();
    let nodes = json["nodes"].as_array_mut().unwrap();
    nodes.push(copy);
    let at = nodes.len() - 1;
    let lights_group = nodes
        .iter_mut()
        .find(|n| n["extras"]["llamawad"] == "lights")
        .unwrap();
    lights_group["children"]
        .as_array_mut()
        .unwrap()
        .push(json!(at));
    let err = convert(&base, &bytes, &json, &dir).unwrap_err();
    let refusals: Vec<(Code, String)> = err.each().map(|e| (e.code, e.message.clone())).collect();
    assert_eq!(
        refusals,
        [
            (
                Code::UnknownLight,
                "names light 1, as another node does: level lights cannot be added".to_string()
            ),
            (
                Code::LightField,
                "light 0: `kind` is 3, the base's is 1: a light's type cannot change (its words \
                 would be read otherwise)"
                    .to_string()
            ),
        ]
    );
}
