//! New geometry: a mesh with no tile of its own becomes new tiles, the way the level builders
//! of the notes make them (FORMAT.md §5): split by grid cell, and by height band where a cell's
//! part is taller than collision can reach from one tile origin; collision from a mesh given
//! with it, or from its upward faces when asked, each polygon in the tile of the cell its centre
//! lies over (a collision-only tile where that cell has no new tile). Geometry may reach outside
//! the grid; its faces and polygons belong to the nearest cell inside. Entering polygons into the
//! other cells they cover is the caller's (`game::coverage`).

use crate::codes::Code;
use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use super::attributes::{face_flags, node_triangles, per_triangle};
use super::collision::{encode, given_polygons, GivenPolygon};
use super::error::{GltfToWadError, NodeRef};
use super::model::{build_model, ModelSource};
use super::nodes::{placement, says_no_collision, NewMesh};
use super::recut::recut_new_quads;
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use super::share::Sharing;
use crate::game::cells::{coordinate_in_cell, loader_col_row};
use crate::game::space::to_local;
use crate::gltf::fit::Fitter;
use crate::gltf::read::Triangles;
use crate::level::{Level, Model, Tile};
use crate::raw::CollisionPolygon;

mod one_tile;

use one_tile::{as_one_tile, OneTile};

/// Height of a band: collision planes store d in 1/4064 units as i16, so a polygon must lie within
/// about ±8 units of its tile's origin; 6 leaves room for polygons that reach out of the band.
const BAND_HEIGHT: f32 = 6.0;
/// Faces at least this steep upwards (normal y) are floors when collision is generated.
const FLOOR_NORMAL_Y: f32 = 0.7;
/// Faces closer to vertical than this (|normal y|) are walls.
const WALL_NORMAL_Y: f32 = 0.3;

/// Where a new tile stands: its cell and origin (1/4096 units, game space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Slot {
    row: u32,
    col: u32,
    y: i64,
    /// Which new mesh: two meshes in one cell are two tiles, as in the original levels.
    mesh: usize,
    x: i64,
    z: i64,
}

impl Slot {
    fn origin(&self) -> Vec3 {
        Vec3::new(self.x as f32, self.y as f32, self.z as f32) / 4096.0
    }
}

/// The point a new mesh's tiles are placed by: its own origin (a re-tiled tile's node stands
/// where the tile stood). A tile of the mesh in cell (col, row) stands where the anchor would be
/// moved by whole cells into that cell, at the anchor's height moved by whole bands: between any
/// two of its tiles, and to the anchor, collision planes move exactly (whole 1/32 steps), so a
/// re-tiled level keeps every plane.
#[derive(Debug, Clone, Copy)]
pub(super) struct Anchor(Vec3);

/// Heights are moved in steps of 1/32, where `32·n·offset` stays a whole number.
const HEIGHT_STEP: f32 = 1.0 / 32.0;

impl Anchor {
    fn slot(&self, (row, col): (u32, u32), band: i64, mesh: usize) -> Slot {
        let fixed = |v: f64| (v * 4096.0).round() as i64;
        let y = (self.0.y / HEIGHT_STEP).round() * HEIGHT_STEP + band as f32 * BAND_HEIGHT;
        Slot {
            row,
            col,
            y: fixed(y as f64),
            mesh,
            x: fixed(coordinate_in_cell(col, self.0.x as f64)),
            z: fixed(coordinate_in_cell(row, self.0.z as f64)),
        }
    }

    /// The height band of a point: bands of BAND_HEIGHT centred on the anchor's height.
    fn band(&self, y: f32) -> i64 {
        ((y - self.0.y) / BAND_HEIGHT).round() as i64
    }
}

pub(super) fn world_triangles(
    scene: &Scene,
    node: &Node,
    grid: (u32, u32),
    culprit: &NodeRef,
) -> Result<Triangles, GltfToWadError> {
    let mut tris = node_triangles(scene, node, grid, culprit)?.into_owned();
    for p in &mut tris.positions {
        *p = node.world.transform_point3(*p);
    }
    Ok(tris)
}

/// A world point (file space) in the frame of a tile at `origin` turned by `rotation`.
pub(super) fn tile_local(p: Vec3, origin: Vec3, rotation: u32) -> Vec3 {
    to_local(origin.as_dvec3(), p.as_dvec3(), rotation).as_vec3()
}

/// The triangles `ts` of `tris` in the frame of a tile at `origin` turned by `rotation`.
pub(super) fn subset(tris: &Triangles, ts: &[usize], origin: Vec3, rotation: u32) -> Triangles {
    let mut out = tris.select(ts);
    for p in &mut out.positions {
        *p = tile_local(*p, origin, rotation);
    }
    out
}

/// What becomes new tiles: a mesh of the scene that belongs to no tile, or a tile's faces drawn
/// too far from its cell to be drawn from there (re-tiled).
pub(super) struct NewGeometry<'a> {
    /// The node the faces come from: the object named in reports and refusals.
    pub node: &'a Node,
    /// Where the new tiles are anchored and how they turn: the node's world transform, or where
    /// the re-tiled tile stood.
    pub frame: Mat4,
    /// The faces in world space when they are not the node's mesh (a re-tiled tile's).
    pub tris: Option<Triangles>,
    pub collision: NewCollision<'a>,
}

pub(super) enum NewCollision<'a> {
    /// A collision mesh given with it.
    Node(&'a Node),
    /// Polygons it already has (world corners): a re-tiled tile's.
    Polygons(Vec<GivenPolygon>),
    /// None given: made from its faces, or none, as the options say.
    NotGiven,
}

impl<'a> NewGeometry<'a> {
    pub(super) fn of_mesh(mesh: &NewMesh<'a>) -> NewGeometry<'a> {
        NewGeometry {
            node: mesh.node,
            frame: mesh.node.world,
            tris: None,
            collision: match mesh.collision {
                // Marked as decoration: no collision, given or made.
                _ if says_no_collision(mesh.node) => NewCollision::Polygons(Vec::new()),
                Some(node) => NewCollision::Node(node),
                None => NewCollision::NotGiven,
            },
        }
    }
}

pub(super) struct NewTile {
    model: Model,
    colours: Vec<[u8; 4]>,
    /// Some of its faces got a texture entry fitted to their UVs.
    fitted: bool,
}

/// Adds the new meshes as tiles; their models go to `new_models` (numbered from `first_model`).
/// A mesh that cannot become tiles is refused into `refused`, and the others are still tried.
#[allow(clippy::too_many_arguments)]
pub fn add_new_geometry(
    scene: &Scene,
    meshes: &[NewGeometry],
    level: &mut Level,
    new_models: &mut Vec<Model>,
    first_model: usize,
    fitter: &mut Fitter,
    generate_collision: bool,
    report: &mut ChangeReport,
    refused: &mut Vec<GltfToWadError>,
) -> Result<(), GltfToWadError> {
    let map = level.map().ok_or_else(|| {
        GltfToWadError::level("the base level has no MAP chunk").code(Code::BaseIncomplete)
    })?;
    let grid = (map.width, map.height);
    let mut tiles: BTreeMap<Slot, NewTile> = BTreeMap::new();
    let base_models = &level.trak().expect("checked by gltf_to_wad").models;
    let mut sharing = Sharing::of(base_models);

    let mut rotations = Vec::with_capacity(meshes.len());
    for (mesh_index, mesh) in meshes.iter().enumerate() {
        let culprit = mesh.node.culprit();
        // Its tiles turn as the mesh does, so that its faces and polygons keep their own frame
        // (and a re-tiled level its planes); a scaled or tilted mesh is baked into unturned tiles.
        let rotation = placement(&mesh.frame, &culprit).map_or(0, |(_, r)| r);
        rotations.push(rotation);
        let placing = Placing {
            scene,
            mesh,
            mesh_index,
            rotation,
            grid,
            object: mesh.node.raw_name(),
            culprit,
        };
        // Every mesh is tried, so that a refusal names every culprit.
        let placed = placing.place(
            generate_collision,
            fitter,
            (&sharing, base_models),
            &mut tiles,
            report,
        );
        if let Err(e) = placed {
            refused.push(e);
        }
    }

    let mut placed_tiles = Vec::with_capacity(tiles.len());
    for (slot, tile) in tiles {
        let model_at = |i: u32| match (i as usize).checked_sub(first_model) {
            Some(k) => &new_models[k],
            None => &base_models[i as usize],
        };
        let (model_index, rotation, colours) =
            match sharing.find(&tile.model, &tile.colours, model_at) {
                Some(share) => (
                    share.model,
                    (rotations[slot.mesh] + share.turn * 1024) % 4096,
                    share.colours,
                ),
                None => {
                    let index = (first_model + new_models.len()) as u32;
                    sharing.add(index, &tile.model);
                    new_models.push(tile.model);
                    report.models_added += 1;
                    (index, rotations[slot.mesh], tile.colours)
                }
            };
        placed_tiles.push((slot, model_index, rotation, colours, tile.fitted));
    }
    let map = level.map_mut().expect("checked above");
    for (slot, model_index, rotation, colours, fitted) in placed_tiles {
        let origin = slot.origin();
        let mut placed = Tile::new([origin.x, origin.y, -origin.z], rotation, model_index);
        placed.colours = colours;
        report
            .sources
            .push((map.tiles.len(), meshes[slot.mesh].node.raw_name()));
        if fitted {
            report.tiles_fitted.push(map.tiles.len());
        }
        report.tiles_added.push(map.tiles.len());
        map.tiles.push(placed);
    }
    Ok(())
}

/// One mesh of new geometry being made into tiles.
struct Placing<'a> {
    scene: &'a Scene<'a>,
    mesh: &'a NewGeometry<'a>,
    mesh_index: usize,
    rotation: u32,
    grid: (u32, u32),
    culprit: NodeRef,
    object: String,
}

impl Placing<'_> {
    /// The mesh's tiles into `tiles`: one tile at its anchor where that is a model the level has
    /// already, else its faces split by cell and height band; then its collision entered.
    fn place(
        &self,
        generate_collision: bool,
        fitter: &mut Fitter,
        shared: (&Sharing, &[Model]),
        tiles: &mut BTreeMap<Slot, NewTile>,
        report: &mut ChangeReport,
    ) -> Result<(), GltfToWadError> {
        let (mesh, culprit) = (self.mesh, &self.culprit);
        let tris = match &mesh.tris {
            Some(tris) => tris.clone(),
            None => world_triangles(self.scene, mesh.node, self.grid, culprit)?,
        };
        let tris = recut_new_quads(&tris, fitter).unwrap_or(tris);
        let by_cell = self.by_cell(&tris)?;
        let flags = face_flags(&tris, culprit)?;
        let anchor = Anchor(mesh.frame.w_axis.truncate());
        let (width, height) = self.grid;
        // A mesh with faces over its own origin's cell (a tile's node), or collision alone, keeps
        // its collision at its origin; one drawn away from its origin (another tool's, at the
        // world's) by cells.
        let around =
            by_cell.is_empty() || by_cell.contains_key(&nearest_cell(anchor.0, width, height));
        let (polygons, given) = self.polygons(&tris, generate_collision, report)?;
        let anchor_slot = at_anchor_slot(anchor, self.grid, self.mesh_index);
        let one = match around.then_some(anchor_slot).flatten() {
            Some(slot) => as_one_tile(
                OneTile {
                    tris: &tris,
                    flags: &flags,
                    polygons: &polygons,
                    slot,
                    rotation: self.rotation,
                    culprit,
                    object: &self.object,
                },
                fitter,
                shared,
            )?,
            None => None,
        };
        if let (Some(tile), Some(slot)) = (one, anchor_slot) {
            tiles.insert(slot, tile);
            return Ok(());
        }
        for (cell, ts) in by_cell {
            let mut bands: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
            for t in ts {
                bands
                    .entry(anchor.band(centroid(&tris, t).y))
                    .or_default()
                    .push(t);
            }
            for (band, ts) in bands {
                let slot = anchor.slot(cell, band, self.mesh_index);
                let tile = self.band_tile(&tris, &ts, &flags, slot, fitter, report)?;
                tiles.insert(slot, tile);
            }
        }
        home_collision(
            &polygons,
            tiles,
            self.grid,
            (self.mesh_index, anchor, around, self.rotation),
            culprit,
        )
        .map_err(|e| e.in_source_faces(given.as_ref().unwrap_or(&tris)))
    }

    /// Each triangle's cell by its centroid (the nearest cell inside the grid for geometry
    /// reaching outside).
    fn by_cell(
        &self,
        tris: &Triangles,
    ) -> Result<BTreeMap<(u32, u32), Vec<usize>>, GltfToWadError> {
        let (width, height) = self.grid;
        let mut by_cell: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        for t in 0..tris.count() {
            let c = centroid(tris, t);
            if !c.is_finite() {
                return Err(GltfToWadError::faces(
                    &self.culprit,
                    vec![t],
                    "a corner that is not a finite number",
                )
                .code(Code::NotFinite));
            }
            by_cell
                .entry(nearest_cell(c, width, height))
                .or_default()
                .push(t);
        }
        Ok(by_cell)
    }

    /// The mesh's collision polygons (given as polygons, as a collision mesh, or made from its
    /// faces), and the collision mesh's triangles, which their face numbers count.
    fn polygons(
        &self,
        tris: &Triangles,
        generate_collision: bool,
        report: &mut ChangeReport,
    ) -> Result<(Vec<GivenPolygon>, Option<Triangles>), GltfToWadError> {
        let given = match self.mesh.collision {
            NewCollision::Node(node) => Some(world_triangles(
                self.scene,
                node,
                self.grid,
                &node.culprit(),
            )?),
            _ => None,
        };
        let polygons = match (&self.mesh.collision, &given) {
            (NewCollision::Polygons(polygons), _) => polygons.clone(),
            (_, Some(ctris)) => {
                let corners: Vec<[Vec3; 3]> =
                    (0..ctris.count()).map(|t| corners_of(ctris, t)).collect();
                given_polygons(ctris, &corners, "POLYGON")
            }
            _ if generate_collision => {
                report.collision_generated.push(self.object.clone());
                collision_from_faces(tris)
            }
            _ => {
                report.warnings.push(format!(
                    "{} has no collision: the llama falls through it (give it a child mesh named \"collision…\", or let export make it from its faces)",
                    self.culprit
                ));
                Vec::new()
            }
        };
        Ok((polygons, given))
    }

    /// The tile of the triangles `ts` of one cell and height band, at `slot`.
    fn band_tile(
        &self,
        tris: &Triangles,
        ts: &[usize],
        flags: &[Option<u16>],
        slot: Slot,
        fitter: &mut Fitter,
        report: &mut ChangeReport,
    ) -> Result<NewTile, GltfToWadError> {
        let local = subset(tris, ts, slot.origin(), self.rotation);
        let local_flags: Vec<Option<u16>> = ts.iter().map(|&t| flags[t]).collect();
        let textures = per_triangle(&local, "TEXTURE");
        let source = ModelSource {
            tris: &local,
            flags: &local_flags,
            textures: &textures,
            culprit: &self.culprit,
            object: &self.object,
            base: None,
            frames: 1,
        };
        let built = build_model(source, fitter, report).map_err(|e| e.in_source_faces(&local))?;
        Ok(NewTile {
            model: built.model,
            colours: built.colours,
            fitted: built.fitted > 0,
        })
    }
}

fn centroid(tris: &Triangles, t: usize) -> Vec3 {
    (tris.positions[3 * t] + tris.positions[3 * t + 1] + tris.positions[3 * t + 2]) / 3.0
}

pub(super) fn corners_of(tris: &Triangles, t: usize) -> [Vec3; 3] {
    [0, 1, 2].map(|k| tris.positions[3 * t + k])
}

/// Collision made from a mesh's own faces, as the game needs it: floors (faces at most about 45°
/// from level) and walls (steep faces), each a polygon, the two triangles of one quad one polygon
/// where they are flat and convex; the material from the faces' `_MATERIAL` (0 without).
/// Ceilings and faces turned down are left out: the tests the game runs want floors and walls.
pub(super) fn collision_from_faces(tris: &Triangles) -> Vec<GivenPolygon> {
    let corners: Vec<[Vec3; 3]> = (0..tris.count()).map(|t| corners_of(tris, t)).collect();
    let wanted: Vec<bool> = corners
        .iter()
        .map(|&[a, b, c]| {
            let ny = (b - a).cross(c - a).normalize_or_zero().y;
            ny >= FLOOR_NORMAL_Y || ny.abs() < WALL_NORMAL_Y
        })
        .collect();
    given_polygons(tris, &corners, "SOURCE_FACE")
        .into_iter()
        .filter(|p| p.tris.iter().all(|&t| wanted[t]))
        .map(|p| GivenPolygon {
            kind: 0,
            group: 0,
            ..p
        })
        .collect()
}

/// (row, col) of the cell a point (file space) lies over, or the nearest cell inside the grid.
pub(super) fn nearest_cell(p: Vec3, width: u32, height: u32) -> (u32, u32) {
    let clamp = |v: f32, n: u32| v.floor().clamp(0.0, n.saturating_sub(1) as f32) as u32;
    (clamp(p.z, height), clamp(p.x, width))
}

/// How far (units, each axis) from its tile's origin a polygon may reach: collision planes hold
/// about 8 units, and a little is left for the plane through the corners.
const REACH: f32 = 7.5;

/// The slot of a tile standing at the mesh's anchor: the cell the loader lists a tile at the
/// anchor under (the nearest inside the grid), band 0.
fn at_anchor_slot(anchor: Anchor, (width, height): (u32, u32), mesh: usize) -> Option<Slot> {
    let clamp = |v: i64, n: u32| v.clamp(0, n.saturating_sub(1) as i64) as u32;
    let a = anchor.0;
    a.is_finite().then(|| {
        let (col, row) = loader_col_row([a.x, a.y, -a.z]);
        anchor.slot((clamp(row, height), clamp(col, width)), 0, mesh)
    })
}

/// Puts every polygon (world corners, file space) into a tile of its mesh: the one at the
/// mesh's anchor when it reaches that far (so that a re-tiled tile's polygons stay in the cell
/// they were in, with the edge tolerance they had there), else the one of the cell its centre
/// lies over and of its height band (a collision-only tile where the mesh has none).
pub(super) fn home_collision(
    polygons: &[GivenPolygon],
    tiles: &mut BTreeMap<Slot, NewTile>,
    (width, height): (u32, u32),
    (mesh, anchor, at_anchor, rotation): (usize, Anchor, bool, u32),
    culprit: &NodeRef,
) -> Result<(), GltfToWadError> {
    let anchor_slot = at_anchor
        .then(|| at_anchor_slot(anchor, (width, height), mesh))
        .flatten();
    for polygon in polygons {
        let corners = &polygon.corners;
        let centre = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
        if !centre.is_finite() {
            return Err(GltfToWadError::faces(
                culprit,
                polygon.tris.clone(),
                "a corner that is not a finite number",
            )
            .code(Code::NotFinite));
        }
        let within = |slot: &Slot| {
            corners
                .iter()
                .all(|c| (*c - slot.origin()).abs().max_element() <= REACH)
        };
        let slot = match anchor_slot.filter(within) {
            Some(slot) => slot,
            None => anchor.slot(
                nearest_cell(centre, width, height),
                anchor.band(centre.y),
                mesh,
            ),
        };
        let tile = tiles.entry(slot).or_insert_with(|| NewTile {
            model: Model::default(),
            colours: Vec::new(),
            fitted: false,
        });
        let origin = slot.origin();
        let local: Vec<Vec3> = corners
            .iter()
            .map(|c| tile_local(*c, origin, rotation))
            .collect();
        let encoded: CollisionPolygon = encode(
            &local,
            polygon.material,
            polygon.kind,
            culprit,
            &polygon.tris,
            tile.model.collision_count(),
        )?;
        tile.model.collision[polygon.group].push(encoded);
    }
    Ok(())
}
