//! Level-light nodes read back (MAPPING.md, "Lights"): a node's colour and words from its
//! extras, its place from its transform (a directional light's +y, a positional light's
//! translation; `game::lights` says what the words mean). The LGHT layout is a reading, not
//! known (FORMAT.md §11), so lights are neither added nor removed: a copy is refused, a light
//! without a node kept.

use glam::Vec3;

use super::error::{Cause, GltfToWadError, Record};
use super::nodes::{nodes_of, one_each, Naming};
use super::report::ChangeReport;
use super::scene::{Node, Scene};
use super::strats::{Fields, U32_OR_I32};
use crate::codes::Code;
use crate::game::lights::{light_place, light_z, light_z_of, with_place, LightPlace, LightZ};
use crate::level::{Level, Light};

const U8: (i64, i64) = (0, u8::MAX as i64);

/// Reads the light nodes back into `level` (a clone of `base`); what a node gives that its
/// entry cannot hold is refused by name into `refused`.
pub(super) fn apply_lights(
    scene: &Scene,
    base: &Level,
    level: &mut Level,
    report: &mut ChangeReport,
    refused: &mut Vec<GltfToWadError>,
) {
    let nodes = nodes_of(scene, "light");
    if nodes.is_empty() {
        return;
    }
    let Some(base_lights) = base.lights() else {
        report.warnings.push(
            "the scene has level lights, but the base level's LGHT chunk is not read (none, or kept as bytes): they are not written".into(),
        );
        return;
    };
    let count = base_lights.lights.len();
    let naming = Naming {
        record: Record::Light,
        a_one: "a light",
        many: "lights",
        no_copies: "level lights cannot be added",
    };
    let by_light = one_each(nodes, count, &naming, Code::UnknownLight, refused);
    // Written as the base's lights were read (notes 002 and 003 disagree on z; FORMAT.md §11).
    let z = light_z(base);
    let mut written = base_lights.lights.clone();
    for (i, base_light) in base_lights.lights.iter().enumerate() {
        let Some(node) = by_light.get(&i) else {
            report.warnings.push(format!(
                "light {i} has no node: kept as the base has it (level lights are not removed)"
            ));
            continue;
        };
        match read_node(node, i, base_light, z.z) {
            Ok(light) if light != *base_light => {
                report.lights_changed.push(i);
                written[i] = light;
            }
            Ok(_) => {}
            Err(e) => refused.extend(e),
        }
    }
    let height = base.map().map_or(0, |m| m.height);
    let now = light_z_of(&written, height);
    if now.z != z.z {
        report.warnings.push(format!(
            "the lights are written as the base's were read ({}); as they are now, the level's \
             lights will be read the other way ({}): move the point lights back over the grid",
            z.describe(),
            now.describe()
        ));
    }
    level.lights_mut().expect("cloned from the base").lights = written;
}

/// The light a node gives: colour and words from its extras, its place where the node's
/// transform no longer shows the base's.
fn read_node(node: &Node, i: usize, base: &Light, z: LightZ) -> Result<Light, Vec<GltfToWadError>> {
    let culprit = node.culprit();
    let what = Record::Light(i);
    let mut errors = Vec::new();
    let mut fields = Fields::of(node, &culprit, what, &mut errors);
    let mut light = base.clone();
    if let Some(kind) = fields.whole("kind", U8) {
        if kind != i64::from(base.kind) {
            fields.errors.push(
                GltfToWadError::node(
                    &culprit,
                    format!("{what}: `kind` is {kind}, the base's is {}: a light's type cannot change (its words would be read otherwise)", base.kind),
                )
                .cause(Cause {
                    field: Some("kind".to_string()),
                    value: Some(kind),
                    ..what.cause()
                }),
            );
        }
    }
    if let Some(v) = fields.list("colour", Some(3), U8) {
        light.colour = [0, 1, 2].map(|k| v[k] as u8);
    }
    if let Some(v) = fields.list("words", Some(base.words.len()), U32_OR_I32) {
        light.words = v.iter().map(|&w| w as u32).collect();
    }
    let place = match light_place(base, z) {
        LightPlace::Direction(_) => Some(node.world.transform_vector3(Vec3::Y)),
        LightPlace::Position(_) => Some(node.world.w_axis.truncate()),
        LightPlace::Marker => None,
    };
    if let Some(place) = place {
        match with_place(base, place.as_dvec3(), z) {
            // Moved or turned since export: the node's place wins over the extras' words.
            Some(moved) if moved.words[..3] != base.words[..3] => {
                light.words[..3].copy_from_slice(&moved.words[..3])
            }
            Some(_) => {}
            None => errors.push(
                GltfToWadError::node(
                    &culprit,
                    format!("{what}: its place {place} does not fit the light's 20.12 words: move it within the level"),
                )
                .cause(what.cause()),
            ),
        }
    }
    match errors.is_empty() {
        true => Ok(light),
        false => Err(errors
            .into_iter()
            .map(|e| e.code(Code::LightField))
            .collect()),
    }
}
