//! The rest of the level's scene: the zones grid, the strats, the lights, and the object models' scene.

use super::materials::MaterialKey;
use super::*;
use crate::game::lights::{light_place, light_z, LightPlace, DIRECTIONAL, POSITIONAL};

impl Exporter<'_> {
    /// One quad per cell at the height of the cell's lowest tile (0 without tiles), with its
    /// zone number, so zones can be seen and painted.
    pub(super) fn zones(&mut self, map: &Map) -> Index<json::Node> {
        let (w, h) = (map.width as usize, map.height as usize);
        let mut lowest: Vec<Option<f32>> = vec![None; w * h];
        for tile in &map.tiles {
            let y = tile.float.position[1];
            if !y.is_finite() {
                continue;
            }
            if let Some(cell) = crate::game::cells::tile_cell(tile, map.width, map.height) {
                let slot = &mut lowest[cell.index(map.width)];
                *slot = Some(slot.map_or(y, |l| l.min(y)));
            }
        }
        let mut positions = Vec::with_capacity(w * h * 18);
        let mut colours = Vec::with_capacity(w * h * 24);
        let mut zone_attr = Vec::with_capacity(w * h * 6);
        let mut cell_attr = Vec::with_capacity(w * h * 6);
        for row in 0..h {
            for col in 0..w {
                let cell = row * w + col;
                let zone = map.region_grid.get(cell).copied().unwrap_or(0);
                let y = lowest[cell].unwrap_or(0.0);
                let (x0, x1, z0, z1) = (col as f32, col as f32 + 1.0, row as f32, row as f32 + 1.0);
                // Two triangles facing up (+y), counter-clockwise seen from above.
                for (x, z) in [(x0, z0), (x0, z1), (x1, z0), (x1, z0), (x0, z1), (x1, z1)] {
                    positions.extend_from_slice(&[x, y, z]);
                    let c = zone_colour(zone);
                    colours.extend_from_slice(&[c[0], c[1], c[2], 1.0]);
                    zone_attr.push(zone as f32);
                    cell_attr.push(cell as f32);
                }
            }
        }
        let mesh = (!positions.is_empty()).then(|| {
            let r = &mut self.root;
            let b = &mut self.buffer;
            let mut attributes = BTreeMap::new();
            attributes.insert(Valid(Semantic::Positions), b.floats(r, &positions, 3, true));
            attributes.insert(Valid(Semantic::Colors(0)), b.floats(r, &colours, 4, false));
            attributes.insert(attribute("ZONE"), b.floats(r, &zone_attr, 1, false));
            attributes.insert(attribute("CELL"), b.floats(r, &cell_attr, 1, false));
            let material = self.material(MaterialKey::Zones);
            self.root.push(mesh(
                "zones".to_string(),
                vec![triangles(attributes, material)],
            ))
        });
        self.node(json::Node {
            name: Some("Zones".to_string()),
            mesh,
            extras: extras(json!({ "llamawad": "zones" })),
            ..Default::default()
        })
    }

    pub(super) fn strats(&mut self, map: &Map) -> Index<json::Node> {
        // Where the code starts is summed over the models once, not for each strat.
        let code = self.level.stpc().map(|s| s.strat_code());
        let mut nodes = Vec::with_capacity(map.strats.len());
        for (i, s) in map.strats.iter().enumerate() {
            let type_name = code.and_then(|c| c.strat_name(s.code_offset));
            let position = s.position.map(|v| v as f32 / 4096.0);
            let mut record = serde_json::to_value(s).expect("serialises");
            record["llamawad"] = json!("strat");
            record["strat"] = json!(i);
            record["type_name"] = json!(type_name);
            // The pool entries it is given (null when they lie outside the pool): the way back
            // writes a changed value into the pool.
            record["parameters"] = json!(s.parameters(&map.parameters));
            nodes.push(self.node(json::Node {
                name: Some(strat_node_name(type_name.as_deref(), i)),
                translation: Some(position),
                rotation: y_rotation(game_angle(s.rotation[1] as u32)),
                extras: extras(record),
                ..Default::default()
            }));
        }
        self.group("Strats", nodes, "strats")
    }

    /// One node per waypoint (MAP block 5) where it stands, turned about y as its rotation y
    /// says, its fields in the extras: what a strat's waypoint chain runs through.
    pub(super) fn waypoints(&mut self, map: &Map) -> Index<json::Node> {
        let mut nodes = Vec::with_capacity(map.waypoints.len());
        for (i, w) in map.waypoints.iter().enumerate() {
            let mut record = serde_json::to_value(w).expect("serialises");
            record["llamawad"] = json!("waypoint");
            record["waypoint"] = json!(i);
            nodes.push(self.node(json::Node {
                name: Some(waypoint_node_name(i)),
                translation: Some(w.position.map(|v| v as f32 / 4096.0)),
                rotation: y_rotation(game_angle(w.rotation[1] as u32)),
                extras: extras(record),
                ..Default::default()
            }));
        }
        self.group("Waypoints", nodes, "waypoints")
    }

    /// One node per level light (LGHT, `game::lights`, z read as the level decides): a
    /// directional light turned so that its +y points along the stored direction, towards the
    /// light (unturned, the sun stands
    /// overhead; Blender's z-up makes that +y its +z, and its Sun shines along −z), placed over
    /// the grid's middle, where it shows; a positional light where it
    /// stands; another type at the origin. Kind, colour and every word in the extras.
    pub(super) fn lights(&mut self, map: &Map) -> Index<json::Node> {
        let lights = self
            .level
            .lights()
            .map(|l| l.lights.clone())
            .unwrap_or_default();
        let over_the_grid = [map.width as f32 / 2.0, SUN_HEIGHT, map.height as f32 / 2.0];
        // The level's own reading of z (notes 002 and 003 disagree); the way back takes the
        // base's, which is this one.
        let z = light_z(self.level).z;
        let mut nodes = Vec::with_capacity(lights.len());
        for (i, light) in lights.iter().enumerate() {
            let (translation, rotation) = match light_place(light, z) {
                LightPlace::Direction(d) => (Some(over_the_grid), towards(d)),
                LightPlace::Position(p) => (Some(p.as_vec3().to_array()), None),
                LightPlace::Marker => (None, None),
            };
            nodes.push(self.node(json::Node {
                name: Some(light_node_name(light.kind, i)),
                translation,
                rotation,
                extras: extras(json!({
                    "llamawad": "light",
                    "light": i,
                    "kind": light.kind,
                    "colour": light.colour,
                    "words": light.words,
                })),
                ..Default::default()
            }));
        }
        self.group("Lights", nodes, "lights")
    }

    /// The STPC object models side by side along x, in their own scene.
    pub(super) fn object_models(&mut self) -> Index<json::Node> {
        let Some(stpc) = self.level.stpc() else {
            return self.group("Object models", Vec::new(), "object_models");
        };
        let mut nodes = Vec::with_capacity(stpc.models.len());
        let mut x = 0.0f32;
        for (i, object) in stpc.models.iter().enumerate() {
            let model = &object.model;
            let (min_x, max_x) = model.vertices.iter().fold((0.0f32, 0.0f32), |(lo, hi), v| {
                let x = crate::gltf::shown_position(v.position)[0];
                (lo.min(x), hi.max(x))
            });
            x += -min_x;
            let shared = self.render_primitives(model);
            let mesh = (!shared.is_empty()).then(|| {
                let primitives = shared
                    .into_iter()
                    .map(|p| triangles(p.attributes, p.material))
                    .collect();
                self.root
                    .push(mesh(format!("object model {i}"), primitives))
            });
            nodes.push(self.node(json::Node {
                name: Some(format!("object model {i:02}")),
                mesh,
                translation: Some([x, 0.0, 0.0]),
                extras: extras(json!({
                    "llamawad": "object_model",
                    "object_model": i,
                    "bone_vertex_counts": object.bone_vertex_counts,
                })),
                ..Default::default()
            }));
            x += max_x + 0.5;
        }
        self.group("Object models", nodes, "object_models")
    }
}

/// The name a strat's node is written with: its type name (`?` when unresolved) and index. On the
/// way back, of several nodes naming one strat, the one with this name keeps the strat.
pub(crate) fn strat_node_name(type_name: Option<&str>, index: usize) -> String {
    format!("{} · strat {index:03}", type_name.unwrap_or("?"))
}

/// The name export gives a waypoint's node.
pub(crate) fn waypoint_node_name(index: usize) -> String {
    format!("waypoint {index:03}")
}

/// The name export gives a level light's node: what its type is taken to be, and its index.
pub(crate) fn light_node_name(kind: u8, index: usize) -> String {
    match kind {
        DIRECTIONAL => format!("sun · light {index:02}"),
        POSITIONAL => format!("point · light {index:02}"),
        _ => format!("type {kind} · light {index:02}"),
    }
}

/// How high over the grid a directional light's node stands: its place means nothing to the
/// game, above the level it is seen.
const SUN_HEIGHT: f32 = 8.0;

/// The turn taking +y to `direction` (none for +y itself or no direction).
fn towards(direction: glam::DVec3) -> Option<UnitQuaternion> {
    let d = direction.as_vec3().normalize_or_zero();
    let q = glam::Quat::from_rotation_arc(glam::Vec3::Y, d);
    (d != glam::Vec3::ZERO && q != glam::Quat::IDENTITY).then(|| UnitQuaternion(q.to_array()))
}
