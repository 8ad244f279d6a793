//! WAD → glTF checked number by number against the level, reading the GLB back with the `gltf`
//! crate: world-space corners, corner order, UVs, attributes, colours, collision corners.

use glam::{DVec3, Mat4, Vec3};
use gltf::mesh::Semantic;
use llamawad::generate::{generate, Size};
use llamawad::gltf::uv::face_uvs;
use llamawad::gltf::{wad_to_gltf, Source};
use llamawad::raw::CollisionPolygon;
use llamawad::Level;

struct Doc {
    document: gltf::Document,
    blob: Vec<u8>,
}

impl Doc {
    fn floats(&self, prim: &gltf::Primitive, semantic: Semantic) -> Option<Vec<f32>> {
        let accessor = prim.get(&semantic)?;
        let iter = gltf::accessor::Iter::<f32>::new(accessor, |_| Some(&self.blob[..]))?;
        Some(iter.collect())
    }

    fn vec<const N: usize>(
        &self,
        prim: &gltf::Primitive,
        semantic: Semantic,
    ) -> Option<Vec<[f32; N]>> {
        let accessor = prim.get(&semantic)?;
        assert_eq!(accessor.dimensions().multiplicity(), N);
        // Read as scalars: the accessor's view is tightly packed.
        let view = accessor.view()?;
        let start = view.offset() + accessor.offset();
        let bytes = &self.blob[start..start + accessor.count() * N * 4];
        Some(
            bytes
                .chunks_exact(4 * N)
                .map(|e| {
                    std::array::from_fn(|k| {
                        f32::from_le_bytes(e[4 * k..4 * k + 4].try_into().unwrap())
                    })
                })
                .collect(),
        )
    }
}

fn extra(name: &str) -> Semantic {
    Semantic::Extras(name.to_string())
}

fn node_extras(node: &gltf::Node) -> serde_json::Value {
    node.extras()
        .as_ref()
        .map(|e| serde_json::from_str(e.get()).unwrap())
        .unwrap_or(serde_json::Value::Null)
}

/// FORMAT.md §2: local export-space vertex → world export space, then z negated into file space.
fn expected_world(tile_pos: [f32; 3], rotation: u32, v: [f32; 3]) -> DVec3 {
    let a = rotation as f64 / 4096.0 * std::f64::consts::TAU;
    let (s, c) = libm::sincos(a);
    let [x, y, z] = tile_pos.map(|v| v as f64);
    let [vx, vy, vz] = v.map(|v| v as f64);
    let world = DVec3::new(x + vx * c - vz * s, y + vy, z + vx * s + vz * c);
    DVec3::new(world.x, world.y, -world.z)
}

/// The corners where the surface plane meets consecutive edge planes, computed here in f64
/// from the raw record with the engine's scale (FORMAT.md §4).
fn plane_intersections(p: &CollisionPolygon) -> Vec<DVec3> {
    let plane = |k: usize| {
        let pl = p.planes[k];
        let n = DVec3::new(
            pl.normal[0] as f64,
            pl.normal[1] as f64,
            pl.normal[2] as f64,
        ) / 127.0;
        (n, pl.d as f64 / 4064.0)
    };
    let edges = if p.kind & 1 != 0 { 4 } else { 3 };
    let (n0, d0) = plane(0);
    (0..edges)
        .map(|k| {
            let (n1, d1) = plane(1 + k);
            let (n2, d2) = plane(1 + (k + 1) % edges);
            let det = n0.dot(n1.cross(n2));
            (d0 * n1.cross(n2) + d1 * n2.cross(n0) + d2 * n0.cross(n1)) / det
        })
        .collect()
}

fn close(a: DVec3, b: DVec3, tolerance: f64) -> bool {
    (a - b).abs().max_element() <= tolerance
}

fn check_level(level: &Level, what: &str) {
    let bytes = level.to_bytes().unwrap();
    let gltf = wad_to_gltf(level, Source::of(&bytes)).unwrap();
    let glb = gltf.to_glb().unwrap();
    let parsed = gltf::Gltf::from_slice(&glb).unwrap();
    let doc = Doc {
        blob: parsed.blob.clone().unwrap(),
        document: parsed.document,
    };
    let trak = level.trak().unwrap();
    let map = level.map().unwrap();
    let entries = &level.text().unwrap().entries;

    let scene = doc.document.default_scene().unwrap();
    let tiles_group = scene.nodes().find(|n| n.name() == Some("Tiles")).unwrap();
    assert_eq!(
        tiles_group.children().count(),
        map.tiles.len(),
        "{what}: one node per tile"
    );

    let mut tile_triangles = 0usize;
    let mut expected_triangles = 0usize;
    for node in tiles_group.children() {
        let extras = node_extras(&node);
        let i = extras["tile"].as_u64().unwrap() as usize;
        let tile = &map.tiles[i];
        let model = &trak.models[tile.model_index as usize];
        assert_eq!(extras["model"], tile.model_index, "{what}: tile {i} model");
        assert_eq!(
            extras["rotation"], tile.float.rotation,
            "{what}: tile {i} rotation"
        );
        expected_triangles += model.faces.len();
        let matrix = Mat4::from_cols_array_2d(&node.transform().matrix());
        let nv = model.vertices.len();

        let mut seen_faces = vec![false; model.faces.len()];
        for prim in node
            .mesh()
            .into_iter()
            .flat_map(|m| m.primitives().collect::<Vec<_>>())
        {
            let positions = doc.vec::<3>(&prim, Semantic::Positions).unwrap();
            let uvs = doc.vec::<2>(&prim, Semantic::TexCoords(0));
            let flags = doc.floats(&prim, extra("FLAGS")).unwrap();
            let textures = doc.floats(&prim, extra("TEXTURE")).unwrap();
            let faces = doc.floats(&prim, extra("FACE")).unwrap();
            let vertices = doc.floats(&prim, extra("VERTEX")).unwrap();
            let rgb0 = doc.floats(&prim, extra("RGB_0")).unwrap();
            let alpha0 = doc.floats(&prim, extra("ALPHA_0")).unwrap();
            assert_eq!(positions.len() % 3, 0);
            for t in 0..positions.len() / 3 {
                tile_triangles += 1;
                let f = faces[3 * t] as usize;
                let face = &model.faces[f];
                assert!(!seen_faces[f], "{what}: tile {i} face {f} twice");
                seen_faces[f] = true;
                let entry_uvs = entries
                    .get(face.texture as usize)
                    .filter(|e| !e.is_flat_colour())
                    .map(|e| face_uvs(e, face.flags));
                // File-space corner k is export-space corner [0, 2, 1][k].
                for (k, export_corner) in [0usize, 2, 1].into_iter().enumerate() {
                    let c = 3 * t + k;
                    let v = face.corners[export_corner] as usize;
                    assert_eq!(faces[c] as usize, f);
                    assert_eq!(
                        vertices[c] as usize, v,
                        "{what}: tile {i} face {f} corner {k}"
                    );
                    assert_eq!(flags[c] as u16, face.flags);
                    assert_eq!(textures[c] as u16, face.texture);
                    let world = matrix.transform_point3(Vec3::from(positions[c])).as_dvec3();
                    let expected = expected_world(
                        tile.float.position,
                        tile.float.rotation,
                        model.vertices[v].position,
                    );
                    assert!(
                        close(world, expected, 1e-4),
                        "{what}: tile {i} face {f} corner {k}: {world} vs {expected}"
                    );
                    if let (Some(uvs), Some(rule)) = (&uvs, entry_uvs) {
                        assert_eq!(
                            uvs[c], rule[export_corner],
                            "{what}: tile {i} face {f} corner {k} UV"
                        );
                    }
                    let raw = tile.colours[v];
                    let packed = raw[0] as u32 | (raw[1] as u32) << 8 | (raw[2] as u32) << 16;
                    assert_eq!(rgb0[c] as u32, packed, "{what}: tile {i} vertex {v} colour");
                    assert_eq!(alpha0[c] as u8, raw[3]);
                }
            }
            let frames = tile.colours.len() / nv;
            for frame in 1..frames {
                let rgb = doc.floats(&prim, extra(&format!("RGB_{frame}"))).unwrap();
                for (c, &v) in vertices.iter().enumerate() {
                    let raw = tile.colours[frame * nv + v as usize];
                    assert_eq!(
                        rgb[c] as u32 & 0xff,
                        raw[0] as u32,
                        "{what}: tile {i} frame {frame}"
                    );
                }
            }
        }
        assert!(
            seen_faces.iter().all(|&s| s),
            "{what}: tile {i}: every face of model {} drawn",
            tile.model_index
        );

        // Collision: a child node with the polygons rebuilt from their planes.
        let collision = node
            .children()
            .find(|c| node_extras(c)["llamawad"] == "collision");
        assert_eq!(
            collision.is_some(),
            model.collision_count() > 0,
            "{what}: tile {i} collision node"
        );
        if let Some(child) = collision {
            let child_matrix = matrix * Mat4::from_cols_array_2d(&child.transform().matrix());
            let polygons: Vec<&CollisionPolygon> = model.collision_polygons().collect();
            let mut covered = vec![false; polygons.len()];
            for prim in child.mesh().unwrap().primitives() {
                let positions = doc.vec::<3>(&prim, Semantic::Positions).unwrap();
                let polygon_attr = doc.floats(&prim, extra("POLYGON")).unwrap();
                let material = doc.floats(&prim, extra("MATERIAL")).unwrap();
                for (c, pos) in positions.iter().enumerate() {
                    let p = polygon_attr[c] as usize;
                    covered[p] = true;
                    assert_eq!(material[c] as u8, polygons[p].material);
                    let world = child_matrix.transform_point3(Vec3::from(*pos)).as_dvec3();
                    let a = tile.float.rotation as f64 / 4096.0 * std::f64::consts::TAU;
                    let (s, co) = libm::sincos(a);
                    let origin = DVec3::new(
                        tile.float.position[0] as f64,
                        tile.float.position[1] as f64,
                        -tile.float.position[2] as f64,
                    );
                    let matches_a_corner = plane_intersections(polygons[p]).iter().any(|l| {
                        // Game-space local → world: rotation about +y by the tile's angle.
                        let w = origin + DVec3::new(l.x * co + l.z * s, l.y, -l.x * s + l.z * co);
                        close(w, world, 1e-3)
                    });
                    assert!(
                        matches_a_corner,
                        "{what}: tile {i} collision polygon {p} corner {world}"
                    );
                }
            }
            assert!(
                covered.iter().all(|&c| c),
                "{what}: tile {i}: every collision polygon shown"
            );
        }
    }
    assert_eq!(tile_triangles, expected_triangles, "{what}: triangle count");
}

#[test]
fn gltf_matches_the_level_number_by_number() {
    for size in Size::ALL {
        for seed in 1..=10 {
            check_level(&generate(seed, size), &format!("{size} seed {seed}"));
        }
    }
}

#[test]
fn scene_extras_identify_the_base_level() {
    let level = generate(3, Size::Tiny);
    let bytes = level.to_bytes().unwrap();
    let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
    let extras: serde_json::Value =
        serde_json::from_str(gltf.root.scenes[0].extras.as_ref().unwrap().get()).unwrap();
    let ours = &extras["llamawad"];
    assert_eq!(ours["source"]["size"], bytes.len());
    assert_eq!(ours["source"]["crc32"], crc32fast::hash(&bytes));
    assert_eq!(ours["wfpc"], level.wfpc());
    let map = level.map().unwrap();
    assert_eq!(ours["grid"], serde_json::json!([map.width, map.height]));
    assert_eq!(
        ours["region_grid"].as_array().unwrap().len(),
        map.region_grid.len()
    );
    assert_eq!(ours["regions"].as_array().unwrap().len(), 32);
    assert_eq!(
        ours["texture_entries"].as_array().unwrap().len(),
        level.text().unwrap().entries.len()
    );
}

#[test]
fn every_texture_shows_the_pixels_of_its_page() {
    // The PNGs are encoded on a second thread and written last: each texture (named after its
    // page where it is made) must still reach the PNG of that page.
    for (seed, size) in [(1, Size::Tiny), (2, Size::Small), (1, Size::Full)] {
        let level = generate(seed, size);
        let text = level.text().unwrap();
        let bytes = level.to_bytes().unwrap();
        let glb = wad_to_gltf(&level, Source::of(&bytes))
            .unwrap()
            .to_glb()
            .unwrap();
        let parsed = gltf::Gltf::from_slice(&glb).unwrap();
        let blob = parsed.blob.as_deref().unwrap();
        let textures: Vec<_> = parsed.document.textures().collect();
        assert!(!textures.is_empty(), "{size} seed {seed}: no textures");
        assert_eq!(parsed.document.images().count(), textures.len());
        for texture in textures {
            let page: usize = texture
                .name()
                .and_then(|n| n.strip_prefix("page "))
                .and_then(|n| n.parse().ok())
                .expect("a texture is named after its page");
            let gltf::image::Source::View { view, .. } = texture.source().source() else {
                panic!("page {page}: the image is not in the buffer");
            };
            let png = &blob[view.offset()..view.offset() + view.length()];
            let shown = image::load_from_memory_with_format(png, image::ImageFormat::Png)
                .unwrap()
                .to_rgba8();
            let expected = llamawad::gltf::texture::decode_page(text, page).image;
            assert_eq!(shown.dimensions(), expected.dimensions(), "page {page}");
            assert!(
                shown.as_raw() == expected.as_raw(),
                "{size} seed {seed}: the texture of page {page} shows other pixels"
            );
        }
    }
}
