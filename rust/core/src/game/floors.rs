//! Two levels' floors compared the way the llama meets them: the floor test run at the same
//! random points of the grid in both, dropping from high above (y = 60), so that at each point
//! the highest floor wins. This is how a rewritten level is measured against the one it came from
//! (2,800 random points, FORMAT.md §4 "Measuring an edit").

use serde::Serialize;

use crate::game::floor::World;
use crate::level::Level;
use crate::rng::Rng;

/// Height the probes drop from.
pub const DROP_HEIGHT: f64 = 60.0;

/// What two levels' floor tests say at the same points.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FloorComparison {
    pub points: usize,
    /// Points with a floor in both.
    pub both: usize,
    /// A floor in the first level, none in the second.
    pub lost: usize,
    /// No floor in the first level, one in the second.
    pub gained: usize,
    /// Of `both`: heights within 1 mm and within 5 mm.
    pub within_1mm: usize,
    pub within_5mm: usize,
    /// Of `both`: the largest height difference, millimetres.
    pub max_mm: f64,
    /// Of `both`: the same collision material.
    pub material_same: usize,
}

/// At most this many points are dropped: the notes measure an edit with 2,800, and a million
/// take a fifth of a second and 24 MB, where 10⁸ took 20 s and 2.4 GB and 10¹² more memory than
/// any machine has.
pub const MAX_POINTS: usize = 1_000_000;

/// More points asked for than [`MAX_POINTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{asked} points asked for; at most {MAX_POINTS} are dropped (the notes measure an edit with 2,800)")]
pub struct TooManyPoints {
    pub asked: usize,
}

/// `count` points uniform over a `width` × `height` grid (game space x, z), the same for the same
/// seed.
pub fn random_points(
    width: u32,
    height: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<[f64; 3]>, TooManyPoints> {
    if count > MAX_POINTS {
        return Err(TooManyPoints { asked: count });
    }
    let mut rng = Rng::new(seed);
    Ok((0..count)
        .map(|_| {
            let x = rng.range(0.0, width as f32) as f64;
            let z = rng.range(0.0, height as f32) as f64;
            [x, DROP_HEIGHT, z]
        })
        .collect())
}

/// Why two levels' floors cannot be compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FloorsError {
    /// `level` is 0 for the first, 1 for the second.
    #[error("the {} level has no MAP or TRAK chunk: nothing to stand on", if *.level == 0 { "first" } else { "second" })]
    NothingToStandOn { level: usize },
    #[error(transparent)]
    TooManyPoints(#[from] TooManyPoints),
}

/// The floor tests of two levels at `count` random points of the first one's grid (the same for
/// the same seed): what `llamawad floors` prints.
pub fn compare_levels(
    a: &Level,
    b: &Level,
    count: usize,
    seed: u64,
) -> Result<FloorComparison, FloorsError> {
    let world = |level, k| World::of(level).ok_or(FloorsError::NothingToStandOn { level: k });
    let (wa, wb) = (world(a, 0)?, world(b, 1)?);
    let map = a.map().expect("World::of found MAP");
    let points = random_points(map.width, map.height, count, seed)?;
    Ok(compare_floors(&wa, &wb, &points))
}

/// The floor tests of `a` and `b` at `points`.
pub fn compare_floors(a: &World, b: &World, points: &[[f64; 3]]) -> FloorComparison {
    let mut out = FloorComparison {
        points: points.len(),
        ..FloorComparison::default()
    };
    for &[x, y, z] in points {
        match (a.probe(x, y, z).floor, b.probe(x, y, z).floor) {
            (Some(fa), Some(fb)) => {
                out.both += 1;
                let mm = (fa.height - fb.height).abs() * 1000.0;
                out.within_1mm += usize::from(mm <= 1.0);
                out.within_5mm += usize::from(mm <= 5.0);
                out.max_mm = out.max_mm.max(mm);
                out.material_same += usize::from(fa.material == fb.material);
            }
            (Some(_), None) => out.lost += 1,
            (None, Some(_)) => out.gained += 1,
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10¹² points once aborted the process and 2⁶⁴ − 1 panicked: more than the cap are refused
    /// before anything is allocated.
    #[test]
    fn more_points_than_the_cap_are_refused() {
        assert_eq!(
            random_points(4, 4, MAX_POINTS, 1).unwrap().len(),
            MAX_POINTS
        );
        for asked in [MAX_POINTS + 1, 1_000_000_000_000, usize::MAX] {
            assert_eq!(random_points(4, 4, asked, 1), Err(TooManyPoints { asked }));
        }
    }

    #[test]
    fn a_level_compared_with_itself_keeps_every_floor_and_one_without_map_is_named() {
        let level = crate::generate::generate(2, crate::generate::Size::Tiny);
        let same = compare_levels(&level, &level, 500, 7).unwrap();
        assert_eq!((same.points, same.lost, same.gained), (500, 0, 0));
        assert_eq!((same.within_1mm, same.max_mm), (same.both, 0.0));
        assert!(same.both > 0);
        let mut without = level.clone();
        without
            .chunks
            .retain(|c| c.tag != crate::container::Tag::MAP);
        assert_eq!(
            compare_levels(&level, &without, 10, 1),
            Err(FloorsError::NothingToStandOn { level: 1 })
        );
        assert_eq!(
            compare_levels(&level, &level, MAX_POINTS + 1, 1),
            Err(FloorsError::TooManyPoints(TooManyPoints {
                asked: MAX_POINTS + 1
            }))
        );
    }
}
