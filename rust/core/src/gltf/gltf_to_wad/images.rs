//! The scene's images into the level's pages (FORMAT.md §8): a page's image the artist edited is
//! written into the page; an image no page shows, on a material of its own, is placed on new
//! pages, and its material's faces are read as faces of that page.

use std::collections::{BTreeMap, BTreeSet};

use image::RgbaImage;

use super::error::{Cause, GltfToWadError};
use super::report::{ChangeReport, PageChanged};
use super::scene::{ImageData, Retexture, Scene};
use crate::codes::Code;
use crate::gltf::material::PageMaterial;
use crate::level::pages::{
    add_pages, decode_page, encode_png, fit_to_page, update_page, PageError, PageUpdate, PAGE_SIDE,
};
use crate::level::text::Text;
use crate::limits::MAX_PAGES;

/// A refusal of new pages: the page is named in the message.
fn refused(e: PageError) -> GltfToWadError {
    let (code, cause) = match e {
        PageError::TooManyPages { count } => (Code::PageCount, Cause::too_many(count, MAX_PAGES)),
        _ => (Code::PageImage, Cause::default()),
    };
    GltfToWadError::level(e.to_string()).code(code).cause(cause)
}

/// Writes the edited images of `text`'s pages into them. A page's image is the base-colour image
/// of a material that says it is the page's (`material.rs`); an image whose bytes are the PNG the
/// way there wrote is unchanged without being decoded, any other is decoded and compared with the
/// page at its own precision ([`update_page`]). Refused: a changed page that cannot hold it
/// (RLE16, damaged, another size), and two images of one page that differ.
pub(super) fn write_page_images(
    scene: &Scene,
    text: &mut Text,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let mut by_page: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for material in &scene.material_images {
        let page = material.page.and_then(|m| usize::try_from(m.page).ok());
        if let Some(page) = page.filter(|&p| p < text.pages.len()) {
            by_page.entry(page).or_default().insert(material.image);
        }
    }
    for (page, images) in by_page {
        let mut written: Option<(usize, PageUpdate)> = None;
        for image in images {
            let Some(data) = scene.images.get(image) else {
                continue;
            };
            // A glTF whose images lie beside it (by URI) still converts: its pages stay.
            if let ImageData::Unread(why) = data {
                report.warnings.push(format!(
                    "page {page}'s image is not read ({why}): the page keeps its pixels"
                ));
                continue;
            }
            let of_page = Cause {
                page: Some(page),
                ..Cause::default()
            };
            let update = page_update(data, text, page).map_err(|why| {
                GltfToWadError::level(format!("page {page}'s image: {why}"))
                    .code(Code::PageImage)
                    .cause(of_page.clone())
            })?;
            let Some(update) = update else { continue };
            match &written {
                Some((other, earlier)) if *earlier != update => {
                    return Err(GltfToWadError::level(format!(
                        "page {page} is shown by images {other} and {image}, which differ: give \
                         the page's materials one image"
                    ))
                    .code(Code::PageImage)
                    .cause(of_page))
                }
                Some(_) => {}
                None => written = Some((image, update)),
            }
        }
        if let Some((_, PageUpdate::Changed(changed))) = written {
            if changed.moved > 0 {
                report.warnings.push(format!(
                    "page {page} is 8-bit: {} of its {} changed pixels took a palette colour more \
                     than one 5-bit step from the image's",
                    changed.moved, changed.changed
                ));
            }
            report.pages_changed.push(PageChanged {
                page,
                pixels_changed: changed.changed,
                pixels_moved: changed.moved,
            });
            text.pages[page] = changed.page;
        }
    }
    Ok(())
}

/// What an image makes of its page; None for PNG bytes the way there wrote for the page as it is
/// (nothing decoded). An image that cannot be read is an error naming why.
fn page_update(data: &ImageData, text: &Text, page: usize) -> Result<Option<PageUpdate>, String> {
    if let ImageData::Png(bytes) = data {
        let shown = decode_page(&text.pages[page], &text.palettes, page);
        if *bytes == encode_png(&shown.image).as_slice() {
            return Ok(None);
        }
    }
    let image = data.pixels()?;
    update_page(&text.pages[page], &text.palettes, page, &image)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Places the images of materials that are no page's on new pages of `text`, and tells `scene`
/// to read those materials' faces as faces of the new pages. An image several materials show is
/// placed once. Refused: an image that cannot be read, more pages than entries can name.
pub(super) fn add_new_images(
    scene: &mut Scene,
    text: &mut Text,
    report: &mut ChangeReport,
) -> Result<(), GltfToWadError> {
    let page_images: BTreeSet<usize> = scene
        .material_images
        .iter()
        .filter(|m| m.page.is_some())
        .map(|m| m.image)
        .collect();
    // Image number → the materials showing it, in image order.
    let mut new: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for material in &scene.material_images {
        if material.page.is_none() && !page_images.contains(&material.image) {
            new.entry(material.image)
                .or_default()
                .push(material.name.clone());
        }
    }
    if new.is_empty() {
        return Ok(());
    }
    let mut pixels: Vec<RgbaImage> = Vec::with_capacity(new.len());
    for (&image, materials) in &new {
        let unread = |why: String, count: Option<usize>| {
            GltfToWadError::level(format!("material '{}': {why}", materials[0]))
                .code(Code::Unreadable)
                .cause(Cause {
                    image: Some(image),
                    count,
                    ..Cause::default()
                })
        };
        let images = scene.images.len();
        let data = scene.images.get(image).ok_or_else(|| {
            unread(
                format!("names image {image}, but there are {images}"),
                Some(images),
            )
        })?;
        // Fitted here rather than by add_pages, so that the warning names the material.
        let read = data.pixels().map_err(|why| unread(why, None))?;
        let (fitted, warning) = fit_to_page(read.into_owned());
        report
            .warnings
            .extend(warning.map(|w| format!("material '{}': {w}", materials[0])));
        pixels.push(fitted);
    }
    let first = text.pages.len();
    let added = add_pages(text, pixels).map_err(refused)?;
    report.pages_added = (first..text.pages.len()).collect();
    let side = PAGE_SIDE as f32;
    for ((_, materials), at) in new.into_iter().zip(&added.placements) {
        let retexture = Retexture {
            page: PageMaterial {
                page: i8::try_from(at.page).expect("add_pages places images on pages 0 to 127"),
                blend: 0,
                double_sided: false,
            },
            rectangle: [
                at.x as f32 / side,
                at.y as f32 / side,
                at.width as f32 / side,
                at.height as f32 / side,
            ],
        };
        for material in materials {
            scene.retextured.insert(material, retexture.clone());
        }
    }
    Ok(())
}
