//! Texture entries for faces whose UVs were drawn freely (new geometry, or UVs edited on a
//! tile). The engine has no free UVs (FORMAT.md §3): a triangle shows one half of a texture entry's
//! rectangle, which half and which way round set by the corner flags 0x800, 0x10 and 0x20 and by
//! which of the triangle's corners comes first. Each face gets the layout of an entry on its
//! material's page that shows its UVs, sharing an existing entry where one has the same
//! rectangle, or a new entry for its UV rectangle where none does.

use rustc_hash::FxHashMap;

use serde::Serialize;

use crate::gltf::material::PageMaterial;
use crate::gltf::uv::face_uvs;
use crate::raw::{face_flags, TextureEntry};

/// A face is "fitted" when what the game shows is within this of its UVs, in UV units (a texel on
/// a 256-pixel page). Faces further off are refused, or snapped when the caller allows it.
pub const FIT_TOLERANCE: f32 = 1.0 / 256.0;
/// An existing entry shows a face's rectangle when its corners are within this (UV units).
pub const SHARE_TOLERANCE: f32 = 1.0 / 1024.0;

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

/// How a face shows an entry: its corner flags, and how far its corners are turned (the face's
/// corner k is the given corner (k + rotation) mod 3; the winding stays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub corner_flags: u16,
    pub rotation: usize,
}

/// The largest difference of two faces' UVs, in UV units.
pub fn uv_distance(a: &[[f32; 2]; 3], b: &[[f32; 2]; 3]) -> f32 {
    (0..3)
        .flat_map(|k| (0..2).map(move |c| (a[k][c] - b[k][c]).abs()))
        .fold(0.0, f32::max)
}

/// The layout that shows `uvs` (a face's corners in export order) best with `entry`, and how far
/// off it is.
pub fn best_layout(entry: &TextureEntry, uvs: &[[f32; 2]; 3]) -> (Layout, f32) {
    let mut best = (
        Layout {
            corner_flags: CORNER_FLAGS[0],
            rotation: 0,
        },
        f32::INFINITY,
    );
    for rotation in 0..3 {
        let turned = [0, 1, 2].map(|k| uvs[(k + rotation) % 3]);
        for corner_flags in CORNER_FLAGS {
            let error = uv_distance(&turned, &face_uvs(entry, corner_flags));
            if error < best.1 {
                best = (
                    Layout {
                        corner_flags,
                        rotation,
                    },
                    error,
                );
            }
        }
    }
    best
}

/// A face's fitted entry and layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    pub entry: u16,
    pub layout: Layout,
    /// How far what the game shows is from the face's UVs (UV units).
    pub error: f32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FitReport {
    pub faces_fitted: usize,
    /// Entries appended for rectangles no entry had.
    pub entries_appended: usize,
    /// Faces that share an entry the level had already.
    pub entries_shared: usize,
    /// Largest and mean distance between a face's UVs and what the game will show, in UV units;
    /// faces within `tolerance` count as fitted.
    pub max_error: f32,
    pub mean_error: f32,
    pub tolerance: f32,
}

/// The level's texture table, growing as faces need new entries.
pub struct Fitter {
    pub entries: Vec<TextureEntry>,
    /// Whether faces the game cannot show within [`FIT_TOLERANCE`] take their nearest layout
    /// instead of being refused.
    pub snap: bool,
    base_entries: usize,
    shared: usize,
    errors: Vec<f32>,
    /// Entries by page and top-left texel: a face's UVs can only share an entry whose rectangle
    /// is their bounding box (a triangle shows three corners of its rectangle), so looking near
    /// that box is enough, however large the table grows (a finely subdivided mesh adds
    /// thousands).
    by_corner: FxHashMap<(i8, u8, u8), Vec<usize>>,
    index: FxHashMap<TextureEntry, usize>,
}

impl Fitter {
    pub fn new(entries: Vec<TextureEntry>, snap: bool) -> Fitter {
        let mut fitter = Fitter {
            base_entries: entries.len(),
            snap,
            entries: Vec::with_capacity(entries.len()),
            shared: 0,
            errors: Vec::new(),
            by_corner: FxHashMap::default(),
            index: FxHashMap::default(),
        };
        for entry in entries {
            fitter.push(entry);
        }
        fitter
    }

    fn push(&mut self, entry: TextureEntry) {
        let i = self.entries.len();
        self.entries.push(entry);
        self.index.entry(entry).or_insert(i);
        self.by_corner
            .entry((entry.page, entry.u0, entry.v0))
            .or_default()
            .push(i);
    }

    /// Entries whose top-left texel is within one of the UVs' bounding box's, in table order.
    fn near(&self, uvs: &[[f32; 2]; 3], page: i8) -> Vec<usize> {
        let texel = |c: usize| {
            let lo = uvs.iter().map(|uv| uv[c]).fold(f32::INFINITY, f32::min);
            (lo * 256.0).round() as i32
        };
        let (u, v) = (texel(0), texel(1));
        let mut out: Vec<usize> = (u - 1..=u + 1)
            .flat_map(|a| (v - 1..=v + 1).map(move |b| (a, b)))
            .filter_map(|(a, b)| Some((u8::try_from(a).ok()?, u8::try_from(b).ok()?)))
            .filter_map(|(a, b)| self.by_corner.get(&(page, a, b)))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out
    }

    /// The best entry on `material`'s page for `uvs` among those that may share its rectangle,
    /// and its layout.
    fn best_on_page(&self, uvs: &[[f32; 2]; 3], material: PageMaterial) -> Option<Fit> {
        let mut best: Option<Fit> = None;
        for i in self.near(uvs, material.page) {
            let entry = &self.entries[i];
            if !material.shows(entry) {
                continue;
            }
            let (layout, error) = best_layout(entry, uvs);
            if best.is_none_or(|b| error < b.error) {
                best = Some(Fit {
                    entry: i as u16,
                    layout,
                    error,
                });
            }
        }
        best
    }

    /// What a face with these UVs (export corner order) on a page shows: an existing entry within
    /// [`SHARE_TOLERANCE`], or else the rectangle of its UVs, which is new when no entry has it
    /// (then `fit.entry` is the table's length).
    fn choose(&self, uvs: &[[f32; 2]; 3], material: PageMaterial) -> (Fit, Option<TextureEntry>) {
        if let Some(fit) = self
            .best_on_page(uvs, material)
            .filter(|f| f.error <= SHARE_TOLERANCE)
        {
            return (fit, None);
        }
        let template = self.entries.iter().find(|e| material.shows(e)).copied();
        let entry = rectangle_entry(uvs, material, template);
        let (layout, error) = best_layout(&entry, uvs);
        let existing = self.index.get(&entry).copied();
        let fit = Fit {
            entry: existing.unwrap_or(self.entries.len()) as u16,
            layout,
            error,
        };
        (fit, existing.is_none().then_some(entry))
    }

    /// How far off the best fit of a face would be, without taking an entry.
    pub fn error_of(&self, uvs: &[[f32; 2]; 3], material: PageMaterial) -> f32 {
        self.choose(uvs, material).0.error
    }

    /// The entry and layout for a face, appending the entry when it is new.
    pub fn fit(&mut self, uvs: &[[f32; 2]; 3], material: PageMaterial) -> Fit {
        let (fit, new) = self.choose(uvs, material);
        match new {
            Some(entry) => self.push(entry),
            None if (fit.entry as usize) < self.base_entries => self.shared += 1,
            None => {}
        }
        self.errors.push(fit.error);
        fit
    }

    /// Which diagonal a quad (its corners' UVs in order around it, file corner order) is cut
    /// along so that the game can show it: 0 for corners (0, 1, 2) + (0, 2, 3), 1 for (0, 1, 3) +
    /// (1, 2, 3). The engine shows each orientation of a rectangle along one diagonal only (the
    /// corner flags fix which half a triangle is); None when neither fits.
    pub fn quad_diagonal(&self, uvs: &[[f32; 2]; 4], material: PageMaterial) -> Option<usize> {
        let error = |a: usize, b: usize, c: usize| {
            // File corners (a, b, c) are export corners (a, c, b).
            self.error_of(&[uvs[a], uvs[c], uvs[b]], material)
        };
        let worst = [
            error(0, 1, 2).max(error(0, 2, 3)),
            error(0, 1, 3).max(error(1, 2, 3)),
        ];
        (0..2)
            .filter(|&d| worst[d] <= FIT_TOLERANCE)
            .min_by(|&a, &b| worst[a].total_cmp(&worst[b]))
    }

    pub fn report(&self) -> FitReport {
        FitReport {
            faces_fitted: self.errors.len(),
            entries_appended: self.entries.len() - self.base_entries,
            entries_shared: self.shared,
            max_error: self.errors.iter().copied().fold(0.0, f32::max),
            mean_error: if self.errors.is_empty() {
                0.0
            } else {
                self.errors.iter().sum::<f32>() / self.errors.len() as f32
            },
            tolerance: FIT_TOLERANCE,
        }
    }

    pub fn appended(&self) -> &[TextureEntry] {
        &self.entries[self.base_entries..]
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
mod tests;
