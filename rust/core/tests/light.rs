//! Light baked into vertex colours, checked against what can be computed by hand: levels whose
//! tiles are built here (a floor, a roof, a closed box), not by the generator; and the fit, on
//! generated levels baked with known light.

use glam::Vec3;
use llamawad::game::light::{
    bake, bake_points, fit, BakeOptions, FitOptions, FitStep, Fitting, Lamp, Lighting, Which,
};
use llamawad::generate::{generate, Size};
use llamawad::level::{Model, Tile};
use llamawad::raw::{Face, Vertex};
use llamawad::Level;

/// A model of quads (each four export-space corners, one normal), two faces each.
fn quads(quads: &[([[f32; 3]; 4], [f32; 3])]) -> Model {
    let mut model = Model::default();
    for (corners, normal) in quads {
        let first = model.vertices.len() as u16;
        for &position in corners {
            model.vertices.push(Vertex {
                position,
                normal: *normal,
            });
        }
        for corners in [[0, 1, 2], [0, 2, 3]] {
            model.faces.push(Face {
                corners: corners.map(|c| first + c),
                ..Face::default()
            });
        }
    }
    model
}

/// A horizontal square at height `y` over x, z in [x0, x1] × [z0, z1] (game space), facing up or
/// down.
fn square(x0: f32, x1: f32, z0: f32, z1: f32, y: f32, up: bool) -> ([[f32; 3]; 4], [f32; 3]) {
    // Export space: z negated.
    let corners = [[x0, y, -z0], [x1, y, -z0], [x1, y, -z1], [x0, y, -z1]];
    (corners, [0.0, if up { 1.0 } else { -1.0 }, 0.0])
}

/// A level of the generated small level's chunks whose tiles are exactly these models, each at
/// the origin, unturned, grey.
fn level_of(models: Vec<Model>) -> Level {
    let mut level = generate(1, Size::Small);
    let (map, trak) = level.map_and_trak_mut();
    let (map, trak) = (map.unwrap(), trak.unwrap());
    map.tiles = (0..models.len())
        .map(|k| {
            let mut tile = Tile::new([0.0, 0.0, 0.0], 0, k as u32);
            tile.colours = vec![[64, 64, 64, 0]; models[k].vertices.len()];
            tile
        })
        .collect();
    trak.models = models;
    level
}

fn colours(level: &Level, tile: usize) -> Vec<[u8; 3]> {
    level.map().unwrap().tiles[tile]
        .colours
        .iter()
        .map(|c| [c[0], c[1], c[2]])
        .collect()
}

fn baked(level: &mut Level, lighting: &Lighting, which: Which) {
    let options = BakeOptions {
        which,
        ..BakeOptions::default()
    };
    bake(level, lighting, &options, &|_, _| {}).unwrap();
}

const SKY: [f32; 3] = [0.3, 0.4, 0.5];
const SUN: [f32; 3] = [0.8, 0.7, 0.6];

fn sky_only() -> Lighting {
    Lighting {
        sun_direction: [0.0, -1.0, 0.0],
        sun_colour: [0.0; 3],
        sky_colour: [1.0; 3],
        occlusion: 1.0,
    }
}

/// A sun 45° over the horizon, shining towards +x.
const SUN_AT_45: Lighting = Lighting {
    sun_direction: [1.0, -1.0, 0.0],
    sun_colour: SUN,
    sky_colour: SKY,
    occlusion: 1.0,
};

/// One tile: a floor of one cell at height 0.
fn flat_floor() -> Level {
    level_of(vec![quads(&[square(0.0, 1.0, 0.0, 1.0, 0.0, true)])])
}

#[test]
fn a_flat_floor_under_a_sun_at_45_degrees_gets_sky_and_sun_times_cos_45() {
    let mut level = flat_floor();
    baked(&mut level, &SUN_AT_45, Which::All);
    let want = Vec3::from(SKY) + Vec3::from(SUN) * std::f32::consts::FRAC_1_SQRT_2;
    let want = (want * 128.0).to_array().map(|v| v.round() as u8);
    assert_eq!(colours(&level, 0), vec![want; 4]);
}

#[test]
fn a_vertex_under_a_roof_sees_less_sky_than_one_in_the_open() {
    // Two floor cells far apart; a roof 0.5 above the first.
    let floor = quads(&[
        square(0.0, 1.0, 0.0, 1.0, 0.0, true),
        square(20.0, 21.0, 0.0, 1.0, 0.0, true),
    ]);
    let roof = quads(&[square(-0.5, 1.5, -0.5, 1.5, 0.5, false)]);
    let mut level = level_of(vec![floor, roof]);
    baked(&mut level, &sky_only(), Which::Tiles(vec![0]));
    let c = colours(&level, 0);
    let (under, open) = (c[0][0], c[4][0]);
    assert_eq!(open, 128, "the open floor sees the whole sky");
    assert!(
        under < open / 2,
        "under the roof {under}, in the open {open}"
    );
    // The roof's own colours were not asked for.
    assert_eq!(colours(&level, 1), vec![[64; 3]; 4]);
}

#[test]
fn a_vertex_inside_a_closed_box_gets_no_sky_and_no_sun() {
    let floor = quads(&[square(0.25, 0.75, 0.25, 0.75, 0.0, true)]);
    // A closed box from −1 to 2 on every axis, faces inwards.
    let (a, b) = (-1.0f32, 2.0f32);
    let side = |corners: [[f32; 3]; 4]| (corners.map(|[x, y, z]| [x, y, -z]), [0.0, 1.0, 0.0]);
    let box_model = quads(&[
        square(a, b, a, b, a, true),
        square(a, b, a, b, b, false),
        side([[a, a, a], [b, a, a], [b, b, a], [a, b, a]]),
        side([[a, a, b], [b, a, b], [b, b, b], [a, b, b]]),
        side([[a, a, a], [a, a, b], [a, b, b], [a, b, a]]),
        side([[b, a, a], [b, a, b], [b, b, b], [b, b, a]]),
    ]);
    let mut level = level_of(vec![floor, box_model]);
    let lighting = Lighting {
        sun_direction: [0.3, -1.0, 0.2],
        sun_colour: SUN,
        sky_colour: SKY,
        occlusion: 1.0,
    };
    baked(&mut level, &lighting, Which::Tiles(vec![0]));
    assert_eq!(colours(&level, 0), vec![[0; 3]; 4]);
    // Without occlusion the sky is as open as the normal faces; the sun still hidden.
    let lighting = Lighting {
        occlusion: 0.0,
        ..lighting
    };
    baked(&mut level, &lighting, Which::Tiles(vec![0]));
    let want = Vec3::from(SKY) * 128.0;
    assert_eq!(
        colours(&level, 0),
        vec![want.to_array().map(|v| v.round() as u8); 4]
    );
}

#[test]
fn a_bake_is_the_same_every_run_on_any_number_of_cores_and_keeps_what_is_no_colour() {
    let base = generate(2, Size::Small);
    let lighting = Lighting {
        sun_direction: [0.4, -1.0, 0.3],
        sun_colour: SUN,
        sky_colour: SKY,
        occlusion: 1.0,
    };
    let once = || {
        let mut level = base.clone();
        let report = bake(&mut level, &lighting, &BakeOptions::default(), &|_, _| {}).unwrap();
        (level.to_bytes().unwrap(), report)
    };
    let (first, report) = once();
    assert!(first == once().0);
    // Spread over one core or several, the same bytes.
    let alone = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert!(alone.install(|| once().0) == first);
    assert!(report.vertices > 1000 && !report.baked.is_empty());
    let written = Level::parse(&first).unwrap();
    let (map, old) = (written.map().unwrap(), base.map().unwrap());
    for (t, (new, old)) in map.tiles.iter().zip(&old.tiles).enumerate() {
        let same_fourth = new
            .colours
            .iter()
            .zip(&old.colours)
            .all(|(a, b)| a[3] == b[3]);
        assert!(
            same_fourth && new.swap_colours == old.swap_colours,
            "tile {t}"
        );
        if report.animated_kept.contains(&t) {
            assert_eq!(new.colours, old.colours, "animated tile {t} kept");
        }
    }
}

#[test]
fn baking_a_new_platform_leaves_every_other_tile_byte_identical() {
    let mut level = generate(1, Size::Small);
    let (map, trak) = level.map_and_trak_mut();
    let (map, trak) = (map.unwrap(), trak.unwrap());
    trak.models
        .push(quads(&[square(-1.0, 1.0, -1.0, 1.0, 0.0, true)]));
    let mut tile = Tile::new([4.5, 3.0, -5.5], 0, trak.models.len() as u32 - 1);
    tile.colours = vec![[128, 128, 128, 0]; 4];
    map.tiles.push(tile);
    let new = map.tiles.len() - 1;
    let before = level.clone();
    let lighting = Lighting {
        sun_direction: [0.4, -1.0, 0.3],
        sun_colour: SUN,
        sky_colour: SKY,
        occlusion: 1.0,
    };
    let options = BakeOptions {
        which: Which::Unlit,
        ..BakeOptions::default()
    };
    let report = bake(&mut level, &lighting, &options, &|_, _| {}).unwrap();
    assert!(report.baked.contains(&new), "{report:?}");
    assert_ne!(colours(&level, new), colours(&before, new));
    let mut restored = level.clone();
    for &t in &report.baked {
        restored.map_mut().unwrap().tiles[t].colours =
            before.map().unwrap().tiles[t].colours.clone();
    }
    assert!(restored.to_bytes().unwrap() == before.to_bytes().unwrap());
    // Asked by number, only that tile.
    let mut level = before.clone();
    baked(&mut level, &lighting, Which::Tiles(vec![new]));
    level.map_mut().unwrap().tiles[new].colours = before.map().unwrap().tiles[new].colours.clone();
    assert!(level.to_bytes().unwrap() == before.to_bytes().unwrap());
}

#[test]
fn the_fit_recovers_the_light_a_level_was_baked_with() {
    for (seed, lighting) in [
        (
            1,
            Lighting {
                sun_direction: [0.5, -1.0, 0.3],
                sun_colour: [0.7, 0.6, 0.45],
                sky_colour: [0.25, 0.3, 0.4],
                occlusion: 1.0,
            },
        ),
        (
            3,
            Lighting {
                sun_direction: [-0.2, -0.6, -0.7],
                sun_colour: [0.5, 0.5, 0.55],
                sky_colour: [0.4, 0.35, 0.3],
                occlusion: 0.6,
            },
        ),
    ] {
        let mut level = generate(seed, Size::Small);
        bake(&mut level, &lighting, &BakeOptions::default(), &|_, _| {}).unwrap();
        let found = fit(&level, &FitOptions::default()).unwrap();
        let angle = Vec3::from(found.lighting.sun_direction)
            .angle_between(Vec3::from(lighting.sun_direction))
            .to_degrees();
        assert!(angle < 3.0, "seed {seed}: {angle}° off: {found:?}");
        let steps =
            |a: [f32; 3], b: [f32; 3]| (Vec3::from(a) - Vec3::from(b)).abs().max_element() * 128.0;
        assert!(
            steps(found.lighting.sun_colour, lighting.sun_colour) <= 3.0,
            "seed {seed}: {found:?}"
        );
        assert!(
            steps(found.lighting.sky_colour, lighting.sky_colour) <= 3.0,
            "seed {seed}: {found:?}"
        );
        assert!(
            (found.lighting.occlusion - lighting.occlusion).abs() < 0.05,
            "seed {seed}: {found:?}"
        );
        assert!(found.error < 2.0, "seed {seed}: {found:?}");
    }
}

#[test]
fn a_fit_taken_a_step_at_a_time_counts_its_rays_to_the_end() {
    let mut level = generate(2, Size::Small);
    let lighting = Lighting {
        sun_direction: [0.3, -1.0, 0.2],
        sun_colour: SUN,
        sky_colour: SKY,
        occlusion: 1.0,
    };
    bake(&mut level, &lighting, &BakeOptions::default(), &|_, _| {}).unwrap();
    let mut fitting = Fitting::new(&level, &FitOptions::default()).unwrap();
    let (mut steps, mut last) = (0, 0);
    let found = loop {
        match fitting.step() {
            FitStep::Working { done, total } => {
                assert!(
                    done > last && done < total,
                    "{done} after {last}, of {total}"
                );
                (steps, last) = (steps + 1, done);
            }
            FitStep::Done(found) => break found,
        }
    };
    // The sky of each vertex, then the sun directions a few at a time: a tool hears Esc often.
    assert!(steps > 40, "{steps} steps");
    assert_eq!(found, fit(&level, &FitOptions::default()).unwrap());
}

#[test]
fn wrong_light_is_refused_with_what_to_give() {
    let mut level = generate(1, Size::Small);
    let lighting = Lighting {
        sun_direction: [0.0; 3],
        sun_colour: SUN,
        sky_colour: SKY,
        occlusion: 1.0,
    };
    let e = bake(&mut level, &lighting, &BakeOptions::default(), &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("0,-1,0"), "{e}");
    let options = BakeOptions {
        which: Which::Tiles(vec![100_000]),
        ..BakeOptions::default()
    };
    let lighting = Lighting {
        sun_direction: [0.0, -1.0, 0.0],
        ..lighting
    };
    let e = bake(&mut level, &lighting, &options, &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("tile 100000"), "{e}");
    let options = BakeOptions {
        rays: 0,
        ..BakeOptions::default()
    };
    assert!(bake(&mut level, &lighting, &options, &|_, _| {}).is_err());
}

#[test]
fn points_baked_where_a_tiles_vertices_stand_get_the_tiles_colours() {
    // The flat floor of the first test, its corners given as points (game space: z as the
    // model's negated), one of them with a normal of no length (straight up).
    let mut level = flat_floor();
    let lighting = SUN_AT_45;
    let points: Vec<([f32; 3], [f32; 3])> = level.trak().unwrap().models[0]
        .vertices
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let [x, y, z] = v.position;
            ([x, y, -z], if k == 0 { [0.0; 3] } else { [0.0, 2.0, 0.0] })
        })
        .collect();
    let colours_of_points = bake_points(&level, &points, &lighting, &[], 64, &|_, _| {}).unwrap();
    baked(&mut level, &lighting, Which::All);
    assert_eq!(colours_of_points, colours(&level, 0));
    let nan = [([f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0])];
    let e = bake_points(&level, &nan, &lighting, &[], 64, &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("point 0"), "{e}");
}

#[test]
fn lamps_add_a_sun_of_their_own_and_a_point_falling_off_with_the_distance_squared() {
    let level = flat_floor();
    let dark = Lighting {
        sun_direction: [0.0, -1.0, 0.0],
        sun_colour: [0.0; 3],
        sky_colour: [0.0; 3],
        occlusion: 1.0,
    };
    let at = [([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])];
    let bake = |lamps: &[Lamp]| bake_points(&level, &at, &dark, lamps, 64, &|_, _| {}).unwrap()[0];
    assert_eq!(bake(&[]), [0; 3]);
    let sun = Lamp::Sun {
        direction: [0.0, -2.0, 0.0],
        colour: [0.5, 0.25, 1.0],
    };
    assert_eq!(bake(&[sun]), [64, 32, 128]);
    // A point 2 above and half a unit off on x and z: d² = 4.5, n · l = 2 / √4.5.
    let point = |cutoff| Lamp::Point {
        position: [0.5, 2.0, 0.5],
        colour: [4.0, 2.0, 1.0],
        cutoff,
    };
    let falloff = 2.0 / 4.5f32.sqrt() / 4.5;
    let want = [4.0, 2.0, 1.0].map(|c: f32| (c * falloff * 128.0).round() as u8);
    assert_eq!(bake(&[point(f32::INFINITY)]), want);
    assert_eq!(bake(&[point(2.0)]), [0; 3], "past its cutoff");
    // A roof between the point and the floor hides it.
    let roofed = level_of(vec![
        quads(&[square(0.0, 1.0, 0.0, 1.0, 0.0, true)]),
        quads(&[square(-1.0, 2.0, -1.0, 2.0, 1.0, false)]),
    ]);
    let hidden = bake_points(&roofed, &at, &dark, &[point(f32::INFINITY)], 64, &|_, _| {}).unwrap();
    assert_eq!(hidden[0], [0; 3]);
    let nowhere = Lamp::Sun {
        direction: [0.0; 3],
        colour: [1.0; 3],
    };
    let e = bake_points(&level, &at, &dark, &[sun, nowhere], 64, &|_, _| {}).unwrap_err();
    assert!(e.to_string().starts_with("light 1:"), "{e}");
}

#[test]
fn a_model_with_corners_that_are_no_numbers_bakes_and_fits_without_a_panic() {
    let mut broken = quads(&[square(0.0, 1.0, 0.0, 1.0, 0.0, true)]);
    broken.vertices[1].position = [f32::NAN, f32::INFINITY, 0.0];
    broken.vertices[2].normal = [f32::NAN; 3];
    let mut level = level_of(vec![
        broken,
        quads(&[square(2.0, 3.0, 0.0, 1.0, 0.0, true)]),
    ]);
    baked(&mut level, &SUN_AT_45, Which::All);
    // The sound tile is lit as the flat floor is.
    let want = Vec3::from(SKY) + Vec3::from(SUN) * std::f32::consts::FRAC_1_SQRT_2;
    let want = (want * 128.0).to_array().map(|v| v.round() as u8);
    assert_eq!(colours(&level, 1), vec![want; 4]);
    fit(&level, &FitOptions::default()).unwrap();
}
