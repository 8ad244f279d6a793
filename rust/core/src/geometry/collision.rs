//! Collision polygons from corners and back: the planes the engine tests, at its scale and with
//! its i8 normals (FORMAT.md §4).

use glam::{DVec3, Vec3};

use crate::limits::NORMAL_LENGTH_SLACK;
use crate::raw::{CollisionPlane, CollisionPolygon};

pub use crate::raw::COLLISION_QUAD;
/// Collision polygon kind bit: the surface faces down (ceilings, overhangs).
pub const COLLISION_FACING_DOWN: u8 = 0x4;

/// The i8 normals are unit normals ×127.
const NORMAL_SCALE: f64 = 127.0;

/// The scale a plane's d was written at (FORMAT.md §4, "Plane scale"). The engine multiplies the
/// i8 normal by 32 and compares it with d in 1/4096 units, so the plane it tests is
/// (n_i8/127)·P = d/4064; note 001 words d as "×4096", and tools that follow its words put each
/// plane at d/4096 where they mean it, 0.8 % nearer the tile origin than the engine tests it.
/// Levels in the wild hold either, a level edited by two tools both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PlaneScale {
    /// d = 4064 × distance: the plane the engine tests is the one meant.
    #[serde(rename = "4064")]
    Engine,
    /// d = 4096 × distance, as note 001 words it.
    #[serde(rename = "4096")]
    Notes,
}

impl PlaneScale {
    /// Steps of d to the unit.
    pub fn steps(self) -> f64 {
        match self {
            PlaneScale::Engine => 32.0 * NORMAL_SCALE,
            PlaneScale::Notes => 4096.0,
        }
    }

    /// What a polygon decoded at the engine's scale is multiplied by, about its tile's origin, to
    /// be the polygon read at this scale.
    pub fn from_engine(self) -> f64 {
        PlaneScale::Engine.steps() / self.steps()
    }
}

impl std::fmt::Display for PlaneScale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "×{}", self.steps())
    }
}

/// The engine's: planes are decoded at it, so that what is shown is what the game collides with.
const D_SCALE: f64 = 32.0 * NORMAL_SCALE;
/// Normal lengths tried besides 127: lattice vectors of other lengths point in directions 127
/// cannot; only those the check accepts as unit normals ×127 are kept (see `fit_plane`).
const NORMAL_LENGTHS: std::ops::RangeInclusive<i32> = 126..=128;
/// Tilts (tangent of the angle, up to about 10° either way) of an edge plane about its edge,
/// towards or away from the surface normal.
const EDGE_TILT_STEP: f64 = 0.009;
const EDGE_TILT_STEPS: i32 = 20;
/// Points this close (units) to one plane of a lattice normal lie in it: corners decoded from that
/// plane, up to the f32 they are kept in.
const EXACT: f64 = 2e-5;
/// How far (units) a quad's corners may be off one plane. About the engine's edge tolerance
/// (0.016 on flat floors): a larger warp collides with a surface visibly different from the
/// model's.
pub const MAX_QUAD_WARP: f32 = 0.01;
/// Edges shorter than this (units) have no direction to build an edge plane from.
const MIN_EDGE: f64 = 1e-4;

/// Why corners cannot become a collision polygon.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CollisionError {
    #[error("a collision polygon has 3 or 4 corners; this one has {0}")]
    CornerCount(usize),
    #[error("corner {0} is not a finite number")]
    NotFinite(usize),
    #[error("the corners do not enclose an area: they lie on one line or two of them coincide")]
    Degenerate,
    #[error(
        "the four corners do not lie in one plane: corner {corner} is {distance:.3} units off it \
         (at most {max} allowed); split the quad into two triangles",
        max = MAX_QUAD_WARP
    )]
    NotPlanar { corner: usize, distance: f32 },
    #[error("the quad is not convex: it bends inwards at corner {0}; split it into two triangles")]
    NotConvex(usize),
    #[error(
        "the polygon is too far from its tile's origin: its {} lies {distance:.2} units away, but \
         the game stores plane distances in 16 bits, which reach only 8 units",
        plane_name(.plane)
    )]
    OutOfReach { plane: usize, distance: f32 },
}

fn plane_name(plane: &usize) -> String {
    match plane {
        0 => "surface plane".to_string(),
        k => format!("edge plane {k}"),
    }
}

/// Encodes a convex polygon as the engine's collision record (FORMAT.md §4).
///
/// `corners`: 3 or 4 points in game space relative to the tile origin (z already negated against
/// the render vertices of the same model). The corner order decides the surface normal by the
/// right-hand rule (counter-clockwise seen from above gives a floor). Edge plane k (1-based) holds
/// the edge from corner k−1 to corner k, cyclically, with its normal pointing into the polygon;
/// so corner k lies on edge planes k and k+1 (edge plane 0 being the last one), which is how
/// [`decode_collision_polygon`] finds it again.
///
/// A normal rounded to 1/127 tilts its plane by up to 0.4°, 0.05 units at 7 units from where it
/// is anchored: more than the engine's tolerance. So the surface's i8 normal is round(n·127)
/// unless a lattice vector next to it (length 120–127) fits the corners better, and an edge
/// plane, which only has to hold its edge, may also turn about the edge by up to 10° from
/// perpendicular to the surface to find a lattice vector that holds the edge exactly. d =
/// round(32·n_i8·P) for P midway between the points' extremes. Kind bit 0 marks a quad, bit 2 a
/// surface facing down (stored ny < 0); triangles leave the fifth plane zero; pad bytes are 0.
pub fn encode_collision_polygon(
    corners: &[Vec3],
    material: u8,
) -> Result<CollisionPolygon, CollisionError> {
    encode_collision_polygon_at(corners, material, PlaneScale::Engine)
}

/// [`encode_collision_polygon`] with d written at `scale`: the engine's, or note 001's ×4096 as
/// other tools write it (this project's generator, to make such levels).
pub fn encode_collision_polygon_at(
    corners: &[Vec3],
    material: u8,
    scale: PlaneScale,
) -> Result<CollisionPolygon, CollisionError> {
    let n = corners.len();
    if !(3..=4).contains(&n) {
        return Err(CollisionError::CornerCount(n));
    }
    if let Some(k) = corners.iter().position(|c| !c.is_finite()) {
        return Err(CollisionError::NotFinite(k));
    }
    let p: Vec<DVec3> = corners.iter().map(|c| c.as_dvec3()).collect();
    let next = |k: usize| p[(k + 1) % n];
    let edge = |k: usize| next(k) - p[k];
    let centroid = p.iter().sum::<DVec3>() / n as f64;
    // Newell's normal: the plane that fits a slightly warped quad best, and for a triangle simply
    // the cross product of two edges.
    let newell: DVec3 = (0..n)
        .map(|k| (p[k] - centroid).cross(next(k) - centroid))
        .sum();
    let longest = (0..n).map(|k| edge(k).length()).fold(0.0, f64::max);
    if (0..n).any(|k| edge(k).length() < MIN_EDGE) || newell.length() <= 1e-6 * longest * longest {
        return Err(CollisionError::Degenerate);
    }
    let normal = newell.normalize();
    if n == 4 {
        for (k, corner) in p.iter().enumerate() {
            let distance = normal.dot(*corner - centroid).abs() as f32;
            if distance > MAX_QUAD_WARP {
                return Err(CollisionError::NotPlanar {
                    corner: k,
                    distance,
                });
            }
        }
        for k in 0..n {
            let turn = edge((k + n - 1) % n).cross(edge(k)).dot(normal);
            if turn <= 1e-9 * longest * longest {
                return Err(CollisionError::NotConvex(k));
            }
        }
    }

    let mut planes = [CollisionPlane::default(); 5];
    let surface = NORMAL_LENGTHS.rev().flat_map(|length| {
        let centre = (normal * length as f64).round();
        NEIGHBOURS.map(|offset| centre + offset)
    });
    let surface = std::iter::once((normal * NORMAL_SCALE).round()).chain(surface);
    planes[0] = fit_plane(surface, &p, scale)
        .map_err(|distance| CollisionError::OutOfReach { plane: 0, distance })?;
    for k in 0..n {
        // Perpendicular to the edge, and for a counter-clockwise polygon pointing inwards.
        let inward = normal.cross(edge(k)).normalize();
        let tilts = (0..=2 * EDGE_TILT_STEPS).map(|i| {
            // 0, +1, −1, +2, −2, …: the untilted plane first.
            let step = if i % 2 == 1 { (i + 1) / 2 } else { -(i / 2) };
            (inward + normal * (step as f64 * EDGE_TILT_STEP)).normalize()
        });
        let candidates = tilts.flat_map(|direction| {
            NORMAL_LENGTHS
                .rev()
                .map(move |length| (direction * length as f64).round())
        });
        planes[k + 1] = fit_plane(candidates, &[p[k], next(k)], scale).map_err(|distance| {
            CollisionError::OutOfReach {
                plane: k + 1,
                distance,
            }
        })?;
    }
    let mut kind = if n == 4 { COLLISION_QUAD } else { 0 };
    if planes[0].normal[1] < 0 {
        kind |= COLLISION_FACING_DOWN;
    }
    Ok(CollisionPolygon {
        kind,
        material,
        planes,
    })
}

/// The lattice vector and its offset {0, ±1}³ in an order that tries the vector itself first.
const NEIGHBOURS: [DVec3; 27] = {
    let mut out = [DVec3::ZERO; 27];
    let steps = [0.0, 1.0, -1.0];
    let mut i = 0;
    while i < 27 {
        out[i] = DVec3::new(steps[i % 3], steps[i / 3 % 3], steps[i / 9]);
        i += 1;
    }
    out
};

/// The candidate i8 normal that best fits the plane through `points`, with its d; or, when that
/// d does not fit an i16, the plane's distance from the tile origin.
fn fit_plane(
    candidates: impl Iterator<Item = DVec3>,
    points: &[DVec3],
    scale: PlaneScale,
) -> Result<CollisionPlane, f32> {
    // d's steps per unit of v·p (v an i8 normal about 127 long): 32 at the engine's scale.
    let per = scale.steps() / NORMAL_SCALE;
    // How far the farthest point is from the plane the engine will test (d's rounding included),
    // how far the points are from lying in one plane of this normal at all, and that plane's d.
    let fit = |v: DVec3| {
        let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            let s = v.dot(*p);
            (lo.min(s), hi.max(s))
        });
        let mid = (lo + hi) / 2.0;
        let d = (per * mid).round();
        let spread = (hi - lo) / 2.0 / v.length();
        (spread + (d / per - mid).abs() / v.length(), spread, d)
    };
    let mut best: Option<(f64, DVec3, f64)> = None;
    let unit = |v: &DVec3| (v.length() - NORMAL_SCALE).abs() <= NORMAL_LENGTH_SLACK;
    for v in candidates.filter(|v| v.abs().max_element() <= NORMAL_SCALE && unit(v)) {
        let (error, spread, d) = fit(v);
        // The best of all, not the first good enough: corners decoded from a polygon fit its own
        // planes best, so a polygon re-encoded (moved, re-tiled) keeps its normals. Points that
        // lie in one plane of a candidate exactly are such corners, and that is their normal.
        if best.is_none_or(|(best_error, ..)| error < best_error) {
            best = Some((error, v, d));
        }
        if spread <= EXACT {
            break;
        }
    }
    let (_, v, d) =
        best.expect("the first candidate, a rounded unit normal ×127, is within the slack");
    let d = i16::try_from(d as i64).map_err(|_| (d / per / v.length()).abs() as f32)?;
    Ok(CollisionPlane {
        normal: v.to_array().map(|c| c as i8),
        pad: 0,
        d,
    })
}

/// The corners of a collision polygon in game space relative to its tile: corner k is where the
/// surface meets edge planes k and k+1 (edge plane 0 being the last), see
/// [`encode_collision_polygon`]. Planes are read at the engine's scale, n_i8/127 and d/4064.
///
/// The engine itself never needs the corners, only the planes; where a polygon is nearly straight
/// at a corner, its two edge planes cross at a shallow angle and the corner is found only as
/// exactly as the i8 planes allow. Where a damaged record's planes do not meet in a point, the
/// corner is the point of the surface plane nearest the tile origin (or the origin itself), so
/// that callers never see NaN.
pub fn decode_collision_polygon(poly: &CollisionPolygon) -> Vec<Vec3> {
    let n = poly.edge_count();
    let plane = |k: usize| unit_plane(poly.planes[k]);
    let surface = plane(0);
    (0..n)
        .map(|k| {
            let before = plane(if k == 0 { n } else { k });
            intersect([surface, before, plane(k + 1)]).as_vec3()
        })
        .collect()
}

/// The edge planes (numbered 1 to 4, as in the record) whose normals point away from the polygon:
/// the middle of its corners lies on their outer side. Edges point inwards (FORMAT.md §4); one
/// that does not leaves no point inside every edge, so the engine never finds the polygon.
/// Flipping a plane (normal and d) keeps the line it lies on, so the corners are found as well
/// either way.
pub fn outward_edges(poly: &CollisionPolygon) -> Vec<usize> {
    let corners = decode_collision_polygon(poly);
    let middle = corners.iter().map(|c| c.as_dvec3()).sum::<DVec3>() / corners.len() as f64;
    (1..=poly.edge_count())
        .filter(|&k| {
            let (normal, d) = unit_plane(poly.planes[k]);
            normal.dot(middle) - d < -EXACT
        })
        .collect()
}

/// A plane as the engine tests it, in units: (n_i8/127, d/4064).
fn unit_plane(p: CollisionPlane) -> (DVec3, f64) {
    (
        DVec3::from_array(p.normal.map(f64::from)) / NORMAL_SCALE,
        p.d as f64 / D_SCALE,
    )
}

/// The point on three planes n·x = d, or the fallback of [`decode_collision_polygon`].
fn intersect(planes: [(DVec3, f64); 3]) -> DVec3 {
    let [(n1, d1), (n2, d2), (n3, d3)] = planes;
    let det = n1.dot(n2.cross(n3));
    if det.abs() > 1e-9 {
        (n2.cross(n3) * d1 + n3.cross(n1) * d2 + n1.cross(n2) * d3) / det
    } else if n1.length_squared() > 0.0 {
        n1 * (d1 / n1.length_squared())
    } else {
        DVec3::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn plane_of(normal: [i8; 3], d: i16) -> CollisionPlane {
        CollisionPlane { normal, pad: 0, d }
    }

    #[test]
    fn a_floor_square_encodes_exactly() {
        let y = 0.25;
        // Counter-clockwise seen from above in game space (x east, z south).
        let corners = [
            Vec3::new(-0.5, y, 0.5),
            Vec3::new(0.5, y, 0.5),
            Vec3::new(0.5, y, -0.5),
            Vec3::new(-0.5, y, -0.5),
        ];
        let poly = encode_collision_polygon(&corners, 16).unwrap();
        assert_eq!(poly.kind, COLLISION_QUAD);
        assert_eq!(poly.material, 16);
        assert_eq!(poly.planes[0], plane_of([0, 127, 0], 1016));
        // Edge 1 runs from corner 0 to corner 1 along z = 0.5: its inward normal is −z.
        assert_eq!(poly.planes[1], plane_of([0, 0, -127], -2032));
        assert_eq!(poly.planes[2], plane_of([-127, 0, 0], -2032));
        assert_eq!(poly.planes[3], plane_of([0, 0, 127], -2032));
        assert_eq!(poly.planes[4], plane_of([127, 0, 0], -2032));
        assert_eq!(decode_collision_polygon(&poly), corners);
    }

    #[test]
    fn triangles_and_ceilings_set_their_kind_bits() {
        let floor = [Vec3::ZERO, Vec3::Z, Vec3::X];
        let poly = encode_collision_polygon(&floor, 0).unwrap();
        assert_eq!(poly.kind, 0);
        assert_eq!(poly.planes[0].normal, [0, 127, 0]);
        assert_eq!(
            poly.planes[4],
            CollisionPlane::default(),
            "a triangle has no fourth edge"
        );
        assert!(poly.planes.iter().all(|p| p.pad == 0));
        let ceiling = [floor[0], floor[2], floor[1]];
        let poly = encode_collision_polygon(&ceiling, 0).unwrap();
        assert_eq!(poly.kind, COLLISION_FACING_DOWN);
        assert_eq!(poly.planes[0].normal, [0, -127, 0]);
    }

    /// The engine's floor test (FORMAT.md §4, floor test steps 3 and 5) on integers: does the probe
    /// (game space, relative to the tile) stand on the polygon?
    fn engine_accepts_floor(poly: &CollisionPolygon, probe: Vec3) -> bool {
        let fixed = |v: f32| (v as f64 * 4096.0).round() as i64;
        let (lx, ly, lz) = (fixed(probe.x), fixed(probe.y), fixed(probe.z));
        let s = poly.planes[0];
        let [nx0, ny0, nz0] = s.normal.map(i64::from);
        assert!(ny0 > 0, "the engine tests only polygons facing up");
        let i6 = (s.d as i64 * 4096 - nz0 * 32 * lz - nx0 * 32 * lx - ny0 * 32 * ly) / (ny0 * 32);
        let y = ly + i6;
        let tolerance = -0x40 - ((0x1000 - ny0 * 32) >> 6);
        let edges = if poly.kind & COLLISION_QUAD != 0 {
            4
        } else {
            3
        };
        poly.planes[1..=edges].iter().all(|e| {
            let [nx, ny, nz] = e.normal.map(i64::from);
            ((ny * 32 * y + nz * 32 * lz + nx * 32 * lx) >> 12) - e.d as i64 >= tolerance
        })
    }

    /// The interior angles of a polygon, in degrees.
    fn corner_angles(p: &[Vec3]) -> impl Iterator<Item = f32> + '_ {
        let n = p.len();
        (0..n).map(move |k| {
            let a = p[(k + n - 1) % n] - p[k];
            let b = p[(k + 1) % n] - p[k];
            a.angle_between(b).to_degrees()
        })
    }

    /// Random convex polygons within ±7 units with interior angles of 15° to 160°: a corner is
    /// found where two edge planes cross, and at a needle or a nearly straight corner they cross
    /// at so flat an angle that any plane error moves the corner far (by 1/sin of the angle).
    fn random_polygon(rng: &mut Rng, corners: usize) -> Vec<Vec3> {
        loop {
            let centre = Vec3::new(
                rng.range(-4.0, 4.0),
                rng.range(-4.0, 4.0),
                rng.range(-4.0, 4.0),
            );
            let normal = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            if normal.length() < 0.1 {
                continue;
            }
            let normal = normal.normalize();
            let u = normal.any_orthonormal_vector();
            let v = normal.cross(u);
            let mut angles: Vec<f32> = (0..corners)
                .map(|_| rng.range(0.0, std::f32::consts::TAU))
                .collect();
            angles.sort_by(f32::total_cmp);
            let radius = rng.range(0.3, 4.0);
            let p: Vec<Vec3> = angles
                .iter()
                .map(|&a| {
                    let (sin, cos) = libm::sincosf(a);
                    centre + radius * (u * cos + v * sin) * rng.range(0.7, 1.0)
                })
                .collect();
            let inside = p.iter().all(|c| c.abs().max_element() <= 7.0);
            let shaped = corner_angles(&p).all(|a| (15.0..=160.0).contains(&a));
            if inside && shaped && encode_collision_polygon(&p, 0).is_ok() {
                return p;
            }
        }
    }

    #[test]
    fn random_polygons_decode_to_their_corners_and_contain_their_centroid() {
        let mut rng = Rng::new(7);
        let mut worst = 0f32;
        for i in 0..4000 {
            let p = random_polygon(&mut rng, 3 + i % 2);
            let poly = encode_collision_polygon(&p, 0).unwrap();
            let decoded = decode_collision_polygon(&poly);
            assert_eq!(decoded.len(), p.len());
            for (a, b) in decoded.iter().zip(&p) {
                worst = worst.max(a.distance(*b));
            }
            let centroid = p.iter().sum::<Vec3>() / p.len() as f32;
            if poly.planes[0].normal[1] > 0 {
                // Probe from just above, like feet standing on the surface.
                assert!(
                    engine_accepts_floor(&poly, centroid + Vec3::Y * 0.1),
                    "{p:?} {poly:?}"
                );
            }
        }
        assert!(worst < 0.02, "corners moved by up to {worst}");
    }

    #[test]
    fn bad_corners_are_refused_in_plain_words() {
        let square = [
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 0.0),
        ];
        let err = |c: &[Vec3]| encode_collision_polygon(c, 0).unwrap_err();
        assert_eq!(err(&square[..2]), CollisionError::CornerCount(2));
        assert_eq!(err(&[square[0]; 5]), CollisionError::CornerCount(5));
        assert_eq!(
            err(&[Vec3::ZERO, Vec3::X, Vec3::X * 2.0]),
            CollisionError::Degenerate,
            "collinear"
        );
        assert_eq!(
            err(&[square[0], square[1], square[1], square[3]]),
            CollisionError::Degenerate
        );
        assert_eq!(
            err(&[square[0], Vec3::NAN, square[2]]),
            CollisionError::NotFinite(1)
        );

        let mut warped = square;
        warped[2].y = 0.1;
        let e = err(&warped);
        assert!(matches!(e, CollisionError::NotPlanar { .. }), "{e}");
        assert!(e.to_string().contains("do not lie in one plane"), "{e}");

        let bowtie = [square[0], square[2], square[1], square[3]];
        assert_eq!(
            err(&bowtie),
            CollisionError::Degenerate,
            "its two halves cancel out"
        );
        let dart = [square[0], square[1], square[2], Vec3::new(0.7, 0.0, 0.7)];
        let e = err(&dart);
        assert_eq!(e, CollisionError::NotConvex(3));
        assert!(e.to_string().contains("bends inwards at corner 3"), "{e}");

        let far = square.map(|c| c + Vec3::new(0.0, 8.5, 0.0));
        let e = err(&far);
        assert!(
            matches!(e, CollisionError::OutOfReach { plane: 0, .. }),
            "{e}"
        );
        assert!(
            e.to_string().contains("surface plane lies 8.50 units away"),
            "{e}"
        );
        // Every corner within ±8 on each axis, yet the diagonal edge plane is 11 units out.
        let corner = [
            Vec3::new(7.9, 0.0, 7.9),
            Vec3::new(7.9, 0.0, 6.0),
            Vec3::new(6.0, 0.0, 7.9),
        ];
        assert!(
            matches!(err(&corner), CollisionError::OutOfReach { plane: 2, .. }),
            "{}",
            err(&corner)
        );
    }

    #[test]
    fn damaged_records_decode_without_nan() {
        let poly = CollisionPolygon {
            kind: 0,
            material: 0,
            planes: [
                plane_of([0, 127, 0], 4064),
                plane_of([0, 127, 0], 0),
                CollisionPlane::default(),
                CollisionPlane::default(),
                CollisionPlane::default(),
            ],
        };
        let corners = decode_collision_polygon(&poly);
        assert!(corners.iter().all(|c| c.is_finite()));
        assert_eq!(corners[0], Vec3::Y);
    }
}
