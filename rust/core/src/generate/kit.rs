//! TRAK: the tile kit.

use glam::{Vec2, Vec3};

use super::builder::{
    revolve, ring_polygons, Group, ModelBuilder, Rect, Skin, FACE_SPECIAL_MODE, MATERIALS_OTHER,
    MATERIALS_SPECIAL, MATERIAL_EXIT, MATERIAL_NORMAL, MATERIAL_WATER, TOP, WATER_Y,
};
use super::plan::KitPlan;
use super::rng::{sin_cos_turns, Rng};
use super::textures::{Surface, Textures};
use crate::level::Model;
use crate::raw::face_flags;

/// The tile models and the roles they play in the layout.
#[derive(Default)]
pub(super) struct Kit {
    pub(super) models: Vec<Model>,
    pub(super) floors: Vec<u32>,
    pub(super) edges: Vec<u32>,
    pub(super) skirts: Vec<u32>,
    pub(super) exit: u32,
    /// Ramps by the step they climb: half a unit, a whole unit.
    pub(super) ramps: [Vec<u32>; 2],
    pub(super) props: Vec<u32>,
    /// Door closed (placed) and open (only ever a tile swap's model B).
    pub(super) doors: Vec<(u32, u32)>,
}

impl Kit {
    fn make(
        &mut self,
        rng: &mut Rng,
        textures: &Textures,
        shape: impl FnOnce(&mut ModelBuilder),
    ) -> u32 {
        let mut builder = ModelBuilder::new(rng);
        shape(&mut builder);
        self.models.push(builder.finish(textures.entries()));
        (self.models.len() - 1) as u32
    }

    pub(super) fn faces(&self, model: u32) -> usize {
        self.models[model as usize].faces.len()
    }
}

pub(super) fn build_kit(rng: &mut Rng, plan: &KitPlan, textures: &Textures) -> Kit {
    let mut kit = Kit::default();
    let t = textures;
    let water = kit.make(rng, t, water_plane);
    // No faces to smooth over: the plane faces up.
    for v in &mut kit.models[water as usize].vertices {
        v.normal = [0.0, 1.0, 0.0];
    }
    for k in 0..plan.floors + plan.special_floors {
        let material = if k < plan.floors {
            MATERIAL_NORMAL
        } else {
            rng.pick(&MATERIALS_SPECIAL)
        };
        let m = kit.make(rng, t, |b| {
            let style = b.rng.below(5);
            floor(b, t, style, material)
        });
        kit.floors.push(m);
    }
    for _ in 0..plan.edges {
        let m = kit.make(rng, t, |b| {
            let style = b.rng.below(2);
            floor(b, t, style, MATERIAL_NORMAL);
            skirt(b, t, style + 1);
        });
        kit.edges.push(m);
    }
    for _ in 0..plan.skirts {
        let m = kit.make(rng, t, |b| {
            let pieces = 1 + b.rng.below(2);
            skirt(b, t, pieces)
        });
        kit.skirts.push(m);
    }
    kit.exit = kit.make(rng, t, |b| exit_floor(b, t));
    for (step, height) in [0.5, 1.0].into_iter().enumerate() {
        for _ in 0..plan.ramps_per_step {
            let m = kit.make(rng, t, |b| ramp(b, t, height));
            kit.ramps[step].push(m);
        }
    }
    for k in 0..plan.rocks + plan.big_rocks {
        let big = k >= plan.rocks;
        let m = kit.make(rng, t, |b| rock(b, t, big));
        kit.props.push(m);
    }
    for _ in 0..plan.blocks {
        let m = kit.make(rng, t, |b| block(b, t));
        kit.props.push(m);
    }
    for _ in 0..plan.fences {
        let m = kit.make(rng, t, |b| fence(b, t));
        kit.props.push(m);
    }
    for _ in 0..plan.pillars {
        let m = kit.make(rng, t, |b| pillar(b, t));
        kit.props.push(m);
    }
    for _ in 0..plan.doors {
        let closed = kit.make(rng, t, |b| door(b, t, false));
        let open = kit.make(rng, t, |b| door(b, t, true));
        kit.props.push(closed);
        kit.doors.push((closed, open));
    }
    kit
}

/// Model 0: the invisible plane under the islands (4 vertices, no faces, one water polygon),
/// which catches a fall into the water (note 001 §4).
pub(super) fn water_plane(b: &mut ModelBuilder) {
    let corners = [(0.5, -0.5), (-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)];
    let points = corners.map(|(x, z)| Vec3::new(x, WATER_Y, z));
    for p in points {
        b.vertex(p);
    }
    b.collide(Group::A, MATERIAL_WATER, &points);
}

/// A floor plate with its top at y = 0.25 over the whole cell. Styles 0–1: flat, 1×1 or 2×2
/// quads, one collision quad; styles 2–4: terrain of 2×2 to 4×4 quads with a bumpy inside (the
/// border stays at 0.25 to meet the neighbours), one collision triangle per face.
pub(super) fn floor(b: &mut ModelBuilder, t: &Textures, style: usize, material: u8) {
    let surface = b.rng.pick(&[
        Surface::Grass,
        Surface::Grass,
        Surface::Dirt,
        Surface::Stone,
    ]);
    let skin = Skin::new(t.pick(&mut b.rng, surface));
    let n = if style < 2 { style + 1 } else { style };
    let bumps: Vec<f32> = (0..(n + 1) * (n + 1))
        .map(|k| {
            let (i, j) = (k % (n + 1), k / (n + 1));
            let inside = i > 0 && j > 0 && i < n && j < n;
            if style >= 2 && inside {
                b.rng.range(-0.06, 0.06)
            } else {
                0.0
            }
        })
        .collect();
    let first_face = b.faces.len();
    let outline = b.patch((n, n), skin, |u, v| {
        let bump =
            bumps[(v * n as f32).round() as usize * (n + 1) + (u * n as f32).round() as usize];
        Vec3::new(u - 0.5, TOP + bump, v - 0.5)
    });
    if style < 2 {
        b.collide_vertices(Group::A, material, &outline);
    } else {
        for f in first_face..b.faces.len() {
            let corners = b.faces[f].corners;
            b.collide_vertices(Group::A, material, &corners);
        }
    }
}

/// The cliff below an island edge, on the tile's local +z side: a tile turned by side × 1024
/// shows it towards that side (water or lower ground).
pub(super) fn skirt(b: &mut ModelBuilder, t: &Textures, pieces: usize) {
    let depth = 1.25;
    let skin = Skin::new(t.pick(&mut b.rng, Surface::Cliff));
    let wall = b.rect(
        &Rect {
            centre: Vec3::new(0.0, TOP - depth / 2.0, 0.5),
            outward: Vec3::Z,
            up: Vec3::Y,
            size: Vec2::new(1.0, depth),
            cells: (pieces, 2),
        },
        skin,
    );
    b.collide_vertices(Group::A, MATERIAL_NORMAL, &wall);
}

/// The floor under the level door: material 16, a mat drawn unlit so it glows.
pub(super) fn exit_floor(b: &mut ModelBuilder, t: &Textures) {
    let skin = Skin::new(t.pick(&mut b.rng, Surface::Mat)).with(face_flags::IGNORE_COLOURS);
    let outline = b.patch((1, 1), skin, |u, v| Vec3::new(u - 0.5, TOP, v - 0.5));
    b.collide_vertices(Group::A, MATERIAL_EXIT, &outline);
}

/// A wedge climbing `step` from the cell's −z edge to its +z edge, sides as plain triangles.
pub(super) fn ramp(b: &mut ModelBuilder, t: &Textures, step: f32) {
    let top = Skin::new(t.pick(&mut b.rng, Surface::Stone));
    let side = Skin::new(t.pick(&mut b.rng, Surface::Cliff));
    let pieces = 1 + b.rng.below(2);
    let slope = b.patch((pieces, pieces), top, |u, v| {
        Vec3::new(u - 0.5, TOP + step * v, v - 0.5)
    });
    let material = if b.rng.chance(0.2) {
        b.rng.pick(&MATERIALS_SPECIAL)
    } else {
        MATERIAL_NORMAL
    };
    b.collide_vertices(Group::A, material, &slope);
    let back = b.rect(
        &Rect {
            centre: Vec3::new(0.0, TOP + step / 2.0, 0.5),
            outward: Vec3::Z,
            up: Vec3::Y,
            size: Vec2::new(1.0, step),
            cells: (1, 1),
        },
        side,
    );
    b.collide_vertices(Group::A, MATERIAL_NORMAL, &back);
    for x in [0.5, -0.5] {
        let low = b.vertex(Vec3::new(x, TOP, -0.5));
        let corner = b.vertex(Vec3::new(x, TOP, 0.5));
        let high = b.vertex(Vec3::new(x, TOP + step, 0.5));
        // A plain triangle shows the rectangle's lower-right half, right angle at its first
        // corner: upright on the +x side; on the −x side, where the right angle is on the
        // left, turned on its side rather than facing inwards.
        let corners = if x > 0.0 {
            [corner, low, high]
        } else {
            [corner, high, low]
        };
        b.face(corners, side);
        b.collide_vertices(Group::B, MATERIAL_NORMAL, &corners);
    }
}

/// A block standing on the floor, sometimes reaching into the neighbouring cells (up to 1.5
/// from the tile origin).
pub(super) fn block(b: &mut ModelBuilder, t: &Textures) {
    let size = Vec3::new(
        b.rng.range(0.3, 1.2),
        0.5 * (1 + b.rng.below(4)) as f32,
        b.rng.range(0.3, 1.2),
    );
    let reach = Vec2::new(1.5 - size.x / 2.0, 1.5 - size.z / 2.0).min(Vec2::splat(0.9));
    let centre = Vec2::new(
        b.rng.range(-reach.x, reach.x),
        b.rng.range(-reach.y, reach.y),
    );
    let min = Vec3::new(centre.x - size.x / 2.0, TOP, centre.y - size.z / 2.0);
    let top = Skin::new(t.pick(&mut b.rng, Surface::Stone));
    let side_surface = b.rng.pick(&[Surface::Brick, Surface::Stone, Surface::Wood]);
    let sides = Skin::new(t.pick(&mut b.rng, side_surface));
    let faces = b.cuboid(min, min + size, top, sides);
    let material = if b.rng.chance(0.1) {
        b.rng.pick(&MATERIALS_OTHER)
    } else {
        MATERIAL_NORMAL
    };
    for corners in faces {
        b.collide_vertices(Group::A, material, &corners);
    }
}

/// A leafy fence along the cell's +z edge: one double-sided panel, see-through where the
/// texture is transparent.
pub(super) fn fence(b: &mut ModelBuilder, t: &Textures) {
    let height = b.rng.range(0.5, 1.0);
    let mut skin = Skin::new(t.pick(&mut b.rng, Surface::Foliage)).with(face_flags::DOUBLE_SIDED);
    if b.rng.chance(0.3) {
        skin = skin.with(FACE_SPECIAL_MODE);
    }
    let panel = b.rect(
        &Rect {
            centre: Vec3::new(0.0, TOP + height / 2.0, 0.45),
            outward: Vec3::Z,
            up: Vec3::Y,
            size: Vec2::new(1.0, height),
            cells: (2, 1),
        },
        skin,
    );
    b.collide_vertices(Group::B, MATERIAL_NORMAL, &panel);
}

/// A six- or eight-sided pillar with a flat-coloured cap.
pub(super) fn pillar(b: &mut ModelBuilder, t: &Textures) {
    let sides = if b.rng.chance(0.5) { 6 } else { 8 };
    let radius = b.rng.range(0.12, 0.3);
    let height = b.rng.range(1.0, 2.5);
    let centre = Vec3::new(b.rng.range(-0.25, 0.25), TOP, b.rng.range(-0.25, 0.25));
    let pieces = (height / 0.8).ceil() as usize;
    let profile: Vec<(f32, f32)> = std::iter::once((0.0, height))
        .chain((0..=pieces).map(|k| (radius, height * (1.0 - k as f32 / pieces as f32))))
        .collect();
    let rings = revolve(&mut b.rng, centre, sides, &profile, Vec2::ONE, 0.0);
    let wall = Skin::new(t.pick(&mut b.rng, Surface::Stone));
    let cap = Skin::new(t.pick(&mut b.rng, Surface::Flat));
    b.revolved(&rings, wall, cap);
    for polygon in ring_polygons(&rings) {
        b.collide(Group::A, MATERIAL_NORMAL, &polygon);
    }
}

/// A rock: a bumpy ellipsoid on the floor or sunk into it. Its collision is a smooth, coarser
/// ellipsoid just inside it (the bumps would make warped quads), without the parts under the
/// floor.
fn rock(b: &mut ModelBuilder, t: &Textures, big: bool) {
    let (sides, rings) = if big {
        (28, 15)
    } else {
        (5 + b.rng.below(10), 3 + b.rng.below(6))
    };
    let radius = if big { 1.3 } else { b.rng.range(0.25, 0.9) };
    let scale = Vec2::new(b.rng.range(0.8, 1.15), b.rng.range(0.8, 1.15));
    let reach = (1.5 - radius * 1.15).max(0.0);
    // Sunk up to a third into the floor, or resting on it with an overhang all round.
    let sunk = b.rng.range(-0.35, 0.35);
    let centre = Vec3::new(
        b.rng.range(-reach, reach),
        TOP + radius * sunk,
        b.rng.range(-reach, reach),
    );
    let profile = |rings: usize, r: f32| -> Vec<(f32, f32)> {
        (0..=rings)
            .map(|k| {
                let (sin, cos) = sin_cos_turns(0.5 * k as f32 / rings as f32);
                (if k == 0 || k == rings { 0.0 } else { sin * r }, cos * r)
            })
            .collect()
    };
    let surface = Skin::new(t.pick(&mut b.rng, Surface::Cliff));
    let render = revolve(
        &mut b.rng,
        centre,
        sides,
        &profile(rings, radius),
        scale,
        0.15,
    );
    b.revolved(&render, surface, surface);
    let coarse = revolve(&mut b.rng, centre, 6, &profile(4, radius * 0.9), scale, 0.0);
    let material = if b.rng.chance(0.15) {
        b.rng.pick(&MATERIALS_OTHER)
    } else {
        MATERIAL_NORMAL
    };
    for polygon in ring_polygons(&coarse) {
        if polygon.iter().any(|p| p.y > TOP - 0.05) {
            b.collide(Group::A, material, &polygon);
        }
    }
}

/// A door frame on the cell's centre line; the door leaf closed across it, or swung open. The
/// two are a tile swap's models A and B.
pub(super) fn door(b: &mut ModelBuilder, t: &Textures, open: bool) {
    let wood = Skin::new(t.pick(&mut b.rng, Surface::Wood));
    let height = 1.3;
    for x in [-0.5, 0.4] {
        let post = b.cuboid(
            Vec3::new(x, TOP, -0.08),
            Vec3::new(x + 0.1, TOP + height, 0.08),
            wood,
            wood,
        );
        for corners in post {
            b.collide_vertices(Group::A, MATERIAL_NORMAL, &corners);
        }
    }
    let lintel = b.cuboid(
        Vec3::new(-0.5, TOP + height, -0.08),
        Vec3::new(0.5, TOP + height + 0.2, 0.08),
        wood,
        wood,
    );
    b.collide_vertices(Group::A, MATERIAL_NORMAL, &lintel[0]);
    let leaf = if open {
        Rect {
            centre: Vec3::new(-0.4, TOP + height / 2.0, 0.4),
            outward: Vec3::X,
            up: Vec3::Y,
            size: Vec2::new(0.8, height),
            cells: (1, 2),
        }
    } else {
        Rect {
            centre: Vec3::new(0.0, TOP + height / 2.0, 0.0),
            outward: Vec3::Z,
            up: Vec3::Y,
            size: Vec2::new(0.8, height),
            cells: (1, 2),
        }
    };
    let skin = Skin::new(t.pick(&mut b.rng, Surface::Door)).with(face_flags::DOUBLE_SIDED);
    let leaf = b.rect(&leaf, skin);
    b.collide_vertices(Group::B, MATERIAL_NORMAL, &leaf);
}
