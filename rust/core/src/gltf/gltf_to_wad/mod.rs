//! glTF → WAD: a level written back from a glTF and the level it was made from (the base).
//!
//! The base is the source of truth: whatever the glTF shows unchanged keeps the base's bytes
//! (normals, planes and box margins that cannot be recomputed exactly); what changed is rebuilt
//! the way the notes' checklists say. The glTF may come from this project or from any tool that
//! keeps the attributes and extras (Blender's exporter reorders, splits and merges vertices and
//! writes integers as floats; all of that is accepted). A tool may hand the scene over as arrays
//! instead of a glTF ([`scene_to_wad`]): both become one `Scene`, which one conversion reads.

mod attributes;
mod causes;
mod collision;
mod colours;
mod cover;
mod error;
mod images;
mod lights;
mod look;
mod model;
mod motion;
mod new_geometry;
mod nodes;
mod object_models;
mod parts;
mod recut;
mod report;
mod scene;
mod scene_arrays;
mod share;
mod source;
mod strats;
mod tile;
mod waypoints;
mod zones;

pub use error::{BrokenRules, Cause, GltfToWadError, NodeRef};
pub use report::{ChangeReport, GltfToWadOptions, PageChanged, TileEdit};
pub use scene_arrays::{ImageArrays, MeshArrays, NodeArrays, SceneArrays};

use crate::codes::Code;
use std::collections::HashMap;

use crate::game::{Problem, Report, Severity};
use crate::gltf::fit::Fitter;
use crate::gltf::read::Document;
use crate::level::Level;
use crate::limits::{MAX_TEXTURE_ENTRIES, MAX_TILES};
use cover::cover;
use images::{add_new_images, write_page_images};
use lights::apply_lights;
use new_geometry::add_new_geometry;
use nodes::{sort_nodes, Nodes};
use object_models::apply_object_models;
use parts::claim_parts;
use scene::Scene;
use source::check_source;
use strats::apply_strats;
use tile::Conversion;
use waypoints::apply_waypoints;
use zones::{apply_zone_masks, apply_zones};

/// Converts a glTF back into a level, given the level it was made from.
pub fn gltf_to_wad(
    base: &Level,
    base_bytes: &[u8],
    doc: &Document,
    options: GltfToWadOptions,
) -> Result<(Level, ChangeReport), GltfToWadError> {
    convert_scene(base, base_bytes, Scene::of_document(doc), options)
        .map(|(level, report, _)| (level, report))
}

/// Converts a scene handed over as arrays back into a level, given the level it was made from:
/// what [`gltf_to_wad`] does with a glTF of the same nodes and meshes. The arrays are checked
/// like a file from a stranger; what is wrong with them is refused like a glTF's faults.
pub fn scene_to_wad(
    base: &Level,
    base_bytes: &[u8],
    arrays: SceneArrays,
    options: GltfToWadOptions,
) -> Result<(Level, ChangeReport), GltfToWadError> {
    convert_scene(base, base_bytes, Scene::of_arrays(arrays)?, options)
        .map(|(level, report, _)| (level, report))
}

/// A scene converted as export writes it, with what `check` says of the result against the base.
pub struct Checked {
    pub level: Level,
    pub report: ChangeReport,
    /// Every problem of the level, those the base has already marked `pre_existing`.
    pub check: Report,
}

/// [`scene_to_wad`] and the check of its result against the base, the conversion's own: the
/// add-on's Check level, which would otherwise check the level a second time.
pub fn scene_to_wad_checked(
    base: &Level,
    base_bytes: &[u8],
    arrays: SceneArrays,
    options: GltfToWadOptions,
) -> Result<Checked, GltfToWadError> {
    let (level, report, check) =
        convert_scene(base, base_bytes, Scene::of_arrays(arrays)?, options)?;
    // An unchanged level is the base: the conversion did not check it.
    let check = check.unwrap_or_else(|| crate::game::check_against(&level, base));
    Ok(Checked {
        level,
        report,
        check,
    })
}

/// The conversion, and the check of its level against the base when the level changed.
fn convert_scene(
    base: &Level,
    base_bytes: &[u8],
    mut scene: Scene,
    options: GltfToWadOptions,
) -> Result<(Level, ChangeReport, Option<Report>), GltfToWadError> {
    let mut report = ChangeReport::default();
    check_source(base, base_bytes, &scene, options, &mut report)?;
    let base_trak = base.trak().ok_or_else(|| {
        GltfToWadError::level("the base level has no TRAK chunk").code(Code::BaseIncomplete)
    })?;
    let base_map = base.map().ok_or_else(|| {
        GltfToWadError::level("the base level has no MAP chunk").code(Code::BaseIncomplete)
    })?;
    let mut level = base.clone();
    // Pages first: the faces of a new image's material are fitted on the page it lands on.
    if let Some(text) = level.text_mut() {
        report.page_bytes_before = page_bytes(text);
        write_page_images(&scene, text, &mut report)?;
        add_new_images(&mut scene, text, &mut report)?;
        report.page_bytes_after = page_bytes(text);
    }
    let scene = &scene;
    let nodes = sort_nodes(scene, base_map.tiles.len())?;
    check_tile_count(base_map.tiles.len(), &nodes)?;
    let mut c = Conversion {
        base,
        level,
        new_models: Vec::new(),
        model_count: base_trak.models.len(),
        derived_from: HashMap::new(),
        fitter: Fitter::new(
            base.text().map(|t| t.entries.clone()).unwrap_or_default(),
            options.snap_uvs,
        ),
        report,
        tile_collision_given: options.tile_collision_given,
    };
    c.read_nodes(scene, &nodes, options)?;

    let Conversion {
        mut level,
        new_models,
        fitter,
        mut report,
        ..
    } = c;
    append_entries(&mut level, &fitter, &mut report)?;
    if let Some(node) = nodes.zones {
        apply_zones(scene, node, &mut level, &mut report)?;
    }
    apply_zone_masks(scene, &mut level, &mut report)?;
    if !new_models.is_empty() {
        level
            .trak_mut()
            .expect("cloned from the base")
            .models
            .extend(new_models);
    }
    cover(base, &mut level, &mut report)?;
    report.sort();
    let check = judge(base, &level, &mut report)?;
    Ok((level, report, check))
}

impl Conversion<'_> {
    /// Every node read back into the level: tiles (a tile without a node emptied), new
    /// geometry, strats, waypoints, lights and object models. Every node is tried: a refusal
    /// names every culprit, not the first.
    fn read_nodes(
        &mut self,
        scene: &Scene,
        nodes: &Nodes<'_>,
        options: GltfToWadOptions,
    ) -> Result<(), GltfToWadError> {
        let base = self.base;
        let base_map = base.map().expect("checked by convert_scene");
        let mut refused = Vec::new();
        let claims = claim_parts(scene, nodes, base_map, &mut refused);
        for i in (0..base_map.tiles.len()).filter(|&i| !claims.claimed[i]) {
            self.empty_tile(i);
        }
        self.report.warnings.extend(claims.warnings);
        let mut new_geometry = claims.new_geometry;
        for part in &claims.parts {
            match self.tile(scene, part) {
                Ok(Some(retiled)) => new_geometry.push(retiled),
                Ok(None) => {}
                Err(e) => refused.push(e),
            }
        }
        add_new_geometry(
            scene,
            &new_geometry,
            &mut self.level,
            &mut self.new_models,
            self.model_count,
            &mut self.fitter,
            options.generate_collision,
            &mut self.report,
            &mut refused,
        )?;
        let (level, report) = (&mut self.level, &mut self.report);
        apply_strats(scene, base, level, report, &mut refused)?;
        apply_waypoints(scene, base, level, report, &mut refused)?;
        apply_lights(scene, base, level, report, &mut refused);
        apply_object_models(scene, base, level, &mut self.fitter, report, &mut refused);
        match GltfToWadError::all(refused) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The texture entries fitted to faces appended to the level's table.
fn append_entries(
    level: &mut Level,
    fitter: &Fitter,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let appended = fitter.appended().to_vec();
    check_entry_count(fitter.entries.len(), report)?;
    if !appended.is_empty() {
        let text = level.text_mut().ok_or_else(|| {
            GltfToWadError::level(
                "faces need new texture entries, but the base level has no TEXT chunk",
            )
            .code(Code::BaseIncomplete)
        })?;
        text.entries.extend_from_slice(&appended);
    }
    report.texture_entries_appended = appended.len();
    report.fit = fitter.report();
    Ok(())
}

/// What the game would do with the level: new errors refuse it, new warnings are reported. An
/// unchanged level is the base, whose problems are all its own.
fn judge(
    base: &Level,
    level: &Level,
    report: &mut ChangeReport,
) -> Result<Option<Report>, GltfToWadError> {
    let check = (!report.is_empty()).then(|| crate::game::check_against(level, base));
    let (errors, warnings): (Vec<&Problem>, Vec<&Problem>) = check
        .iter()
        .flat_map(Report::new_problems)
        .partition(|p| p.severity == Severity::Error);
    if !errors.is_empty() {
        let mut errors: Vec<Problem> = errors.into_iter().cloned().collect();
        causes::attribute(base, level, report, &mut errors);
        return Err(GltfToWadError::rules(
            errors,
            &report.sources,
            &report.strat_sources,
        ));
    }
    for problem in warnings {
        report
            .warnings
            .push(format!("{} ({})", problem.message, problem.code));
    }
    Ok(check)
}

/// The pages' total size as stored in the file.
fn page_bytes(text: &crate::level::text::Text) -> usize {
    text.pages.iter().map(|p| p.stored_size()).sum()
}

/// A scene that would make more tiles than a level holds is refused before anything is
/// converted: the base's tiles, a tile node's copies and one for each new mesh at the least
/// (100,000 copies of a tile were once written as a 165 MB level).
fn check_tile_count(base_tiles: usize, nodes: &nodes::Nodes) -> Result<(), GltfToWadError> {
    let named: std::collections::HashSet<usize> = nodes.tiles.iter().map(|(i, _)| *i).collect();
    let copies = nodes.tiles.len() - named.len();
    let new = nodes.new_meshes.len();
    let at_least = base_tiles + copies + new;
    if at_least <= MAX_TILES {
        return Ok(());
    }
    Err(GltfToWadError::level(format!(
        "the scene makes at least {at_least} tiles (the base's {base_tiles}, {copies} copies of tiles, {new} new meshes); a level holds at most {MAX_TILES} tiles"
    ))
    .code(Code::LevelSize)
    .cause(Cause::too_many(at_least, MAX_TILES)))
}

/// Faces name their texture entry with a u16: a table past 65,536 entries is refused, naming the
/// objects whose faces added entries. An object adding many is warned of: each face cut smaller
/// than its texture shows a rectangle of its own.
fn check_entry_count(entries: usize, report: &mut ChangeReport) -> Result<(), GltfToWadError> {
    let mut by_object: Vec<(&String, &usize)> = report.texture_entries_by_object.iter().collect();
    by_object.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if entries > MAX_TEXTURE_ENTRIES {
        let named: Vec<String> = by_object
            .iter()
            .map(|(o, n)| format!("{o} ({n})"))
            .collect();
        let message = format!(
                "the faces need {entries} texture entries, but faces name their entry with 16 bits: at \
                 most {MAX_TEXTURE_ENTRIES}. New entries by object: {}. Faces cut smaller than their \
                 texture each need one: join them into larger faces, or give them UVs the level's \
                 entries already show",
                named.join(", ")
            );
        let e = match by_object.first() {
            Some((first, _)) => GltfToWadError::node(&NodeRef::named(first), message),
            None => GltfToWadError::level(message),
        };
        return Err(e
            .code(Code::TextureEntryLimit)
            .cause(Cause::too_many(entries, MAX_TEXTURE_ENTRIES)));
    }
    let warnings: Vec<String> = by_object
        .iter()
        .filter(|(_, &n)| n >= MANY_ENTRIES)
        .map(|(object, n)| {
            format!(
                "{object}: its faces added {n} texture entries (the level's table now has {entries} of \
                 {MAX_TEXTURE_ENTRIES}): each face cut smaller than its texture shows a rectangle of \
                 its own; join small faces into larger ones to share entries"
            )
        })
        .collect();
    report.warnings.extend(warnings);
    Ok(())
}

/// An object whose faces add this many entries is named in a warning.
const MANY_ENTRIES: usize = 100;
