//! The hand-over to the add-on (`llamawad::gltf::wad_to_gltf::hand_over`) checked against the glTF document it
//! comes from, read back as a GLB with the `gltf` crate: every number of every attribute, node,
//! material and image.

use gltf::mesh::Semantic;
use llamawad::gltf::wad_to_gltf::hand_over::{hand_over, is_tile_colour, HandOver, BATCH_ROLES};
use llamawad::gltf::Gltf;

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn role(node: &gltf::Node) -> Option<String> {
    let extras: serde_json::Value = serde_json::from_str(node.extras().as_ref()?.get()).ok()?;
    extras["llamawad"].as_str().map(str::to_string)
}

/// What the corners of a primitive without an attribute carry when another primitive of the
/// batch has it (the add-on reads them so): no index, white, else 0.
fn missing(name: &str) -> f32 {
    match name {
        "_FACE" | "_VERTEX" | "_POLYGON" | "_CELL" => -1.0,
        "COLOR_0" => 1.0,
        _ => 0.0,
    }
}

/// Counts of attribute values compared with their accessor's and of values filled in.
#[derive(Debug, Default)]
pub struct Compared {
    pub held: usize,
    pub filled: usize,
}

/// Checks the hand-over of `gltf` number by number.
pub fn check_hand_over(gltf: &Gltf) -> (HandOver, Compared) {
    let hand_over = hand_over(gltf).unwrap();
    let glb = gltf.to_glb().unwrap();
    let parsed = gltf::Gltf::from_slice(&glb).unwrap();
    let blob = parsed.blob.as_deref().unwrap();
    let document = &parsed.document;
    let info = &hand_over.info;

    // Nodes: every scene walked parents first, with names, meshes, extras and transforms.
    let mut expected = Vec::new();
    for scene in document.scenes() {
        let mut stack: Vec<(gltf::Node, Option<usize>)> =
            scene.nodes().map(|n| (n, None)).collect();
        stack.reverse();
        while let Some((node, parent)) = stack.pop() {
            expected.push((scene.index(), node.clone(), parent));
            let mut children: Vec<_> = node.children().map(|c| (c, Some(node.index()))).collect();
            children.reverse();
            stack.extend(children);
        }
    }
    let nodes = &info.nodes;
    assert_eq!(nodes.node.len(), expected.len());
    let transforms = floats(&hand_over.transforms);
    assert_eq!(transforms.len(), 10 * expected.len());
    for (k, (scene, node, parent)) in expected.iter().enumerate() {
        assert_eq!(nodes.scene[k], *scene);
        assert_eq!(nodes.node[k], node.index());
        assert_eq!(nodes.parent[k], *parent);
        assert_eq!(nodes.name[k].as_deref(), node.name());
        assert_eq!(nodes.role[k], role(node));
        assert_eq!(nodes.mesh[k], node.mesh().map(|m| m.index()));
        assert_eq!(
            nodes.extras[k],
            node.extras()
                .as_ref()
                .map(|e| serde_json::from_str::<serde_json::Value>(e.get()).unwrap())
        );
        let (t, r, s) = node.transform().decomposed();
        let want: Vec<f32> = t.iter().chain(&r).chain(&s).copied().collect();
        assert_eq!(
            transforms[10 * k..10 * k + 10],
            want[..],
            "node {}",
            node.index()
        );
    }

    // Materials and images.
    assert_eq!(info.materials.len(), document.materials().len());
    for (m, material) in info.materials.iter().zip(document.materials()) {
        let pbr = material.pbr_metallic_roughness();
        assert_eq!(Some(m.name.as_str()), material.name());
        assert_eq!(m.base_colour, pbr.base_color_factor());
        assert_eq!(
            m.image,
            pbr.base_color_texture()
                .map(|t| t.texture().source().index())
        );
        assert_eq!(m.double_sided, material.double_sided());
        assert_eq!(
            m.extras.as_ref().map(|e| e.to_string()),
            material.extras().as_ref().map(|e| e.get().to_string())
        );
        let alpha = match material.alpha_mode() {
            gltf::material::AlphaMode::Opaque => "OPAQUE",
            gltf::material::AlphaMode::Mask => "MASK",
            gltf::material::AlphaMode::Blend => "BLEND",
        };
        assert_eq!(m.alpha_mode, alpha);
    }
    assert_eq!(hand_over.pngs.len(), document.images().len());
    for (png, image) in hand_over.pngs.iter().zip(document.images()) {
        let gltf::image::Source::View { view, .. } = image.source() else {
            panic!("images are in the buffer");
        };
        assert_eq!(png[..], blob[view.offset()..view.offset() + view.length()]);
        assert!(png.starts_with(b"\x89PNG"));
    }

    // Batches: the distinct meshes of each role's nodes, in node order, every attribute of
    // every primitive where the batch says, equal to what its accessor holds.
    let meshes: Vec<gltf::Mesh> = document.meshes().collect();
    let mut compared = Compared::default();
    for role_name in BATCH_ROLES {
        let mut want: Vec<usize> = Vec::new();
        for (_, node, _) in &expected {
            match node.mesh() {
                Some(m)
                    if role(node).as_deref() == Some(role_name) && !want.contains(&m.index()) =>
                {
                    want.push(m.index())
                }
                _ => {}
            }
        }
        let Some(batch) = info.batches.get(role_name) else {
            assert!(want.is_empty(), "{role_name}");
            continue;
        };
        assert_eq!(batch.meshes, want, "{role_name}");
        assert_eq!(batch.corner_start.len(), want.len() + 1);
        for attribute in &batch.attributes {
            let values = floats(&hand_over.arrays[attribute.array]);
            let width = attribute.width;
            assert_eq!(values.len(), batch.corner_start[want.len()] * width);
            for (i, &m) in want.iter().enumerate() {
                let mut at = batch.corner_start[i] * width;
                let mut has = false;
                for (p, prim) in meshes[m].primitives().enumerate() {
                    let count = prim.get(&Semantic::Positions).unwrap().count();
                    assert_eq!(batch.primitive_triangles[i][p], count / 3);
                    assert_eq!(batch.primitive_materials[i][p], prim.material().index());
                    let semantic = prim
                        .attributes()
                        .map(|(s, _)| s)
                        .find(|s| s.to_string() == attribute.name);
                    let got = &values[at..at + count * width];
                    match semantic {
                        Some(s) => {
                            has = true;
                            let accessor = prim.get(&s).unwrap();
                            assert_eq!(accessor.dimensions().multiplicity(), width);
                            let view = accessor.view().unwrap();
                            let start = view.offset() + accessor.offset();
                            let held = floats(&blob[start..start + count * width * 4]);
                            assert_eq!(got, &held[..], "{role_name} mesh {m} {}", attribute.name);
                            compared.held += count * width;
                        }
                        None => {
                            assert!(got.iter().all(|&v| v == missing(&attribute.name)));
                            compared.filled += count * width;
                        }
                    }
                    at += count * width;
                }
                assert_eq!(at, batch.corner_start[i + 1] * width);
                assert_eq!(attribute.meshes_without.contains(&i), !has);
            }
        }
        // A mesh the same as an earlier one but for the tile's colours: its other attributes
        // equal number by number, its primitives alike.
        for (i, same) in batch.same_but_colours.iter().enumerate() {
            let Some(j) = *same else { continue };
            assert!(j < i && batch.same_but_colours[j].is_none());
            assert_eq!(batch.primitive_materials[i], batch.primitive_materials[j]);
            assert_eq!(batch.primitive_triangles[i], batch.primitive_triangles[j]);
            for attribute in batch.attributes.iter().filter(|a| !is_tile_colour(&a.name)) {
                let values = floats(&hand_over.arrays[attribute.array]);
                let w = attribute.width;
                let corners =
                    |k: usize| &values[batch.corner_start[k] * w..batch.corner_start[k + 1] * w];
                assert_eq!(corners(i), corners(j), "{role_name} {}", attribute.name);
            }
        }
        // Every attribute of the batch's meshes is handed over but the normals.
        for &m in &want {
            for prim in meshes[m].primitives() {
                for (s, _) in prim.attributes() {
                    let handed = batch.attributes.iter().any(|a| a.name == s.to_string());
                    assert_eq!(handed, s != Semantic::Normals, "{role_name} {s:?}");
                }
            }
        }
    }
    (hand_over, compared)
}
