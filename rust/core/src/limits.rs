//! The engine's fixed limits and what one render batch shares (FORMAT.md §3, §6
//! block 12): what the check tests, and what writers keep to.

use crate::raw::{Face, TextureEntry};

/// At most this many vertices per model: the engine's transform buffer (0x58b0f0..0x5d15f8, 36
/// bytes a vertex, FORMAT.md §3).
pub const MAX_MODEL_VERTICES: usize = 8000;
/// Faces per render batch: flag 0x8 at the latest every 256 faces (FORMAT.md §3).
pub const MAX_BATCH_FACES: usize = 256;
/// Collision normals are unit vectors ×127 (FORMAT.md §4): a length further than this from 127
/// tilts the engine's heights and edges (a warning; the encoder never writes one).
pub const NORMAL_LENGTH_SLACK: f64 = 2.0;
/// Faces name their texture entry with a u16 (FORMAT.md §3): at most this many entries.
pub const MAX_TEXTURE_ENTRIES: usize = 1 << 16;
/// A texture entry names its page with an i8 (FORMAT.md §8): pages 0 to 127, so at most this
/// many pages can be shown.
pub const MAX_PAGES: usize = 128;
/// The engine allocates this many strat slots besides MAP's poolExtra (FORMAT.md §6, block 12).
pub const STRAT_POOL_BASE: u64 = 30;

// Caps where the notes give no limit (FORMAT.md §10): generous against the game's own levels,
// which have 100–650 models, a few thousand tiles and grids of a couple hundred cells a side.

/// At most this many tiles in a level: about twenty times the originals' few thousand.
pub const MAX_TILES: usize = 1 << 16;
/// At most this many strats in a level written back: a hundred times the originals' few hundred
/// (the engine allocates poolExtra + 30 slots of 0x154 bytes).
pub const MAX_STRATS: usize = 1 << 16;
/// The largest poolExtra taken as one the engine can allocate: it allocates poolExtra + 30 strat
/// slots of 0x154 bytes at level start (note 003), a size computed in 32 bits (0xffffffff + 30
/// wraps round to 29 slots) in a 32-bit process. Taken: 65,536, as many as [`MAX_STRATS`]
/// (65,566 slots, 22 MB), a hundred times what the originals' few hundred strats need; the
/// notes give no limit.
pub const MAX_POOL_EXTRA: u64 = MAX_STRATS as u64;
/// Bytes of one strat slot the engine allocates (note 003: 0x154).
pub const STRAT_SLOT_BYTES: u64 = 0x154;
/// At most this many waypoints in a level written back: strats name them by an i32, and the
/// originals have a few dozen.
pub const MAX_WAYPOINTS: usize = 1 << 16;
/// At most this many TRAK models: twenty-five times the originals' 650 at most.
pub const MAX_MODELS: usize = 1 << 14;
/// At most this many grid cells (W × H): 512 × 512, six times 200 × 200.
pub const MAX_GRID_CELLS: u64 = 1 << 18;
/// At most this many faces drawn over all tiles (each tile draws its model's faces) are converted
/// to glTF: the originals draw a few tens of thousands (the generated full-size level 26,004),
/// and a glTF's mesh is read back with at most as many triangles.
pub const MAX_DRAWN_FACES: u64 = 1 << 20;
/// At most this many rays a bake or fit casts, reckoned before the first as its vertices times
/// the rays each casts (the sky's, the sun's and one a lamp; a fit's vertices times the sky's
/// and every sun direction it tries): a bake of the generated full-size level at 64 rays casts
/// 1.4 million, about a second on this project's machines; a dense level can cost ten times as
/// much a ray.
pub const MAX_RAYS_CAST: u64 = 1 << 22;
/// At most this many points a probe answers at a time (the command line's points file, Python's
/// `probe` and `polygon_outlines`): each answer lists the polygons tried, so a million took 17 s
/// and 3 GB; the add-on probes a point or the objects selected.
pub const MAX_PROBE_POINTS: usize = 1 << 16;
/// At most this many nodes in a glTF read or written: one a tile, strat, waypoint, light and
/// object model, and the groups, of a level within the caps above (65,536 tiles, strats and
/// waypoints each) fit.
pub const MAX_GLTF_NODES: usize = 1 << 18;
/// A glTF scene's extras (the level's texture entries, zones and lights) may take at most this
/// many bytes of JSON, written or read: 65,536 texture entries take about 8 MB.
pub const MAX_SCENE_EXTRAS_BYTES: usize = 1 << 24;
/// A level's glTF (JSON and buffer) may take at most this many bytes, written or read: the
/// generated full-size level's takes 9 MB.
pub const MAX_GLTF_BYTES: u64 = 1 << 28;

/// A level file larger than this is refused from its size before it is read: the game's levels
/// take a few megabytes, the generated full-size level 2 MB (the container's length is a u32,
/// so a file of up to 4 GiB could otherwise be read whole before its first four bytes count).
pub const MAX_WAD_BYTES: u64 = 1 << 28;
/// At most this many parameters and waypoints named over all strats, each counted once for every
/// strat naming it: what a list of the strats or a glTF of the level holds per strat. A strat's
/// parameters and waypoint chain are ranges of the level's pool and waypoints, which many strats
/// may share, so a level of a few megabytes can name billions; the originals name a few
/// thousand.
pub const MAX_STRAT_REFERENCES: u64 = 1 << 20;

/// What a message quotes of a value it refuses: its first 80 characters, then "…" when there is
/// more (a refused line of 40 MB is not echoed whole).
pub fn excerpt(text: &str) -> String {
    const CHARACTERS: usize = 80;
    match text.char_indices().nth(CHARACTERS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// An input past one of the caps above, refused by name before the work it would cost.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LimitError(pub String);

/// The render state a face switches to: its page and the entry's blend and mode bits, and the
/// face's special modes. Faces of one batch share it.
pub fn render_state(face: &Face, entries: &[TextureEntry]) -> (i8, u16, u16) {
    let entry = entries
        .get(face.texture as usize)
        .copied()
        .unwrap_or_default();
    (entry.page, entry.flags & 0x7f00, face.flags & 0x3)
}
