//! `llamawad models`: every object model of a generated level, as its STPC holds it.

mod support;

use llamawad::generate::{generate, Size};
use support::{llamawad, stdout, Dir};

#[test]
fn models_lists_every_object_model_rigid_or_skinned_with_its_counts() {
    let level = generate(1, Size::Small);
    let dir = Dir::new("models");
    let path = dir.write("small.wad", &level.to_bytes().unwrap());
    let stpc = level.stpc().unwrap();

    let json: serde_json::Value =
        serde_json::from_str(&stdout(&llamawad(&["models", "--json"], &[&path]))).unwrap();
    let listed = json.as_array().unwrap();
    assert_eq!(listed.len(), stpc.models.len());
    for (k, (m, object)) in listed.iter().zip(&stpc.models).enumerate() {
        assert_eq!(m["index"], k);
        assert_eq!(m["vertices"], object.model.vertices.len());
        assert_eq!(m["faces"], object.model.faces.len());
        assert_eq!(m["bones"], object.bone_vertex_counts.len());
        // A skinned model's bones hold its vertices, in order.
        let per_bone: u64 = m["bone_vertex_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .sum();
        if object.is_skinned() {
            assert_eq!(per_bone as usize, object.model.vertices.len());
        }
    }
    assert!(listed.iter().any(|m| m["bones"] != 0) && listed.iter().any(|m| m["bones"] == 0));

    let text = stdout(&llamawad(&["models"], &[&path]));
    assert!(text.starts_with(&format!(
        "{}: {} object models",
        path.display(),
        listed.len()
    )));
    assert!(
        text.contains("skinned, ") && text.contains("rigid"),
        "{text}"
    );
}
