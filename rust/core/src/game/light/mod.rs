//! Light baked into the tiles' vertex colours. The engine lights nothing on its tiles: what the
//! player sees is MAP's vertex colours (0x80 = 1.0, doubled and clamped; notes 001 and 002), into
//! which the notes' level builders bake sun, sky and ambient occlusion (note 002, "Writing new
//! geometry"). [`bake`] does the same for any of a level's tiles, [`fit`] finds the light that
//! explains the colours a level has, so that new geometry is lit like the level around it.
//!
//! One convention everywhere (the CLI, the add-on, the docs): game space (y up); the sun's
//! direction is the way its light travels ((0, −1, 0) is a sun straight overhead); colours in the
//! game's shown scale (1.0 is raw 0x80). A vertex with normal n gets
//!
//! ```text
//! sky · ((1 − occlusion) · open + occlusion · seen) + sun · max(0, n · −direction) · lit
//! ```
//!
//! where `open` is the part of the sky (the upper hemisphere) its normal faces, cosine-weighted,
//! `seen` the part of that the level's tiles do not hide, and `lit` 1 when nothing lies between
//! the vertex and the sun. With occlusion 1 (the default) the sky gives sky · seen.

mod bake;
mod fit;
mod rays;

use serde::Serialize;

use crate::limits::{MAX_DRAWN_FACES, MAX_RAYS_CAST};

pub use bake::{bake, bake_points, BakeOptions, BakeReport, Which, MAX_POINTS};
pub use fit::{fit, Fit, FitOptions, FitStep, Fitting};

/// Rays each vertex sends to the sky by default: a ray is a sixty-fourth of the sky, one colour
/// step of a sky of 0.5 (raw 0x40).
pub const DEFAULT_RAYS: u32 = 64;
/// At most this many sky rays a vertex: past it a bake of a full level takes minutes.
pub const MAX_RAYS: u32 = 4096;

/// What lights a level's tiles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Lighting {
    /// The way the sun's light travels, game space; any length but zero (a zero sun colour is no
    /// sun).
    pub sun_direction: [f32; 3],
    /// The sun's colour, shown scale (1.0 = raw 0x80).
    pub sun_colour: [f32; 3],
    /// The sky's colour, shown scale: what a vertex that sees the whole sky gets from it.
    pub sky_colour: [f32; 3],
    /// How much the level's own geometry darkens the sky: 0 none, 1 all it hides.
    pub occlusion: f32,
}

impl Lighting {
    fn checked(&self) -> Result<glam::Vec3A, LightError> {
        let values = self
            .sun_direction
            .iter()
            .chain(&self.sun_colour)
            .chain(&self.sky_colour)
            .chain([&self.occlusion]);
        if values.clone().any(|v| !v.is_finite()) {
            return Err(LightError::NotANumber);
        }
        if self
            .sun_colour
            .iter()
            .chain(&self.sky_colour)
            .any(|&v| v < 0.0)
        {
            return Err(LightError::NegativeColour);
        }
        if !(0.0..=1.0).contains(&self.occlusion) {
            return Err(LightError::Occlusion(self.occlusion));
        }
        let d = glam::Vec3A::from(self.sun_direction);
        let length = d.length();
        if !(length > 1e-6 && length.is_finite()) {
            return Err(LightError::NoSunDirection);
        }
        Ok(d / length)
    }
}

/// A light of the artist's besides the sun and the sky (a Blender Sun or Point light), its
/// colour already scaled by its strength, shown scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lamp {
    /// Light from far away travelling along `direction` (game space): `colour · max(0, n · −d)`
    /// where nothing hides it.
    Sun {
        direction: [f32; 3],
        colour: [f32; 3],
    },
    /// Light from `position` (game space), falling off with the square of the distance:
    /// `colour · max(0, n · l) / d²` where nothing stands between, none past `cutoff`.
    Point {
        position: [f32; 3],
        colour: [f32; 3],
        cutoff: f32,
    },
}

impl Lamp {
    fn checked(&self, k: usize) -> Result<(), LightError> {
        let finite = |v: [f32; 3]| v.iter().all(|x| x.is_finite());
        let (colour, placed) = match *self {
            Lamp::Sun { direction, colour } => (
                colour,
                finite(direction) && glam::Vec3::from(direction).length() > 1e-6,
            ),
            Lamp::Point {
                position,
                colour,
                cutoff,
            } => (colour, finite(position) && cutoff > 0.0),
        };
        if placed && finite(colour) && colour.iter().all(|&c| c >= 0.0) {
            Ok(())
        } else {
            Err(LightError::Lamp(k))
        }
    }
}

/// Why a level cannot be baked or fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LightError {
    #[error("the level has no MAP or TRAK chunk: it has no tiles to light")]
    NoTiles,
    #[error("tile {tile} does not exist: the level has {tiles} tiles (0 to {})", .tiles.saturating_sub(1))]
    NoSuchTile { tile: usize, tiles: usize },
    #[error("{rays} sky rays a vertex: give 1 to {MAX_RAYS}")]
    Rays { rays: u32 },
    #[error("the sun direction, colours and occlusion must be numbers")]
    NotANumber,
    #[error("colours are 0 or more (1.0 is the game's raw 0x80)")]
    NegativeColour,
    #[error(
        "occlusion {0} is not between 0 (the sky is never hidden) and 1 (all the geometry hides)"
    )]
    Occlusion(f32),
    #[error(
        "the sun direction (the way its light travels, e.g. 0,-1,0 straight down) has no length"
    )]
    NoSunDirection,
    #[error("light {0}: a sun needs a direction with a length, every light numbers and colours of 0 or more")]
    Lamp(usize),
    #[error("{0} points to bake: at most {MAX_POINTS}")]
    TooManyPoints(usize),
    #[error("point {0}: its position and normal must be numbers")]
    PointNotANumber(usize),
    #[error("no tile of one colour set has vertices whose colours are not saturated: nothing to fit the light to")]
    NothingToFit,
    #[error(
        "{drawn} faces drawn over the level's tiles (each tile draws its model's faces); light is \
         cast against at most {MAX_DRAWN_FACES}, as many as a glTF of the level holds (the \
         game's levels draw a few tens of thousands)"
    )]
    FacesDrawn { drawn: u64 },
    #[error(
        "{vertices} vertices × {rays} rays each: {cast} rays to cast; at most {MAX_RAYS_CAST} \
         (fewer rays a vertex, or fewer tiles or points at a time)"
    )]
    RaysCast { vertices: u64, rays: u64, cast: u64 },
}

/// Refuses casting `rays` rays from each of `vertices` vertices past [`MAX_RAYS_CAST`].
fn rays_cast(vertices: usize, rays: u64) -> Result<(), LightError> {
    let vertices = vertices as u64;
    let cast = vertices.saturating_mul(rays);
    if cast > MAX_RAYS_CAST {
        return Err(LightError::RaysCast {
            vertices,
            rays,
            cast,
        });
    }
    Ok(())
}
