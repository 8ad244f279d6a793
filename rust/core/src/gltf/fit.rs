//! Texture entries for faces that were UV-mapped the normal way (issue: "Faces without a texture
//! entry"). The engine has no free UVs, only rectangle halves (note 001); each such face gets the
//! entry and corner flags on its material's page whose rule reproduces its UVs best, or a new
//! entry for its UV rectangle when none is close enough.

use serde::Serialize;

use crate::gltf::uv::face_uvs;
use crate::raw::{face_flags, TextureEntry};

/// A fit within this (in UV units: 3/4 of a texel on a 256-pixel page) reuses the entry.
pub const TOLERANCE: f32 = 0.75 / 256.0;

/// The corner choices of the rule: triangle, first and second quad half, each mirrored or not.
const CORNER_FLAGS: [u16; 6] = [
    face_flags::QUAD_HALF,
    face_flags::QUAD_HALF | face_flags::SECOND_HALF,
    0,
    face_flags::QUAD_HALF | face_flags::MIRROR_U,
    face_flags::QUAD_HALF | face_flags::SECOND_HALF | face_flags::MIRROR_U,
    face_flags::MIRROR_U,
];
const CORNER_BITS: u16 = face_flags::QUAD_HALF | face_flags::SECOND_HALF | face_flags::MIRROR_U;

/// What a material says about its faces: our materials are named `page 3 blend 0`, with
/// ` double-sided` for faces with flag 0x400.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageMaterial {
    pub page: i8,
    pub blend: u16,
    pub double_sided: bool,
}

impl PageMaterial {
    pub fn from_name(name: &str) -> Option<PageMaterial> {
        let mut words = name.split_whitespace();
        (words.next()? == "page").then_some(())?;
        let page = words.next()?.parse().ok()?;
        (words.next()? == "blend").then_some(())?;
        // Blender names a copy `page 3 blend 0.001`: the digits before the dot count.
        let blend = words.next()?.split('.').next()?.parse().ok()?;
        Some(PageMaterial {
            page,
            blend,
            double_sided: name.contains("double-sided"),
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FitReport {
    pub faces_fitted: usize,
    pub entries_appended: usize,
    /// Largest and mean distance between a face's UVs and what the game will show, in UV units.
    pub max_error: f32,
    pub mean_error: f32,
}

/// The level's texture table, growing as faces need new entries.
pub struct Fitter {
    pub entries: Vec<TextureEntry>,
    appended: usize,
    errors: Vec<f32>,
}

fn distance(a: &[[f32; 2]; 3], b: &[[f32; 2]; 3]) -> f32 {
    (0..3)
        .flat_map(|k| (0..2).map(move |c| (a[k][c] - b[k][c]).abs()))
        .fold(0.0, f32::max)
}

impl Fitter {
    pub fn new(entries: Vec<TextureEntry>) -> Fitter {
        Fitter {
            entries,
            appended: 0,
            errors: Vec::new(),
        }
    }

    fn best_on(
        &self,
        uvs: &[[f32; 2]; 3],
        candidates: impl Iterator<Item = usize>,
    ) -> Option<(usize, u16, f32)> {
        let mut best: Option<(usize, u16, f32)> = None;
        for i in candidates {
            for flags in CORNER_FLAGS {
                let err = distance(uvs, &face_uvs(&self.entries[i], flags));
                if best.is_none_or(|(_, _, e)| err < e) {
                    best = Some((i, flags, err));
                }
            }
        }
        best
    }

    /// Entry and corner flags for a face with these UVs (export corner order) on a page.
    pub fn fit(&mut self, uvs: [[f32; 2]; 3], material: PageMaterial) -> (u16, u16) {
        let on_page = |e: &TextureEntry| {
            !e.is_flat_colour() && e.page == material.page && e.blend_mode() == material.blend
        };
        let candidates: Vec<usize> = (0..self.entries.len())
            .filter(|&i| on_page(&self.entries[i]))
            .collect();
        let (entry, flags, err) = match self.best_on(&uvs, candidates.into_iter()) {
            Some(fit) if fit.2 <= TOLERANCE => fit,
            _ => {
                let template = self.entries.iter().find(|e| on_page(e)).copied();
                self.entries.push(rectangle_entry(&uvs, material, template));
                self.appended += 1;
                let last = self.entries.len() - 1;
                self.best_on(&uvs, std::iter::once(last))
                    .expect("one candidate")
            }
        };
        self.errors.push(err);
        (entry as u16, flags)
    }

    pub fn report(&self) -> FitReport {
        FitReport {
            faces_fitted: self.errors.len(),
            entries_appended: self.appended,
            max_error: self.errors.iter().copied().fold(0.0, f32::max),
            mean_error: if self.errors.is_empty() {
                0.0
            } else {
                self.errors.iter().sum::<f32>() / self.errors.len() as f32
            },
        }
    }

    pub fn appended(&self) -> &[TextureEntry] {
        &self.entries[self.entries.len() - self.appended..]
    }
}

/// The corner flags of a face with the fitted choice put in place of its own.
pub fn with_corner_flags(flags: u16, corner_flags: u16) -> u16 {
    (flags & !CORNER_BITS) | corner_flags
}

/// A new entry for the UV rectangle of a face (u1 and v1 are inclusive texels).
fn rectangle_entry(
    uvs: &[[f32; 2]; 3],
    material: PageMaterial,
    template: Option<TextureEntry>,
) -> TextureEntry {
    let texel = |v: f32| (v * 256.0).clamp(0.0, 256.0);
    let lo = |a: f32, b: f32, c: f32| texel(a.min(b).min(c)).round().min(255.0) as u8;
    let hi =
        |a: f32, b: f32, c: f32| (texel(a.max(b).max(c)).round() - 1.0).clamp(0.0, 255.0) as u8;
    let u0 = lo(uvs[0][0], uvs[1][0], uvs[2][0]);
    let v0 = lo(uvs[0][1], uvs[1][1], uvs[2][1]);
    let u1 = hi(uvs[0][0], uvs[1][0], uvs[2][0]).max(u0);
    let v1 = hi(uvs[0][1], uvs[1][1], uvs[2][1]).max(v0);
    // Same mode bits as the page's other entries, so the face keeps the page's look.
    let flags = template.map_or(material.blend << 12, |t| t.flags);
    TextureEntry {
        flags,
        page: material.page,
        page2: -1,
        u0,
        u1,
        v0,
        v1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn material_names_give_the_page() {
        assert_eq!(PageMaterial::from_name("page 2 blend 0"), Some(MATERIAL));
        assert_eq!(
            PageMaterial::from_name("page 5 blend 1 double-sided"),
            Some(PageMaterial {
                page: 5,
                blend: 1,
                double_sided: true
            })
        );
        // Blender appends a number to a copied material.
        assert_eq!(
            PageMaterial::from_name("page 2 blend 0.001").map(|m| m.page),
            Some(2)
        );
        assert_eq!(PageMaterial::from_name("Material.001"), None);
    }

    #[test]
    fn an_existing_entry_is_found_with_its_corner_flags() {
        let mut fitter = Fitter::new(vec![entry(0, 63, 0, 63), entry(64, 127, 0, 63)]);
        let uvs = face_uvs(
            &fitter.entries[1],
            face_flags::QUAD_HALF | face_flags::SECOND_HALF,
        );
        assert_eq!(
            fitter.fit(uvs, MATERIAL),
            (1, face_flags::QUAD_HALF | face_flags::SECOND_HALF)
        );
        let report = fitter.report();
        assert_eq!(
            (
                report.faces_fitted,
                report.entries_appended,
                report.max_error
            ),
            (1, 0, 0.0)
        );
    }

    #[test]
    fn a_rectangle_without_an_entry_gets_one_and_its_second_half_reuses_it() {
        let mut fitter = Fitter::new(vec![entry(0, 63, 0, 63)]);
        let wanted = entry(32, 95, 128, 191);
        let first = face_uvs(&wanted, face_flags::QUAD_HALF);
        let second = face_uvs(&wanted, face_flags::QUAD_HALF | face_flags::SECOND_HALF);
        assert_eq!(fitter.fit(first, MATERIAL), (1, face_flags::QUAD_HALF));
        assert_eq!(
            fitter.fit(second, MATERIAL),
            (1, face_flags::QUAD_HALF | face_flags::SECOND_HALF)
        );
        assert_eq!(fitter.appended(), &[wanted]);
        assert_eq!(fitter.report().max_error, 0.0);
    }
}
