//! What a level light's words mean (LGHT, FORMAT.md §9): the notes say only "type 1/2/…: more
//! u32 (direction/position, z negated)". Taken here (an assumption, FORMAT.md §11): type 1 a
//! directional light whose first three words are a direction towards the light, type 2 a
//! positional light whose first three words are its position, both 20.12 fixed point in game
//! space with z negated; every other word, and every word of another type, kept as stored.

use glam::DVec3;

use super::space::{from_fixed, to_fixed};
use crate::level::Light;

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

/// The light's place, read from its first three words.
pub fn light_place(light: &Light) -> LightPlace {
    let Some(&[x, y, z]) = light.words.get(..3) else {
        return LightPlace::Marker;
    };
    let v = DVec3::new(
        from_fixed(x as i32 as i64),
        from_fixed(y as i32 as i64),
        -from_fixed(z as i32 as i64),
    );
    match light.kind {
        DIRECTIONAL => LightPlace::Direction(v),
        POSITIONAL => LightPlace::Position(v),
        _ => LightPlace::Marker,
    }
}

/// The light with its place set to `place` (a direction for type 1, a position for type 2),
/// or the light as it is when `place` is where it already is (up to the words' 20.12 steps; a
/// direction up to its angle): an unchanged scene keeps the stored words. A direction keeps its
/// stored length, the one thing a node's turn does not say. `None` for a marker, or for a
/// place that does not fit 20.12 words.
pub fn with_place(light: &Light, place: DVec3) -> Option<Light> {
    let fixed = |v: DVec3| -> Option<[u32; 3]> {
        let game = [v.x, v.y, -v.z];
        game.iter()
            .all(|c| (c * 4096.0).abs() < i32::MAX as f64)
            .then(|| game.map(|c| to_fixed(c) as u32))
    };
    let words = match light_place(light) {
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
        let LightPlace::Direction(d) = light_place(&sun) else {
            panic!("a direction");
        };
        assert!((d - DVec3::new(-0.36, 0.8, 0.48)).length() < 1e-3, "{d}");
        let point = light(2, &[0x2000, 0x1800, -0x3000, 0x4000]);
        assert_eq!(
            light_place(&point),
            LightPlace::Position(DVec3::new(2.0, 1.5, 3.0))
        );
        assert_eq!(light_place(&light(3, &[1, 2, 3])), LightPlace::Marker);
        assert_eq!(light_place(&light(2, &[1, 2])), LightPlace::Marker);
    }

    #[test]
    fn a_new_place_is_written_into_the_first_three_words_and_the_rest_is_kept() {
        let point = light(2, &[0x2000, 0x1800, -0x3000, 0x4000]);
        let moved = with_place(&point, DVec3::new(4.0, 0.5, 1.25)).unwrap();
        assert_eq!(
            moved.words,
            light(2, &[0x4000, 0x800, -0x1400, 0x4000]).words
        );
        assert_eq!(moved.colour, point.colour);

        // Turned straight up, the sun keeps the length its words had.
        let sun = light(1, &[0, 0, -8192, 7]);
        let up = with_place(&sun, DVec3::Y).unwrap();
        assert_eq!(up.words, light(1, &[0, 8192, 0, 7]).words);
        // An unchanged place keeps the words, even where floats would round them.
        let odd = light(1, &[-1474, 3277, -1966, 0]);
        let LightPlace::Direction(d) = light_place(&odd) else {
            panic!("a direction");
        };
        let as_f32 = d.as_vec3().normalize().as_dvec3();
        assert_eq!(with_place(&odd, as_f32).unwrap(), odd);
        assert_eq!(with_place(&light(5, &[1, 2, 3]), DVec3::X), None);
        assert_eq!(with_place(&point, DVec3::splat(1e9)), None);
    }
}
