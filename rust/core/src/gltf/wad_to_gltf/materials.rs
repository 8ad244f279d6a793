//! Materials: one per page and blend mode (and double-sidedness), flat colours, collision and
//! zones; the pages as PNG textures.

use super::*;
use crate::gltf::material::PageMaterial;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum MaterialKey {
    Page {
        page: i8,
        blend: u16,
        double_sided: bool,
    },
    Flat {
        rgb: [u8; 3],
        double_sided: bool,
    },
    /// A face whose texture entry does not exist.
    Missing {
        double_sided: bool,
    },
    Collision,
    Zones,
}

impl Exporter<'_> {
    pub(super) fn material(&mut self, key: MaterialKey) -> Index<json::Material> {
        if let Some(&m) = self.materials.get(&key) {
            return m;
        }
        // A page's material says its page in its extras, which a rename leaves alone.
        let mut extras = None;
        let (name, base, texture, alpha_mode, double_sided) = match key {
            MaterialKey::Page {
                page,
                blend,
                double_sided,
            } => {
                let texture = self.page_texture(page);
                let transparent = texture.is_some_and(|(_, t)| t);
                let alpha = if blend != 0 {
                    AlphaMode::Blend
                } else if transparent {
                    AlphaMode::Mask
                } else {
                    AlphaMode::Opaque
                };
                let says = PageMaterial {
                    page,
                    blend,
                    double_sided,
                };
                extras = Some(says.extras());
                (
                    says.name(),
                    [1.0, 1.0, 1.0, 1.0],
                    texture.map(|(t, _)| t),
                    alpha,
                    double_sided,
                )
            }
            MaterialKey::Flat { rgb, double_sided } => (
                format!("flat #{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]),
                [
                    self.linear[rgb[0] as usize],
                    self.linear[rgb[1] as usize],
                    self.linear[rgb[2] as usize],
                    1.0,
                ],
                None,
                AlphaMode::Opaque,
                double_sided,
            ),
            MaterialKey::Missing { double_sided } => (
                "missing texture entry".to_string(),
                [1.0, 0.0, 1.0, 1.0],
                None,
                AlphaMode::Opaque,
                double_sided,
            ),
            MaterialKey::Collision => (
                "collision".to_string(),
                [1.0; 4],
                None,
                AlphaMode::Opaque,
                true,
            ),
            MaterialKey::Zones => ("zones".to_string(), [1.0; 4], None, AlphaMode::Opaque, true),
        };
        let material = self.root.push(json::Material {
            name: Some(name),
            alpha_cutoff: (alpha_mode == AlphaMode::Mask).then_some(AlphaCutoff(0.5)),
            alpha_mode: Valid(alpha_mode),
            double_sided,
            pbr_metallic_roughness: PbrMetallicRoughness {
                base_color_factor: PbrBaseColorFactor(base),
                base_color_texture: texture.map(|index| json::texture::Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: None,
                }),
                metallic_factor: StrengthFactor(0.0),
                roughness_factor: StrengthFactor(1.0),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            extensions: Some(extensions::material::Material {
                unlit: Some(extensions::material::Unlit {}),
            }),
            extras: extras.and_then(super::extras),
            ..Default::default()
        });
        self.materials.insert(key, material);
        material
    }

    /// The texture of a page and whether it has transparent pixels; None for a page that does
    /// not exist.
    pub(super) fn page_texture(&mut self, page: i8) -> Option<(Index<json::Texture>, bool)> {
        if let Some(&t) = self.page_textures.get(&page) {
            return t;
        }
        let text = self.level.text();
        let result = match text.filter(|t| page >= 0 && (page as usize) < t.pages.len()) {
            Some(text) => {
                let decoded = decode_page(text, page as usize);
                self.warnings.extend(decoded.note);
                let image = Index::new(self.pages.len() as u32);
                self.pages.push(page);
                self.page_encoder
                    .send(decoded.image)
                    .expect("the PNG encoder runs until every page is sent");
                let sampler = *self.sampler.get_or_insert_with(|| {
                    self.root.push(Sampler {
                        mag_filter: Some(Valid(MagFilter::Nearest)),
                        min_filter: Some(Valid(MinFilter::Nearest)),
                        name: None,
                        wrap_s: Valid(WrappingMode::ClampToEdge),
                        wrap_t: Valid(WrappingMode::ClampToEdge),
                        extensions: None,
                        extras: None,
                    })
                });
                let texture = self.root.push(json::Texture {
                    name: Some(format!("page {page}")),
                    sampler: Some(sampler),
                    source: image,
                    extensions: None,
                    extras: None,
                });
                Some((texture, decoded.has_transparency))
            }
            None => {
                self.warnings.push(format!(
                    "texture page {page} does not exist: faces on it are untextured"
                ));
                None
            }
        };
        self.page_textures.insert(page, result);
        result
    }

    pub(super) fn face_material_key(&self, face: &Face) -> MaterialKey {
        let double_sided = face.flags & face_flags::DOUBLE_SIDED != 0;
        match self.entries.get(face.texture as usize) {
            None => MaterialKey::Missing { double_sided },
            Some(e) if e.is_flat_colour() => MaterialKey::Flat {
                rgb: [e.u0, e.u1, e.v0],
                double_sided,
            },
            Some(e) => MaterialKey::Page {
                page: e.page,
                blend: e.blend_mode(),
                double_sided,
            },
        }
    }
}
