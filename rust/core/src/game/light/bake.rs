//! Baking: each chosen tile's vertex colours from the light, as the notes' level builders do.

use glam::Vec3A;
use rayon::prelude::*;
use serde::Serialize;

use super::rays::{tile_vertices, Occluders, SkySamples, WorldVertex};
use super::{rays_cast, Lamp, LightError, Lighting, DEFAULT_RAYS, MAX_RAYS};
use crate::level::map::Rgba;
use crate::Level;

/// Which tiles a bake colours.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Which {
    #[default]
    All,
    Tiles(Vec<usize>),
    /// Tiles not lit yet: every vertex of one colour, as new geometry arrives (flat white, or
    /// painted one colour).
    Unlit,
}

impl Which {
    /// What the command line and Python ask for: the tiles listed, else with `unlit` those not
    /// lit yet, else all.
    pub fn of(tiles: Option<Vec<usize>>, unlit: bool) -> Which {
        match (tiles, unlit) {
            (Some(list), _) => Which::Tiles(list),
            (None, true) => Which::Unlit,
            (None, false) => Which::All,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BakeOptions {
    pub which: Which,
    /// Sky rays a vertex (1 to [`MAX_RAYS`]).
    pub rays: u32,
    /// Also bake tiles with animated colours (more than one set), every set alike; otherwise
    /// they keep theirs.
    pub animated: bool,
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            which: Which::All,
            rays: DEFAULT_RAYS,
            animated: false,
        }
    }
}

/// What a bake did, tile by tile.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct BakeReport {
    /// The tiles whose colours were baked.
    pub baked: Vec<usize>,
    /// Chosen tiles with animated colours, kept as they were.
    pub animated_kept: Vec<usize>,
    /// Vertices baked.
    pub vertices: usize,
}

/// Vertices baked between two calls of the progress callback.
const PROGRESS_STEP: usize = 8192;

/// Bakes the light into the vertex colours of the chosen tiles of `level`, against the faces of
/// all its tiles; `progress(done, total)` hears of the vertices as they are done. The byte of
/// each colour entry that is not a colour (the first entry's says how many sets follow) and the
/// swap models' colours are kept, and every other tile's colours too.
pub fn bake(
    level: &mut Level,
    lighting: &Lighting,
    options: &BakeOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<BakeReport, LightError> {
    let sun = -lighting.checked()?;
    if !(1..=MAX_RAYS).contains(&options.rays) {
        return Err(LightError::Rays { rays: options.rays });
    }
    let occluders = Occluders::of(level)?;
    let (Some(map), Some(trak)) = (level.map(), level.trak()) else {
        return Err(LightError::NoTiles);
    };
    let chosen: Vec<usize> = match &options.which {
        Which::All => (0..map.tiles.len()).collect(),
        Which::Tiles(list) => {
            if let Some(&tile) = list.iter().find(|&&t| t >= map.tiles.len()) {
                return Err(LightError::NoSuchTile {
                    tile,
                    tiles: map.tiles.len(),
                });
            }
            let mut list = list.clone();
            list.sort_unstable();
            list.dedup();
            list
        }
        Which::Unlit => (0..map.tiles.len())
            .filter(|&t| one_colour(&map.tiles[t].colours))
            .collect(),
    };
    let mut report = BakeReport::default();
    // Every chosen tile with colours to bake, with its model.
    let mut jobs = Vec::new();
    for t in chosen {
        let tile = &map.tiles[t];
        let Some(model) = trak.models.get(tile.model_index as usize) else {
            continue;
        };
        let n = model.vertices.len();
        if n == 0 || tile.colours.len() % n != 0 || tile.colours.is_empty() {
            continue;
        }
        if tile.colours.len() > n && !options.animated {
            report.animated_kept.push(t);
            continue;
        }
        jobs.push((t, tile, model));
    }
    let total: usize = jobs.iter().map(|(_, _, model)| model.vertices.len()).sum();
    rays_cast(total, rays_a_vertex(options.rays, 0))?;
    let jobs: Vec<(usize, Vec<WorldVertex>)> = jobs
        .into_iter()
        .map(|(t, tile, model)| (t, tile_vertices(tile, model)))
        .collect();
    let vertices: Vec<WorldVertex> = jobs.iter().flat_map(|(_, v)| v).copied().collect();
    let total = vertices.len();
    let colours = shade_all(
        &occluders,
        &vertices,
        lighting,
        &[],
        sun,
        options.rays,
        progress,
    );
    let map = level.map_mut().expect("the level has MAP");
    let mut next = colours.iter();
    for (t, vertices) in &jobs {
        let n = vertices.len();
        let baked: Vec<[u8; 3]> = next.by_ref().take(n).copied().collect();
        for (k, entry) in map.tiles[*t].colours.iter_mut().enumerate() {
            entry[..3].copy_from_slice(&baked[k % n]);
        }
        report.baked.push(*t);
    }
    report.vertices = total;
    Ok(report)
}

/// The raw colours (R, G, B bytes) the light, and `lamps` besides, give vertices standing
/// anywhere among the level's tiles, each a position and a normal in world game space (any
/// length; none is straight up): what a tool bakes into geometry the level does not hold yet,
/// against the level's faces.
pub fn bake_points(
    level: &Level,
    points: &[([f32; 3], [f32; 3])],
    lighting: &Lighting,
    lamps: &[Lamp],
    rays: u32,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<[u8; 3]>, LightError> {
    let sun = -lighting.checked()?;
    for (k, lamp) in lamps.iter().enumerate() {
        lamp.checked(k)?;
    }
    if !(1..=MAX_RAYS).contains(&rays) {
        return Err(LightError::Rays { rays });
    }
    if points.len() > MAX_POINTS {
        return Err(LightError::TooManyPoints(points.len()));
    }
    rays_cast(points.len(), rays_a_vertex(rays, lamps.len()))?;
    if let Some(k) = points
        .iter()
        .position(|(p, n)| p.iter().chain(n).any(|v| !v.is_finite()))
    {
        return Err(LightError::PointNotANumber(k));
    }
    let vertices: Vec<WorldVertex> = points
        .iter()
        .map(|&(position, normal)| WorldVertex {
            position: position.into(),
            normal: Vec3A::from(normal).try_normalize().unwrap_or(Vec3A::Y),
        })
        .collect();
    let occluders = Occluders::of(level)?;
    Ok(shade_all(
        &occluders, &vertices, lighting, lamps, sun, rays, progress,
    ))
}

/// The rays a bake casts from each vertex: the sky's (`rays` of a hemisphere, about as many
/// again below the horizon are not cast), the sun's and one a lamp.
fn rays_a_vertex(rays: u32, lamps: usize) -> u64 {
    rays as u64 + 1 + lamps as u64
}

/// At most this many points a bake: a hundred times a full level's vertices.
pub const MAX_POINTS: usize = 1 << 22;

/// Every vertex's raw colour, spread over the cores in steps that `progress` hears of.
fn shade_all(
    occluders: &Occluders,
    vertices: &[WorldVertex],
    lighting: &Lighting,
    lamps: &[Lamp],
    sun: Vec3A,
    rays: u32,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<[u8; 3]> {
    let samples = SkySamples::new(rays);
    let mut colours: Vec<[u8; 3]> = Vec::with_capacity(vertices.len());
    for chunk in vertices.chunks(PROGRESS_STEP) {
        colours.par_extend(chunk.par_iter().map(|v| {
            let lit = lamps.iter().map(|lamp| lamp_light(lamp, occluders, v));
            raw(shade(lighting, sun, occluders, &samples, v) + lit.sum::<Vec3A>())
        }));
        progress(colours.len(), vertices.len());
    }
    colours
}

/// What the light gives one vertex, shown scale. `sun` is the unit way towards the sun.
pub(super) fn shade(
    lighting: &Lighting,
    sun: Vec3A,
    occluders: &Occluders,
    samples: &SkySamples,
    vertex: &WorldVertex,
) -> Vec3A {
    let (open, seen) = samples.sky(occluders, vertex);
    let s = lighting.occlusion;
    let sky = Vec3A::from(lighting.sky_colour) * ((1.0 - s) * open + s * seen);
    sky + Vec3A::from(lighting.sun_colour) * sunlight(sun, occluders, vertex)
}

/// What one lamp gives a vertex, shown scale.
fn lamp_light(lamp: &Lamp, occluders: &Occluders, vertex: &WorldVertex) -> Vec3A {
    match *lamp {
        Lamp::Sun { direction, colour } => {
            let towards = -Vec3A::from(direction).normalize();
            Vec3A::from(colour) * sunlight(towards, occluders, vertex)
        }
        Lamp::Point {
            position,
            colour,
            cutoff,
        } => {
            let to = Vec3A::from(position) - vertex.position;
            let d2 = to.length_squared();
            let d = d2.sqrt();
            if d <= 1e-6 || d > cutoff {
                return Vec3A::ZERO;
            }
            let towards = to / d;
            let lambert = vertex.normal.dot(towards);
            if lambert <= 0.0 || occluders.blocked_within(vertex, towards, d) {
                return Vec3A::ZERO;
            }
            Vec3A::from(colour) * (lambert / d2)
        }
    }
}

/// n · (towards the sun) where nothing hides the sun, else 0.
pub(super) fn sunlight(sun: Vec3A, occluders: &Occluders, vertex: &WorldVertex) -> f32 {
    let lambert = vertex.normal.dot(sun);
    if lambert > 0.0 && !occluders.blocked(vertex, sun) {
        lambert
    } else {
        0.0
    }
}

/// A shown colour as MAP's raw bytes: 0x80 is 1.0; the game doubles and clamps at 255, so
/// anything from 2.0 on is the brightest it shows.
fn raw(shown: Vec3A) -> [u8; 3] {
    let byte = |v: f32| (v * 128.0).round().clamp(0.0, 255.0) as u8;
    [byte(shown.x), byte(shown.y), byte(shown.z)]
}

/// Whether every entry has one colour (the byte that is no colour aside).
fn one_colour(colours: &[Rgba]) -> bool {
    colours.windows(2).all(|w| w[0][..3] == w[1][..3])
}
