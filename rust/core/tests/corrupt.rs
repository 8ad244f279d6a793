//! Damaged files: truncated, flipped and miscounted bytes give a typed error or a level that
//! writes back to exactly the same bytes, never a panic, a hang or a huge allocation.

use llamawad::container;
use llamawad::Level;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wad"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

/// Parses damaged bytes; whatever parses must write back unchanged.
fn parse_damaged(bytes: &[u8], what: &dyn Fn() -> String) -> bool {
    match Level::parse(bytes) {
        Ok(level) => {
            let written = level
                .to_bytes()
                .unwrap_or_else(|e| panic!("{}: parsed but cannot be written: {e}", what()));
            assert!(
                written == bytes,
                "{}: parsed but writes back differently",
                what()
            );
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

/// Offsets of every chunk header and payload start, where counts live.
fn chunk_starts(bytes: &[u8]) -> Vec<usize> {
    let wad = container::split(bytes).unwrap();
    wad.chunks
        .iter()
        .flat_map(|c| [c.offset as usize - 8, c.offset as usize])
        .collect()
}

/// A deterministic sequence of positions spread over the file.
fn spread(len: usize, n: usize, salt: u64) -> impl Iterator<Item = usize> {
    let mut x = salt.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % len as u64) as usize
    })
}

#[test]
fn truncated_files_are_refused_with_a_message() {
    for (name, bytes) in fixtures() {
        let mut cuts: Vec<usize> = (0..64).collect();
        cuts.extend(
            chunk_starts(&bytes)
                .into_iter()
                .flat_map(|s| s.saturating_sub(4)..s + 12),
        );
        cuts.extend(spread(bytes.len(), 400, 1));
        for cut in cuts.into_iter().filter(|&c| c < bytes.len()) {
            let damaged = &bytes[..cut];
            // The length field no longer matches, so nothing may parse.
            let err = Level::parse(damaged).expect_err(&format!("{name} cut at {cut} parsed"));
            assert!(
                err.to_string().contains("length field") || cut < 4,
                "{name} cut at {cut}: {err}"
            );
            // With the length field fixed up, the chunk walk itself meets the cut.
            let mut fixed = damaged.to_vec();
            if fixed.len() >= 4 {
                let len = fixed.len() as u32;
                fixed[..4].copy_from_slice(&len.to_le_bytes());
                parse_damaged(&fixed, &|| format!("{name} cut at {cut}, length fixed"));
            }
        }
    }
}

#[test]
fn flipped_bytes_give_an_error_or_an_exact_level() {
    for (name, bytes) in fixtures() {
        let mut positions: Vec<usize> = chunk_starts(&bytes)
            .into_iter()
            .flat_map(|s| s..s + 64)
            .filter(|&p| p < bytes.len())
            .collect();
        positions.extend(spread(bytes.len(), 1500, 2));
        for pos in positions {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[pos] ^= mask;
                parse_damaged(&damaged, &|| format!("{name} byte {pos} ^ {mask:#x}"));
            }
        }
    }
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    for (name, bytes) in fixtures() {
        let mut positions: Vec<usize> = chunk_starts(&bytes)
            .into_iter()
            .flat_map(|s| s..s + 128)
            .collect();
        positions.extend(spread(bytes.len(), 500, 3));
        for pos in positions.into_iter().filter(|&p| p + 4 <= bytes.len()) {
            for value in [u32::MAX, 0x7fff_ffff, 0x0100_0000, 0xffff] {
                let mut damaged = bytes.clone();
                damaged[pos..pos + 4].copy_from_slice(&value.to_le_bytes());
                parse_damaged(&damaged, &|| format!("{name} u32 at {pos} = {value:#x}"));
            }
        }
    }
}

#[test]
fn errors_name_the_chunk_and_the_offset() {
    let (_, bytes) = fixtures().remove(0);
    let wad = container::split(&bytes).unwrap();
    let map = wad
        .chunks
        .iter()
        .find(|c| c.tag == container::Tag::MAP)
        .unwrap();
    let mut damaged = bytes.clone();
    // The tile count of MAP, made larger than the chunk can hold.
    let at = map.offset as usize;
    damaged[at..at + 4].copy_from_slice(&1_000_000u32.to_le_bytes());
    let err = Level::parse(&damaged).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("MAP chunk, byte {:#x}", at + 12)),
        "{msg}"
    );
    assert!(msg.contains("tiles says 1000000 entries"), "{msg}");
}

/// Found by the fuzzer (parse_wad): a second WFPC chunk, longer than the flags, was written back
/// as the first chunk's four bytes.
#[test]
fn a_second_wfpc_chunk_is_kept_as_it_is() {
    let (_, mut bytes) = fixtures().remove(0);
    let wad = container::split(&bytes).unwrap();
    assert!(wad.trailing.is_empty() && wad.convention == container::Convention::DEFAULT);
    bytes.extend_from_slice(b"CPFW");
    bytes.extend_from_slice(&12u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let len = bytes.len() as u32;
    bytes[..4].copy_from_slice(&len.to_le_bytes());
    let level = Level::parse(&bytes).unwrap();
    assert_eq!(level.to_bytes().unwrap(), bytes);
}

/// A chunk whose size runs past the end of the file is a damaged file, not a shorter level that
/// keeps the rest as trailing bytes.
#[test]
fn a_chunk_past_the_end_of_the_file_is_refused() {
    let (_, mut bytes) = fixtures().remove(0);
    let wad = container::split(&bytes).unwrap();
    let last = wad.chunks.last().unwrap();
    let (at, tag) = (last.offset as usize - 4, last.tag);
    let claimed = bytes.len() as u32;
    bytes[at..at + 4].copy_from_slice(&claimed.to_le_bytes());
    let msg = Level::parse(&bytes).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "{tag} chunk, byte {:#x}: the {tag} chunk's payload needs {claimed} bytes",
            at + 4
        )),
        "{msg}"
    );
}

/// Page sides beyond 4096 (an RLE16 page's placeholder was once allocated at its stated size)
/// and pages of no pixels are refused by the parser, naming the page.
#[test]
fn page_sides_are_checked_before_anything_is_allocated() {
    let (_, bytes) = fixtures().remove(0);
    let level = Level::parse(&bytes).unwrap();
    let text = level.text().unwrap();
    assert!(!text.pages.is_empty());
    for (flags, width, height, words) in [
        (
            0x80u32,
            100_000u32,
            100_000u32,
            "page 0: width: expected 1 to 4096 pixels (pages are 256×256), found 100000",
        ),
        (
            0x80,
            256,
            5000,
            "page 0: height: expected 1 to 4096 pixels (pages are 256×256), found 5000",
        ),
        (
            1,
            0,
            256,
            "page 0: width: expected 1 to 4096 pixels (pages are 256×256), found 0",
        ),
    ] {
        let mut damaged = bytes.clone();
        let at = page_header(&bytes);
        damaged[at..at + 4].copy_from_slice(&flags.to_le_bytes());
        damaged[at + 4..at + 8].copy_from_slice(&width.to_le_bytes());
        damaged[at + 8..at + 12].copy_from_slice(&height.to_le_bytes());
        let msg = Level::parse(&damaged).unwrap_err().to_string();
        assert!(
            msg.starts_with("TEXT chunk") && msg.contains(words),
            "{msg}"
        );
    }
}

/// Where the first page's header (flags, width, height) starts in a fixture.
fn page_header(bytes: &[u8]) -> usize {
    let wad = container::split(bytes).unwrap();
    let text = wad
        .chunks
        .iter()
        .find(|c| c.tag == container::Tag::TEXT)
        .unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut at = text.offset as usize;
    let palettes = u32_at(at);
    at += 4;
    for _ in 0..palettes {
        at += 8 + 3 * u32_at(at + 4);
    }
    at + 4
}

/// More chunks than any level has are refused before each becomes a record of its own (a
/// million empty ones once took 480 MB).
#[test]
fn more_chunks_than_the_cap_are_refused() {
    let many = |n: usize| {
        let mut bytes = vec![0u8; 4];
        for _ in 0..n {
            bytes.extend_from_slice(b"KNUJ\0\0\0\0");
        }
        let len = bytes.len() as u32;
        bytes[..4].copy_from_slice(&len.to_le_bytes());
        bytes
    };
    assert!(Level::parse(&many(container::MAX_CHUNKS)).is_ok());
    let msg = Level::parse(&many(1_000_000)).unwrap_err().to_string();
    assert!(
        msg.contains("the number of chunks") && msg.contains("found 1000000"),
        "{msg}"
    );
}
