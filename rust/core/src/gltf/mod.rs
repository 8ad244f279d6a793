//! The level as glTF 2.0 in file space (game space: y up, right-handed, the grid at z ≥ 0), in
//! both directions: [`wad_to_gltf`] (a level as glTF, and handed to the Blender add-on as
//! arrays: the add-on's Import) and [`gltf_to_wad`] (a glTF or the add-on's arrays written back
//! into the level they were made from: the add-on's Export). One mapping (MAPPING.md) for both.

mod buffer;
pub mod fit;
pub mod gltf_to_wad;
pub mod material;
pub mod read;
pub mod texture;
pub mod uv;
pub mod wad_to_gltf;

pub use gltf_to_wad::{
    gltf_to_wad, scene_to_wad, scene_to_wad_checked, BrokenRules, Cause, ChangeReport, Checked,
    GltfToWadError, GltfToWadOptions, ImageArrays, MeshArrays, NodeArrays, NodeRef, PageChanged,
    SceneArrays, TileEdit,
};
pub use read::Document;
pub use wad_to_gltf::{wad_to_gltf, Gltf, Source, WadToGltfError};

/// A stored position as the glTF shows it: a component that is not a finite number (NaN or
/// infinity: a damaged level, which `check` reports) is shown as 0, since glTF holds only
/// finite numbers. The way back compares the scene with the base as shown, so that an
/// unchanged scene keeps the stored bytes.
pub(crate) fn shown_position(p: [f32; 3]) -> [f32; 3] {
    p.map(|c| if c.is_finite() { c } else { 0.0 })
}
