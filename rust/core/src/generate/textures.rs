//! TEXT: texture pages and the texture table.

use super::plan::{Plan, Variant};
use crate::level::text::{Page, Palette};
use crate::level::Text;
use crate::raw::{TextureEntry, ENTRY_FLAT_COLOUR};
use crate::rng::Rng;

const PAGE_SIZE: usize = 256;
/// Pages are painted in 64×64 cells, each one texture rectangle of the table.
const CELL: usize = 64;
const CELLS_PER_ROW: usize = PAGE_SIZE / CELL;
const CELLS_PER_PAGE: usize = CELLS_PER_ROW * CELLS_PER_ROW;

/// The top-left pixel of a page's cell, cells counted row by row.
fn cell_origin(cell: usize) -> (usize, usize) {
    ((cell % CELLS_PER_ROW) * CELL, (cell / CELLS_PER_ROW) * CELL)
}

/// What a texture entry shows; the kit picks entries by surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Surface {
    Grass,
    Dirt,
    Stone,
    Brick,
    Wood,
    Cliff,
    /// Leaves with holes (transparent pixels): fences, drawn double-sided.
    Foliage,
    Door,
    /// The exit mat under the level door.
    Mat,
    /// Flat colour entries (flag bit 0).
    Flat,
}

impl Surface {
    const PAINTED: [Surface; 9] = [
        Surface::Grass,
        Surface::Dirt,
        Surface::Stone,
        Surface::Brick,
        Surface::Wood,
        Surface::Cliff,
        Surface::Foliage,
        Surface::Door,
        Surface::Mat,
    ];
    const COUNT: usize = 10;
}

/// Blend-mode values in entry flag bits 12–14: foliage with its holes, and variants of opaque
/// entries as the originals have them.
const BLEND_CUTOUT: u16 = 0x1000;
const BLEND_VARIANTS: [u16; 3] = [0x2000, 0x3000, 0x5000];
/// Page flags: 16-bit direct pages have some flag other than 0x80 set, RLE pages 0x80, 8-bit
/// paletted pages none.
const PAGE_DIRECT_FLAGS: [u32; 2] = [0x1, 0x9];
const PAGE_RLE16: u32 = 0x81;

pub(super) struct Textures {
    pub(super) text: Text,
    /// Entry indices by `Surface as usize`.
    by_surface: [Vec<u16>; Surface::COUNT],
}

impl Textures {
    pub(super) fn pick(&self, rng: &mut Rng, surface: Surface) -> u16 {
        rng.pick(&self.by_surface[surface as usize])
    }

    pub(super) fn entries(&self) -> &[TextureEntry] {
        &self.text.entries
    }

    fn add(&mut self, surface: Surface, entry: TextureEntry) {
        self.by_surface[surface as usize].push(self.text.entries.len() as u16);
        self.text.entries.push(entry);
    }

    /// A rectangle entry, inclusive pixel bounds, on `page`.
    fn add_rect(
        &mut self,
        surface: Surface,
        page: usize,
        flags: u16,
        (u0, v0): (usize, usize),
        (w, h): (usize, usize),
    ) {
        self.add(
            surface,
            TextureEntry {
                flags,
                page: page as i8,
                page2: -1,
                u0: u0 as u8,
                u1: (u0 + w - 1) as u8,
                v0: v0 as u8,
                v1: (v0 + h - 1) as u8,
            },
        );
    }
}

/// Value noise over one texture cell that wraps at the cell's edges, so that a texture repeats
/// seamlessly on neighbouring faces: random values every `step` pixels, blended bilinearly.
struct Noise {
    step: usize,
    lattice: Vec<u32>,
}

impl Noise {
    fn new(rng: &mut Rng, step: usize) -> Noise {
        let n = CELL / step;
        Noise {
            step,
            lattice: (0..n * n).map(|_| rng.below(256) as u32).collect(),
        }
    }

    /// 0..=255 at pixel (x, y) of the cell.
    fn at(&self, x: usize, y: usize) -> u32 {
        let (n, step) = (CELL / self.step, self.step);
        let value =
            |i: usize, j: usize| self.lattice[((y / step + j) % n) * n + (x / step + i) % n];
        let (fx, fy) = ((x % step) as u32, (y % step) as u32);
        let s = step as u32;
        let top = value(0, 0) * (s - fx) + value(1, 0) * fx;
        let bottom = value(0, 1) * (s - fx) + value(1, 1) * fx;
        (top * (s - fy) + bottom * fy) / (s * s)
    }
}

/// An opaque ABGR1555 pixel (R in bits 0–4) with bit 15, the A, set, as the project writes
/// opaque pixels and as levels made by other tools have them (FORMAT.md §8); so never 0, which
/// the game draws transparent.
fn rgb(r: u32, g: u32, b: u32) -> u16 {
    let c = |v: u32| v.min(31) as u16;
    0x8000 | c(r) | c(g) << 5 | c(b) << 10
}

/// One pixel of a surface's pattern; `coarse` and `fine` are two octaves of noise (0..=255).
fn paint(surface: Surface, x: usize, y: usize, coarse: u32, fine: u32) -> u16 {
    let n = (coarse * 3 + fine) / 4;
    let (xu, yu) = (x as u32, y as u32);
    match surface {
        Surface::Grass => rgb(3 + n / 48, 11 + n / 20, 2 + fine / 96),
        Surface::Dirt => rgb(13 + n / 24, 8 + n / 32, 4 + n / 48),
        Surface::Stone if fine < 24 => rgb(7 + n / 32, 7 + n / 32, 8 + n / 32),
        Surface::Stone => rgb(11 + n / 24, 11 + n / 24, 12 + n / 24),
        Surface::Brick => {
            let offset = if (y / 16) % 2 == 1 { 16 } else { 0 };
            if y % 16 < 2 || (x + offset) % 32 < 2 {
                rgb(21, 20, 18)
            } else {
                rgb(17 + n / 40, 6 + n / 64, 4 + fine / 128)
            }
        }
        Surface::Wood if x % 16 == 0 => rgb(5, 3, 2),
        Surface::Wood => {
            let grain = (yu + coarse / 8 + (xu / 16) * 11) % 12;
            rgb(15 + grain / 3 + fine / 96, 9 + grain / 4, 4)
        }
        Surface::Cliff => {
            let band = (yu + coarse / 12) / 8;
            let v = 9 + (band * 7) % 6 + fine / 64;
            rgb(v + 4, v + 2, v)
        }
        Surface::Foliage if n > 124 => rgb(4 + fine / 64, 10 + (n - 124) / 8, 3),
        Surface::Foliage => 0,
        Surface::Door if !(4..CELL - 4).contains(&x) || !(4..CELL - 4).contains(&y) => rgb(6, 4, 2),
        Surface::Door if (18..22).contains(&y) || (42..46).contains(&y) => rgb(12, 12, 13),
        Surface::Door => rgb(16 + fine / 64, 10 + (yu % 8) / 4, 5),
        Surface::Mat if (x / 8 + y / 8) % 2 == 0 => rgb(24, 3 + fine / 128, 3),
        Surface::Mat => rgb(28, 22, 5),
        Surface::Flat => rgb(16, 16, 16),
    }
}

pub(super) fn build_textures(rng: &mut Rng, plan: &Plan, variant: &Variant) -> Textures {
    let mut textures = Textures {
        text: Text::default(),
        by_surface: Default::default(),
    };
    let specials = variant.paletted_page as usize + variant.rle_page as usize;
    let direct_pages = plan
        .pages
        .saturating_sub(specials)
        .max(plan.min_direct_pages);
    // The painted surfaces go round the cells of all direct pages, so every surface has an entry
    // as soon as there are two pages.
    let first_surface = rng.below(Surface::PAINTED.len());
    for page_index in 0..direct_pages {
        add_direct_page(rng, &mut textures, page_index, first_surface);
    }
    if variant.paletted_page {
        add_paletted_page(rng, &mut textures);
    }
    if variant.rle_page {
        add_rle_page(rng, &mut textures);
    }
    add_flat_colours(rng, &mut textures);
    textures.text.trailing = rng.bytes(40);
    textures
}

/// A page of painted cells, each a surface with its entries (some cut in halves, some with a
/// blend-mode variant).
fn add_direct_page(
    rng: &mut Rng,
    textures: &mut Textures,
    page_index: usize,
    first_surface: usize,
) {
    let mut data = vec![0u8; PAGE_SIZE * PAGE_SIZE * 2];
    for cell in 0..CELLS_PER_PAGE {
        let surface = Surface::PAINTED
            [(first_surface + page_index * CELLS_PER_PAGE + cell) % Surface::PAINTED.len()];
        let origin = cell_origin(cell);
        let (coarse, fine) = (Noise::new(rng, 16), Noise::new(rng, 4));
        for y in 0..CELL {
            for x in 0..CELL {
                let pixel = paint(surface, x, y, coarse.at(x, y), fine.at(x, y));
                let at = 2 * ((origin.1 + y) * PAGE_SIZE + origin.0 + x);
                data[at..at + 2].copy_from_slice(&pixel.to_le_bytes());
            }
        }
        let blend = if surface == Surface::Foliage {
            BLEND_CUTOUT
        } else {
            0
        };
        textures.add_rect(surface, page_index, blend, origin, (CELL, CELL));
        // Some cells are also cut into halves, and some have a blend-mode variant.
        if rng.chance(0.2) {
            textures.add_rect(surface, page_index, blend, origin, (CELL, CELL / 2));
            textures.add_rect(
                surface,
                page_index,
                blend,
                (origin.0, origin.1 + CELL / 2),
                (CELL, CELL / 2),
            );
        }
        if surface != Surface::Foliage && rng.chance(0.15) {
            textures.add_rect(
                surface,
                page_index,
                rng.pick(&BLEND_VARIANTS),
                origin,
                (CELL, CELL),
            );
        }
    }
    textures.text.pages.push(Page {
        flags: rng.pick(&PAGE_DIRECT_FLAGS),
        width: PAGE_SIZE as u32,
        height: PAGE_SIZE as u32,
        data,
    });
}

/// A page in the undocumented RLE16 compression (FORMAT.md §11): arbitrary bytes, which the
/// project keeps verbatim like any original's, its quarters entries of four surfaces.
fn add_rle_page(rng: &mut Rng, textures: &mut Textures) {
    let page = textures.text.pages.len();
    let len = 3_000 + rng.below(6_000);
    textures.text.pages.push(Page {
        flags: PAGE_RLE16,
        width: PAGE_SIZE as u32,
        height: PAGE_SIZE as u32,
        data: rng.bytes(len),
    });
    for (k, surface) in [
        Surface::Stone,
        Surface::Cliff,
        Surface::Grass,
        Surface::Dirt,
    ]
    .into_iter()
    .enumerate()
    {
        let half = PAGE_SIZE / 2;
        textures.add_rect(
            surface,
            page,
            0,
            ((k % 2) * half, (k / 2) * half),
            (half, half),
        );
    }
}

/// Flat colours read no page; they name page 0 like the rest of the table names one.
fn add_flat_colours(rng: &mut Rng, textures: &mut Textures) {
    for _ in 0..6 {
        let [r, g, b] = [rng.below(256), rng.below(256), rng.below(256)].map(|c| c as u8);
        textures.add(
            Surface::Flat,
            TextureEntry {
                flags: ENTRY_FLAT_COLOUR,
                page: 0,
                page2: -1,
                u0: r,
                u1: g,
                v0: b,
                v1: 0,
            },
        );
    }
}

/// An 8-bit page (flags 0) indexing a palette of earth colours, and the palette.
fn add_paletted_page(rng: &mut Rng, textures: &mut Textures) {
    let page = textures.text.pages.len();
    let mut data = vec![0u8; PAGE_SIZE * PAGE_SIZE];
    for cell in 0..CELLS_PER_PAGE {
        let origin = cell_origin(cell);
        let (coarse, fine) = (Noise::new(rng, 8), Noise::new(rng, 2));
        for y in 0..CELL {
            for x in 0..CELL {
                data[(origin.1 + y) * PAGE_SIZE + origin.0 + x] =
                    ((coarse.at(x, y) * 3 + fine.at(x, y)) / 4) as u8;
            }
        }
        let surface = [Surface::Stone, Surface::Cliff, Surface::Dirt][cell % 3];
        textures.add_rect(surface, page, 0, origin, (CELL, CELL));
    }
    textures.text.pages.push(Page {
        flags: 0,
        width: PAGE_SIZE as u32,
        height: PAGE_SIZE as u32,
        data,
    });
    let colours = (0..256u32)
        .map(|i| rgb(6 + i / 12, 5 + i / 14, 3 + i / 20))
        .collect();
    textures.text.palettes.push(Palette {
        header: 0,
        colours,
        extra: (0..=255).collect(),
    });
}
