//! One tile node against its base tile: placement, geometry, collision and colours; a tile
//! without a node, and the new models tiles get.

use crate::codes::Code;
use std::collections::HashMap;

use glam::{DAffine3, Mat4};

use super::attributes::{face_flags, node_triangles, per_triangle};
use super::collision::{collision_from_node, EditedCollision, GivenPolygon};
use super::colours::{colours_differ, corner_colours, vertex_colours, CornerColour};
use super::error::{Cause, GltfToWadError, NodeRef};
use super::model::{build_model, face_edits, matches_model, ModelSource, POSITION_TOLERANCE};
use super::motion::{motion, moved_collision, to_mat4, Motion, FIT_TOLERANCE};
use super::new_geometry::{NewCollision, NewGeometry};
use super::nodes::{placement, says_no_collision};
use super::parts::Part;
use super::report::{ChangeReport, TileEdit};
use super::scene::Scene;
use crate::game::cells::{loader_col_row, tile_cell};
use crate::geometry::decode_collision_polygon;
use crate::gltf::fit::Fitter;
use crate::gltf::read::Triangles;
use crate::gltf::shown_position;
use crate::level::map::Rgba;
use crate::level::{Level, Map, Model, Tile};
use crate::raw::CollisionPolygon;

/// The state of one conversion: the level being written and what it gains.
pub(super) struct Conversion<'a> {
    pub(super) base: &'a Level,
    pub(super) level: Level,
    /// Models appended to TRAK, numbered from `model_count`.
    pub(super) new_models: Vec<Model>,
    pub(super) model_count: usize,
    /// New models made from each base model: tiles that shared a model and were edited alike
    /// (Blender edits a mesh all its tiles share at once) share the new one.
    pub(super) derived_from: HashMap<u32, Vec<usize>>,
    pub(super) fitter: Fitter,
    pub(super) report: ChangeReport,
    /// GltfToWadOptions::tile_collision_given.
    pub(super) tile_collision_given: bool,
}

impl Conversion<'_> {
    /// Appends `model`, or finds an equal one among those made from the same base model; its
    /// index in TRAK.
    pub(super) fn add_model(&mut self, base_model: u32, model: Model) -> u32 {
        let derived = self.derived_from.entry(base_model).or_default();
        if let Some(&k) = derived.iter().find(|&&k| self.new_models[k] == model) {
            return (self.model_count + k) as u32;
        }
        self.new_models.push(model);
        self.report.models_added += 1;
        derived.push(self.new_models.len() - 1);
        (self.model_count + self.new_models.len() - 1) as u32
    }

    /// A tile without a node keeps its index and draws nothing (FORMAT.md §12).
    pub(super) fn empty_tile(&mut self, i: usize) {
        self.empty(i);
        self.report.tiles_emptied.push(i);
    }

    fn empty(&mut self, i: usize) {
        let empty = match self
            .new_models
            .iter()
            .position(|m| m.vertices.is_empty() && m.collision_count() == 0)
        {
            Some(k) => (self.model_count + k) as u32,
            None => {
                self.new_models.push(Model::default());
                self.report.models_added += 1;
                (self.model_count + self.new_models.len() - 1) as u32
            }
        };
        let tile = &mut self.level.map_mut().expect("cloned from the base").tiles[i];
        follow_model(tile, empty);
        tile.model_index = empty;
        tile.float.model = empty;
        tile.colours.clear();
    }

    /// One tile's faces: its placement, geometry, collision and colours against the base tile.
    /// A copy (a further claim of the tile) becomes a new tile. Faces reshaped so that some lie
    /// far from the tile's cell are handed back as new geometry (the tile draws nothing).
    pub(super) fn tile<'s>(
        &mut self,
        scene: &Scene,
        part: &Part<'s>,
    ) -> Result<Option<NewGeometry<'s>>, GltfToWadError> {
        let (i, node, copy) = (part.tile, part.node, part.copy);
        let culprit = node.culprit();
        let base_map = self.base.map().expect("checked by gltf_to_wad");
        let base_tile = &base_map.tiles[i];
        let base_model = &self.base.trak().expect("checked by gltf_to_wad").models
            [base_tile.model_index as usize];
        let flags = face_flags(&part.tris, &culprit)?;
        let textures = per_triangle(&part.tris, "TEXTURE");
        let entries = &self.fitter.entries;
        let mut geometry_same = matches_model(&part.tris, base_model, &flags, &textures, entries);
        let mut motion = if geometry_same {
            Motion::Still
        } else {
            motion(&part.tris, base_model)
        };
        // Every face turned about the vertical and moved alike is the tile turned and moved: it
        // keeps its model, and is drawn from the cell it now stands in.
        let mut frame = part.frame;
        let turned;
        let tris: &Triangles = match motion.placement() {
            Some(t) => {
                frame *= to_mat4(&t);
                let back = t.inverse();
                let mut faces = part.tris.clone().into_owned();
                for p in &mut faces.positions {
                    *p = back.transform_point3(p.as_dvec3()).as_vec3();
                }
                turned = faces;
                geometry_same = matches_model(&turned, base_model, &flags, &textures, entries);
                motion = Motion::Still;
                &turned
            }
            None => &part.tris,
        };

        let (tile, moved) = placed(base_tile, base_map, &frame, copy, &culprit)?;
        let given = self.given_collision(scene, part, &frame, base_model)?;
        let TileCollision {
            collision,
            followed: collision_followed,
            kept: collision_kept,
        } = self.tile_collision(i, given, motion, base_model, &culprit)?;
        if !geometry_same && far_from_origin(tris, &frame) {
            if !copy {
                // What its faces' collision did, though other tiles draw them now.
                self.report_collision(i, collision_followed, collision_kept);
            }
            let collision = collision.as_ref().unwrap_or(&base_model.collision);
            return Ok(Some(self.retile(part, tris, frame, collision)));
        }

        let painted = painted(tris, &flags, base_tile, base_model);
        // Corners of one vertex painted apart need vertices of their own: a new model. (A model
        // built anew splits them anyway.)
        let painted_apart =
            geometry_same && colours_differ(&painted.corners, &painted.vertex_of_corner);
        let mut edits = if geometry_same {
            Vec::new()
        } else {
            face_edits(tris, base_model, &flags, &textures, &self.fitter.entries)
        };
        if painted_apart {
            edits.push(TileEdit::ColoursApart);
        }
        if collision.is_some() {
            edits.push(TileEdit::Collision);
        }
        let geometry_same = geometry_same && !painted_apart;
        let faces = TileFaces {
            tris,
            flags: &flags,
            textures: &textures,
            geometry_same,
        };
        let (model_index, colours, fitted) =
            self.model_and_colours(part, faces, &painted, collision)?;

        let written = Written {
            model_index,
            colours,
            moved,
            edits,
            fitted,
        };
        let index = self.write_tile(part, tile, base_tile.model_index, written);
        self.report_collision(index, collision_followed, collision_kept);
        Ok(None)
    }

    /// The tile's model and colours: the base model (its copy with the tile's collision where
    /// that changed) where its faces are the base's, else one built from them; whether texture
    /// entries were fitted.
    fn model_and_colours(
        &mut self,
        part: &Part<'_>,
        faces: TileFaces<'_>,
        painted: &Painted,
        collision: Option<[Vec<CollisionPolygon>; 3]>,
    ) -> Result<(u32, Vec<Rgba>, bool), GltfToWadError> {
        let TileFaces {
            tris,
            flags,
            textures,
            geometry_same,
        } = faces;
        let base_tile = &self.base.map().expect("checked by gltf_to_wad").tiles[part.tile];
        let base_model = &self.base.trak().expect("checked by gltf_to_wad").models
            [base_tile.model_index as usize];
        Ok(if geometry_same {
            let colours = vertex_colours(
                &painted.corners,
                &painted.vertex_of_corner,
                base_model.vertices.len(),
                painted.frames,
                Some(&base_tile.colours),
            );
            let model_index = match collision {
                None => base_tile.model_index,
                Some(groups) => {
                    let mut model = base_model.clone();
                    model.collision = groups;
                    self.add_model(base_tile.model_index, model)
                }
            };
            (model_index, colours, false)
        } else {
            let source = ModelSource {
                tris,
                flags,
                textures,
                culprit: &part.node.culprit(),
                object: &part.node.raw_name(),
                base: Some(base_model),
                frames: painted.frames,
            };
            let built = build_model(source, &mut self.fitter, &mut self.report)
                .map_err(|e| e.in_source_faces(tris))?;
            let mut model = built.model;
            model.collision = collision.unwrap_or_else(|| base_model.collision.clone());
            let fitted = built.fitted > 0;
            (
                self.add_model(base_tile.model_index, model),
                built.colours,
                fitted,
            )
        })
    }

    /// The collision the tile's node gives: unchanged, or edited (the polygons and how many
    /// changed), compared in the frame of its faces and, where it moved, of where it now stands.
    fn given_collision(
        &self,
        scene: &Scene,
        part: &Part<'_>,
        frame: &Mat4,
        base_model: &Model,
    ) -> Result<Given, GltfToWadError> {
        let (copy, culprit) = (part.copy, part.node.culprit());
        let base_map = self.base.map().expect("checked by gltf_to_wad");
        let grid = (base_map.width, base_map.height);
        Ok(match part.collision {
            // Marked as decoration: whatever collision it came with, it has none.
            _ if says_no_collision(part.node) => match base_model.collision_count() {
                0 => Given::Unchanged,
                n => Given::Edited((Default::default(), n)),
            },
            Some((cnode, cworld)) => {
                let ctris = node_triangles(scene, cnode, grid, &culprit)?;
                let edited = |tile_world: &Mat4| {
                    collision_from_node(&ctris, &cworld, tile_world, base_model, &culprit)
                        .map_err(|e| e.in_source_faces(&ctris))
                };
                // Compared where the faces' frame stands, so that collision the artist left alone
                // follows the faces; one edited stays where the artist put it, in the frame the
                // tile now stands in (where it is unchanged, it moved with the tile).
                match edited(&part.frame)? {
                    None => Given::Unchanged,
                    Some(_) if *frame != part.frame => match edited(frame)? {
                        None => Given::Unchanged,
                        Some(groups) => Given::Edited(groups),
                    },
                    Some(groups) => Given::Edited(groups),
                }
            }
            // A copy (Blender's Shift D, Alt D) comes without the tile's collision object: it
            // keeps its model's collision. The tile itself without one had it deleted, unless the
            // scene leaves tile collision out.
            None if base_model.collision_count() > 0 && !copy && self.tile_collision_given => {
                Given::Edited((Default::default(), base_model.collision_count()))
            }
            None => Given::Unchanged,
        })
    }

    /// The tile's collision as written: as given where edited, else following its faces (moved
    /// whole, or copied by a modifier), else None (the model's own); whether it followed its
    /// faces, or was kept where faces were reshaped.
    fn tile_collision(
        &mut self,
        i: usize,
        given: Given,
        motion: Motion,
        base_model: &Model,
        culprit: &NodeRef,
    ) -> Result<TileCollision, GltfToWadError> {
        let (mut followed, mut kept) = (false, false);
        let collision = match (given, motion) {
            (Given::Edited((groups, changed)), _) => {
                self.report.collision_polygons_changed += changed;
                Some(groups)
            }
            (Given::Unchanged, Motion::Whole(t)) if base_model.collision_count() > 0 => {
                followed = true;
                self.report.collision_polygons_changed += base_model.collision_count();
                Some(moved_collision(base_model, &t, culprit)?)
            }
            (Given::Unchanged, Motion::Copies(ts)) if base_model.collision_count() > 0 => {
                self.report.collision_copied.push(i);
                let mut groups: [Vec<CollisionPolygon>; 3] = Default::default();
                for t in &ts {
                    let moved = if t.abs_diff_eq(DAffine3::IDENTITY, FIT_TOLERANCE) {
                        base_model.collision.clone()
                    } else {
                        moved_collision(base_model, t, culprit)?
                    };
                    for (group, polygons) in groups.iter_mut().zip(moved) {
                        group.extend(polygons);
                    }
                }
                self.report.collision_polygons_changed +=
                    groups.iter().map(Vec::len).sum::<usize>();
                Some(groups)
            }
            (Given::Unchanged, Motion::Reshaped) => {
                kept = base_model.collision_count() > 0;
                None
            }
            (Given::Unchanged, _) => None,
        };
        Ok(TileCollision {
            collision,
            followed,
            kept,
        })
    }

    /// The tile written (in place, or appended for a copy) with its model and colours, and what
    /// changed reported; its index.
    fn write_tile(
        &mut self,
        part: &Part<'_>,
        mut tile: Tile,
        base_model: u32,
        written: Written,
    ) -> usize {
        let Written {
            model_index,
            colours,
            moved,
            edits,
            fitted,
        } = written;
        let (i, copy) = (part.tile, part.copy);
        let base_tile = &self.base.map().expect("checked by gltf_to_wad").tiles[i];
        let report = &mut self.report;
        if model_index != base_model {
            follow_model(&mut tile, model_index);
            tile.model_index = model_index;
            tile.float.model = model_index;
            if !copy {
                report.tiles_reshaped.push(i);
            }
        }
        let recoloured = colours != base_tile.colours;
        if recoloured {
            tile.colours = colours;
            if model_index == base_model && !copy {
                report.tiles_recoloured.push(i);
            }
        }
        if moved && !copy {
            report.tiles_moved.push(i);
        }
        let map = self.level.map_mut().expect("cloned from the base");
        let index = if copy {
            // A copy of a tile is a tile of its own; a swap belongs to the original only.
            tile.swap = None;
            tile.swap_colours.clear();
            tile.float.swap_flag = 0;
            report.tiles_added.push(map.tiles.len());
            map.tiles.push(tile);
            map.tiles.len() - 1
        } else {
            map.tiles[i] = tile;
            i
        };
        report.sources.push((index, part.node.raw_name()));
        if model_index != base_model {
            report.tile_edits.push((index, edits));
        }
        if fitted {
            report.tiles_fitted.push(index);
        }
        index
    }

    fn report_collision(&mut self, tile: usize, followed: bool, kept: bool) {
        if followed {
            self.report.collision_followed.push(tile);
        }
        if kept {
            self.report.collision_kept.push(tile);
        }
    }

    /// A tile's faces and collision (its frame's) as new geometry anchored where it stands; the
    /// tile itself (not a copy) keeps its index and draws nothing.
    fn retile<'s>(
        &mut self,
        part: &Part<'s>,
        tris: &Triangles,
        frame: Mat4,
        collision: &[Vec<CollisionPolygon>; 3],
    ) -> NewGeometry<'s> {
        let mut world = tris.clone();
        for p in &mut world.positions {
            *p = frame.transform_point3(*p);
        }
        let polygons = collision
            .iter()
            .enumerate()
            .flat_map(|(group, polygons)| polygons.iter().map(move |p| (group, p)))
            .map(|(group, poly)| GivenPolygon {
                tris: Vec::new(),
                corners: decode_collision_polygon(poly)
                    .into_iter()
                    .map(|c| frame.transform_point3(c))
                    .collect(),
                material: poly.material as i64,
                kind: poly.kind as i64,
                group,
            })
            .collect();
        if !part.copy {
            self.empty(part.tile);
            self.report.tiles_retiled.push(part.tile);
        }
        NewGeometry {
            node: part.node,
            frame,
            tris: Some(world),
            collision: NewCollision::Polygons(polygons),
        }
    }
}

/// How far (units, x or z) a face's centre may lie from its tile's origin and still be drawn
/// from the tile's cell: the original levels' models reach 2.4 (note 001 §1).
const DRAWN_FROM_CELL: f32 = 2.5;

/// The base tile placed where the node's frame puts it (moved, or a copy); refused outside the
/// grid. Whether it moved.
fn placed(
    base_tile: &Tile,
    base_map: &Map,
    frame: &Mat4,
    copy: bool,
    culprit: &NodeRef,
) -> Result<(Tile, bool), GltfToWadError> {
    let (position, rotation) = placement(frame, culprit)?;
    let mut tile = base_tile.clone();
    // Against the base as the glTF shows it (a stored NaN shows as 0 and stays stored).
    let shown = shown_position(base_tile.float.position);
    let moved = (0..3).any(|k| (position[k] - shown[k]).abs() > POSITION_TOLERANCE)
        || rotation != base_tile.float.rotation % 4096;
    if moved || copy {
        tile.set_placement(position, rotation);
        follow_swap(&mut tile, base_tile, base_map);
    }
    if tile_cell(&tile, base_map.width, base_map.height).is_none() {
        let (w, h) = (base_map.width, base_map.height);
        return Err(GltfToWadError::node(
                culprit,
                format!(
                    "stands at x {:.2}, z {:.2}, outside the {w}×{h} grid; move it inside (0 ≤ x < {w}, 0 ≤ z < {h})",
                    position[0], -position[2]
                ),
            )
            .code(Code::TileOutsideGrid)
            .cause(Cause {
                cell: Some(loader_col_row(tile.float.position).into()),
                grid: Some([w, h]),
                ..Cause::default()
            }));
    }
    Ok((tile, moved))
}

/// A tile's corner colours as its faces carry them, in as many sets as the base tile has, and
/// the base vertex each corner is.
struct Painted {
    frames: usize,
    corners: Vec<CornerColour>,
    vertex_of_corner: Vec<usize>,
}

fn painted(
    tris: &Triangles,
    flags: &[Option<u16>],
    base_tile: &Tile,
    base_model: &Model,
) -> Painted {
    let frames = base_tile
        .colours
        .len()
        .checked_div(base_model.vertices.len())
        .unwrap_or(1)
        .max(1);
    Painted {
        frames,
        corners: corner_colours(tris, frames, flags),
        // Matched triangles all carry vertex indices; a model without faces has no corners.
        vertex_of_corner: tris
            .scalar("VERTEX")
            .unwrap_or(&[])
            .iter()
            .map(|&v| v.round() as usize)
            .collect(),
    }
}

/// A tile's faces as its node gives them, and whether they are its base model's.
struct TileFaces<'t> {
    tris: &'t Triangles,
    flags: &'t [Option<u16>],
    textures: &'t [Option<i64>],
    geometry_same: bool,
}

/// A tile's collision as written, and how it came to be.
struct TileCollision {
    collision: Option<[Vec<CollisionPolygon>; 3]>,
    followed: bool,
    kept: bool,
}

/// What a tile is written with.
struct Written {
    model_index: u32,
    colours: Vec<Rgba>,
    moved: bool,
    edits: Vec<TileEdit>,
    fitted: bool,
}

/// Whether a face of `tris` (in `frame`) has its centre farther from the frame's origin than
/// the original levels' models reach: the game would draw it from a cell it does not lie in.
fn far_from_origin(tris: &Triangles, frame: &Mat4) -> bool {
    (0..tris.count()).any(|t| {
        let centre =
            (tris.positions[3 * t] + tris.positions[3 * t + 1] + tris.positions[3 * t + 2]) / 3.0;
        let offset = frame.transform_vector3(centre);
        offset.x.abs() > DRAWN_FROM_CELL || offset.z.abs() > DRAWN_FROM_CELL
    })
}

/// A tile's collision as the scene gives it.
enum Given {
    /// Not given, or given as the base model has it: it follows the tile's faces.
    Unchanged,
    /// Edited or deleted by the artist.
    Edited(EditedCollision),
}

/// A swap entry names its tile's cell and height (as far as the notes say, and as every level
/// this project writes has it): where it did, it follows the moved tile.
pub(super) fn follow_swap(
    tile: &mut crate::level::Tile,
    base: &crate::level::Tile,
    map: &crate::level::Map,
) {
    let (w, h) = (map.width, map.height);
    let cells = (tile_cell(base, w, h), tile_cell(tile, w, h));
    let y = tile.fixed.position[1] as u32;
    let Some(swap) = tile.swap.as_mut() else {
        return;
    };
    if let (Some(old), Some(new)) = cells {
        if (swap.cell_x, swap.cell_z) == (old.col, old.row) {
            (swap.cell_x, swap.cell_z) = (new.col, new.row);
        }
    }
    if swap.y == base.fixed.position[1] as u32 {
        swap.y = y;
    }
}

/// A swap entry's model A is the tile's own model (what a swap back restores): where it was, it
/// follows the tile to its new model.
pub(super) fn follow_model(tile: &mut crate::level::Tile, model: u32) {
    if let Some(swap) = tile.swap.as_mut().filter(|s| s.model_a == tile.model_index) {
        swap.model_a = model;
    }
}
