//! The level's object models (STPC, FORMAT.md §3 and §7) as `llamawad models` lists them: what
//! each is, and what an artist may change of it (everything but its counts, issue 39).

use serde::Serialize;

use crate::level::Level;

/// One object model of STPC's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectModelInfo {
    pub index: usize,
    /// Bones of a skinned model (0 for a rigid one), with each bone's vertices in order.
    pub bones: usize,
    pub bone_vertex_counts: Vec<u16>,
    pub vertices: usize,
    pub faces: usize,
    pub collision_polygons: usize,
    /// The texture pages its faces' entries name, in order.
    pub pages: Vec<i8>,
    /// The animation sets with as many bones as this skinned model: which model an animation set
    /// moves the notes do not say, so these are the ones that could.
    pub animation_sets_with_its_bones: Vec<usize>,
}

/// Every object model of the level's STPC list (not the WFPC 0x100 block's).
pub fn object_models(level: &Level) -> Vec<ObjectModelInfo> {
    let Some(stpc) = level.stpc() else {
        return Vec::new();
    };
    let entries = level.text().map_or(&[][..], |t| &t.entries[..]);
    stpc.models
        .iter()
        .enumerate()
        .map(|(index, object)| {
            let model = &object.model;
            let mut pages: Vec<i8> = model
                .faces
                .iter()
                .filter_map(|f| entries.get(f.texture as usize))
                .filter(|e| !e.is_flat_colour())
                .map(|e| e.page)
                .collect();
            pages.sort_unstable();
            pages.dedup();
            let bones = object.bone_vertex_counts.len();
            let animation_sets_with_its_bones = if bones == 0 {
                Vec::new()
            } else {
                stpc.animations
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.header.bone_count as usize == bones)
                    .map(|(k, _)| k)
                    .collect()
            };
            ObjectModelInfo {
                index,
                bones,
                bone_vertex_counts: object.bone_vertex_counts.clone(),
                vertices: model.vertices.len(),
                faces: model.faces.len(),
                collision_polygons: model.collision_count(),
                pages,
                animation_sets_with_its_bones,
            }
        })
        .collect()
}
