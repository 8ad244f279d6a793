//! The level's glTF handed to the add-on as arrays: equal, number by number, to the document
//! the exporter builds.

mod support {
    pub mod arrays;
}

use llamawad::generate::{generate, Size};
use llamawad::gltf::wad_to_gltf::hand_over::HandOverFault;
use llamawad::gltf::{wad_to_gltf, Source};
use support::arrays::check_hand_over;

#[test]
fn generated_levels_are_handed_over_as_their_gltf_holds_them() {
    for (seed, size) in [(1, Size::Full), (2, Size::Tiny)] {
        let level = generate(seed, size);
        let bytes = level.to_bytes().unwrap();
        let gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
        let (hand_over, compared) = check_hand_over(&gltf);
        let info = &hand_over.info;
        let map = level.map().unwrap();
        // Every tile, collision, zones and object-model mesh, with its corners.
        let tile_nodes = info
            .nodes
            .role
            .iter()
            .filter(|r| r.as_deref() == Some("tile"));
        assert_eq!(tile_nodes.count(), map.tiles.len());
        for role in ["tile", "collision", "zones", "object_model"] {
            assert!(info.batches.contains_key(role), "{size} {role}");
        }
        let tiles = &info.batches["tile"];
        let names: Vec<&str> = tiles.attributes.iter().map(|a| a.name.as_str()).collect();
        for name in [
            "POSITION",
            "COLOR_0",
            "TEXCOORD_0",
            "_FLAGS",
            "_FACE",
            "_VERTEX",
            "_RGB_0",
        ] {
            assert!(names.contains(&name), "{size}: {name} in {names:?}");
        }
        // Tiles of one model with as many colour frames: one mesh built, the others the
        // same but for their colours.
        let mut model_of_mesh = std::collections::HashMap::new();
        for (k, mesh) in info.nodes.mesh.iter().enumerate() {
            if let (Some(m), Some("tile")) = (mesh, info.nodes.role[k].as_deref()) {
                let extras = info.nodes.extras[k].as_ref().unwrap();
                model_of_mesh.insert(
                    *m,
                    (extras["model"].clone(), extras["colour_frames"].clone()),
                );
            }
        }
        let kinds: std::collections::HashSet<_> = model_of_mesh.values().collect();
        let copies = tiles.same_but_colours.iter().flatten().count();
        assert_eq!(copies, tiles.meshes.len() - kinds.len(), "{size}");
        for (i, same) in tiles.same_but_colours.iter().enumerate() {
            if let Some(j) = same {
                assert_eq!(
                    model_of_mesh[&tiles.meshes[i]],
                    model_of_mesh[&tiles.meshes[*j]]
                );
            }
        }
        assert!(compared.held > 0 && compared.filled > 0, "{compared:?}");
        if size == Size::Full {
            // 26,056 triangles of tiles, each corner with its attributes.
            assert_eq!(tiles.corner_start.last(), Some(&(26056 * 3)));
        }
    }
}

#[test]
fn a_document_that_is_no_plain_triangle_list_is_refused_by_name() {
    let level = generate(2, Size::Tiny);
    let bytes = level.to_bytes().unwrap();
    let mut gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
    let indices = gltf.push_floats(&[0.0, 1.0, 2.0], 1, false);
    gltf.root.meshes[0].primitives[0].indices = Some(indices);
    let err = llamawad::gltf::wad_to_gltf::hand_over::hand_over(&gltf)
        .err()
        .unwrap();
    assert_eq!(
        err.0,
        HandOverFault::NotTriangleList {
            mesh: 0,
            primitive: 0
        }
    );
    assert!(err.to_string().contains("mesh 0 primitive 0"), "{err}");

    // An image left out of the buffer is named by its index.
    let mut gltf = wad_to_gltf(&level, Source::of(&bytes)).unwrap();
    gltf.root.images[0].buffer_view = None;
    let err = llamawad::gltf::wad_to_gltf::hand_over::hand_over(&gltf)
        .err()
        .unwrap();
    assert_eq!(err.0, HandOverFault::ImageNotInBuffer { image: 0 });
}
