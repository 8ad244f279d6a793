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

/// Corner k of a face's glTF triangle is the face's corner `GLTF_CORNERS[k]`: export → file
/// space keeps the first corner and swaps the other two (z negated reverses the winding).
pub const GLTF_CORNERS: [usize; 3] = [0, 2, 1];

/// The UVs a face shows with its texture entry, if it has one that is a rectangle (a flat
/// colour or an entry past the list has nothing to look up).
pub fn shown_uvs(entry: Option<&TextureEntry>, flags: u16) -> Option<[[f32; 2]; 3]> {
    entry
        .filter(|e| !e.is_flat_colour())
        .map(|e| face_uvs(e, flags))
}

/// Per face (its texture entry's index in `entries`, negative for none, and its flags): its
/// three UVs in the glTF's corner order (0 without a rectangle), six values a face, and whether
/// it shows a rectangle. What the add-on gives a face whose texture entry the artist picked.
pub fn faces_uvs(
    entries: &[TextureEntry],
    textures: &[i64],
    flags: &[u16],
) -> (Vec<f32>, Vec<bool>) {
    let mut uvs = Vec::with_capacity(textures.len() * 6);
    let mut has = Vec::with_capacity(textures.len());
    for (&texture, &flags) in textures.iter().zip(flags) {
        let entry = usize::try_from(texture).ok().and_then(|t| entries.get(t));
        let shown = shown_uvs(entry, flags);
        let corners = shown.unwrap_or_default();
        for k in GLTF_CORNERS {
            uvs.extend_from_slice(&corners[k]);
        }
        has.push(shown.is_some());
    }
    (uvs, has)
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

    #[test]
    fn faces_uvs_list_corners_in_the_gltf_order_and_none_without_a_rectangle() {
        let flat = TextureEntry {
            flags: crate::raw::ENTRY_FLAT_COLOUR,
            ..entry()
        };
        let (uvs, has) = faces_uvs(&[entry(), flat], &[0, 1, -1, 7], &[0, 0, 0, 0]);
        // Corners 0, 2, 1 of the face: the glTF triangle's winding.
        assert_eq!(uvs[..6], [0.25, 0.5, 0.25, 0.25, 0.0, 0.5]);
        assert_eq!(uvs[6..], [0.0; 18]);
        assert_eq!(has, [true, false, false, false]);
    }
}
