//! The way back's two front doors side by side: a glTF, and the same scene handed over as arrays
//! (`SceneArrays::of_document`) give the same level bytes and report, or the same refusal.

use llamawad::gltf::{
    gltf_to_wad, scene_to_wad, ChangeReport, Document, GltfToWadError, GltfToWadOptions,
    SceneArrays,
};
use llamawad::Code;
use llamawad::Level;

/// `gltf_to_wad`, after checking that the arrays of the same scene come out the same. A glTF
/// whose meshes cannot all be read has no arrays: then the glTF door must refuse it.
pub fn convert(
    base: &Level,
    base_bytes: &[u8],
    doc: &Document,
    options: GltfToWadOptions,
) -> Result<(Level, ChangeReport), GltfToWadError> {
    let through_gltf = gltf_to_wad(base, base_bytes, doc, options);
    let Ok(arrays) = SceneArrays::of_document(doc) else {
        let refusal = through_gltf.as_ref().err().map(|e| e.code);
        assert_eq!(
            refusal,
            Some(Code::Unreadable),
            "a mesh that cannot be read"
        );
        return through_gltf;
    };
    let through_arrays = scene_to_wad(base, base_bytes, arrays, options);
    match (&through_gltf, &through_arrays) {
        (Ok((a, report_a)), Ok((b, report_b))) => {
            assert_eq!(report_a, report_b, "the two doors report alike");
            assert!(
                a.to_bytes().ok() == b.to_bytes().ok(),
                "the two doors give the same bytes"
            );
        }
        (Err(a), Err(b)) => assert_eq!(
            a,
            &numbered_as_gltf(b.clone(), doc),
            "the two doors refuse alike"
        ),
        (a, b) => panic!(
            "one door converts, the other refuses: glTF {:?}, arrays {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
    through_gltf
}

/// A refusal of the arrays door with its nodes numbered as the glTF numbers them: each door
/// names a node by its index among the nodes it was given, and `SceneArrays::of_document` gives
/// them in the order it walks them.
fn numbered_as_gltf(mut refusal: GltfToWadError, doc: &Document) -> GltfToWadError {
    let walked: Vec<usize> = doc.world_nodes().iter().map(|(n, _)| n.index()).collect();
    let mut at = Some(&mut refusal);
    while let Some(r) = at {
        if let Some(node) = &mut r.node {
            node.index = node.index.map(|k| walked[k]);
        }
        at = r.next.as_deref_mut();
    }
    refusal
}
