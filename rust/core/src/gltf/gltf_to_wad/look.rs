//! What a face shows: its texture entry, its UVs and its material's page, and whether they still
//! agree (a face whose UVs or page the artist changed needs an entry fitted).

use super::attributes::FILE_CORNER;
use crate::gltf::fit::{uv_distance, SHARE_TOLERANCE};
use crate::gltf::material::PageMaterial;
use crate::gltf::read::Triangles;
use crate::gltf::uv::face_uvs;
use crate::raw::{face_flags, Face, TextureEntry};

/// A triangle's UVs in export corner order, when it has finite ones.
pub(super) fn export_uvs(tris: &Triangles, t: usize) -> Option<[[f32; 2]; 3]> {
    let uvs = FILE_CORNER.map(|k| tris.uvs.as_ref().map(|uv| uv[3 * t + k]));
    let uvs = [uvs[0]?, uvs[1]?, uvs[2]?];
    uvs.iter().flatten().all(|v| v.is_finite()).then_some(uvs)
}

/// The page a triangle's material says it shows (its extras, else its name).
pub(super) fn page_material(tris: &Triangles, t: usize) -> Option<PageMaterial> {
    tris.materials[t].page
}

/// Whether a triangle needs a texture entry fitted: it has none, or its UVs or its material's
/// page no longer show the one it names (the artist drew new UVs or gave it another page). A face
/// whose entry or corner flags differ from its base face's was given them on purpose (the Face
/// panel): they stand, whatever its UVs say.
pub(super) fn needs_fit(
    tris: &Triangles,
    t: usize,
    (flags, texture): (Option<u16>, Option<i64>),
    entries: &[TextureEntry],
    base: Option<&Face>,
) -> bool {
    let Some(texture) = texture else {
        return true;
    };
    let corner_bits = face_flags::QUAD_HALF | face_flags::SECOND_HALF | face_flags::MIRROR_U;
    if let Some(base) = base {
        let chosen = texture != base.texture as i64
            || flags.is_some_and(|f| (f ^ base.flags) & corner_bits != 0);
        if chosen {
            return false;
        }
    }
    let Some(entry) = usize::try_from(texture).ok().and_then(|i| entries.get(i)) else {
        // Refused by name later: an entry that does not exist.
        return false;
    };
    let material = page_material(tris, t);
    if entry.is_flat_colour() {
        return material.is_some();
    }
    if material.is_some_and(|m| !m.shows(entry)) {
        return true;
    }
    let shown = face_uvs(entry, flags.unwrap_or(0));
    export_uvs(tris, t).is_some_and(|uvs| uv_distance(&uvs, &shown) > SHARE_TOLERANCE)
}
