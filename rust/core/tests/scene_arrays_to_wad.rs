//! The scene handed over as arrays (the add-on's export): the generated levels come back
//! byte-identical through it as through their glTF, and arrays a stranger made wrong are refused
//! naming the node, never a panic. (Every edit of `gltf_to_wad.rs` and `new_geometry.rs` also
//! goes through both doors: `doors::convert`.)

use llamawad::game::check_bytes;
use llamawad::generate::{generate, Size};
use llamawad::gltf::{
    scene_to_wad, scene_to_wad_checked, wad_to_gltf, Document, GltfToWadError, GltfToWadOptions,
    MeshArrays, NodeRef, SceneArrays, Source,
};
use llamawad::Code;
use llamawad::Level;

mod doors;

struct Case {
    base: Level,
    bytes: Vec<u8>,
    arrays: SceneArrays,
}

fn case(seed: u64, size: Size) -> Case {
    case_of(generate(seed, size).to_bytes().unwrap())
}

fn case_of(bytes: Vec<u8>) -> Case {
    let base = Level::parse(&bytes).unwrap();
    let gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    let arrays = SceneArrays::of_document(&doc).unwrap();
    Case {
        base,
        bytes,
        arrays,
    }
}

impl Case {
    /// The first tile node with a mesh: its number and name.
    fn tile(&self) -> (usize, String) {
        let k = self
            .arrays
            .nodes
            .iter()
            .position(|n| {
                n.mesh.is_some() && n.extras.as_ref().is_some_and(|e| e.get("tile").is_some())
            })
            .unwrap();
        (k, self.arrays.nodes[k].name.clone().unwrap())
    }

    fn refused(&self, what: &str, edit: impl FnOnce(&mut SceneArrays)) -> GltfToWadError {
        let mut arrays = self.arrays.clone();
        edit(&mut arrays);
        match scene_to_wad(&self.base, &self.bytes, arrays, GltfToWadOptions::default()) {
            Ok(_) => panic!("{what}: converted although the arrays are wrong"),
            Err(e) => e,
        }
    }
}

/// The node a refusal names: its index among the nodes handed over, and its name.
fn node_ref(index: usize, name: &str) -> Option<NodeRef> {
    Some(NodeRef {
        index: Some(index),
        name: Some(name.to_string()),
    })
}

#[test]
fn generated_levels_come_back_byte_identical_through_arrays() {
    for (seed, size) in [(1, Size::Full), (2, Size::Small), (3, Size::Tiny)] {
        let c = case(seed, size);
        let (level, report) =
            scene_to_wad(&c.base, &c.bytes, c.arrays, GltfToWadOptions::default()).unwrap();
        assert!(
            report.is_empty() && report.warnings.is_empty(),
            "{report:?}"
        );
        assert!(level.to_bytes().unwrap() == c.bytes, "{size} seed {seed}");
    }
}

/// The arrays with positions and the vertex attributes given once per point (corners with the
/// same values share one) and the face attributes once per triangle, as the add-on hands over a
/// Blender mesh.
fn indexed(mut arrays: SceneArrays) -> SceneArrays {
    const PER_POINT: [&str; 2] = ["POSITION", "_VERTEX"];
    const PER_FACE: [&str; 5] = ["_FLAGS", "_TEXTURE", "_FACE", "_TILE", "_SOURCE_FACE"];
    let mut shared = false;
    for mesh in &mut arrays.meshes {
        let (mut points, corner): (Vec<_>, Vec<_>) = std::mem::take(&mut mesh.attributes)
            .into_iter()
            .partition(|(name, _)| PER_POINT.contains(&name.as_str()));
        let (faces, corner): (Vec<_>, Vec<_>) = corner
            .into_iter()
            .partition(|(name, _)| PER_FACE.contains(&name.as_str()));
        mesh.attributes = corner;
        points.sort_by(|a, b| a.0.cmp(&b.0));
        let widths: Vec<usize> = points
            .iter()
            .map(|(n, _)| if n == "POSITION" { 3 } else { 1 })
            .collect();
        let corners = points[0].1.len() / widths[0];
        let mut seen = std::collections::HashMap::new();
        let mut point_values = vec![Vec::new(); points.len()];
        for c in 0..corners {
            let key: Vec<u32> = points
                .iter()
                .zip(&widths)
                .flat_map(|((_, v), &w)| v[c * w..(c + 1) * w].iter().map(|x| x.to_bits()))
                .collect();
            let next = seen.len() as u32;
            let point = *seen.entry(key).or_insert_with(|| {
                for ((k, (_, v)), &w) in points.iter().enumerate().zip(&widths) {
                    point_values[k].extend_from_slice(&v[c * w..(c + 1) * w]);
                }
                next
            });
            mesh.corner_points.push(point);
        }
        shared |= seen.len() < corners;
        mesh.point_attributes = points
            .into_iter()
            .zip(point_values)
            .map(|((name, _), values)| (name, values))
            .collect();
        mesh.triangle_faces = (0..corners as u32 / 3).collect();
        mesh.face_attributes = faces
            .into_iter()
            .map(|(name, values)| (name, values.iter().step_by(3).copied().collect()))
            .collect();
    }
    assert!(shared, "corners share points");
    arrays
}

#[test]
fn values_given_per_point_and_face_are_values_given_per_corner() {
    for (seed, size) in [(1, Size::Full), (3, Size::Tiny)] {
        let c = case(seed, size);
        let (level, report) = scene_to_wad(
            &c.base,
            &c.bytes,
            indexed(c.arrays),
            GltfToWadOptions::default(),
        )
        .unwrap();
        assert!(
            report.is_empty() && report.warnings.is_empty(),
            "{report:?}"
        );
        assert!(level.to_bytes().unwrap() == c.bytes, "{size} seed {seed}");
    }
    // An edit reaches the level through the point values as through the corner values.
    let c = case(3, Size::Tiny);
    let (tile, _) = c.tile();
    let mesh = c.arrays.nodes[tile].mesh.unwrap();
    let raise = |attributes: &mut Vec<(String, Vec<f32>)>| {
        let (_, p) = attributes
            .iter_mut()
            .find(|(n, _)| n == "POSITION")
            .unwrap();
        p.iter_mut().skip(1).step_by(3).for_each(|y| *y += 0.25);
    };
    let mut by_corner = c.arrays.clone();
    raise(&mut by_corner.meshes[mesh].attributes);
    let mut by_point = indexed(c.arrays.clone());
    raise(&mut by_point.meshes[mesh].point_attributes);
    let written = |a| {
        let (level, _) = scene_to_wad(&c.base, &c.bytes, a, GltfToWadOptions::default()).unwrap();
        level.to_bytes().unwrap()
    };
    let raised = written(by_corner);
    assert!(raised != c.bytes);
    assert!(written(by_point) == raised);
}

#[test]
fn wrong_point_and_face_values_are_refused_naming_the_node() {
    let c = case(3, Size::Tiny);
    let (tile, name) = c.tile();
    let mesh = c.arrays.nodes[tile].mesh.unwrap();
    let arrays = indexed(c.arrays.clone());
    type Spoil = Box<dyn FnOnce(&mut MeshArrays)>;
    let cases: Vec<(&str, Spoil, &str)> = vec![
        (
            "a corner naming a point past the points",
            Box::new(|m| m.corner_points[4] = u32::MAX),
            "for each of at least 4294967296 points",
        ),
        (
            "a position one value short",
            Box::new(|m| {
                m.point_attributes
                    .iter_mut()
                    .find(|(n, _)| n == "POSITION")
                    .unwrap()
                    .1
                    .pop();
            }),
            "not 3 for each",
        ),
        (
            "a triangle naming a face past the faces",
            Box::new(|m| *m.triangle_faces.last_mut().unwrap() += 1),
            "faces the corners name",
        ),
        (
            "fewer triangle faces than triangles",
            Box::new(|m| {
                m.triangle_faces.pop();
            }),
            "for each of the",
        ),
        (
            "an attribute per point the mapping does not know",
            Box::new(|m| m.point_attributes.push(("_BOGUS".into(), vec![0.0; 1]))),
            "not an attribute of the mapping",
        ),
        (
            "an attribute per face and per corner",
            Box::new(|m| {
                let flags = m
                    .face_attributes
                    .iter()
                    .find(|(n, _)| n == "_FLAGS")
                    .unwrap();
                let spread = flags.1.iter().flat_map(|&v| [v; 3]).collect();
                m.attributes.push(("_FLAGS".into(), spread));
            }),
            "given twice",
        ),
    ];
    for (what, spoil, words) in cases {
        let e = c.refused(what, |a| {
            *a = arrays.clone();
            spoil(&mut a.meshes[mesh]);
        });
        assert_eq!(e.code, Code::Unreadable, "{what}: {e}");
        assert_eq!(e.node, node_ref(tile, &name), "{what}: {e}");
        assert!(e.message.contains(words), "{what}: {e}");
    }
}

#[test]
fn edited_full_size_level_converts_alike_through_both_doors() {
    // A tile moved, another's UVs shifted: what the glTF door makes of them, the arrays door
    // makes too (doors::convert compares bytes and reports).
    let bytes = generate(1, Size::Full).to_bytes().unwrap();
    let base = Level::parse(&bytes).unwrap();
    let mut gltf = wad_to_gltf(&base, Source::of(&bytes)).unwrap();
    let tiles: Vec<usize> = (0..gltf.root.nodes.len())
        .filter(|&n| {
            gltf.root.nodes[n].mesh.is_some()
                && gltf.root.nodes[n]
                    .extras
                    .as_ref()
                    .is_some_and(|e| e.get().contains("\"tile\""))
        })
        .collect();
    let moved = &mut gltf.root.nodes[tiles[10]];
    let t = moved.translation.get_or_insert([0.0; 3]);
    t[1] += 0.25;
    let turned = &mut gltf.root.nodes[tiles[20]];
    turned.rotation = Some(gltf::json::scene::UnitQuaternion([0.0, 1.0, 0.0, 0.0]));
    let doc = Document::from_slice(&gltf.to_glb().unwrap(), None).unwrap();
    let (_, report) = doors::convert(&base, &bytes, &doc, GltfToWadOptions::default()).unwrap();
    assert_eq!(report.tiles_moved.len() + report.tiles_reshaped.len(), 2);
}

#[test]
fn the_conversions_check_is_the_check_of_the_written_level() {
    // Check level's one conversion and one check: the same problems as checking the bytes export
    // writes, for an unchanged scene (whose conversion checks nothing) and an edited one, of a
    // base with a problem of its own (a strat turned more than a full turn, a warning).
    let mut base = generate(2, Size::Small);
    base.map_mut().unwrap().strats[0].rotation[1] = 5000;
    let c = case_of(base.to_bytes().unwrap());
    let (k, _) = c.tile();
    let mut moved = c.arrays.clone();
    moved.nodes[k].matrix[12] += 0.3; // file-space x of the column-major translation
    for (what, arrays) in [("unchanged", c.arrays.clone()), ("moved", moved)] {
        let checked =
            scene_to_wad_checked(&c.base, &c.bytes, arrays, GltfToWadOptions::default()).unwrap();
        let written = checked.level.to_bytes().unwrap();
        let expected = check_bytes(&written, Some(&c.base)).unwrap();
        assert_eq!(checked.check, expected, "{what}");
        assert_eq!(checked.report.is_empty(), what == "unchanged");
        assert!(
            !checked.check.problems.is_empty(),
            "the generated level's own problems"
        );
    }
}

#[test]
fn wrong_arrays_are_refused_naming_the_node() {
    let c = case(1, Size::Tiny);
    let (tile, name) = c.tile();
    let mesh = c.arrays.nodes[tile].mesh.unwrap();
    let node = node_ref(tile, &name);
    let attribute = |a: &mut SceneArrays, wanted: &str| {
        let k = a.meshes[mesh]
            .attributes
            .iter()
            .position(|(n, _)| n == wanted)
            .unwrap();
        k
    };
    type Spoil<'a> = Box<dyn FnOnce(&mut SceneArrays) + 'a>;
    let cases: Vec<(&str, Spoil, &str)> = vec![
        (
            "POSITION one value short",
            Box::new(|a| {
                let k = attribute(a, "POSITION");
                a.meshes[mesh].attributes[k].1.pop();
            }),
            "not three a corner",
        ),
        (
            "TEXCOORD_0 one corner short",
            Box::new(|a| {
                let k = attribute(a, "TEXCOORD_0");
                a.meshes[mesh].attributes[k].1.truncate(4);
            }),
            "not 2 for each",
        ),
        (
            "an attribute the mapping does not know",
            Box::new(|a| {
                let n = a.meshes[mesh].attributes[0].1.len() / 3;
                a.meshes[mesh]
                    .attributes
                    .push(("_BOGUS".into(), vec![0.0; n]));
            }),
            "not an attribute of the mapping",
        ),
        (
            "an attribute given twice",
            Box::new(|a| {
                let k = attribute(a, "TEXCOORD_0");
                let again = a.meshes[mesh].attributes[k].clone();
                a.meshes[mesh].attributes.push(again);
            }),
            "given twice",
        ),
        (
            "an infinite UV",
            Box::new(|a| {
                let k = attribute(a, "TEXCOORD_0");
                a.meshes[mesh].attributes[k].1[7] = f32::INFINITY;
            }),
            "not finite",
        ),
        (
            "NaN among the positions",
            Box::new(|a| {
                let k = attribute(a, "POSITION");
                a.meshes[mesh].attributes[k].1[0] = f32::NAN;
            }),
            "not finite",
        ),
        (
            "a material index beyond the materials",
            Box::new(|a| {
                let m = &mut a.meshes[mesh];
                let n = m.attributes[0].1.len() / 9;
                m.triangle_materials = vec![0; n];
                m.triangle_materials[n - 1] = u32::MAX;
            }),
            "not among the mesh's",
        ),
        (
            "fewer triangle materials than triangles",
            Box::new(|a| a.meshes[mesh].triangle_materials = vec![0]),
            "triangle materials for",
        ),
        (
            "a mesh index out of range",
            Box::new(|a| a.nodes[tile].mesh = Some(usize::MAX)),
            "names mesh",
        ),
        (
            "a parent after its child",
            Box::new(|a| a.nodes[tile].parent = Some(tile + 1)),
            "a parent comes before its children",
        ),
        (
            "a parent far out of range",
            Box::new(|a| a.nodes[tile].parent = Some(usize::MAX)),
            "a parent comes before its children",
        ),
        (
            "a NaN transform",
            Box::new(|a| a.nodes[tile].matrix[13] = f32::NAN),
            "not made of finite numbers",
        ),
        (
            "an infinite scale",
            Box::new(|a| a.nodes[tile].matrix[0] = f32::INFINITY),
            "not made of finite numbers",
        ),
    ];
    for (what, edit, words) in cases {
        let e = c.refused(what, edit);
        assert_eq!(e.code, Code::Unreadable, "{what}: {e}");
        assert_eq!(e.node, node, "{what}: {e}");
        assert!(e.message.contains(words), "{what}: {e}");
    }

    // Faults of a value name the triangles at fault.
    let e = c.refused("an infinite UV", |a| {
        let k = attribute(a, "TEXCOORD_0");
        a.meshes[mesh].attributes[k].1[7] = f32::INFINITY;
    });
    assert_eq!(e.faces, vec![1]);

    // Nested deeper than a glTF is read.
    let first = c.arrays.nodes.len();
    let e = c.refused("nested too deep", |a| {
        for k in 0..70 {
            let mut n = a.nodes[tile].clone();
            n.name = Some(format!("deep {k}"));
            n.parent = (k > 0).then(|| first + k - 1);
            a.nodes.push(n);
        }
    });
    assert_eq!(e.code, Code::Unreadable);
    assert_eq!(e.node, node_ref(first + 64, "deep 64"), "{e}");
    assert!(e.to_string().starts_with("node 'deep 64': "), "{e}");

    // A scene whose extras are not an object is the level's fault.
    let e = c.refused("scene extras", |a| {
        a.extras = Some(serde_json::json!([1, 2]))
    });
    assert_eq!((e.code, e.node), (Code::Unreadable, None));
}

#[test]
fn a_node_without_a_name_is_named_by_its_number_among_the_arrays() {
    // A tool looks the culprit up by its number among the nodes it handed over. An unnamed copy
    // of a tile, scaled, given after every other node as the tile's sibling: walked before the
    // groups that follow the tiles', it is still named by that number, and by no name; the
    // message says "node N".
    let c = case(1, Size::Tiny);
    let (tile, _) = c.tile();
    let last = c.arrays.nodes.len();
    let e = c.refused("an unnamed copy scaled", |a| {
        let mut copy = a.nodes[tile].clone();
        copy.name = None;
        copy.matrix[0] = 1.5;
        a.nodes.push(copy);
    });
    let unnamed = NodeRef {
        index: Some(last),
        name: None,
    };
    assert_eq!((e.code, e.node.clone()), (Code::TileScaled, Some(unnamed)));
    assert_eq!(e.object(), None);
    assert!(
        e.to_string()
            .starts_with(&format!("node {last}: is scaled")),
        "{e}"
    );
}

#[test]
fn more_triangles_than_a_level_can_use_are_refused_before_they_are_read() {
    let c = case(1, Size::Tiny);
    let (tile, name) = c.tile();
    let mesh = c.arrays.nodes[tile].mesh.unwrap();
    let e = c.refused("huge", |a| {
        a.meshes[mesh].attributes = vec![(
            "POSITION".into(),
            vec![0.0; 9 * (llamawad::gltf::read::MAX_MESH_TRIANGLES + 1)],
        )];
    });
    assert_eq!(e.code, Code::Unreadable);
    assert_eq!(e.node, node_ref(tile, &name));
    assert!(e.message.contains("more than"), "{e}");
}
