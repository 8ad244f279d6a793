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
    // Type 3 is not the notes', and 40 bytes are no one size for four lights: of the four sets
    // of word counts per type that read the chunk (the others with round words as type-0
    // lights), the one with the fewest type-0 lights.
    assert_eq!(
        level.lights().unwrap().reading,
        llamawad::raw::lights::LightReading::ByType { others: 3 }
    );
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

#[test]
fn point_lights_stored_with_z_positive_stand_over_the_grid_and_are_written_so() {
    use llamawad::game::lights::{light_z, LightZ, LightZWhy};
    use llamawad::raw::lights::LightReading;
    let rows = generate(2, Size::Tiny).map().unwrap().height;
    let z = (rows as f64 - 0.5) * 4096.0;
    // Note 003's types: an ambient light of type 0, a sun of type 1 (straight overhead), a point
    // of type 2, each of the notes' word counts; the point stored at z positive, the grid's
    // last row, as note 002 says lights stand.
    let payload = words(&[
        3,
        0x0020_2000,
        0x0080_8001,
        0,
        4096,
        0,
        0x0040_6002,
        0x2800,
        0x1000,
        z as u32,
    ]);
    let (bytes, base) = level_with_lights(payload);
    assert_eq!(base.warnings, Vec::<String>::new());
    let lights = base.lights().expect("LGHT is read");
    assert_eq!(lights.reading, LightReading::Notes { others: true });
    let kinds: Vec<u8> = lights.lights.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, [0, 1, 2]);
    let choice = light_z(&base);
    assert_eq!(
        (choice.z, choice.why),
        (LightZ::GameSpace, LightZWhy::OnlyThisInside)
    );

    let dir = std::env::temp_dir().join(format!("llamawad-lights-z-{}", std::process::id()));
    let mut json = gltf_of(&base, &bytes, &dir);
    let stands = light_node(&mut json, 2)["translation"].clone();
    assert_eq!(
        stands,
        json!([2.5, 1.0, rows as f64 - 0.5]),
        "over the grid"
    );
    // The type-0 light is a node like the others.
    assert_eq!(light_node(&mut json, 0)["extras"]["kind"], 0);
    let (same, report) = convert(&base, &bytes, &json, &dir).unwrap();
    assert!(report.is_empty(), "{report:?}");
    assert_eq!(same.to_bytes().unwrap(), bytes);

    // Moved, and the sun turned from overhead towards +z: written with z as it was read.
    light_node(&mut json, 2)["translation"] = json!([1.5, 2.0, 1.25]);
    let half = std::f64::consts::FRAC_1_SQRT_2;
    light_node(&mut json, 1)["rotation"] = json!([half, 0.0, 0.0, half]);
    let (level, report) = convert(&base, &bytes, &json, &dir).unwrap();
    assert_eq!(report.lights_changed, [1, 2]);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let read = Level::parse(&level.to_bytes().unwrap()).unwrap();
    let lights = &read.lights().unwrap().lights;
    assert_eq!(lights[2].words, [0x1800, 0x2000, 0x1400]);
    assert_eq!(lights[1].words, [0, 0, 4096]);
    assert_eq!(lights[0], base.lights().unwrap().lights[0]);

    // Moved off the grid (z negative): written so, and the report says the level's lights
    // will read the other way from now on.
    light_node(&mut json, 2)["translation"] = json!([1.5, 2.0, -3.0]);
    let (_, report) = convert(&base, &bytes, &json, &dir).unwrap();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("will be read the other way")),
        "{:?}",
        report.warnings
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
