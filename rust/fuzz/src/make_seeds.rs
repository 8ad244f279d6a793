//! Writes the fuzzer's seed corpus: generated tiny levels with their texture pages shrunk to 8×8,
//! so that the seeds are a few kilobytes and every mutation lands in level structure rather than
//! in pixels.

use llamawad::generate::{generate, Size};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/parse_wad").to_string());
    std::fs::create_dir_all(&dir).expect("create the corpus folder");
    for seed in 1..=5 {
        let mut level = generate(seed, Size::Tiny);
        if let Some(text) = level.text_mut() {
            for page in &mut text.pages {
                let bytes_per_pixel = page.data.len() / (page.width as usize * page.height as usize).max(1);
                if bytes_per_pixel > 0 {
                    page.width = 8;
                    page.height = 8;
                    page.data.truncate(64 * bytes_per_pixel);
                } else {
                    page.data.truncate(64);
                }
            }
        }
        let bytes = level.to_bytes().expect("a generated level can be written");
        let path = format!("{dir}/tiny-{seed}.wad");
        std::fs::write(&path, &bytes).expect("write a seed");
        println!("{path}: {} bytes", bytes.len());
    }
}
