//! TRAK: the tile kit.

use glam::{Vec2, Vec3, Vec3Swizzles};

use super::builder::{
    revolve, ring_polygons, Group, ModelBuilder, Rect, Skin, FACE_SPECIAL_MODE, MATERIALS_OTHER,
    MATERIALS_SPECIAL, MATERIAL_EXIT, MATERIAL_NORMAL, MATERIAL_WATER, TOP, WATER_Y,
};
use super::plan::KitPlan;
use super::textures::{Surface, Textures};
use super::CollisionScales;
use crate::level::Model;
use crate::raw::face_flags;
use crate::rng::{sin_cos_turns, Rng};

/// The tile models and the roles they play in the layout.
#[derive(Default)]
pub(super) struct Kit {
    pub(super) models: Vec<Model>,
    pub(super) floors: Vec<u32>,
    /// Floors with a special surface over part of them (materials 17, 18).
    pub(super) special_floors: Vec<u32>,
    pub(super) edges: Vec<u32>,
    pub(super) skirts: Vec<u32>,
    pub(super) exit: u32,
    /// Ramps by the step they climb: half a unit, a whole unit.
    pub(super) ramps: [Vec<u32>; 2],
    pub(super) props: Vec<u32>,
    /// Props that stand anywhere in their cell, turned by any angle (rocks, pillars).
    pub(super) loose: Vec<u32>,
    /// Door closed (placed) and open (only ever a tile swap's model B).
    pub(super) doors: Vec<(u32, u32)>,
    /// Rocks in the sea beyond the grid's border.
    pub(super) backdrops: Vec<u32>,
    /// The scale each model's collision planes are written at.
    scales: CollisionScales,
}

impl Kit {
    fn make(
        &mut self,
        rng: &mut Rng,
        textures: &Textures,
        shape: impl FnOnce(&mut ModelBuilder),
    ) -> u32 {
        let scale = self.scales.of_model(self.models.len());
        let mut builder = ModelBuilder::new(rng, scale);
        shape(&mut builder);
        self.models.push(builder.finish(textures.entries()));
        (self.models.len() - 1) as u32
    }

    pub(super) fn faces(&self, model: u32) -> usize {
        self.models[model as usize].faces.len()
    }
}

pub(super) fn build_kit(
    rng: &mut Rng,
    plan: &KitPlan,
    textures: &Textures,
    scales: CollisionScales,
) -> Kit {
    let mut kit = Kit {
        scales,
        ..Kit::default()
    };
    let t = textures;
    let water = kit.make(rng, t, water_plane);
    // No faces to smooth over: the plane faces up.
    for v in &mut kit.models[water as usize].vertices {
        v.normal = [0.0, 1.0, 0.0];
    }
    for _ in 0..plan.floors {
        let m = kit.make(rng, t, |b| {
            let style = b.rng.below(5);
            floor(b, t, style)
        });
        kit.floors.push(m);
    }
    for _ in 0..plan.special_floors {
        let material = rng.pick(&MATERIALS_SPECIAL);
        let m = kit.make(rng, t, |b| special_floor(b, t, material));
        kit.special_floors.push(m);
    }
    for _ in 0..plan.edges {
        let m = kit.make(rng, t, |b| {
            let style = b.rng.below(2);
            floor(b, t, style);
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
        kit.loose.push(m);
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
        kit.loose.push(m);
    }
    for _ in 0..plan.doors {
        let closed = kit.make(rng, t, |b| door(b, t, false));
        let open = kit.make(rng, t, |b| door(b, t, true));
        kit.props.push(closed);
        kit.doors.push((closed, open));
    }
    for _ in 0..plan.backdrops {
        let m = kit.make(rng, t, |b| backdrop(b, t));
        kit.backdrops.push(m);
    }
    kit
}

/// Model 0: the invisible plane under the islands (4 vertices, no faces, one water polygon),
/// which catches a fall into the water (FORMAT.md §5).
pub(super) fn water_plane(b: &mut ModelBuilder) {
    let corners = [(0.5, -0.5), (-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)];
    let points = corners.map(|(x, z)| Vec3::new(x, WATER_Y, z));
    for p in points {
        b.vertex(p);
    }
    b.collide(Group::A, MATERIAL_WATER, &points);
}

/// A floor plate of ordinary ground with its top at y = 0.25 over the whole cell. Styles 0–1:
/// flat, 1×1 or 2×2 quads, one collision quad; styles 2–4: terrain of 2×2 to 4×4 quads with a
/// bumpy inside (the border stays at 0.25 to meet the neighbours), one collision triangle per
/// face.
pub(super) fn floor(b: &mut ModelBuilder, t: &Textures, style: usize) {
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
        b.collide_vertices(Group::A, MATERIAL_NORMAL, &outline);
    } else {
        for f in first_face..b.faces.len() {
            let corners = b.faces[f].corners;
            b.collide_vertices(Group::A, MATERIAL_NORMAL, &corners);
        }
    }
}

/// Height of a special surface over the ground.
const SPECIAL_LAYER: f32 = 0.08;

/// A flat floor with a special surface over part of it: a layer of mud just above the ground,
/// of material 17 or 18. The notes know these materials only as special surfaces that some
/// strats do not stand on (FORMAT.md §4: the floor test skips 0x11, or 0x12 instead with the
/// flag 0x8000000, which note 002 ties to WFPC), so there is always ordinary ground under one:
/// whoever does not stand on the layer stands on the floor below it.
pub(super) fn special_floor(b: &mut ModelBuilder, t: &Textures, material: u8) {
    let style = b.rng.below(2);
    floor(b, t, style);
    let size = Vec2::new(b.rng.range(0.35, 0.8), b.rng.range(0.35, 0.8));
    let room = (Vec2::splat(0.9) - size) / 2.0;
    let centre = Vec2::new(b.rng.range(-room.x, room.x), b.rng.range(-room.y, room.y));
    let skin = Skin::new(t.pick(&mut b.rng, Surface::Dirt));
    let layer = b.rect(
        &Rect {
            centre: Vec3::new(centre.x, TOP + SPECIAL_LAYER, centre.y),
            outward: Vec3::Y,
            up: Vec3::Z,
            size,
            cells: (1, 1),
        },
        skin,
    );
    b.collide_vertices(Group::A, material, &layer);
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
    b.collide_vertices(Group::A, MATERIAL_NORMAL, &slope);
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

/// A block standing on the floor, in its cell or reaching into the neighbouring cells (up to
/// 1.5 from the tile origin).
pub(super) fn block(b: &mut ModelBuilder, t: &Textures) {
    // Most blocks stay in their cell; some reach into the neighbouring cells.
    let reaching = b.rng.chance(0.3);
    let widest = if reaching { 1.2 } else { 0.9 };
    let size = Vec3::new(
        b.rng.range(0.3, widest),
        0.5 * (1 + b.rng.below(4)) as f32,
        b.rng.range(0.3, widest),
    );
    let reach = if reaching {
        (Vec2::splat(1.5) - size.xz() / 2.0).min(Vec2::splat(0.9))
    } else {
        Vec2::splat(0.45) - size.xz() / 2.0
    };
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

/// A rock: a bumpy ellipsoid on the floor or sunk into it. Small rocks sit near the tile origin
/// (placed at a cell's centre most stay in it; placed off-centre and turned they reach into the
/// cells around); the big one reaches into the neighbouring cells wherever it stands.
fn rock(b: &mut ModelBuilder, t: &Textures, big: bool) {
    let (sides, rings) = if big {
        (28, 15)
    } else {
        (5 + b.rng.below(10), 3 + b.rng.below(6))
    };
    let radius = if big { 1.3 } else { b.rng.range(0.2, 0.6) };
    let scale = Vec2::new(b.rng.range(0.8, 1.1), b.rng.range(0.8, 1.1));
    let reach = if big { 0.15 } else { 0.1 };
    // Sunk up to a third into the floor, or resting on it with an overhang all round.
    let sunk = b.rng.range(-0.35, 0.35);
    let centre = Vec3::new(
        b.rng.range(-reach, reach),
        TOP + radius * sunk,
        b.rng.range(-reach, reach),
    );
    boulder(b, t, centre, radius, scale, 1.0, (sides, rings));
}

/// How far a rock's surface strays from its ellipsoid, ± half of this.
const ROCK_JITTER: f32 = 0.15;
/// How far the originals' tile models reach from their origin (FORMAT.md §5: "roughly −0.5..0.5
/// in x/z, but they can stick out up to ±2.4").
const MODEL_REACH: f32 = 2.4;

/// A rock standing in the sea at the grid's border, from under the water to above the islands.
/// Its tile stands in a border cell, turned so that local +z points out of the grid, and the
/// rock reaches out to 2.4 units from the tile origin, beyond the grid; its inner side reaches
/// into the border cells, or stays just outside them.
fn backdrop(b: &mut ModelBuilder, t: &Textures) {
    let radius = b.rng.range(0.9, 1.1);
    let scale = Vec2::new(b.rng.range(0.9, 1.3), b.rng.range(0.9, 1.05));
    let depth = radius * scale.y * (1.0 + ROCK_JITTER / 2.0);
    let tall = b.rng.range(1.8, 2.4);
    let centre = Vec3::new(b.rng.range(-0.3, 0.3), WATER_Y + 1.6, MODEL_REACH - depth);
    boulder(b, t, centre, radius, scale, tall, (16, 9));
}

/// A bumpy ellipsoid of `radius` about `centre`, x and z scaled by `scale`, y by `tall`. Its
/// collision is a smooth, coarser ellipsoid just inside it (the bumps would make warped quads),
/// without the parts under the floor.
fn boulder(
    b: &mut ModelBuilder,
    t: &Textures,
    centre: Vec3,
    radius: f32,
    scale: Vec2,
    tall: f32,
    (sides, rings): (usize, usize),
) {
    let profile = |rings: usize, r: f32| -> Vec<(f32, f32)> {
        (0..=rings)
            .map(|k| {
                let (sin, cos) = sin_cos_turns(0.5 * k as f32 / rings as f32);
                (
                    if k == 0 || k == rings { 0.0 } else { sin * r },
                    cos * r * tall,
                )
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
        ROCK_JITTER,
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

/// A door frame on the cell's centre line, its two wings closed across it or swung open into the
/// cell. The two are a tile swap's models A and B; open, the wings stay inside the cell, so
/// that the swapped model's collision needs no other cell's tiles either.
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
    let skin = Skin::new(t.pick(&mut b.rng, Surface::Door)).with(face_flags::DOUBLE_SIDED);
    for side in [-1.0, 1.0] {
        let wing = if open {
            Rect {
                centre: Vec3::new(0.4 * side, TOP + height / 2.0, 0.2),
                outward: Vec3::X,
                up: Vec3::Y,
                size: Vec2::new(0.4, height),
                cells: (1, 2),
            }
        } else {
            Rect {
                centre: Vec3::new(0.2 * side, TOP + height / 2.0, 0.0),
                outward: Vec3::Z,
                up: Vec3::Y,
                size: Vec2::new(0.4, height),
                cells: (1, 2),
            }
        };
        let wing = b.rect(&wing, skin);
        b.collide_vertices(Group::B, MATERIAL_NORMAL, &wing);
    }
}
