//! The engine has no free texture coordinates (FORMAT.md §3, the texture rule):
//! every triangle shows one half of a texture entry's rectangle, chosen by face flags.

use crate::raw::face_flags::{MIRROR_U, QUAD_HALF, SECOND_HALF};
use crate::raw::TextureEntry;

/// The UVs of a face's corners (v0, v1, v2) in the order they are stored (export space), with the
/// page's top-left corner at (0, 0) as in glTF.
pub fn face_uvs(entry: &TextureEntry, flags: u16) -> [[f32; 2]; 3] {
    let u0 = entry.u0 as f32 / 256.0;
    let u1 = (entry.u1 as f32 + 1.0) / 256.0;
    let v0 = entry.v0 as f32 / 256.0;
    let v1 = (entry.v1 as f32 + 1.0) / 256.0;
    let (a, b) = if flags & MIRROR_U != 0 {
        (u0, u1)
    } else {
        (u1, u0)
    };
    if flags & QUAD_HALF == 0 {
        [[a, v1], [b, v1], [a, v0]]
    } else if flags & SECOND_HALF == 0 {
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
        let first = face_uvs(&entry(), QUAD_HALF);
        let second = face_uvs(&entry(), QUAD_HALF | SECOND_HALF);
        assert_eq!(first, [[0.25, 0.5], [0.0, 0.5], [0.0, 0.25]]);
        assert_eq!(second, [[0.0, 0.25], [0.25, 0.25], [0.25, 0.5]]);
    }

    #[test]
    fn mirror_swaps_u() {
        let plain = face_uvs(&entry(), 0);
        let mirrored = face_uvs(&entry(), MIRROR_U);
        assert_eq!(plain, [[0.25, 0.5], [0.0, 0.5], [0.25, 0.25]]);
        assert_eq!(mirrored, [[0.0, 0.5], [0.25, 0.5], [0.0, 0.25]]);
    }
}
