use super::*;
use crate::rng::Rng;

fn entry(u0: u8, u1: u8, v0: u8, v1: u8) -> TextureEntry {
    TextureEntry {
        flags: 0,
        page: 2,
        page2: -1,
        u0,
        u1,
        v0,
        v1,
    }
}

const MATERIAL: PageMaterial = PageMaterial {
    page: 2,
    blend: 0,
    double_sided: false,
};

#[test]
fn an_existing_entry_is_found_with_its_corner_flags() {
    let mut fitter = Fitter::new(vec![entry(0, 63, 0, 63), entry(64, 127, 0, 63)], false);
    let flags = face_flags::QUAD_HALF | face_flags::SECOND_HALF;
    let uvs = face_uvs(&fitter.entries[1], flags);
    let fit = fitter.fit(&uvs, MATERIAL);
    assert_eq!(
        (fit.entry, fit.layout.corner_flags, fit.error),
        (1, flags, 0.0)
    );
    let report = fitter.report();
    assert_eq!(
        (
            report.faces_fitted,
            report.entries_appended,
            report.entries_shared
        ),
        (1, 0, 1)
    );
}

#[test]
fn a_rectangle_without_an_entry_gets_one_and_its_second_half_reuses_it() {
    let mut fitter = Fitter::new(vec![entry(0, 63, 0, 63)], false);
    let wanted = entry(32, 95, 128, 191);
    let first = face_uvs(&wanted, face_flags::QUAD_HALF);
    let second = face_uvs(&wanted, face_flags::QUAD_HALF | face_flags::SECOND_HALF);
    assert_eq!(fitter.fit(&first, MATERIAL).entry, 1);
    assert_eq!(fitter.fit(&second, MATERIAL).entry, 1);
    assert_eq!(fitter.appended(), &[wanted]);
    assert_eq!(fitter.report().max_error, 0.0);
}

/// The four corners of a rectangle in order around it, file space: top-left, top-right,
/// bottom-right, bottom-left of the page (glTF's V grows downwards).
fn rectangle(e: &TextureEntry) -> [[f32; 2]; 4] {
    let (u0, u1) = (e.u0 as f32 / 256.0, (e.u1 as f32 + 1.0) / 256.0);
    let (v0, v1) = (e.v0 as f32 / 256.0, (e.v1 as f32 + 1.0) / 256.0);
    [[u0, v0], [u1, v0], [u1, v1], [u0, v1]]
}

/// The UVs of a quad showing the rectangle turned by `turn` quarter turns, mirrored or not.
fn oriented(e: &TextureEntry, turn: usize, mirrored: bool) -> [[f32; 2]; 4] {
    let mut corners = rectangle(e);
    if mirrored {
        corners.reverse();
    }
    [0, 1, 2, 3].map(|k| corners[(k + turn) % 4])
}

/// The triangles (file corner order) of a quad cut along a diagonal.
fn cut(diagonal: usize) -> [[usize; 3]; 2] {
    if diagonal == 0 {
        [[0, 1, 2], [0, 2, 3]]
    } else {
        [[0, 1, 3], [1, 2, 3]]
    }
}

#[test]
fn every_orientation_of_every_rectangle_comes_back_along_one_diagonal() {
    // Random rectangles of a page, each in 4 turns × 2 mirrorings, on a page whose table has
    // them (shared) or not (appended): the game shows each along exactly one diagonal, and
    // what it shows there is the quad's UVs.
    let mut rng = Rng::new(11);
    for case in 0..400 {
        let (a, b) = (rng.range(0.0, 255.0) as u8, rng.range(0.0, 255.0) as u8);
        let (c, d) = (rng.range(0.0, 255.0) as u8, rng.range(0.0, 255.0) as u8);
        let rect = entry(a.min(b), a.max(b), c.min(d), c.max(d));
        let table = if case % 2 == 0 {
            vec![entry(0, 7, 0, 7), rect]
        } else {
            vec![entry(0, 7, 0, 7)]
        };
        for turn in 0..4 {
            for mirrored in [false, true] {
                let mut fitter = Fitter::new(table.clone(), false);
                let uvs = oriented(&rect, turn, mirrored);
                let what = format!("{rect:?} turned {turn} mirrored {mirrored}");
                let showable: Vec<usize> = (0..2)
                    .filter(|&d| {
                        cut(d).iter().all(|t| {
                            let export = [uvs[t[0]], uvs[t[2]], uvs[t[1]]];
                            fitter.error_of(&export, MATERIAL) <= FIT_TOLERANCE
                        })
                    })
                    .collect();
                // A rectangle one texel wide or high looks the same along both diagonals.
                let thin = rect.u0 == rect.u1 || rect.v0 == rect.v1;
                if !thin {
                    assert_eq!(showable.len(), 1, "{what}");
                }
                let diagonal = fitter.quad_diagonal(&uvs, MATERIAL).unwrap();
                assert!(showable.contains(&diagonal), "{what}");
                for t in cut(diagonal) {
                    let export = [uvs[t[0]], uvs[t[2]], uvs[t[1]]];
                    let fit = fitter.fit(&export, MATERIAL);
                    let shown =
                        face_uvs(&fitter.entries[fit.entry as usize], fit.layout.corner_flags);
                    let turned = [0, 1, 2].map(|k| export[(k + fit.layout.rotation) % 3]);
                    assert!(
                        uv_distance(&shown, &turned) <= 1e-6,
                        "{what}: {shown:?} vs {turned:?}"
                    );
                    assert_eq!(fitter.entries[fit.entry as usize], rect, "{what}");
                }
                assert!(
                    fitter.appended().len() <= 1,
                    "{what}: one entry at most, shared"
                );
            }
        }
    }
}

#[test]
fn uvs_that_are_no_rectangle_half_are_off_by_more_than_the_tolerance() {
    let fitter = Fitter::new(vec![entry(0, 63, 0, 63)], false);
    // A sheared triangle: no layout of any rectangle shows it.
    let uvs = [[0.1, 0.1], [0.3, 0.15], [0.12, 0.4]];
    assert!(fitter.error_of(&uvs, MATERIAL) > FIT_TOLERANCE);
    // Off a texel's edge by a tenth of a texel: within the tolerance, snapped.
    let close =
        face_uvs(&entry(16, 31, 16, 31), face_flags::QUAD_HALF).map(|[u, v]| [u + 0.1 / 256.0, v]);
    let e = fitter.error_of(&close, MATERIAL);
    assert!(e > 0.0 && e <= FIT_TOLERANCE, "{e}");
}
