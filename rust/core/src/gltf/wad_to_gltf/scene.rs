//! The rest of the level's scene: the zones grid, the strats, and the object models' scene.

use super::materials::MaterialKey;
use super::*;

impl Exporter<'_> {
    /// One quad per cell at the height of the cell's lowest tile (0 without tiles), with its
    /// zone number, so zones can be seen and painted.
    pub(super) fn zones(&mut self, map: &Map) -> Index<json::Node> {
        let (w, h) = (map.width as usize, map.height as usize);
        let mut lowest: Vec<Option<f32>> = vec![None; w * h];
        for tile in &map.tiles {
            if let Some(cell) = crate::game::cells::tile_cell(tile, map.width, map.height) {
                let y = tile.float.position[1];
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
                (lo.min(v.position[0]), hi.max(v.position[0]))
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
