//! What a level light's words mean (LGHT, FORMAT.md §9): the notes say only "type 1/2/…: more
//! u32 (direction/position, z negated)". Taken here (an assumption, FORMAT.md §11): type 1 a
//! directional light whose first three words are a direction towards the light, type 2 a
//! positional light whose first three words are its position, both 20.12 fixed point; every
//! other word, and every word of another type, kept as stored.
//!
//! Which way z is stored the notes disagree: note 003 says "z negated", note 002 lists lights
//! among the things in game space (z the grid row, positive). The level decides ([`light_z`]):
//! the reading that puts every point light over the grid, where the other does not; else note
//! 003's. Both directions use the base level's reading, so a level reads and writes its lights
//! one way.

use glam::DVec3;
use serde::Serialize;

use super::space::{from_fixed, to_fixed};
use crate::level::{Level, Light};

/// Where a light is, in file space (= game space, y up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LightPlace {
    /// Type 1: the direction towards the light (as stored: not necessarily of unit length).
    Direction(DVec3),
    /// Type 2: the light's position.
    Position(DVec3),
    /// Another type, or too few words: nothing known but its colour.
    Marker,
}

/// The type of a directional light.
pub const DIRECTIONAL: u8 = 1;
/// The type of a positional light.
pub const POSITIONAL: u8 = 2;

/// How a light's stored z is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LightZ {
    /// Note 003, "direction/position, z negated": stored (x, y, −z) of game space.
    #[default]
    Negated,
    /// Note 002, lights in game space ("z = grid row (positive)"): stored as game space has it.
    GameSpace,
}

/// Why a level's lights are read with their [`LightZ`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LightZWhy {
    /// No point light (type 2 with a position) to tell by: note 003's reading.
    NoPointLight,
    /// Every point light lies over the grid read so, and not read the other way.
    OnlyThisInside,
    /// Every point light lies over the grid read either way (z 0, on the edge): note 003's.
    BothInside,
    /// Read neither way does every point light lie over the grid: note 003's.
    NeitherInside,
}

/// The z reading of a level's lights and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LightZChoice {
    pub z: LightZ,
    pub why: LightZWhy,
}

impl LightZChoice {
    /// What `info` says of it.
    pub fn describe(self) -> String {
        let reading = match self.z {
            LightZ::Negated => "z is stored negated (note 003)",
            LightZ::GameSpace => "z is stored as game space has it, the grid row (note 002)",
        };
        let why = match self.why {
            LightZWhy::NoPointLight => "no point light to decide by",
            LightZWhy::OnlyThisInside => {
                "only this reading puts every point light over the grid (or on its edge)"
            }
            LightZWhy::BothInside => "either reading puts every point light over the grid",
            LightZWhy::NeitherInside => "neither reading puts every point light over the grid",
        };
        format!("{reading}: {why}")
    }
}

/// The z reading of a level's lights: the one that puts every point light's z over the grid
/// (0 to H, edges included) where the other does not; otherwise note 003's. Only z differs
/// between the readings, so only z is compared (a light off the grid in x is off it either
/// way). A directional light's z is read the same way as the points'.
pub fn light_z(level: &Level) -> LightZChoice {
    let lights = level.lights().map_or(&[][..], |l| l.lights.as_slice());
    light_z_of(lights, level.map().map_or(0, |m| m.height))
}

/// [`light_z`] of these lights over a grid of `height` rows.
pub fn light_z_of(lights: &[Light], height: u32) -> LightZChoice {
    let stored: Vec<f64> = lights
        .iter()
        .filter(|l| l.kind == POSITIONAL)
        .filter_map(|l| l.words.get(2))
        .map(|&z| from_fixed(z as i32 as i64))
        .collect();
    let over = |z: f64| (0.0..=height as f64).contains(&z);
    let (negated, game) = (
        stored.iter().all(|&z| over(-z)),
        stored.iter().all(|&z| over(z)),
    );
    let (z, why) = match (stored.is_empty(), negated, game) {
        (true, _, _) => (LightZ::Negated, LightZWhy::NoPointLight),
        (false, true, false) => (LightZ::Negated, LightZWhy::OnlyThisInside),
        (false, false, true) => (LightZ::GameSpace, LightZWhy::OnlyThisInside),
        (false, true, true) => (LightZ::Negated, LightZWhy::BothInside),
        (false, false, false) => (LightZ::Negated, LightZWhy::NeitherInside),
    };
    LightZChoice { z, why }
}

/// The light's place, read from its first three words with z read as `z` says.
pub fn light_place(light: &Light, z: LightZ) -> LightPlace {
    let Some(&[x, y, stored_z]) = light.words.get(..3) else {
        return LightPlace::Marker;
    };
    let sign = match z {
        LightZ::Negated => -1.0,
        LightZ::GameSpace => 1.0,
    };
    let v = DVec3::new(
        from_fixed(x as i32 as i64),
        from_fixed(y as i32 as i64),
        sign * from_fixed(stored_z as i32 as i64),
    );
    match light.kind {
        DIRECTIONAL => LightPlace::Direction(v),
        POSITIONAL => LightPlace::Position(v),
        _ => LightPlace::Marker,
    }
}

/// The light with its place set to `place` (a direction for type 1, a position for type 2),
/// stored with z as `z` says, or the light as it is when `place` is where it already is (up to
/// the words' 20.12 steps; a direction up to its angle): an unchanged scene keeps the stored
/// words. A direction keeps its stored length, the one thing a node's turn does not say.
/// `None` for a marker, or for a place that does not fit 20.12 words.
pub fn with_place(light: &Light, place: DVec3, z: LightZ) -> Option<Light> {
    let sign = match z {
        LightZ::Negated => -1.0,
        LightZ::GameSpace => 1.0,
    };
    let fixed = |v: DVec3| -> Option<[u32; 3]> {
        let stored = [v.x, v.y, sign * v.z];
        stored
            .iter()
            .all(|c| (c * 4096.0).abs() < i32::MAX as f64)
            .then(|| stored.map(|c| to_fixed(c) as u32))
    };
    let words = match light_place(light, z) {
        LightPlace::Marker => return None,
        LightPlace::Position(_) => fixed(place)?,
        LightPlace::Direction(stored) => {
            let unit = place.normalize_or_zero();
            if unit == DVec3::ZERO {
                return None;
            }
            // A turn a node's float rotation cannot tell apart from the stored direction.
            if stored.normalize_or_zero().angle_between(unit) < 1e-5 {
                return Some(light.clone());
            }
            fixed(unit * stored.length().max(1.0 / 4096.0))?
        }
    };
    let mut light = light.clone();
    light.words[..3].copy_from_slice(&words);
    Some(light)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn light(kind: u8, words: &[i32]) -> Light {
        Light {
            kind,
            colour: [0x80, 0x40, 0x20],
            words: words.iter().map(|&w| w as u32).collect(),
        }
    }

    #[test]
    fn types_1_and_2_are_a_direction_and_a_position_with_z_negated() {
        let sun = light(1, &[-1474, 3277, -1966, 0]);
        let LightPlace::Direction(d) = light_place(&sun, LightZ::Negated) else {
            panic!("a direction");
        };
        assert!((d - DVec3::new(-0.36, 0.8, 0.48)).length() < 1e-3, "{d}");
        let point = light(2, &[0x2000, 0x1800, -0x3000, 0x4000]);
        assert_eq!(
            light_place(&point, LightZ::Negated),
            LightPlace::Position(DVec3::new(2.0, 1.5, 3.0))
        );
        assert_eq!(
            light_place(&point, LightZ::GameSpace),
            LightPlace::Position(DVec3::new(2.0, 1.5, -3.0))
        );
        assert_eq!(
            light_place(&light(3, &[1, 2, 3]), LightZ::Negated),
            LightPlace::Marker
        );
        assert_eq!(
            light_place(&light(2, &[1, 2]), LightZ::Negated),
            LightPlace::Marker
        );
    }

    #[test]
    fn a_new_place_is_written_into_the_first_three_words_and_the_rest_is_kept() {
        let point = light(2, &[0x2000, 0x1800, -0x3000, 0x4000]);
        let moved = with_place(&point, DVec3::new(4.0, 0.5, 1.25), LightZ::Negated).unwrap();
        assert_eq!(
            moved.words,
            light(2, &[0x4000, 0x800, -0x1400, 0x4000]).words
        );
        assert_eq!(moved.colour, point.colour);
        // In game space, z is written as it is.
        let game = light(2, &[0x2000, 0x1800, 0x3000, 0x4000]);
        let moved = with_place(&game, DVec3::new(4.0, 0.5, 1.25), LightZ::GameSpace).unwrap();
        assert_eq!(
            moved.words,
            light(2, &[0x4000, 0x800, 0x1400, 0x4000]).words
        );

        // Turned straight up, the sun keeps the length its words had.
        let sun = light(1, &[0, 0, -8192, 7]);
        let up = with_place(&sun, DVec3::Y, LightZ::Negated).unwrap();
        assert_eq!(up.words, light(1, &[0, 8192, 0, 7]).words);
        // Turned towards +z of file space: stored −z, or +z in game space.
        let south = with_place(&sun, DVec3::Z, LightZ::Negated).unwrap();
        assert_eq!(south.words, light(1, &[0, 0, -8192, 7]).words);
        let south = with_place(&sun, DVec3::Z, LightZ::GameSpace).unwrap();
        assert_eq!(south.words, light(1, &[0, 0, 8192, 7]).words);
        // An unchanged place keeps the words, even where floats would round them.
        let odd = light(1, &[-1474, 3277, -1966, 0]);
        for z in [LightZ::Negated, LightZ::GameSpace] {
            let LightPlace::Direction(d) = light_place(&odd, z) else {
                panic!("a direction");
            };
            let as_f32 = d.as_vec3().normalize().as_dvec3();
            assert_eq!(with_place(&odd, as_f32, z).unwrap(), odd);
        }
        assert_eq!(
            with_place(&light(5, &[1, 2, 3]), DVec3::X, LightZ::Negated),
            None
        );
        assert_eq!(with_place(&point, DVec3::splat(1e9), LightZ::Negated), None);
    }

    #[test]
    fn the_reading_that_puts_every_point_light_over_the_grid_is_taken() {
        let point = |z: f64| light(2, &[0x2000, 0x1000, to_fixed(z), 0]);
        let sun = light(1, &[0, 4096, 0]);
        let choice = |lights: &[Light]| {
            let c = light_z_of(lights, 10);
            (c.z, c.why)
        };
        // Stored z positive, over the 10 rows as game space has it (note 002).
        assert_eq!(
            choice(&[sun.clone(), point(4.5), point(10.0)]),
            (LightZ::GameSpace, LightZWhy::OnlyThisInside)
        );
        // Stored negative: over the grid negated (note 003).
        assert_eq!(
            choice(&[point(-4.5), point(-0.5)]),
            (LightZ::Negated, LightZWhy::OnlyThisInside)
        );
        // One light on the edge (z 0) fits both; the others decide.
        assert_eq!(
            choice(&[point(0.0), point(3.0)]),
            (LightZ::GameSpace, LightZWhy::OnlyThisInside)
        );
        // Every light on the edge, or some on each side, or past the grid: note 003's.
        assert_eq!(
            choice(&[point(0.0)]),
            (LightZ::Negated, LightZWhy::BothInside)
        );
        assert_eq!(
            choice(&[point(-2.0), point(3.0)]),
            (LightZ::Negated, LightZWhy::NeitherInside)
        );
        assert_eq!(
            choice(&[point(12.0)]),
            (LightZ::Negated, LightZWhy::NeitherInside)
        );
        assert_eq!(
            choice(&[sun, light(2, &[1, 2])]),
            (LightZ::Negated, LightZWhy::NoPointLight)
        );
    }
}
