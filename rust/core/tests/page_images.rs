//! Images back into the level: a page's edited image is written into the page, an image no page
//! shows is placed on a new page and its faces get entries within it; both front doors alike.

use gltf::json::{self, mesh::Semantic, validation::Checked::Valid, Index};
use image::{Rgba, RgbaImage};
use llamawad::generate::{generate, Size};
use llamawad::gltf::{
    scene_to_wad, wad_to_gltf, ChangeReport, Document, Gltf, GltfToWadError, GltfToWadOptions,
    ImageArrays, SceneArrays, Source,
};
use llamawad::level::pages::{decode_page, encode_png, rgba_to_abgr1555};
use llamawad::level::text::PageKind;
use llamawad::Code;
use llamawad::Level;

mod doors;

fn convert(base: &Level, gltf: &Gltf) -> Result<(Level, ChangeReport), GltfToWadError> {
    let bytes = base.to_bytes().unwrap();
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    doors::convert(base, &bytes, &doc, GltfToWadOptions::default())
}

fn exported(level: &Level) -> Gltf {
    wad_to_gltf(level, Source::of(&level.to_bytes().unwrap())).unwrap()
}

/// The page a material of the glTF is named after and its texture, for the first material on a
/// page of this kind.
fn page_texture(gltf: &Gltf, level: &Level, kind: PageKind) -> Option<(usize, usize)> {
    let pages = &level.text().unwrap().pages;
    gltf.root.materials.iter().find_map(|m| {
        let page: usize = m
            .name
            .as_deref()?
            .strip_prefix("page ")?
            .split(' ')
            .next()?
            .parse()
            .ok()?;
        let texture = m
            .pbr_metallic_roughness
            .base_color_texture
            .as_ref()?
            .index
            .value();
        (pages.get(page)?.kind() == kind).then_some((page, texture))
    })
}

/// The page's image as the way there shows it.
fn page_image(level: &Level, page: usize) -> RgbaImage {
    let text = level.text().unwrap();
    decode_page(&text.pages[page], &text.palettes, page).image
}

/// Points `texture` at a new image holding `png`, as a tool writing the artist's painting would.
fn show(gltf: &mut Gltf, texture: usize, png: &[u8]) {
    let image = gltf.push_png(png, "painted");
    gltf.root.textures[texture].source = image;
}

/// A level whose every page but `page` is the base's has the base's bytes.
fn same_but_page(written: &Level, base: &Level, page: usize) {
    let mut restored = written.clone();
    restored.text_mut().unwrap().pages[page] = base.text().unwrap().pages[page].clone();
    assert!(restored.to_bytes().unwrap() == base.to_bytes().unwrap());
}

#[test]
fn a_repainted_page_changes_only_its_pixels() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let (page, texture) = page_texture(&gltf, &base, PageKind::Direct16).unwrap();
    let mut image = page_image(&base, page);
    let painted = [(3u32, 4u32), (100, 200), (255, 255)];
    for &(x, y) in &painted {
        let was = image.get_pixel(x, y).0;
        image.put_pixel(x, y, Rgba([was[0] ^ 0x80, was[1], was[2] ^ 0x40, 255]));
    }
    show(&mut gltf, texture, &encode_png(&image));
    let (written, report) = convert(&base, &gltf).unwrap();
    assert_eq!(report.pages_changed.len(), 1);
    assert_eq!(report.pages_changed[0].page, page);
    assert_eq!(report.pages_changed[0].pixels_changed, painted.len());
    assert_eq!(report.page_bytes_before, report.page_bytes_after);
    same_but_page(&written, &base, page);
    let (was, now) = (page_image(&base, page), page_image(&written, page));
    for (x, y, p) in now.enumerate_pixels() {
        if painted.contains(&(x, y)) {
            let want = rgba_to_abgr1555(image.get_pixel(x, y).0);
            assert_eq!(rgba_to_abgr1555(p.0), want, "the painted pixel is written");
        } else {
            assert_eq!(*p, *was.get_pixel(x, y), "the other pixels stay");
        }
    }
}

fn values16(level: &Level, page: usize) -> Vec<u16> {
    let data = &level.text().unwrap().pages[page].data;
    data.chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// Through the glTF, as through `set-page`: the repainted opaque pixels of a page whose opaque
/// pixels mostly have bit 15 set have it set, of one where they mostly have it clear clear.
#[test]
fn repainted_pixels_take_bit_15_as_most_of_their_pages_opaque_pixels_have_it() {
    for mostly_set in [true, false] {
        let mut base = generate(1, Size::Small);
        let gltf = exported(&base);
        let (page, texture) = page_texture(&gltf, &base, PageKind::Direct16).unwrap();
        // Bit 15 on 9 of every 10 opaque pixels, or on 1 of every 10.
        for (i, px) in base.text_mut().unwrap().pages[page]
            .data
            .chunks_exact_mut(2)
            .enumerate()
        {
            let p = u16::from_le_bytes([px[0], px[1]]) & 0x7fff;
            let p = if p != 0 && (i % 10 != 0) == mostly_set {
                p | 0x8000
            } else {
                p
            };
            px.copy_from_slice(&p.to_le_bytes());
        }
        let mut gltf = exported(&base);
        let mut image = page_image(&base, page);
        for x in 0..8 {
            image.put_pixel(x, 5, Rgba([255, 255, 0, 255]));
        }
        show(&mut gltf, texture, &encode_png(&image));
        let (written, report) = convert(&base, &gltf).unwrap();
        assert_eq!(report.pages_changed[0].pixels_changed, 8);
        let (was, now) = (values16(&base, page), values16(&written, page));
        let yellow = if mostly_set { 0x83ff } else { 0x03ff };
        for (i, (&a, &b)) in was.iter().zip(&now).enumerate() {
            let painted = i / 256 == 5 && i % 256 < 8;
            assert_eq!(b, if painted { yellow } else { a }, "pixel {i}");
        }
    }
}

#[test]
fn an_unchanged_page_image_keeps_the_file_however_it_is_encoded() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let (page, texture) = page_texture(&gltf, &base, PageKind::Direct16).unwrap();
    // The same pixels in other PNG bytes (as a tool re-saving the image writes them).
    let mut png = Vec::new();
    page_image(&base, page)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    assert!(png != encode_png(&page_image(&base, page)));
    show(&mut gltf, texture, &png);
    let (written, report) = convert(&base, &gltf).unwrap();
    assert!(report.pages_changed.is_empty() && report.pages_added.is_empty());
    assert!(written.to_bytes().unwrap() == base.to_bytes().unwrap());
}

#[test]
fn a_changed_rle16_page_is_refused_by_page() {
    let (base, gltf, page, texture) = (0..16)
        .find_map(|seed| {
            let base = generate(seed, Size::Small);
            let gltf = exported(&base);
            let (page, texture) = page_texture(&gltf, &base, PageKind::Rle16)?;
            Some((base, gltf, page, texture))
        })
        .expect("a generated level with an RLE16 page in use");
    let mut gltf = gltf;
    let mut image = page_image(&base, page);
    image.put_pixel(0, 0, Rgba([1, 2, 3, 255]));
    show(&mut gltf, texture, &encode_png(&image));
    let e = convert(&base, &gltf).unwrap_err();
    assert_eq!(e.code, Code::PageImage);
    assert!(e.message.contains(&format!("page {page}")), "{}", e.message);
    assert!(e.message.contains("RLE16"), "{}", e.message);
}

/// A material `name` showing `image` as a new PNG.
fn new_material(gltf: &mut Gltf, name: &str, image: &RgbaImage) -> Index<json::Material> {
    let image = gltf.push_png(&encode_png(image), name);
    let texture = gltf.root.push(json::Texture {
        name: None,
        sampler: None,
        source: image,
        extensions: None,
        extras: None,
    });
    let mut material = json::Material {
        name: Some(name.to_string()),
        ..Default::default()
    };
    material.pbr_metallic_roughness.base_color_texture = Some(json::texture::Info {
        index: texture,
        tex_coord: 0,
        extensions: None,
        extras: None,
    });
    gltf.root.push(material)
}

/// A square platform of two triangles over cell (2, 2) at height 1, showing `uvs` (each corner's
/// UV: the square's corners (x, z) (0, 0), (1, 0), (0, 1), (1, 1) in file space).
fn platform(gltf: &mut Gltf, material: Index<json::Material>, uvs: [[f32; 2]; 4]) {
    let corner = |k: usize| [2.0 + (k % 2) as f32, 1.0, 2.0 + (k / 2) as f32];
    // Faces up: (0, 2, 1) and (1, 2, 3) in file space, which is right-handed with y up.
    let order = [0usize, 2, 1, 1, 2, 3];
    let positions: Vec<f32> = order.iter().flat_map(|&k| corner(k)).collect();
    let texcoords: Vec<f32> = order.iter().flat_map(|&k| uvs[k]).collect();
    let mut attributes = std::collections::BTreeMap::new();
    attributes.insert(
        Valid(Semantic::Positions),
        gltf.push_floats(&positions, 3, true),
    );
    attributes.insert(
        Valid(Semantic::TexCoords(0)),
        gltf.push_floats(&texcoords, 2, false),
    );
    let mesh = gltf.root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some("platform".into()),
        primitives: vec![json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: None,
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });
    let node = gltf.root.push(json::Node {
        name: Some("platform".into()),
        mesh: Some(mesh),
        ..Default::default()
    });
    gltf.root.scenes[0].nodes.push(node);
}

const SQUARE: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];

fn checker(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, y| {
        Rgba([
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            ((x ^ y) & 1) as u8 * 255,
            255,
        ])
    })
}

#[test]
fn a_new_image_becomes_a_new_page_its_faces_show() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let image = checker(64, 64);
    let material = new_material(&mut gltf, "painted", &image);
    platform(&mut gltf, material, SQUARE);
    let (written, report) = convert(&base, &gltf).unwrap();
    let pages = base.text().unwrap().pages.len();
    assert_eq!(report.pages_added, vec![pages]);
    assert!(report.page_bytes_after > report.page_bytes_before);
    let text = written.text().unwrap();
    let page = page_image(&written, pages);
    // The packer puts the one image at the page's corner.
    for (x, y, p) in image.enumerate_pixels() {
        let shown = rgba_to_abgr1555(page.get_pixel(x, y).0);
        assert_eq!(shown, rgba_to_abgr1555(p.0), "pixel ({x}, {y})");
    }
    // Stored, the image's (opaque) pixels have bit 15 set, the rest of the page is 0.
    let stored = values16(&written, pages);
    for (i, &p) in stored.iter().enumerate() {
        let inside = i % 256 < 64 && i / 256 < 64;
        assert_eq!(p & 0x8000 != 0, inside, "pixel {i}: {p:#06x}");
        assert_eq!(p == 0, !inside, "pixel {i}: {p:#06x}");
    }
    let trak = written.trak().unwrap();
    let map = written.map().unwrap();
    let tiles = &map.tiles[base.map().unwrap().tiles.len()..];
    assert!(!tiles.is_empty());
    let mut faces = 0;
    for tile in tiles {
        for face in &trak.models[tile.model_index as usize].faces {
            let e = text.entries[face.texture as usize];
            assert_eq!(e.page as usize, pages);
            assert_eq!(
                (e.u0, e.u1, e.v0, e.v1),
                (0, 63, 0, 63),
                "the image's rectangle"
            );
            // What the engine draws at the entry's corner texels is the image's.
            for (u, v) in [(e.u0, e.v0), (e.u1, e.v1)] {
                let want = rgba_to_abgr1555(image.get_pixel(u as u32, v as u32).0);
                assert_eq!(rgba_to_abgr1555(page.get_pixel(u as u32, v as u32).0), want);
            }
            faces += 1;
        }
    }
    assert_eq!(faces, 2);
}

#[test]
fn a_new_image_larger_than_a_page_is_resampled_with_a_warning() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let material = new_material(&mut gltf, "wide", &checker(300, 200));
    platform(&mut gltf, material, SQUARE);
    let (written, report) = convert(&base, &gltf).unwrap();
    let warning = report
        .warnings
        .iter()
        .find(|w| w.contains("300×200"))
        .expect("a warning naming the image's size");
    assert!(
        warning.contains("256×171") && warning.contains("wide"),
        "{warning}"
    );
    let text = written.text().unwrap();
    let entry = text.entries.last().unwrap();
    assert_eq!((entry.u1, entry.v1), (255, 170));
}

#[test]
fn faces_that_show_no_half_rectangle_of_a_new_image_are_refused() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let material = new_material(&mut gltf, "painted", &checker(64, 64));
    platform(
        &mut gltf,
        material,
        [[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [1.0, 1.0]],
    );
    let e = convert(&base, &gltf).unwrap_err();
    assert_eq!(e.code, Code::UvsNotRectangle);
    assert_eq!(e.object(), Some("platform"));
    assert!(!e.faces.is_empty());
}

#[test]
fn more_pages_than_entries_can_name_are_refused() {
    let base = generate(1, Size::Small);
    let gltf = exported(&base);
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    let mut arrays = SceneArrays::of_document(&doc).unwrap();
    // Whole-page images, one page each, up to one page past the 128 a signed byte names.
    let wanted = 129 - base.text().unwrap().pages.len();
    for k in 0..wanted {
        arrays.images.push(ImageArrays {
            name: format!("image {k}"),
            width: 256,
            height: 256,
            rgba: vec![255; 256 * 256 * 4],
            missing: None,
        });
        arrays
            .material_images
            .push((format!("new {k}"), arrays.images.len() - 1));
    }
    let bytes = base.to_bytes().unwrap();
    let e = scene_to_wad(&base, &bytes, arrays, GltfToWadOptions::default()).unwrap_err();
    assert_eq!(e.code, Code::PageCount);
    assert!(e.message.contains("129 texture pages"), "{}", e.message);
    assert_eq!((e.cause.count, e.cause.limit), (Some(129), Some(128)));
}

/// The arrays a tool would hand over for `gltf`, with the image `image` handed over as one whose
/// file is gone.
fn with_missing_image(gltf: &Gltf, image: usize) -> SceneArrays {
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    let mut arrays = SceneArrays::of_document(&doc).unwrap();
    let missing = &mut arrays.images[image];
    (missing.width, missing.height, missing.rgba) = (0, 0, Vec::new());
    missing.missing = Some("its file /gone/painted.png is missing".into());
    arrays
}

#[test]
fn a_page_image_without_pixels_keeps_its_page_and_says_so() {
    let base = generate(1, Size::Small);
    let gltf = exported(&base);
    let (page, texture) = page_texture(&gltf, &base, PageKind::Direct16).unwrap();
    let image = gltf.root.textures[texture].source.value();
    let arrays = with_missing_image(&gltf, image);
    let bytes = base.to_bytes().unwrap();
    let (written, report) =
        scene_to_wad(&base, &bytes, arrays, GltfToWadOptions::default()).unwrap();
    assert!(written.to_bytes().unwrap() == bytes);
    let warned: Vec<_> = report
        .warnings
        .iter()
        .filter(|w| w.contains(&format!("page {page}'s image")))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", report.warnings);
    assert!(warned[0].contains("/gone/painted.png") && warned[0].contains("keeps its pixels"));
}

#[test]
fn a_new_image_without_pixels_is_refused_by_its_material() {
    let base = generate(1, Size::Small);
    let mut gltf = exported(&base);
    let material = new_material(&mut gltf, "painted", &checker(64, 64));
    platform(&mut gltf, material, SQUARE);
    let image = gltf.root.images.len() - 1;
    let arrays = with_missing_image(&gltf, image);
    let bytes = base.to_bytes().unwrap();
    let e = scene_to_wad(&base, &bytes, arrays, GltfToWadOptions::default()).unwrap_err();
    assert_eq!(e.code, Code::Unreadable);
    for words in ["material 'painted'", "has no pixels", "/gone/painted.png"] {
        assert!(e.message.contains(words), "{}", e.message);
    }
}
