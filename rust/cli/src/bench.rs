//! `llamawad-bench`: times the core operations on the generated full-size level (seed 1):
//! parsing, writing, the conversion to a GLB (textures included), the way back from the GLB of
//! the unchanged level and of the level with every tile turned into new geometry (re-tiled), and
//! the check of every rule, of that level and of it with 200 tiles of a model of 300 floor
//! triangles reaching up to 7.5 units out (coverage on a collision-heavy level). Then it measures how well re-tiling keeps the floors: small and full
//! levels re-tiled, the engine's floor test at 2,800 random points of each compared with the
//! level it came from. And light: every tile of the level baked (sun, sky, ambient occlusion
//! against its own faces; goal under 2 s) and the light fitted to its colours.
//!
//! Each step runs a number of times; the median is the figure to compare between commits, the
//! minimum shows the noise floor. New steps are one `time_median` call each.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use llamawad::game::check;
use llamawad::game::floors::{compare_levels, FloorComparison};
use llamawad::game::light::{self, BakeOptions, FitOptions, Lighting};
use llamawad::generate::{self, CollisionScales, Size};
use llamawad::geometry::encode_collision_polygon;
use llamawad::gltf::{gltf_to_wad, wad_to_gltf, Document, GltfToWadOptions, Source};
use llamawad::level::{Model, Tile};
use llamawad::Level;
use serde::Serialize;

#[derive(Parser)]
#[command(
    name = "llamawad-bench",
    version,
    about = "Times parsing, writing, GLB export and glTF import of the generated full-size level (seed 1)"
)]
struct Args {
    /// Runs per timed step.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Timing {
    step: &'static str,
    runs: u32,
    median_ms: f64,
    min_ms: f64,
    /// What the median should stay under, where an issue names a figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    goal_ms: Option<f64>,
}

#[derive(Serialize)]
struct Retiling {
    seed: u64,
    size: String,
    /// The plane scale its collision was written at (4064, 4096 or mixed).
    collision_scale: String,
    /// Tiles before and after.
    tiles: [usize; 2],
    /// Bytes before and after; the goal is at most 1.3 times.
    bytes: [usize; 2],
    floors: FloorComparison,
}

/// The re-tiled level may take at most this many times the original's bytes (issue 34).
const RETILED_SIZE_GOAL: f64 = 1.3;

#[derive(Serialize)]
struct Report {
    seed: u64,
    size: String,
    file_size: usize,
    glb_size: usize,
    steps: Vec<Timing>,
    retiling: Vec<Retiling>,
}

/// The light the bench bakes with: a sun from the south-east, 68° over the horizon.
const BENCH_LIGHT: Lighting = Lighting {
    sun_direction: [0.4, -1.0, 0.3],
    sun_colour: [0.7, 0.6, 0.5],
    sky_colour: [0.3, 0.35, 0.4],
    occlusion: 1.0,
};

/// A glTF of the level with every tile node stripped of its tile: the whole level comes back as
/// new geometry.
fn retiled_glb(level: &Level, bytes: &[u8]) -> Vec<u8> {
    let mut gltf = wad_to_gltf(level, Source::of(bytes)).expect("the level converts");
    for node in &mut gltf.root.nodes {
        if node
            .extras
            .as_ref()
            .is_some_and(|e| e.get().contains("\"llamawad\":\"tile\""))
        {
            node.extras = None;
        }
    }
    gltf.to_glb().expect("the level's GLB fits")
}

/// The level and 200 tiles of one model of 300 small floor triangles spread up to 7.5 units
/// from the tile (what tests/crafted.py's check-collision-heavy adds to the same level): every
/// cell near them holds hundreds of polygons, and tens of thousands reach into a cell they are
/// not entered in, each of which the check compares with what that cell holds.
fn collision_heavy(level: &Level) -> Level {
    let mut level = level.clone();
    let polygons = (0..300)
        .map(|k| {
            let (angle, radius) = (k as f32 * 2.399963, 7.5 * ((k + 1) as f32 / 300.0).sqrt());
            let (sin, cos) = libm::sincosf(angle);
            let (x, z, y) = (radius * cos, radius * sin, 1.0 + (k % 7) as f32 / 8.0);
            let corners =
                [[x, z], [x, z + 0.3], [x + 0.3, z + 0.1]].map(|[x, z]| glam::Vec3::new(x, y, z));
            encode_collision_polygon(&corners, 0).expect("a floor triangle encodes")
        })
        .collect();
    let (Some(map), Some(trak)) = level.map_and_trak_mut() else {
        unreachable!("the generated level has MAP and TRAK")
    };
    trak.models.push(Model {
        collision: [polygons, Vec::new(), Vec::new()],
        ..Model::default()
    });
    let model = (trak.models.len() - 1) as u32;
    for k in 0..200 {
        let (x, z) = (9.5 + (k % 20) as f32, 12.5 + (k / 20) as f32);
        map.tiles.push(Tile::new([x, 0.0, -z], 0, model));
    }
    level
}

/// Re-tiles a generated level and compares the engine's floors and sizes before and after.
fn retiling(seed: u64, size: Size, scales: CollisionScales) -> Result<Retiling, String> {
    let level = generate::generate_with(seed, size, scales);
    let bytes = level.to_bytes().map_err(|e| e.to_string())?;
    let doc =
        Document::from_slice(&retiled_glb(&level, &bytes), None).map_err(|e| e.to_string())?;
    // Collision as the level has it: tiles without collision stay without.
    let options = GltfToWadOptions {
        generate_collision: false,
        ..GltfToWadOptions::default()
    };
    let (written, _) = gltf_to_wad(&level, &bytes, &doc, options).map_err(|e| e.to_string())?;
    let written_bytes = written.to_bytes().map_err(|e| e.to_string())?;
    let written = Level::parse(&written_bytes).map_err(|e| e.to_string())?;
    let tiles = |l: &Level| l.map().map_or(0, |m| m.tiles.len());
    Ok(Retiling {
        seed,
        size: size.to_string(),
        collision_scale: scales.to_string(),
        tiles: [tiles(&level), tiles(&written)],
        bytes: [bytes.len(), written_bytes.len()],
        floors: compare_levels(&level, &written, 2800, seed).map_err(|e| e.to_string())?,
    })
}

/// Runs `f` `runs` times and returns the median and the minimum wall-clock time of `step`. The result of
/// `f` goes through `black_box` so that the work cannot be optimised away.
fn time_median<T>(step: &'static str, runs: u32, mut f: impl FnMut() -> T) -> Timing {
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let mid = ms.len() / 2;
    let median_ms = if ms.len() % 2 == 1 {
        ms[mid]
    } else {
        (ms[mid - 1] + ms[mid]) / 2.0
    };
    Timing {
        step,
        runs,
        median_ms,
        min_ms: ms[0],
        goal_ms: None,
    }
}

/// Steps that take seconds: a few runs tell their median well enough.
const SLOW_STEP_RUNS: u32 = 5;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(report) if args.json => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("the report is plain data")
        ),
        Ok(report) => print_text(&report),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// The benchmark's level, generated, and its GLBs: its own and one of it re-tiled.
struct Bench {
    bytes: Vec<u8>,
    level: Level,
    glb: Vec<u8>,
    retiled_glb: Vec<u8>,
}

const SEED: u64 = 1;
const SIZE: Size = Size::Full;

fn run(args: &Args) -> Result<Report, String> {
    let bench = Bench::new()?;
    let steps = time_steps(&bench, args.runs);
    let mut retiled = Vec::new();
    for size in [Size::Small, Size::Full] {
        for seed in 1..=3 {
            for scales in [
                CollisionScales::Engine,
                CollisionScales::Notes,
                CollisionScales::Mixed,
            ] {
                retiled.push(retiling(seed, size, scales).map_err(|e| {
                    format!("re-tiling {size} seed {seed} at {scales} failed: {e}")
                })?);
            }
        }
    }
    Ok(Report {
        seed: SEED,
        size: SIZE.to_string(),
        file_size: bench.bytes.len(),
        glb_size: bench.glb.len(),
        steps,
        retiling: retiled,
    })
}

impl Bench {
    /// The level and its GLBs, each checked to come back once outside the timing, so that a
    /// failure is reported rather than timed.
    fn new() -> Result<Bench, String> {
        let bytes = generate::generate(SEED, SIZE)
            .to_bytes()
            .map_err(|e| format!("the generated level cannot be written: {e}"))?;
        let level =
            Level::parse(&bytes).map_err(|e| format!("the generated level does not parse: {e}"))?;
        let glb = wad_to_gltf(&level, Source::of(&bytes))
            .map_err(|e| format!("the generated level cannot be converted to glTF: {e}"))?
            .to_glb()
            .expect("the generated level's GLB fits");
        // Every tile node stripped of its tile: the whole level comes back as new geometry,
        // split into tiles by cell and height band, its collision entered into every cell it
        // covers.
        let retiled_glb = retiled_glb(&level, &bytes);
        let bench = Bench {
            bytes,
            level,
            glb,
            retiled_glb,
        };
        match bench.way_back(&bench.glb) {
            Ok(written) if written == bench.bytes => {}
            Ok(_) => {
                return Err("the level written back from its own GLB differs from the level".into())
            }
            Err(e) => return Err(format!("the level's own GLB cannot be converted back: {e}")),
        }
        bench
            .way_back(&bench.retiled_glb)
            .map_err(|e| format!("the re-tiled level cannot be converted back: {e}"))?;
        Ok(bench)
    }

    /// The way back: reading a GLB, matching every tile against the base level, writing the
    /// level.
    fn way_back(&self, glb: &[u8]) -> Result<Vec<u8>, String> {
        let doc = Document::from_slice(glb, None).map_err(|e| e.to_string())?;
        let (written, _) = gltf_to_wad(&self.level, &self.bytes, &doc, GltfToWadOptions::default())
            .map_err(|e| e.to_string())?;
        written.to_bytes().map_err(|e| e.to_string())
    }
}

fn time_steps(bench: &Bench, runs: u32) -> Vec<Timing> {
    let Bench {
        bytes,
        level,
        glb,
        retiled_glb,
    } = bench;
    let collision_heavy = collision_heavy(level);
    vec![
        time_median("parse", runs, || Level::parse(black_box(bytes))),
        time_median("to_bytes", runs, || black_box(level).to_bytes()),
        // The whole conversion from a parsed level to the bytes of a .glb: source checksum,
        // geometry, attributes, texture pages decoded and PNG-encoded, JSON and GLB container.
        time_median("to_glb", runs, || {
            let bytes = black_box(bytes);
            wad_to_gltf(black_box(level), Source::of(bytes)).and_then(|gltf| gltf.to_glb())
        }),
        time_median("from_glb", runs, || bench.way_back(black_box(glb))),
        time_median("from_glb_retiled", runs, || {
            bench.way_back(black_box(retiled_glb))
        }),
        time_median("check", runs, || check(black_box(level))),
        time_median("check_collision_heavy", runs, || {
            check(black_box(&collision_heavy))
        }),
        Timing {
            goal_ms: Some(2000.0),
            ..time_median("bake_level", runs.min(SLOW_STEP_RUNS), || {
                let mut lit = level.clone();
                light::bake(&mut lit, &BENCH_LIGHT, &BakeOptions::default(), &|_, _| {})
                    .map(|_| lit)
            })
        },
        time_median("fit_light", runs.min(SLOW_STEP_RUNS), || {
            light::fit(black_box(level), &FitOptions::default())
        }),
    ]
}

fn print_text(report: &Report) {
    println!(
        "level: generated, seed {}, size {}, {} bytes (GLB {} bytes)",
        report.seed, report.size, report.file_size, report.glb_size
    );
    for t in &report.steps {
        let goal = t.goal_ms.map_or(String::new(), |g| {
            let met = if t.median_ms < g { "met" } else { "NOT met" };
            format!("   goal < {g:.0} ms: {met}")
        });
        println!(
            "{:<21} median {:>9.3} ms   min {:>9.3} ms   ({} runs){goal}",
            t.step, t.median_ms, t.min_ms, t.runs
        );
    }
    println!(
        "re-tiled levels (every tile as new geometry), their size (goal at most {RETILED_SIZE_GOAL}x) and floors at 2800 random points against the level (floor test):"
    );
    for r in &report.retiling {
        let f = &r.floors;
        let ratio = r.bytes[1] as f64 / r.bytes[0].max(1) as f64;
        let met = if ratio <= RETILED_SIZE_GOAL {
            "met"
        } else {
            "NOT met"
        };
        println!(
            "  {:<5} seed {} x{:<5}: {:.3}x the bytes ({met}), {} -> {} tiles; floor in both {}, lost {}, gained {}, within 1 mm {} ({:.2} %), largest {:.1} mm",
            r.size,
            r.seed,
            r.collision_scale,
            ratio,
            r.tiles[0],
            r.tiles[1],
            f.both,
            f.lost,
            f.gained,
            f.within_1mm,
            100.0 * f.within_1mm as f64 / f.both.max(1) as f64,
            f.max_mm
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_median_runs_the_step_the_given_number_of_times() {
        for runs in [1, 2, 5] {
            let mut calls = 0;
            let t = time_median("step", runs, || calls += 1);
            assert_eq!(calls, runs);
            assert_eq!(t.runs, runs);
            assert!(0.0 <= t.min_ms && t.min_ms <= t.median_ms);
        }
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
