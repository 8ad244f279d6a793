//! New geometry: a mesh with no tile of its own becomes new tiles, the way the level builders
//! of the notes make them (note 001 §8): split by grid cell, and by height band where a cell's
//! part is taller than collision can reach from one tile origin; collision from a mesh given
//! with it, or from its upward faces when asked, entered into every cell it covers (as a
//! collision-only tile where the cell has no new tile).

use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use crate::gltf::fit::Fitter;
use crate::gltf::import::{
    build_model, corner_colours, encode, face_flags, node_triangles, per_triangle, polygon_corners,
    vertex_colours, ChangeReport, ImportError,
};
use crate::gltf::read::{Document, Triangles};
use crate::level::{Level, Model, Tile};
use crate::raw::CollisionPolygon;

/// Height of a band: collision planes store d in 1/4064 units as i16, so a polygon must lie within
/// about ±8 units of its tile's origin; 6 leaves room for polygons that reach out of the band.
const BAND_HEIGHT: f32 = 6.0;
/// Faces at least this steep upwards (normal y) are floors when collision is generated.
const FLOOR_NORMAL_Y: f32 = 0.7;

/// A mesh node that belongs to no tile, with the collision mesh given with it (a child node whose
/// name starts with "collision").
pub struct NewMesh<'a> {
    pub node: gltf::Node<'a>,
    pub world: Mat4,
    pub collision: Option<(gltf::Node<'a>, Mat4)>,
}

/// Where a new tile stands: its cell and the bottom of its height band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    row: u32,
    col: u32,
    /// Origin height in 1/4096 units (the fixed-point grid of MAP).
    y: i64,
    /// Which new mesh: two meshes in one cell are two tiles, as in the original levels.
    mesh: usize,
}

impl Slot {
    fn origin(&self) -> Vec3 {
        Vec3::new(
            self.col as f32 + 0.5,
            self.y as f32 / 4096.0,
            self.row as f32 + 0.5,
        )
    }
}

fn world_triangles(
    doc: &Document,
    node: &gltf::Node,
    world: &Mat4,
    grid: (u32, u32),
    name: &str,
) -> Result<Triangles, ImportError> {
    let mut tris = node_triangles(doc, node, world, grid, name)?;
    for p in &mut tris.positions {
        *p = world.transform_point3(*p);
    }
    Ok(tris)
}

/// The triangles `ts` of `tris`, moved so that `origin` is at zero.
fn subset(tris: &Triangles, ts: &[usize], origin: Vec3) -> Triangles {
    let corners = |t: usize| 3 * t..3 * t + 3;
    Triangles {
        positions: ts
            .iter()
            .flat_map(|&t| corners(t))
            .map(|c| tris.positions[c] - origin)
            .collect(),
        uvs: tris
            .uvs
            .as_ref()
            .map(|u| ts.iter().flat_map(|&t| corners(t)).map(|c| u[c]).collect()),
        colours: tris
            .colours
            .as_ref()
            .map(|u| ts.iter().flat_map(|&t| corners(t)).map(|c| u[c]).collect()),
        scalars: tris
            .scalars
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    ts.iter().flat_map(|&t| corners(t)).map(|c| v[c]).collect(),
                )
            })
            .collect(),
        materials: ts.iter().map(|&t| tris.materials[t].clone()).collect(),
    }
}

struct NewTile {
    model: Model,
    colours: Vec<[u8; 4]>,
}

/// Adds the new meshes as tiles; their models go to `new_models` (numbered from `first_model`).
#[allow(clippy::too_many_arguments)]
pub fn add_new_geometry(
    doc: &Document,
    meshes: &[NewMesh],
    level: &mut Level,
    new_models: &mut Vec<Model>,
    first_model: usize,
    fitter: &mut Fitter,
    generate_collision: bool,
    report: &mut ChangeReport,
) -> Result<(), ImportError> {
    let map = level
        .map()
        .ok_or_else(|| ImportError::level("the base level has no MAP chunk"))?;
    let (width, height) = (map.width, map.height);
    let mut tiles: BTreeMap<Slot, NewTile> = BTreeMap::new();

    for (mesh_index, mesh) in meshes.iter().enumerate() {
        let name = super::import::node_name(&mesh.node);
        let tris = world_triangles(doc, &mesh.node, &mesh.world, (width, height), &name)?;
        let centroid = |t: usize| {
            (tris.positions[3 * t] + tris.positions[3 * t + 1] + tris.positions[3 * t + 2]) / 3.0
        };

        // Cell of each triangle by its centroid, then height bands within a cell.
        let mut by_cell: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        let mut outside = Vec::new();
        for t in 0..tris.count() {
            let c = centroid(t);
            let (col, row) = (c.x.floor(), c.z.floor());
            if col < 0.0 || row < 0.0 || col >= width as f32 || row >= height as f32 {
                outside.push(t);
            } else {
                by_cell.entry((row as u32, col as u32)).or_default().push(t);
            }
        }
        if !outside.is_empty() {
            return Err(ImportError::faces(
                &name,
                outside,
                format!("lie outside the {width}×{height} grid (0 ≤ x < {width}, 0 ≤ z < {height}); move them inside"),
            ));
        }
        let flags = face_flags(&tris, &name)?;
        for ((row, col), ts) in by_cell {
            let lowest = |ts: &[usize]| {
                ts.iter()
                    .flat_map(|&t| (0..3).map(move |k| 3 * t + k))
                    .map(|c| tris.positions[c].y)
                    .fold(f32::INFINITY, f32::min)
            };
            let floor = lowest(&ts);
            let mut bands: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
            for t in ts {
                bands
                    .entry(((centroid(t).y - floor) / BAND_HEIGHT).floor() as i64)
                    .or_default()
                    .push(t);
            }
            for ts in bands.into_values() {
                let slot = Slot {
                    row,
                    col,
                    y: (lowest(&ts) * 4096.0).round() as i64,
                    mesh: mesh_index,
                };
                let local = subset(&tris, &ts, slot.origin());
                let local_flags: Vec<Option<u16>> = ts.iter().map(|&t| flags[t]).collect();
                let textures = per_triangle(&local, "TEXTURE");
                let built =
                    build_model(&local, &local_flags, &textures, fitter, &name, report, None)?;
                let corners = corner_colours(&local, 1, &local_flags);
                let colours = vertex_colours(
                    &corners,
                    &built.vertex_of_corner,
                    built.model.vertices.len(),
                    1,
                    None,
                );
                tiles.insert(
                    slot,
                    NewTile {
                        model: built.model,
                        colours,
                    },
                );
            }
        }

        let polygons = match &mesh.collision {
            Some((node, world)) => {
                let tris = world_triangles(doc, node, world, (width, height), &node_name_of(node))?;
                let materials = per_triangle(&tris, "MATERIAL");
                (0..tris.count())
                    .map(|t| (corners_of(&tris, t), materials[t].unwrap_or(0), t))
                    .collect()
            }
            None if generate_collision => (0..tris.count())
                .filter(|&t| {
                    let [a, b, c] = corners_of(&tris, t);
                    (b - a).cross(c - a).normalize_or_zero().y >= FLOOR_NORMAL_Y
                })
                .map(|t| (corners_of(&tris, t), 0, t))
                .collect(),
            None => Vec::new(),
        };
        enter_collision(&polygons, &mut tiles, width, height, mesh_index, &name)?;
    }

    let map = level.map_mut().expect("checked above");
    for (slot, tile) in tiles {
        let model_index = first_model + new_models.len();
        let origin = slot.origin();
        let mut placed = Tile::new([origin.x, origin.y, -origin.z], 0, model_index as u32);
        placed.colours = tile.colours;
        report.tiles_added.push(map.tiles.len());
        map.tiles.push(placed);
        new_models.push(tile.model);
        report.models_added += 1;
    }
    Ok(())
}

fn node_name_of(node: &gltf::Node) -> String {
    super::import::node_name(node)
}

fn corners_of(tris: &Triangles, t: usize) -> [Vec3; 3] {
    [0, 1, 2].map(|k| tris.positions[3 * t + k])
}

/// Enters every polygon (world corners, file space) into every cell its outline covers, into the
/// new tile there whose origin is nearest in height, or a new collision-only tile.
fn enter_collision(
    polygons: &[([Vec3; 3], i64, usize)],
    tiles: &mut BTreeMap<Slot, NewTile>,
    width: u32,
    height: u32,
    mesh: usize,
    name: &str,
) -> Result<(), ImportError> {
    for (corners, material, t) in polygons {
        let min = corners[0].min(corners[1]).min(corners[2]);
        let max = corners[0].max(corners[1]).max(corners[2]);
        let mean_y = (corners[0].y + corners[1].y + corners[2].y) / 3.0;
        let cols = (min.x.floor().max(0.0) as u32)
            ..=((max.x - 1e-4).floor().min(width as f32 - 1.0).max(0.0) as u32);
        let rows = (min.z.floor().max(0.0) as u32)
            ..=((max.z - 1e-4).floor().min(height as f32 - 1.0).max(0.0) as u32);
        for row in rows {
            for col in cols.clone() {
                if !covers_cell(corners, col as f32, row as f32) {
                    continue;
                }
                let nearest = tiles
                    .keys()
                    .filter(|s| s.row == row && s.col == col && s.mesh == mesh)
                    .min_by(|a, b| {
                        (a.origin().y - mean_y)
                            .abs()
                            .total_cmp(&(b.origin().y - mean_y).abs())
                    })
                    .copied();
                let slot = nearest
                    .filter(|s| (s.origin().y - mean_y).abs() < BAND_HEIGHT)
                    .unwrap_or(Slot {
                        row,
                        col,
                        y: (min.y * 4096.0).round() as i64,
                        mesh,
                    });
                let tile = tiles.entry(slot).or_insert_with(|| NewTile {
                    model: Model::default(),
                    colours: Vec::new(),
                });
                let origin = slot.origin();
                let local: Vec<Vec3> = polygon_corners(&[corners.map(|c| c - origin)]);
                let polygon: CollisionPolygon = encode(
                    &local,
                    *material,
                    0,
                    name,
                    &[*t],
                    tile.model.collision_count(),
                )?;
                tile.model.collision[0].push(polygon);
            }
        }
    }
    Ok(())
}

/// Whether a triangle's outline (x, z) overlaps the cell [col, col+1) × [row, row+1) with some
/// area: a separating-axis test over the cell's axes and the triangle's edge normals.
fn covers_cell(corners: &[Vec3; 3], col: f32, row: f32) -> bool {
    const EPSILON: f32 = 1e-4;
    let tri = corners.map(|c| glam::Vec2::new(c.x, c.z));
    let cell = [
        glam::Vec2::new(col, row),
        glam::Vec2::new(col + 1.0, row),
        glam::Vec2::new(col + 1.0, row + 1.0),
        glam::Vec2::new(col, row + 1.0),
    ];
    let edge_normals = (0..3).map(|k| (tri[(k + 1) % 3] - tri[k]).perp());
    [glam::Vec2::X, glam::Vec2::Y]
        .into_iter()
        .chain(edge_normals)
        .all(|axis| {
            let project = |points: &[glam::Vec2]| {
                points
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
                        let d = p.dot(axis);
                        (lo.min(d), hi.max(d))
                    })
            };
            let (a0, a1) = project(&tri);
            let (b0, b1) = project(&cell);
            let scale = axis.length().max(1e-6);
            (a1.min(b1) - a0.max(b0)) / scale > EPSILON
        })
}
