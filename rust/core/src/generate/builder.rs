//! Models: the builder shared by TRAK tile models and STPC object models.

use glam::{Vec2, Vec3};

use crate::geometry::{
    bounding_box, encode_collision_polygon_at, face_plane, smooth_normals, sort_into_batches,
    PlaneScale, COLLISION_FACING_DOWN,
};
use crate::level::model::LoadSlots;
use crate::level::Model;
use crate::raw::{face_flags, CollisionPolygon, Face, TextureEntry, Vertex};
use crate::rng::{sin_cos_turns, Rng};

/// A special render mode (sorting/transparency), part of the render state.
pub(super) const FACE_SPECIAL_MODE: u16 = 0x2;
/// Bits present in the originals that the PC renderer never reads (probably PlayStation
/// leftovers).
const FACE_UNREAD_BITS: [u16; 6] = [0x8000, 0x1000, 0x2000, 0x200, 0x100, 0x4];

/// Height of a floor tile's top: strats stand at tile y + 0.25 (FORMAT.md §6).
pub(super) const TOP: f32 = 0.25;
pub(super) const WATER_Y: f32 = -2.75;
pub(super) const WATER_MODEL: u32 = 0;

pub(super) const MATERIAL_NORMAL: u8 = 0;
/// The level door ends the level only when the llama stands on material 16 in its cell.
pub(super) const MATERIAL_EXIT: u8 = 16;
/// Special surfaces: the floor test skips 17, or 18 instead with the flag 0x8000000.
pub(super) const MATERIALS_SPECIAL: [u8; 2] = [17, 18];
/// Materials the debug view colours whose meaning is unknown.
pub(super) const MATERIALS_OTHER: [u8; 2] = [3, 7];
pub(super) const MATERIAL_WATER: u8 = 30;

/// The three collision groups of the header. Their meaning is unknown (FORMAT.md §3): the kit
/// puts solid floors and walls in A, thin things (fences, door leaves, ramp sides) in B, and
/// surfaces facing down in C.
#[derive(Debug, Clone, Copy)]
pub(super) enum Group {
    A = 0,
    B = 1,
    C = 2,
}

/// A texture entry with the face flags to draw it with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Skin {
    pub(super) texture: u16,
    pub(super) flags: u16,
}

impl Skin {
    pub(super) fn new(texture: u16) -> Skin {
        Skin { texture, flags: 0 }
    }

    pub(super) fn with(self, flags: u16) -> Skin {
        Skin {
            flags: self.flags | flags,
            ..self
        }
    }
}

/// A rectangle of `cells` quads, centred, facing `outward`, the texture's top towards `up`.
pub(super) struct Rect {
    pub(super) centre: Vec3,
    pub(super) outward: Vec3,
    pub(super) up: Vec3,
    pub(super) size: Vec2,
    pub(super) cells: (usize, usize),
}

/// Builds one model in export space.
///
/// Every polygon is given in *render winding*: the corner order whose right-hand normal is the
/// side the face is seen from. A quad in render winding starts at its texture rectangle's
/// bottom-right corner and goes on through bottom-left, top-left and top-right; split on the
/// diagonal it gives exactly the two halves of the UV rule (FORMAT.md §3): 0x800 (a,V1)(b,V1)(b,V0)
/// and 0x800|0x10 (b,V0)(a,V0)(a,V1), so the quad shows its whole rectangle the right way up.
pub(super) struct ModelBuilder {
    pub(super) rng: Rng,
    pub(super) positions: Vec<Vec3>,
    pub(super) faces: Vec<Face>,
    pub(super) collision: [Vec<CollisionPolygon>; 3],
    /// The scale its collision planes are written at.
    scale: PlaneScale,
}

impl ModelBuilder {
    pub(super) fn new(rng: &mut Rng, scale: PlaneScale) -> ModelBuilder {
        ModelBuilder {
            rng: rng.fork(),
            positions: Vec::new(),
            faces: Vec::new(),
            collision: Default::default(),
            scale,
        }
    }

    pub(super) fn vertex(&mut self, p: Vec3) -> u16 {
        self.positions.push(p);
        (self.positions.len() - 1) as u16
    }

    pub(super) fn face(&mut self, corners: [u16; 3], skin: Skin) {
        self.faces.push(Face {
            flags: skin.flags,
            corners,
            texture: skin.texture,
            ..Face::default()
        });
    }

    /// A quad in render winding as the two halves of its texture rectangle.
    pub(super) fn quad(&mut self, [br, bl, tl, tr]: [u16; 4], skin: Skin) {
        self.face([br, bl, tl], skin.with(face_flags::QUAD_HALF));
        self.face(
            [tl, tr, br],
            skin.with(face_flags::QUAD_HALF | face_flags::SECOND_HALF),
        );
    }

    /// Per-quad flags the originals sprinkle: mirrored textures, white (unlit) faces, and bits
    /// the PC renderer ignores.
    fn quirks(&mut self) -> u16 {
        let mut flags = 0;
        if self.rng.chance(0.1) {
            flags |= face_flags::MIRROR_U;
        }
        if self.rng.chance(0.015) {
            flags |= face_flags::IGNORE_COLOURS;
        }
        if self.rng.chance(0.03) {
            flags |= self.rng.pick(&FACE_UNREAD_BITS);
        }
        flags
    }

    /// A grid of quads over `f(u, v)`, u and v in [0, 1] along the texture's right and top; the
    /// faces look towards f_v × f_u. Returns the outer corners in render winding.
    pub(super) fn patch(
        &mut self,
        (nu, nv): (usize, usize),
        skin: Skin,
        f: impl Fn(f32, f32) -> Vec3,
    ) -> [u16; 4] {
        let mut grid = Vec::with_capacity((nu + 1) * (nv + 1));
        for j in 0..=nv {
            for i in 0..=nu {
                grid.push(self.vertex(f(i as f32 / nu as f32, j as f32 / nv as f32)));
            }
        }
        let at = |i: usize, j: usize| grid[j * (nu + 1) + i];
        for j in 0..nv {
            for i in 0..nu {
                let flags = self.quirks();
                self.quad(
                    [at(i + 1, j), at(i, j), at(i, j + 1), at(i + 1, j + 1)],
                    skin.with(flags),
                );
            }
        }
        [at(nu, 0), at(0, 0), at(0, nv), at(nu, nv)]
    }

    pub(super) fn rect(&mut self, r: &Rect, skin: Skin) -> [u16; 4] {
        let right = r.outward.cross(r.up);
        let (centre, up, size) = (r.centre, r.up, r.size);
        self.patch(r.cells, skin, move |u, v| {
            centre + right * ((u - 0.5) * size.x) + up * ((v - 0.5) * size.y)
        })
    }

    /// A box from `min` to `max` without its bottom (it stands on something), cut into pieces
    /// of about half a unit like the originals' walls; returns top and sides in render winding.
    pub(super) fn cuboid(&mut self, min: Vec3, max: Vec3, top: Skin, sides: Skin) -> Vec<[u16; 4]> {
        let size = max - min;
        let centre = (min + max) * 0.5;
        let pieces = |length: f32| ((length / 0.5).round() as usize).max(1);
        let mut faces = vec![self.rect(
            &Rect {
                centre: Vec3::new(centre.x, max.y, centre.z),
                outward: Vec3::Y,
                up: Vec3::Z,
                size: Vec2::new(size.x, size.z),
                cells: (pieces(size.x), pieces(size.z)),
            },
            top,
        )];
        for (outward, width) in [
            (Vec3::X, size.z),
            (Vec3::NEG_X, size.z),
            (Vec3::Z, size.x),
            (Vec3::NEG_Z, size.x),
        ] {
            let face_centre = centre + outward * (size * 0.5);
            faces.push(self.rect(
                &Rect {
                    centre: face_centre,
                    outward,
                    up: Vec3::Y,
                    size: Vec2::new(width, size.y),
                    cells: (pieces(width), pieces(size.y)),
                },
                sides,
            ));
        }
        faces
    }

    /// Render faces between the rings of a surface of revolution (see [`revolve`]): quads
    /// between full rings, fans of plain triangles to a pole.
    pub(super) fn revolved(&mut self, rings: &[Vec<Vec3>], sides: Skin, caps: Skin) {
        let indices: Vec<Vec<u16>> = rings
            .iter()
            .map(|ring| ring.iter().map(|&p| self.vertex(p)).collect())
            .collect();
        for polygon in ring_polygons(&indices) {
            match polygon[..] {
                [br, bl, tl, tr] => {
                    let flags = self.quirks();
                    self.quad([br, bl, tl, tr], sides.with(flags));
                }
                [a, b, c] => self.face([a, b, c], caps),
                _ => unreachable!("ring polygons are triangles or quads"),
            }
        }
    }

    /// Adds a collision polygon given in export space in render winding. Collision is stored
    /// in game space, z negated (FORMAT.md §2): a mirror image, so the corners after the first
    /// are reversed to keep the surface normal on the side the faces are seen from. Polygons
    /// facing down go to group C.
    pub(super) fn collide(&mut self, group: Group, material: u8, corners: &[Vec3]) {
        let mut game: Vec<Vec3> = corners.iter().map(|c| Vec3::new(c.x, c.y, -c.z)).collect();
        game[1..].reverse();
        let polygon = encode_collision_polygon_at(&game, material, self.scale)
            .expect("kit surfaces are convex, planar and within reach of the tile origin");
        let group = if polygon.kind & COLLISION_FACING_DOWN != 0 {
            Group::C
        } else {
            group
        };
        self.collision[group as usize].push(polygon);
    }

    pub(super) fn collide_vertices(&mut self, group: Group, material: u8, corners: &[u16]) {
        let points: Vec<Vec3> = corners
            .iter()
            .map(|&i| self.positions[i as usize])
            .collect();
        self.collide(group, material, &points);
    }

    /// Planes, smoothed normals, a box with the originals' margin, and faces in render batches.
    pub(super) fn finish(mut self, entries: &[TextureEntry]) -> Model {
        let positions: Vec<[f32; 3]> = self.positions.iter().map(|p| p.to_array()).collect();
        for face in &mut self.faces {
            let [a, b, c] = face.corners.map(|i| self.positions[i as usize]);
            face.plane = face_plane(a, b, c);
        }
        let normals = smooth_normals(&positions, &self.faces);
        let (centre, box_corners) = bounding_box(&positions, self.rng.range(0.004, 0.014));
        sort_into_batches(&mut self.faces, entries);
        Model {
            centre,
            box_corners,
            vertices: positions
                .into_iter()
                .zip(normals)
                .map(|(position, normal)| Vertex { position, normal })
                .collect(),
            faces: self.faces,
            collision: self.collision,
            slots: LoadSlots::default(),
        }
    }
}

/// Points of a surface of revolution about the vertical axis through `centre`: `profile` lists
/// (radius, height) from top to bottom, radius 0 giving a single pole; x and z radii are scaled
/// by `scale`, and each point moves radially by a random factor within 1 ± jitter/2.
pub(super) fn revolve(
    rng: &mut Rng,
    centre: Vec3,
    sides: usize,
    profile: &[(f32, f32)],
    scale: Vec2,
    jitter: f32,
) -> Vec<Vec<Vec3>> {
    profile
        .iter()
        .map(|&(radius, height)| {
            if radius == 0.0 {
                return vec![centre + Vec3::Y * height];
            }
            (0..sides)
                .map(|k| {
                    let (sin, cos) = sin_cos_turns(k as f32 / sides as f32);
                    let r = radius * (1.0 + jitter * (rng.unit() - 0.5));
                    centre + Vec3::new(cos * r * scale.x, height, sin * r * scale.y)
                })
                .collect()
        })
        .collect()
}

/// The polygons between consecutive rings in render winding, seen from outside: quads
/// (bottom-right, bottom-left, top-left, top-right, angles increasing to the right), and
/// triangles to a pole whose first corner is the pole.
pub(super) fn ring_polygons<T: Copy>(rings: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut polygons = Vec::new();
    for pair in rings.windows(2) {
        let (upper, lower) = (&pair[0], &pair[1]);
        let n = upper.len().max(lower.len());
        for k in 0..n {
            let next = (k + 1) % n;
            polygons.push(match (upper.len(), lower.len()) {
                (1, _) => vec![upper[0], lower[next], lower[k]],
                (_, 1) => vec![lower[0], upper[k], upper[next]],
                _ => vec![lower[next], lower[k], upper[k], upper[next]],
            });
        }
    }
    polygons
}
