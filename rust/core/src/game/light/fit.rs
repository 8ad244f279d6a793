//! Fitting: the light that explains a level's vertex colours best, so that a bake of new
//! geometry matches what is around it without guessing numbers.
//!
//! For a sun direction the colours are linear in the rest: per channel,
//! `c = sky · open + (sky · occlusion) · (seen − open) + sun · lit`, solved by least squares over
//! the level's vertices. The direction is searched over the sky, coarse to fine, for the one whose
//! solution leaves the least error.

use glam::{DMat3, DVec3, Vec3A};
use rayon::prelude::*;
use serde::Serialize;

use super::bake::sunlight;
use super::rays::{tile_vertices, Occluders, SkySamples, WorldVertex};
use super::{rays_cast, LightError, Lighting, DEFAULT_RAYS, MAX_RAYS};
use crate::Level;

/// At most this many vertices are fitted to (evenly spread over the level's): the fit's error
/// settles long before, and each sun direction tried casts a ray from each.
const MAX_FIT_VERTICES: usize = 8192;
/// Sun directions a fit tries, a ray from each vertex each: 9 × 24 coarse, 4 × 25 finer, the
/// last once more.
const SUN_DIRECTIONS: u64 = 9 * 24 + 4 * 25 + 1;

#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    /// Sky rays a vertex, as for a bake (the same number gives the same `seen` as a bake's).
    pub rays: u32,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { rays: DEFAULT_RAYS }
    }
}

/// The light found, and how well it explains the colours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    pub lighting: Lighting,
    /// Root mean square of what the fitted light leaves unexplained, in raw colour steps (0x80
    /// is 1.0) over the vertices' channels.
    pub error: f32,
    /// Vertices fitted to.
    pub vertices: usize,
}

/// A vertex fitted to: where it stands and the colour it has (shown scale).
struct Sample {
    vertex: WorldVertex,
    colour: DVec3,
    open: f64,
    seen: f64,
}

/// Fits the light to the colours of the level's tiles with one colour set (animated ones say
/// nothing of the light); vertices with a saturated channel (raw 255) are left out, as their
/// colour says only "at least".
pub fn fit(level: &Level, options: &FitOptions) -> Result<Fit, LightError> {
    let mut fitting = Fitting::new(level, options)?;
    loop {
        if let FitStep::Done(fit) = fitting.step() {
            return Ok(fit);
        }
    }
}

/// Vertices whose sky one step looks at, and sun directions one step tries: either is some
/// 65,000 rays at the default rays and the most vertices, so that a tool stepping a fit hears
/// Esc often.
const SKY_STEP: usize = 1024;
const DIRECTIONS_STEP: usize = 8;
/// The finer searches about the best direction so far, in degrees between the directions tried.
const FINE_STEPS: [f64; 4] = [5.0, 2.5, 1.25, 0.625];

/// A [`fit`] a step at a time, for a tool that shows progress and can stop between steps: the
/// sky seen from each vertex, then the sun directions, coarse to fine.
pub struct Fitting {
    /// The vertices fitted to and their colours, each sky looked at once.
    picked: Vec<(WorldVertex, DVec3)>,
    samples: Vec<Sample>,
    occluders: Occluders,
    sky: SkySamples,
    rays: u64,
    /// The fine search under way (`FINE_STEPS[k]`), None while the coarse one is.
    fine: Option<usize>,
    /// Sun directions still to try in this search, in the order tried.
    directions: std::vec::IntoIter<DVec3>,
    best: (f64, DVec3),
    /// Rays cast so far (a vertex's sky: `rays`; a sun direction: one a vertex).
    cast: u64,
}

/// What a step of a [`Fitting`] leaves.
pub enum FitStep {
    /// Rays cast so far, of all the fit casts.
    Working {
        done: u64,
        total: u64,
    },
    Done(Fit),
}

impl Fitting {
    /// The vertices to fit to and the faces that shade them, before any ray is cast; refused
    /// past the rays budget.
    pub fn new(level: &Level, options: &FitOptions) -> Result<Fitting, LightError> {
        if !(1..=MAX_RAYS).contains(&options.rays) {
            return Err(LightError::Rays { rays: options.rays });
        }
        let (Some(map), Some(trak)) = (level.map(), level.trak()) else {
            return Err(LightError::NoTiles);
        };
        let mut picked: Vec<(WorldVertex, DVec3)> = Vec::new();
        for tile in &map.tiles {
            let Some(model) = trak.models.get(tile.model_index as usize) else {
                continue;
            };
            if model.vertices.is_empty() || tile.colours.len() != model.vertices.len() {
                continue;
            }
            for (vertex, c) in tile_vertices(tile, model).into_iter().zip(&tile.colours) {
                if c[..3].iter().all(|&v| v < 255) {
                    let shown = |v: u8| v as f64 / 128.0;
                    picked.push((vertex, DVec3::new(shown(c[0]), shown(c[1]), shown(c[2]))));
                }
            }
        }
        if picked.is_empty() {
            return Err(LightError::NothingToFit);
        }
        let stride = picked.len().div_ceil(MAX_FIT_VERTICES);
        let picked: Vec<_> = picked.into_iter().step_by(stride).collect();
        rays_cast(picked.len(), options.rays as u64 + SUN_DIRECTIONS)?;
        // Coarse: every 10° of height over the horizon, every 15° around; then finer about the
        // best.
        let coarse: Vec<DVec3> = (1..=9)
            .flat_map(|h| (0..24).map(move |a| towards_sun(h as f64 * 10.0, a as f64 * 15.0)))
            .collect();
        Ok(Fitting {
            samples: Vec::with_capacity(picked.len()),
            picked,
            occluders: Occluders::of(level)?,
            sky: SkySamples::new(options.rays),
            rays: options.rays as u64,
            fine: None,
            directions: coarse.into_iter(),
            best: (f64::INFINITY, DVec3::NEG_Y),
            cast: 0,
        })
    }

    /// Casts the next step's rays.
    pub fn step(&mut self) -> FitStep {
        let total = self.picked.len() as u64 * (self.rays + SUN_DIRECTIONS);
        if self.samples.len() < self.picked.len() {
            let from = self.samples.len();
            let to = (from + SKY_STEP).min(self.picked.len());
            let (sky, occluders) = (&self.sky, &self.occluders);
            self.samples
                .par_extend(self.picked[from..to].par_iter().map(|(vertex, colour)| {
                    let (open, seen) = sky.sky(occluders, vertex);
                    Sample {
                        vertex: *vertex,
                        colour: *colour,
                        open: open as f64,
                        seen: seen as f64,
                    }
                }));
            self.cast += (to - from) as u64 * self.rays;
            return FitStep::Working {
                done: self.cast,
                total,
            };
        }
        let mut tried = 0;
        for sun in self.directions.by_ref().take(DIRECTIONS_STEP) {
            self.best = better(self.best, &self.samples, &self.occluders, sun);
            tried += 1;
        }
        self.cast += tried * self.samples.len() as u64;
        if tried > 0 {
            return FitStep::Working {
                done: self.cast,
                total,
            };
        }
        let next = self.fine.map_or(0, |k| k + 1);
        if let Some(&step) = FINE_STEPS.get(next) {
            let (h0, a0) = angles(self.best.1);
            let around = [-2.0, -1.0, 0.0, 1.0, 2.0];
            self.directions = around
                .iter()
                .flat_map(|dh| {
                    let h = (h0 + dh * step).clamp(0.5, 90.0);
                    around.iter().map(move |da| towards_sun(h, a0 + da * step))
                })
                .collect::<Vec<_>>()
                .into_iter();
            self.fine = Some(next);
            return self.step();
        }
        FitStep::Done(self.fitted())
    }

    fn fitted(&self) -> Fit {
        let sun = self.best.1;
        let lit: Vec<f64> = lit(&self.samples, &self.occluders, sun);
        let (sky, occlusion, sun_colour, error) = solve(&self.samples, &lit);
        Fit {
            lighting: Lighting {
                sun_direction: (-sun).as_vec3().to_array(),
                sun_colour: sun_colour.as_vec3().to_array(),
                sky_colour: sky.as_vec3().to_array(),
                occlusion: occlusion as f32,
            },
            error: (error * 128.0) as f32,
            vertices: self.samples.len(),
        }
    }
}

/// The unit way towards a sun `height` degrees over the horizon, `around` degrees from +x
/// towards +z.
fn towards_sun(height: f64, around: f64) -> DVec3 {
    let (sin_h, cos_h) = libm::sincos(height.to_radians());
    let (sin_a, cos_a) = libm::sincos(around.to_radians());
    DVec3::new(cos_h * cos_a, sin_h, cos_h * sin_a)
}

fn angles(towards: DVec3) -> (f64, f64) {
    let height = libm::asin(towards.y.clamp(-1.0, 1.0)).to_degrees();
    let around = libm::atan2(towards.z, towards.x).to_degrees();
    (height, around)
}

fn better(
    best: (f64, DVec3),
    samples: &[Sample],
    occluders: &Occluders,
    sun: DVec3,
) -> (f64, DVec3) {
    let (_, _, _, error) = solve(samples, &lit(samples, occluders, sun));
    if error < best.0 {
        (error, sun)
    } else {
        best
    }
}

fn lit(samples: &[Sample], occluders: &Occluders, sun: DVec3) -> Vec<f64> {
    let sun = Vec3A::from(sun.as_vec3());
    samples
        .par_iter()
        .map(|s| sunlight(sun, occluders, &s.vertex) as f64)
        .collect()
}

/// The sky colour, occlusion, sun colour and the root mean square error (shown scale) that fit
/// the samples best for the sun's `lit` (n · towards the sun where it shines, per sample).
fn solve(samples: &[Sample], lit: &[f64]) -> (DVec3, f64, DVec3, f64) {
    // Per channel c = a·open + b·(seen − open) + g·lit; one matrix for the three channels.
    let features = |s: &Sample, l: f64| DVec3::new(s.open, s.seen - s.open, l);
    let (ata, atc) = normal_equations(
        samples
            .iter()
            .zip(lit)
            .map(|(s, &l)| (features(s, l), s.colour)),
    );
    let [a, b, _] = solved(ata, atc);
    // One occlusion for the three channels: the share of the sky the geometry takes, weighted by
    // the sky's brightness; then the colours again with it fixed.
    let occlusion = if a.element_sum() > 1e-9 {
        (b.element_sum() / a.element_sum()).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let features =
        |s: &Sample, l: f64| DVec3::new((1.0 - occlusion) * s.open + occlusion * s.seen, l, 0.0);
    let (ata, atc) = normal_equations(
        samples
            .iter()
            .zip(lit)
            .map(|(s, &l)| (features(s, l), s.colour)),
    );
    let [sky, sun, _] = solved(ata, atc);
    let (sky, sun) = (sky.max(DVec3::ZERO), sun.max(DVec3::ZERO));
    let squared: f64 = samples
        .iter()
        .zip(lit)
        .map(|(s, &l)| {
            let f = features(s, l);
            (sky * f.x + sun * f.y - s.colour).length_squared()
        })
        .sum();
    let rms = (squared / (3.0 * samples.len() as f64)).sqrt();
    (sky, occlusion, sun, rms)
}

/// AᵀA (3 × 3) and Aᵀc (a column of three colours) over rows of features and their colours.
fn normal_equations(rows: impl Iterator<Item = (DVec3, DVec3)>) -> (DMat3, [DVec3; 3]) {
    let mut ata = DMat3::ZERO;
    let mut atc = [DVec3::ZERO; 3];
    for (f, c) in rows {
        ata += DMat3::from_cols(f * f.x, f * f.y, f * f.z);
        for k in 0..3 {
            atc[k] += c * f[k];
        }
    }
    (ata, atc)
}

/// The coefficients (a colour for each feature) that solve AᵀA x = Aᵀc; a feature no sample has
/// (a column of zeros: no sun anywhere, say) gets none.
fn solved(ata: DMat3, atc: [DVec3; 3]) -> [DVec3; 3] {
    // A little ridge keeps a missing feature from making the matrix singular.
    let ridge = 1e-9 * (ata.x_axis.x + ata.y_axis.y + ata.z_axis.z).max(1e-12);
    let inverse = (ata + DMat3::from_diagonal(DVec3::splat(ridge))).inverse();
    let mut out = [DVec3::ZERO; 3];
    for channel in 0..3 {
        let rhs = DVec3::new(atc[0][channel], atc[1][channel], atc[2][channel]);
        let x = inverse * rhs;
        for k in 0..3 {
            out[k][channel] = x[k];
        }
    }
    out
}
