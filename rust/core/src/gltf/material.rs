//! What a material says of its faces: the texture page they show, with which blend mode and
//! whether double-sided. Our glTFs say it in the material's extras
//! (`{"llamawad": "page", "page": 3, "blend": 0, "double_sided": false}`; Blender keeps them as
//! the material's custom properties), so that renaming a material changes nothing. The name
//! (`page 3 blend 0`, ` double-sided` for flag 0x400) says it too, for the eye, and is read
//! when the extras do not say it: glTFs written before the extras, and a material an artist
//! named by hand.

use serde_json::{json, Value};

use crate::gltf::read::number;
use crate::raw::TextureEntry;

/// The role in a page material's extras (`extras.llamawad`), as nodes carry theirs.
pub const PAGE_ROLE: &str = "page";

/// The page a material's faces show, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageMaterial {
    pub page: i8,
    pub blend: u16,
    pub double_sided: bool,
}

impl PageMaterial {
    /// What a material says: its extras where they name a page, else its name.
    pub fn of(name: Option<&str>, extras: Option<&Value>) -> Option<PageMaterial> {
        extras
            .and_then(PageMaterial::from_extras)
            .or_else(|| PageMaterial::from_name(name?))
    }

    /// The extras of a page's material, as export writes them. None where they do not name a
    /// page (another role, or a page or blend mode that is not a whole number in range).
    pub fn from_extras(extras: &Value) -> Option<PageMaterial> {
        (extras.get("llamawad")?.as_str()? == PAGE_ROLE).then_some(())?;
        let whole = |key: &str| number(extras.get(key)?).filter(|v| v.fract() == 0.0);
        Some(PageMaterial {
            page: i8::try_from(whole("page")? as i64).ok()?,
            blend: u16::try_from(whole("blend")? as i64).ok()?,
            // Absent: one-sided, as a name without the word is.
            double_sided: extras
                .get("double_sided")
                .and_then(number)
                .is_some_and(|v| v != 0.0),
        })
    }

    /// The name export gives the material: `page 3 blend 0`, `… double-sided`.
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

    pub fn name(&self) -> String {
        format!(
            "page {} blend {}{}",
            self.page,
            self.blend,
            if self.double_sided {
                " double-sided"
            } else {
                ""
            }
        )
    }

    pub fn extras(&self) -> Value {
        json!({
            "llamawad": PAGE_ROLE,
            "page": self.page,
            "blend": self.blend,
            "double_sided": self.double_sided,
        })
    }

    /// Whether an entry draws on this material's page the way it does.
    pub fn shows(&self, entry: &TextureEntry) -> bool {
        !entry.is_flat_colour() && entry.page == self.page && entry.blend_mode() == self.blend
    }
}

/// A triangle's material as the way back reads it: its name (by which messages and new images
/// know it) and the page it says its faces show. The default is no material.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Material {
    pub name: Option<String>,
    pub page: Option<PageMaterial>,
}

impl Material {
    pub fn read(name: Option<&str>, extras: Option<&Value>) -> Material {
        Material {
            name: name.map(str::to_string),
            page: PageMaterial::of(name, extras),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn extras_give_the_page_whatever_the_name() {
        let sided = PageMaterial {
            double_sided: true,
            ..MATERIAL
        };
        for m in [MATERIAL, sided] {
            assert_eq!(PageMaterial::from_extras(&m.extras()), Some(m));
            assert_eq!(PageMaterial::from_name(&m.name()), Some(m));
            assert_eq!(PageMaterial::of(Some("Sand"), Some(&m.extras())), Some(m));
            // The extras win over a name that says otherwise.
            assert_eq!(
                PageMaterial::of(Some("page 7 blend 1"), Some(&m.extras())),
                Some(m)
            );
        }
        // As Blender's exporter may write them: numbers as strings, a flag as 1.
        let blender = json!({"llamawad": "page", "page": "2", "blend": 0.0, "double_sided": 1});
        assert_eq!(PageMaterial::from_extras(&blender), Some(sided));
        // Extras that do not name a page leave it to the name.
        for other in [
            json!({"llamawad": "tile", "page": 2, "blend": 0}),
            json!({"llamawad": "page", "page": 200, "blend": 0}),
            json!({"llamawad": "page", "page": 2.5, "blend": 0}),
            json!({"llamawad": "page", "blend": 0}),
            json!({"something": "else"}),
        ] {
            assert_eq!(PageMaterial::from_extras(&other), None, "{other}");
            assert_eq!(
                PageMaterial::of(Some("page 2 blend 0"), Some(&other)),
                Some(MATERIAL)
            );
            assert_eq!(PageMaterial::of(Some("Sand"), Some(&other)), None);
        }
        assert_eq!(PageMaterial::of(None, None), None);
    }
}
