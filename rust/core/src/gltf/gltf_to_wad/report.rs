//! What a conversion may do and what it did: the options and the change report.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::gltf::fit::FitReport;

/// Options of the way back.
#[derive(Debug, Clone, Copy)]
pub struct GltfToWadOptions {
    /// Convert even when the glTF says it was made from another level.
    pub force: bool,
    /// Give new meshes without a collision mesh of their own collision made from their faces
    /// (floors and walls); without it such meshes have none, and a warning names each.
    pub generate_collision: bool,
    /// Faces whose UVs the game cannot show take the nearest layout it can (reported), instead of
    /// refusing the glTF.
    pub snap_uvs: bool,
    /// Whether the scene gives each tile's collision. When it does, a tile node without a
    /// collision node has had its collision deleted. When it does not (the add-on makes a tile's
    /// collision object only once collision is shown, as 1,750 of them are a third of an
    /// import), such a tile keeps its model's collision.
    pub tile_collision_given: bool,
}

impl Default for GltfToWadOptions {
    fn default() -> Self {
        GltfToWadOptions {
            force: false,
            generate_collision: true,
            snap_uvs: false,
            tile_collision_given: true,
        }
    }
}

/// A page whose pixels were written from its edited image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageChanged {
    pub page: usize,
    /// Pixels whose value changed.
    pub pixels_changed: usize,
    /// On an 8-bit page, changed pixels whose nearest palette colour is more than one 5-bit step
    /// from the image's (0 on a 16-bit page).
    pub pixels_moved: usize,
}

/// What changed on a tile that no longer has its base model (`tiles_reshaped`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TileEdit {
    /// Vertices stand elsewhere in the tile (moved one by one, or all by a transform that is no
    /// turn and move of the tile).
    VerticesMoved,
    /// Faces the model did not have.
    FacesAdded,
    /// Faces of the model no longer there.
    FacesRemoved,
    /// Texture entries, UVs, materials or face flags.
    Look,
    /// Corners of one vertex painted apart: a vertex per colour.
    ColoursApart,
    /// Its collision, edited or moved with its faces.
    Collision,
}

/// What the conversion changed, for the user.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChangeReport {
    pub tiles_moved: Vec<usize>,
    /// Tiles whose faces, face flags, texture entries or collision changed: each now has a model
    /// of its own.
    pub tiles_reshaped: Vec<usize>,
    /// (tile, what changed) for each tile of `tiles_reshaped` and each copy given a new model.
    pub tile_edits: Vec<(usize, Vec<TileEdit>)>,
    pub tiles_recoloured: Vec<usize>,
    pub tiles_emptied: Vec<usize>,
    pub tiles_added: Vec<usize>,
    /// Tiles whose faces were reshaped so far from their cell that the game would draw them
    /// from a cell they do not lie in: re-tiled as new tiles of the cells they lie in (in
    /// `tiles_added`, from the tile's object), the tile keeping its index and drawing nothing.
    pub tiles_retiled: Vec<usize>,
    /// Collision-only tiles written so that the polygons of the tiles above reach every cell
    /// they cover (`game::coverage`), in emptied slots or appended.
    pub coverage_tiles: Vec<usize>,
    /// Coverage tiles of edited tiles that serve no more: emptied (kept: tile numbers never
    /// change), or removed from the end of the tile list.
    pub coverage_freed: Vec<usize>,
    pub coverage_removed: usize,
    pub models_added: usize,
    pub collision_polygons_changed: usize,
    pub texture_entries_appended: usize,
    /// Pages whose image was edited, written from it.
    pub pages_changed: Vec<PageChanged>,
    /// New pages, holding the images of materials no page showed.
    pub pages_added: Vec<usize>,
    /// The pages' total size in the file, the base's and the written level's.
    pub page_bytes_before: usize,
    pub page_bytes_after: usize,
    pub cells_rezoned: usize,
    pub zone_masks_changed: usize,
    /// Faces that had no texture entry, or whose UVs or page changed, and got one fitted.
    pub fit: FitReport,
    /// How many texture entries each object's faces added (glTF node names).
    pub texture_entries_by_object: BTreeMap<String, usize>,
    /// Tiles with faces that got a texture entry fitted to their UVs (UVs or page edited, new
    /// faces).
    pub tiles_fitted: Vec<usize>,
    /// (object, face) of every fitted face: the glTF node's own name and the face as the tool
    /// that wrote it numbers it (`_SOURCE_FACE`; the triangle where it does not say).
    pub faces_fitted: Vec<(String, usize)>,
    /// (object, face) of fitted faces whose UVs were snapped to a layout the game can show.
    pub uv_snapped: Vec<(String, usize)>,
    /// Tiles whose faces all moved by one transform (scaled, turned, mirrored) and whose
    /// collision, left as it was, took the same transform.
    pub collision_followed: Vec<usize>,
    /// Tiles whose faces are their model's copied several times, each copy moved as a whole (an
    /// Array modifier), and whose collision, left as it was, was copied with each.
    pub collision_copied: Vec<usize>,
    /// Tiles whose vertices moved one by one (a detail reshaped) and whose collision, left as it
    /// was, stays where it was.
    pub collision_kept: Vec<usize>,
    /// New meshes (their nodes' own names) whose collision was made from their faces.
    pub collision_generated: Vec<String>,
    /// Strats whose position or turn about y changed (their node moved or turned, or the
    /// `position` or `rotation` of its extras edited).
    pub strats_moved: Vec<usize>,
    /// Strats whose other fields or parameters changed (extras edited): the record's fields as
    /// given, changed parameters written into the pool.
    pub strats_tuned: Vec<usize>,
    /// New strats, appended (copies of a strat: a second node naming it).
    pub strats_added: Vec<usize>,
    /// Strats of the base now not created at level start (flag bit 1 set): their node is gone,
    /// or its extras set the bit. They keep their record and index.
    pub strats_removed: Vec<usize>,
    /// Strats of the base not created at start that now are (their node's extras clear bit 1).
    pub strats_restored: Vec<usize>,
    /// Parameter-pool entries appended for new strats and for tuned parameters that another
    /// strat shares or that changed their count.
    pub parameters_appended: usize,
    /// (strat, glTF node name) for every strat this conversion changed or added: where a
    /// problem of a strat comes from.
    pub strat_sources: Vec<(usize, String)>,
    /// Waypoints (numbered as written) whose position or turn about y changed.
    pub waypoints_moved: Vec<usize>,
    /// New waypoints (numbered as written), inserted after the waypoint their node copies.
    pub waypoints_added: Vec<usize>,
    /// Strats whose waypoint number changed because waypoints were inserted before it.
    pub strats_renumbered: Vec<usize>,
    /// (waypoint as written, glTF node name) for every waypoint this conversion changed or
    /// added.
    pub waypoint_sources: Vec<(usize, String)>,
    /// Level lights (LGHT) whose colour, place or words changed.
    pub lights_changed: Vec<usize>,
    /// Object models (STPC) written in place: vertices moved, faces retextured.
    pub object_models_changed: Vec<usize>,
    /// (tile, glTF node name) for every tile this conversion placed, changed or added, and for
    /// each coverage tile the node of the tile it serves: where a problem of a tile comes from.
    pub sources: Vec<(usize, String)>,
    pub warnings: Vec<String>,
}

impl ChangeReport {
    /// The lists of tiles and strats in ascending order, however the conversion met them.
    pub(super) fn sort(&mut self) {
        self.tiles_moved.sort_unstable();
        self.tiles_reshaped.sort_unstable();
        self.tiles_recoloured.sort_unstable();
        self.tile_edits.sort_unstable();
        self.collision_followed.sort_unstable();
        self.collision_copied.sort_unstable();
        self.collision_kept.sort_unstable();
        self.strats_removed.sort_unstable();
    }

    pub fn is_empty(&self) -> bool {
        self.tiles_moved.is_empty()
            && self.tiles_reshaped.is_empty()
            && self.tiles_recoloured.is_empty()
            && self.tiles_emptied.is_empty()
            && self.tiles_added.is_empty()
            && self.tiles_retiled.is_empty()
            && self.coverage_tiles.is_empty()
            && self.coverage_freed.is_empty()
            && self.models_added == 0
            && self.pages_changed.is_empty()
            && self.pages_added.is_empty()
            && self.cells_rezoned == 0
            && self.zone_masks_changed == 0
            && self.strats_moved.is_empty()
            && self.strats_tuned.is_empty()
            && self.strats_added.is_empty()
            && self.strats_removed.is_empty()
            && self.strats_restored.is_empty()
            && self.waypoint_sources.is_empty()
            && self.lights_changed.is_empty()
            && self.object_models_changed.is_empty()
    }
}
