//! A level edited through the model and written again satisfies the notes' checklists, keeps
//! every chunk it did not touch byte for byte, and has its total length rewritten; nothing new is
//! wrong with it.

use glam::Vec3;
use llamawad::container::{self, Tag};
use llamawad::generate::{generate, Size};
use llamawad::geometry::{
    bounding_box, encode_collision_polygon, face_plane, smooth_normals, sort_into_batches,
};
use llamawad::level::{Model, Tile};
use llamawad::raw::{Face, Vertex};
use llamawad::Level;

/// A 1×1 floor plate at height 0.25, two quad halves with collision, the way the notes build one.
fn floor_plate(texture: u16, entries: &[llamawad::raw::TextureEntry]) -> Model {
    let positions = [
        [-0.5, 0.25, 0.5],
        [0.5, 0.25, 0.5],
        [-0.5, 0.25, -0.5],
        [0.5, 0.25, -0.5],
    ];
    let corners = [[0u16, 1, 2], [3, 2, 1]];
    let flags = [0x0800u16, 0x0810];
    let mut faces: Vec<Face> = corners
        .iter()
        .zip(flags)
        .map(|(c, flags)| Face {
            flags,
            corners: *c,
            texture,
            reserved: 0,
            plane: face_plane(
                Vec3::from(positions[c[0] as usize]),
                Vec3::from(positions[c[1] as usize]),
                Vec3::from(positions[c[2] as usize]),
            ),
        })
        .collect();
    sort_into_batches(&mut faces, entries);
    let normals = smooth_normals(&positions, &faces);
    let (centre, box_corners) = bounding_box(&positions, 0.01);
    // Collision is in game space: z negated relative to the render vertices.
    let game = |p: [f32; 3]| Vec3::new(p[0], p[1], -p[2]);
    let floor = encode_collision_polygon(
        &[
            game(positions[0]),
            game(positions[1]),
            game(positions[3]),
            game(positions[2]),
        ],
        16,
    )
    .unwrap();
    Model {
        centre,
        box_corners,
        vertices: positions
            .iter()
            .zip(normals)
            .map(|(p, n)| Vertex {
                position: *p,
                normal: n,
            })
            .collect(),
        faces,
        collision: [vec![floor], Vec::new(), Vec::new()],
        slots: Default::default(),
    }
}

fn payload(bytes: &[u8], tag: Tag) -> Vec<u8> {
    container::split(bytes)
        .unwrap()
        .chunks
        .iter()
        .find(|c| c.tag == tag)
        .unwrap()
        .payload
        .to_vec()
}

#[test]
fn an_edited_level_keeps_every_rule_and_every_untouched_chunk() {
    let base = generate(4, Size::Small);
    let mut level = base.clone();
    let original = level.to_bytes().unwrap();
    let entries = level.text().unwrap().entries.clone();
    let texture = entries.iter().position(|e| !e.is_flat_colour()).unwrap() as u16;

    // A new model and a tile that uses it, in a free corner of the grid.
    let model = floor_plate(texture, &entries);
    let nv = model.vertices.len();
    let trak = level.trak_mut().unwrap();
    trak.models.push(model);
    let new_model = trak.models.len() as u32 - 1;
    let map = level.map_mut().unwrap();
    let mut tile = Tile::new([0.5, 1.0, -0.5], 1024, new_model);
    tile.colours = vec![[0x80, 0x70, 0x60, 1]; nv];
    map.tiles.push(tile);
    // An existing tile moved one cell and turned.
    let moved = 3;
    let [x, y, z] = map.tiles[moved].float.position;
    let new_x = if x + 1.0 < map.width as f32 {
        x + 1.0
    } else {
        x - 1.0
    };
    map.tiles[moved].set_placement([new_x, y + 0.5, z], 2048);
    // Vertex colours of another tile repainted.
    for c in &mut map.tiles[5].colours[1..] {
        *c = [0x40, 0x40, 0x40, c[3]];
    }

    let new_problems = |level: &Level| -> Vec<llamawad::game::Problem> {
        llamawad::game::check_against(level, &base)
            .new_problems()
            .cloned()
            .collect()
    };
    assert_eq!(new_problems(&level), []);
    let written = level.to_bytes().unwrap();
    let counted = match level.convention.total {
        container::TotalLength::FileSize => written.len(),
        container::TotalLength::FileSizeMinus4 => written.len() - 4,
    };
    assert_ne!(written.len(), original.len());
    assert_eq!(
        u32::from_le_bytes(written[..4].try_into().unwrap()) as usize,
        counted,
        "the total length is rewritten"
    );
    let reread = Level::parse(&written).unwrap();
    assert_eq!(reread, level);
    assert_eq!(new_problems(&reread), []);
    let map = reread.map().unwrap();
    assert_eq!(map.tiles.last().unwrap().model_index, new_model);
    assert_eq!(map.tiles[moved].float.rotation, 2048);
    assert_eq!(
        map.tiles[moved].fixed.position[1],
        ((y + 0.5) * 4096.0) as i32
    );
    for tag in [Tag::TEXT, Tag::STPC, Tag::WFPC, Tag::NAME, Tag::LGHT] {
        assert_eq!(
            payload(&written, tag),
            payload(&original, tag),
            "{tag} is untouched"
        );
    }
}

#[test]
fn what_would_shift_the_rest_of_map_is_refused_when_writing() {
    let mut level = generate(2, Size::Tiny);
    level.map_mut().unwrap().tiles[4].colours.pop();
    let err = level.to_bytes().unwrap_err().to_string();
    assert!(err.starts_with("MAP tile 4: has"), "{err}");
    assert!(err.contains("shifts the rest of MAP"), "{err}");

    let mut level = generate(2, Size::Tiny);
    let model = &mut level.trak_mut().unwrap().models[1];
    let v = model.vertices[0];
    model.vertices.resize(70_000, v);
    let err = level.to_bytes().unwrap_err().to_string();
    assert!(
        err.contains("TRAK model 1: vertices has 70000 entries"),
        "{err}"
    );
}
