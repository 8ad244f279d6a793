//! The level as glTF 2.0 in file space (game space: y up, right-handed, the grid at z ≥ 0).

pub mod arrays;
mod buffer;
pub mod export;
pub mod fit;
pub mod import;
pub mod read;
pub mod texture;
pub mod uv;

pub use export::{wad_to_gltf, Gltf, GltfExportError, Source};
pub use import::{
    arrays_to_wad, gltf_to_wad, BrokenRules, ChangeReport, ImportError, ImportOptions, MeshArrays,
    NodeArrays, SceneArrays, TileEdit,
};
pub use read::Document;
