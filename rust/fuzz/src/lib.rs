//! Shared by the fuzz targets and `make_seeds`: the level fixtures with their texture pages
//! shrunk to 8×8, so that seeds are small and mutations land in structure rather than pixels, and
//! the fixed base level the glTF → WAD targets convert against.

use std::path::PathBuf;
use std::sync::OnceLock;

use llamawad::Level;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures"))
}

/// Each fixture (`tiny-N.wad`, by name) with its pages shrunk, as bytes.
pub fn shrunk_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("the fixtures folder")
        .map(|e| e.expect("a fixture").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wad"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).expect("read a fixture");
            let mut level = Level::parse(&bytes).expect("a fixture parses");
            shrink_pages(&mut level);
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, level.to_bytes().expect("a shrunk fixture can be written"))
        })
        .collect()
}

fn shrink_pages(level: &mut Level) {
    if let Some(text) = level.text_mut() {
        for page in &mut text.pages {
            let pixels = page.width as usize * page.height as usize;
            let bytes_per_pixel = page.data.len() / pixels.max(1);
            page.width = 8;
            page.height = 8;
            page.data.truncate(64 * bytes_per_pixel.max(1));
        }
    }
}

/// The base level of the glTF → WAD targets: the first fixture, shrunk; parsed and as bytes.
pub fn base() -> &'static (Level, Vec<u8>) {
    static BASE: OnceLock<(Level, Vec<u8>)> = OnceLock::new();
    BASE.get_or_init(|| {
        let (_, bytes) = shrunk_fixtures().swap_remove(0);
        (Level::parse(&bytes).expect("the base parses"), bytes)
    })
}

/// Converts a read glTF against the base through both front doors, the glTF and the same scene
/// as arrays (the add-on's export); a level that comes out must write and read back as itself.
pub fn convert_against_base(doc: &llamawad::gltf::Document) {
    let (level, bytes) = base();
    let options = llamawad::gltf::GltfToWadOptions {
        force: true,
        generate_collision: true,
        snap_uvs: true,
        ..Default::default()
    };
    let reads_back = |(written, _): (Level, _)| {
        let out = written.to_bytes().expect("a converted level can be written");
        let back = Level::parse(&out).expect("a written level parses");
        assert!(back == written, "a written level reads back as itself");
    };
    if let Ok(converted) = llamawad::gltf::gltf_to_wad(level, bytes, doc, options) {
        reads_back(converted);
    }
    if let Ok(arrays) = llamawad::gltf::SceneArrays::of_document(doc) {
        if let Ok(converted) = llamawad::gltf::scene_to_wad(level, bytes, arrays, options) {
            reads_back(converted);
        }
    }
}

/// The `.gltf` target's input: a u32 length, that many bytes of JSON, the rest the buffer file.
pub fn split_gltf_input(data: &[u8]) -> (&[u8], &[u8]) {
    let n = data
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let rest = data.get(4..).unwrap_or(&[]);
    rest.split_at(n.min(rest.len()))
}

/// The input of the `.gltf` target for a JSON text and its buffer.
pub fn join_gltf_input(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut out = (json.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(json);
    out.extend_from_slice(bin);
    out
}
