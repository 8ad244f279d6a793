//! The engine has no free texture coordinates (note 001, "UVs – the engine has NO free UVs"):
//! every triangle shows one half of a texture entry's rectangle, chosen by face flags.

use crate::raw::TextureEntry;

pub const FACE_QUAD_HALF: u16 = 0x800;
pub const FACE_SECOND_HALF: u16 = 0x10;
pub const FACE_MIRROR_U: u16 = 0x20;
pub const FACE_DOUBLE_SIDED: u16 = 0x400;
pub const FACE_IGNORE_COLOURS: u16 = 0x4000;

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

/// The UVs of a face's corners (v0, v1, v2) in the order they are stored (export space), with the
/// page's top-left corner at (0, 0) as in glTF.
pub fn face_uvs(entry: &TextureEntry, face_flags: u16) -> [[f32; 2]; 3] {
    let u0 = entry.u0 as f32 / 256.0;
    let u1 = (entry.u1 as f32 + 1.0) / 256.0;
    let v0 = entry.v0 as f32 / 256.0;
    let v1 = (entry.v1 as f32 + 1.0) / 256.0;
    let (a, b) = if face_flags & FACE_MIRROR_U != 0 {
        (u0, u1)
    } else {
        (u1, u0)
    };
    if face_flags & FACE_QUAD_HALF == 0 {
        [[a, v1], [b, v1], [a, v0]]
    } else if face_flags & FACE_SECOND_HALF == 0 {
        [[a, v1], [b, v1], [b, v0]]
    } else {
        [[b, v0], [a, v0], [a, v1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> TextureEntry {
        TextureEntry {
            flags: 0,
            page: 0,
            page2: -1,
            u0: 0,
            u1: 63,
            v0: 64,
            v1: 127,
        }
    }

    #[test]
    fn quad_halves_cover_the_rectangle() {
        // U0 = 0, U1 = 0.25, V0 = 0.25, V1 = 0.5; unmirrored a = U1, b = U0.
        let first = face_uvs(&entry(), FACE_QUAD_HALF);
        let second = face_uvs(&entry(), FACE_QUAD_HALF | FACE_SECOND_HALF);
        assert_eq!(first, [[0.25, 0.5], [0.0, 0.5], [0.0, 0.25]]);
        assert_eq!(second, [[0.0, 0.25], [0.25, 0.25], [0.25, 0.5]]);
    }

    #[test]
    fn mirror_swaps_u() {
        let plain = face_uvs(&entry(), 0);
        let mirrored = face_uvs(&entry(), FACE_MIRROR_U);
        assert_eq!(plain, [[0.25, 0.5], [0.0, 0.5], [0.25, 0.25]]);
        assert_eq!(mirrored, [[0.0, 0.5], [0.25, 0.5], [0.0, 0.25]]);
    }
}
