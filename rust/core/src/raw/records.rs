//! The fixed-size on-disk records of a level, exactly as the notes describe them.
//!
//! Each struct here is one record: its fields in file order, every byte accounted for (fields the
//! notes call "always 0" or "unknown" are kept under a name, never dropped). The level model in
//! [`crate::level`] is built from these in one place and never reads bytes itself.

use binrw::binrw;
use serde::Serialize;

use crate::raw::stream::Record;

macro_rules! record_size {
    ($($t:ty = $n:expr),* $(,)?) => {
        $(impl Record for $t { const SIZE: usize = $n; })*
        #[cfg(test)]
        mod sizes {
            use super::*;
            #[test]
            fn record_sizes_match_the_notes() {
                $({
                    let mut out = std::io::Cursor::new(Vec::new());
                    binrw::BinWrite::write_le(&<$t>::default(), &mut out).unwrap();
                    assert_eq!(out.into_inner().len(), $n, stringify!($t));
                })*
            }
        }
    };
}

record_size! {
    ModelHeader = 0x84,
    Vertex = 24,
    Face = 28,
    CollisionPolygon = 32,
    TextureEntry = 8,
    TileFloat = 24,
    TileFixed = 24,
    TileSwap = 20,
    ZoneRecord = 90,
    Waypoint = 34,
    StratRecord = 58,
    Region = 8,
    AnimationHeader = 32,
}

/// TRAK/STPC model header (0x84 bytes; an STPC model's has 8 more, see [`super::model::ObjectModel`]).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ModelHeader {
    pub centre: [f32; 3],
    /// Order (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z).
    pub box_corners: [[f32; 3]; 8],
    pub vertex_count: u16,
    pub face_count: u16,
    /// Pointer slots, 0 in the files; set by the engine on load.
    pub vertex_pointer: u32,
    pub face_pointer: u32,
    pub collision_counts: [u16; 3],
    pub reserved: u16,
    pub collision_pointer: u32,
}

/// Render vertex in export space (24 bytes).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Vertex {
    pub position: [f32; 3],
    /// Smoothed normal; lighting comes from the MAP vertex colours.
    pub normal: [f32; 3],
}

/// Face flag bits (FORMAT.md §3). The bits the PC renderer does not read are kept as
/// found and have no names.
pub mod face_flags {
    /// First face of a render batch: the renderer reloads page and blend state here.
    pub const NEW_BATCH: u16 = 0x8;
    /// With `QUAD_HALF`: the second half of the texture rectangle.
    pub const SECOND_HALF: u16 = 0x10;
    /// Mirrors the texture rectangle in U.
    pub const MIRROR_U: u16 = 0x20;
    /// No backface culling.
    pub const DOUBLE_SIDED: u16 = 0x400;
    /// The face is one half of a quad's texture rectangle (96 % of world faces).
    pub const QUAD_HALF: u16 = 0x800;
    /// Drawn white: the vertex colours are ignored.
    pub const IGNORE_COLOURS: u16 = 0x4000;
    /// Special sorting/transparency modes (likely).
    pub const SPECIAL_MODES: u16 = 0x3;
}

/// Render triangle (28 bytes).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Face {
    pub flags: u16,
    pub corners: [u16; 3],
    /// Index into the TEXT texture table.
    pub texture: u16,
    pub reserved: u16,
    /// normalize((v1−v0)×(v2−v0)) and d = n·v0, used for backface culling.
    pub plane: [f32; 4],
}

/// One plane of a collision polygon: normal ×127, d in 20.12 fixed point (FORMAT.md §4).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct CollisionPlane {
    pub normal: [i8; 3],
    pub pad: u8,
    pub d: i16,
}

/// Collision polygon kind bit: four edge planes (a quad); clear for a triangle.
pub const COLLISION_QUAD: u8 = 0x1;

/// Collision polygon in game space relative to its tile (32 bytes).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct CollisionPolygon {
    /// Bit 0: quad (4 edge planes), otherwise a triangle.
    pub kind: u8,
    pub material: u8,
    /// Plane 0 is the surface, 1..4 the edges with normals pointing inwards.
    pub planes: [CollisionPlane; 5],
}

impl CollisionPolygon {
    /// The edge planes its kind says: four for a quad, else three (the fifth plane unused).
    pub fn edge_count(&self) -> usize {
        if self.kind & COLLISION_QUAD != 0 {
            4
        } else {
            3
        }
    }
}

/// Texture entry flag bit 0: a flat colour (u0, u1, v0 = R, G, B), not a rectangle.
pub const ENTRY_FLAT_COLOUR: u16 = 0x1;

impl TextureEntry {
    pub fn is_flat_colour(&self) -> bool {
        self.flags & ENTRY_FLAT_COLOUR != 0
    }

    /// Blend mode, flags bits 12–14.
    pub fn blend_mode(&self) -> u16 {
        (self.flags >> 12) & 0x7
    }
}

/// TEXT texture table entry: a rectangle on a page, or a flat colour when flags bit 0 is set.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct TextureEntry {
    pub flags: u16,
    pub page: i8,
    pub page2: i8,
    pub u0: u8,
    pub u1: u8,
    pub v0: u8,
    pub v1: u8,
}

/// MAP block 2: a tile in export-space floats.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TileFloat {
    pub position: [f32; 3],
    /// Rotation about y, 4096 = 360°.
    pub rotation: u32,
    pub model: u32,
    /// Non-zero for tiles with a swap model (doors, bridges).
    pub swap_flag: u32,
}

/// MAP block 8: the same tile in 20.12 fixed point, game space (z negated).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TileFixed {
    pub rotation: [i32; 3],
    pub position: [i32; 3],
}

/// MAP block 10 entry (WFPC & 0x10000).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TileSwap {
    pub cell_x: u32,
    pub y: u32,
    pub cell_z: u32,
    pub model_a: u32,
    pub model_b: u32,
}

/// MAP block 4: camera/fog/music area, 90 bytes (fields after the first six: confidence medium).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ZoneRecord {
    pub cell: [u32; 3],
    pub position: [i32; 3],
    pub unknown_18: u32,
    pub rotation: u32,
    /// Bit 8: start zone.
    pub flags: u32,
    pub unknown_24: u32,
    /// Offset into STPC, 0 for none.
    pub stpc_offset: u32,
    pub unknown_2c: [u32; 3],
    pub unknown_38: u16,
    pub fog: [u32; 2],
    pub unknown_42: [u32; 2],
    pub colours: [u32; 2],
    pub unknown_52: [u16; 2],
    pub music: u32,
}

/// MAP block 5: path node, 34 bytes.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Waypoint {
    /// Non-zero: the next entry belongs to the same chain.
    pub next: u32,
    pub unknown_04: u32,
    pub rotation: [u16; 3],
    pub position: [i32; 3],
    pub unknown_1a: [u32; 2],
}

/// MAP block 6 entry: visibility mask and value of one region (zone).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Region {
    pub mask: u32,
    pub value: i32,
}

/// MAP block 12 entry: one placed strat (object instance), 58 bytes.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct StratRecord {
    pub rotation: [u16; 3],
    /// 20.12 fixed point, game space.
    pub position: [i32; 3],
    /// Offset of the strat's code from the start of the STPC payload: the strat's type.
    pub code_offset: u32,
    pub parameter_count: u32,
    /// Index into the parameter pool, −1 when there are none.
    pub parameter_index: i32,
    pub variable_count: u32,
    pub slot_count: u32,
    pub type_flags: u32,
    pub extra_memory: u32,
    /// Index into the waypoints, −1 for none.
    pub waypoint: i32,
    pub reserved_32: u32,
    /// Bit 1: not created at level start.
    pub flags: u16,
    pub reserved_38: u16,
}

/// Strat record flag bit 1 (note 003, offset 54): the strat is not created at level start.
pub const STRAT_NOT_CREATED_AT_START: u16 = 0x2;

impl StratRecord {
    /// Its parameters: `parameter_count` entries of the pool from `parameter_index` (none when
    /// the count is 0, whatever the index). None when they do not lie inside the pool.
    pub fn parameters<'a>(&self, pool: &'a [u32]) -> Option<&'a [u32]> {
        if self.parameter_count == 0 {
            return Some(&[]);
        }
        let start = usize::try_from(self.parameter_index).ok()?;
        pool.get(start..start.checked_add(self.parameter_count as usize)?)
    }

    /// Whether the game creates the strat when the level starts (flag bit 1 clear).
    pub fn created_at_start(&self) -> bool {
        self.flags & STRAT_NOT_CREATED_AT_START == 0
    }
}

/// STPC animation set header, 32 bytes.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct AnimationHeader {
    /// nA: followed by nA × 4 bytes.
    pub table_count: u32,
    pub unknown_04: u32,
    pub frame_count: u32,
    /// 0: a frame table of frame_count × 8 bytes follows.
    pub frame_table: u32,
    /// Compressed vertex deltas: frame 0 has delta_count × 8 bytes, the others delta_count × 2
    /// (padded to 4).
    pub delta_count: u32,
    pub unknown_14: u32,
    /// Each frame has bone_count 4×4 matrices (64 bytes).
    pub bone_count: u32,
    pub unknown_1c: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::stream::{read_part, write_part};

    #[test]
    fn face_reads_and_writes_back() {
        let bytes: Vec<u8> = [
            &0x0808u16.to_le_bytes()[..],
            &[1, 0, 2, 0, 3, 0],
            &7u16.to_le_bytes(),
            &[0, 0],
            &0f32.to_le_bytes(),
            &1f32.to_le_bytes(),
            &0f32.to_le_bytes(),
            &0.25f32.to_le_bytes(),
        ]
        .concat();
        let (face, _): (Face, _) = read_part(&bytes, 0, "TRAK", ()).unwrap();
        assert_eq!(
            face,
            Face {
                flags: 0x0808,
                corners: [1, 2, 3],
                texture: 7,
                reserved: 0,
                plane: [0.0, 1.0, 0.0, 0.25],
            }
        );
        assert_eq!(write_part(&face, (), "TRAK").unwrap(), bytes);
    }

    #[test]
    fn collision_polygon_reads_and_writes_back() {
        let mut bytes = vec![1u8, 0x1e];
        for k in 0..5i8 {
            bytes.extend_from_slice(&[k as u8, (-k) as u8, 127, 0]);
            bytes.extend_from_slice(&(-1000i16 * k as i16).to_le_bytes());
        }
        let (poly, _): (CollisionPolygon, _) = read_part(&bytes, 0, "TRAK", ()).unwrap();
        assert_eq!(poly.kind, 1);
        assert_eq!(poly.material, 30);
        assert_eq!(poly.planes[2].normal, [2, -2, 127]);
        assert_eq!(poly.planes[4].d, -4000);
        assert_eq!(write_part(&poly, (), "TRAK").unwrap(), bytes);
    }
}
