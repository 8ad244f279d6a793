//! `llamawad`: inspect, round-trip and generate level WADs from the command line.
//!
//! A thin layer over the `llamawad` crate: it parses arguments, reads and writes files and
//! formats results. Every failure is reported as `error: <message>` with exit code 1 (clap uses 2
//! for usage errors), a bug included: a panic is reported as an internal error, never as Rust's
//! exit code 101. A round trip that changes the bytes exits with 3. No output is ever an input.

mod convert;
mod info;
mod light;
mod models;
mod pages;
mod rules;
mod strats;
mod text;

use std::error::Error;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use llamawad::game::light::{BakeOptions, Which, DEFAULT_RAYS};
use llamawad::generate::{self, Size};
use llamawad::{Level, WadError};

pub(crate) type Result<T> = std::result::Result<T, Box<dyn Error>>;

#[derive(Parser)]
#[command(
    name = "llamawad",
    version,
    about = "Reads, checks and writes level WADs of Ein Königreich für ein Lama \
             (The Emperor's New Groove, PC)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise a level (text, or JSON with --json)
    ///
    /// Prints the chunks and their sizes, the detected container convention, the WFPC flags, the
    /// level name, counts of models, tiles, faces (of the models and drawn over the tiles),
    /// collision polygons, pages (and the bytes they take), texture entries, object models, strats
    /// by type name, and the reader's warnings.
    Info {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// Print the summary as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Parse a level, write it back and compare the bytes
    ///
    /// Says whether OUT is byte-identical to IN; exits 0 when it is, 3 when the bytes differ.
    /// OUT must not be the same file as IN: the input WAD is never overwritten.
    Roundtrip {
        /// The level WAD to read.
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// Where to write the result (replaced atomically).
        #[arg(value_name = "OUT")]
        output: PathBuf,
    },
    /// Convert a level to glTF 2.0 (.glb, or .gltf with a .bin beside it)
    ///
    /// The glTF is in file space (the game's orientation: y up, right-handed) and carries every
    /// game attribute the way back needs: face flags, texture entries, vertex colours, collision,
    /// zones, strats. The mapping is described in rust/core/src/gltf/MAPPING.md.
    Wad2gltf {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// Where to write: OUT.glb, or OUT.gltf (and OUT.bin next to it).
        #[arg(value_name = "OUT")]
        output: PathBuf,
    },
    /// Write a level from a glTF and the level it was made from (the base)
    ///
    /// Everything the glTF shows unchanged keeps the base's bytes; moved and turned tiles, edited
    /// faces, face flags, texture entries, vertex colours, collision and zones come through. A
    /// glTF of the unchanged level gives a file identical to the base. Nothing is written when
    /// the conversion fails, and the base is never overwritten.
    Gltf2wad {
        /// The level the glTF was made from.
        #[arg(long, value_name = "BASE.wad")]
        base: PathBuf,
        /// The glTF (.glb, or .gltf with its buffers beside it).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// Where to write the level (replaced atomically; must not be the base).
        #[arg(value_name = "OUT.wad")]
        output: PathBuf,
        /// Convert even when the glTF says it was made from another level.
        #[arg(long)]
        force: bool,
        /// Leave new meshes without a collision mesh of their own without collision (by default
        /// it is made from their floors and walls); a warning names each.
        #[arg(long)]
        no_collision: bool,
        /// Faces whose UVs the game cannot show (no half of a texture rectangle) take the nearest
        /// layout it can, reported, instead of refusing the glTF.
        #[arg(long)]
        snap_uvs: bool,
        /// Print the change report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the engine's floor test at points of a level
    ///
    /// The floor test of the game (FUN_004036d0, FORMAT.md §4) in its own integers: the tiles of
    /// the point's cell, every up-facing collision polygon, its distance and edge values, and the
    /// floor the llama stands on. Points are game units: x east, y up, z the grid row (as strats
    /// store them, divided by 4096). With --json, one JSON object per point and line.
    Probe {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// One point: X Y Z.
        #[arg(num_args = 3, value_names = ["X", "Y", "Z"], allow_negative_numbers = true, conflicts_with = "points")]
        point: Option<Vec<f64>>,
        /// A file of points, one `x y z` per line.
        #[arg(long, value_name = "FILE", required_unless_present = "point")]
        points: Option<PathBuf>,
        /// Print JSON lines instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compare two levels' floors at random points
    ///
    /// Drops probes from y = 60 at N random points of the grid (the same points for the same
    /// seed) and compares the floors the game's floor test finds in both levels: points with a
    /// floor in both, lost, gained, heights within 1 mm and 5 mm, the largest difference, the
    /// same material.
    Floors {
        /// The first level.
        #[arg(value_name = "A.wad")]
        level: PathBuf,
        /// The level to compare it with.
        #[arg(long, value_name = "B.wad")]
        compare: PathBuf,
        /// How many points (at most 1,000,000).
        #[arg(long, default_value_t = 2800)]
        points: usize,
        /// Seed of the random points.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check a level against every rule of the notes
    ///
    /// Reports every problem, not the first: what crashes the game or corrupts the level and
    /// what loses a floor (errors), and what is likely to look or play wrong (warnings), each
    /// naming its tile, model, polygon, face, strat or cell. With --base, problems the base
    /// already has are marked as such. Exits 1 when there is an error that is not in the base.
    Check {
        /// The level WAD to check.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// The level it was made from: its problems are marked pre-existing.
        #[arg(long, value_name = "BASE.wad")]
        base: Option<PathBuf>,
        /// Print JSON: {"problems": [...], "errors": n, "warnings": n}.
        #[arg(long)]
        json: bool,
    },
    /// List a level's strats (objects), and with --all every strat type its code names
    ///
    /// Every placed strat: its index, type name (from the level's strat code), position in game
    /// units (x east, y up, z the grid row) and as stored (20.12 fixed point), rotation about x,
    /// y and z (4096 to the turn; y in degrees too), flags and whether it is created at level
    /// start (flag bit 1 clear), its parameters (pool entries, as stored) and its waypoint. With
    /// --all: every type, placed or named in the code, with its code offset, how many strats of
    /// this level are placed there, and whether another can be placed (its type fields are known
    /// from a placed strat) or why not.
    Strats {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// List every type too.
        #[arg(long)]
        all: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List a level's object models (STPC): rigid or skinned, counts, pages, animation sets
    ///
    /// Every object model of STPC's list: its index, rigid or skinned with its bones, its
    /// vertices, faces and collision polygons, the texture pages its faces show, and (for a
    /// skinned model) the animation sets with as many bones. An object model can be reshaped and
    /// retextured in Blender; its counts stay.
    Models {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Count strats by type across the levels of a folder (type x level)
    ///
    /// Reads every *.wad of DIR (not its subfolders) and prints the instances of each strat type
    /// in each level, with totals. A file that is no readable level is named with the reason and
    /// skipped.
    StratTable {
        /// The folder of level WADs.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write note 003's test level: every placeable strat type on a floor plate
    ///
    /// Adds a floor plate in new grid rows past the level's far edge, built of copies of its
    /// most used flat floor tile, with one strat of every type the level can place (parameters
    /// from its first strat; cameras, cut scenes, forces and triggers left out) every SPACING
    /// cells, the player's strat moved to the plate's edge, and a parkour of six stepping plates,
    /// each 0.5 higher, with coins on them, to a goal platform whose LevelDoor stands on the exit
    /// floor (material 16). The rest of the level is kept at its indices. Nothing is written
    /// when the result would have an error `check --base SRC` does not find in SRC, or a strat
    /// without a floor under it.
    Testlevel {
        /// The level to build the test level from.
        #[arg(value_name = "SRC.wad")]
        source: PathBuf,
        /// Where to write it (replaced atomically; must not be SRC).
        #[arg(value_name = "OUT.wad")]
        output: PathBuf,
        /// The level's new name (NAME chunk).
        #[arg(long)]
        name: Option<String>,
        /// Cells from one strat to the next on the plate (1 to 16).
        #[arg(long, default_value_t = 3)]
        spacing: u32,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write every texture page of a level as a PNG file (page-000.png, …)
    ///
    /// 16-bit pages as they are (pixel 0 transparent), 8-bit pages through the first palette
    /// (which palette a page uses the notes do not say), RLE16 pages, whose compression is not
    /// documented, as a magenta-and-black placeholder, each said so. DIR is made when missing;
    /// each file is replaced atomically.
    Pages {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// The folder to write the PNG files into.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Write a level with one texture page's pixels taken from a PNG
    ///
    /// The image is compared with the page as `pages` shows it, at the page's precision: an
    /// image showing the page leaves the level's bytes as they are. Otherwise the pixels that
    /// changed are written (16-bit: ABGR1555, opaque pixels with bit 15 set unless most of the
    /// page's opaque pixels have it clear, an opaque black pixel 0x8000; 8-bit: the nearest
    /// colour of the first palette, and how many moved more than a 5-bit step is said), every
    /// other byte of the level kept. A changed image of an RLE16 page is refused, as is an image
    /// of another size than the page's unless --resize. Nothing is written when refused, and
    /// LEVEL is never overwritten.
    SetPage {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// The page to replace (its number, as in page-NNN.png).
        #[arg(value_name = "PAGE")]
        page: usize,
        /// The page's new image (PNG, at most 4096 pixels a side).
        #[arg(value_name = "IMAGE.png")]
        image: PathBuf,
        /// Where to write the level (replaced atomically; must not be LEVEL or the image).
        #[arg(value_name = "OUT.wad")]
        output: PathBuf,
        /// Resample an image of another size to the page's (triangle filter, each axis on its
        /// own) instead of refusing it.
        #[arg(long)]
        resize: bool,
    },
    /// Bake sun, sky and ambient occlusion into tiles' vertex colours
    ///
    /// Each chosen tile's vertex colours become sky · (the part of the sky it sees) + sun ·
    /// max(0, n · −direction) where nothing hides the sun, against the faces of every tile.
    /// Game space (y up); the sun's direction is the way its light travels (0,-1,0 is straight
    /// down); colours in the game's shown scale (1.0 is raw 0x80). Every other byte is kept;
    /// tiles with animated colours keep theirs unless --animated. The same input gives the same
    /// bytes on every machine. LEVEL is never overwritten.
    Bake {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// Where to write the level (replaced atomically; must not be LEVEL).
        #[arg(value_name = "OUT.wad")]
        output: PathBuf,
        /// Only these tiles (numbers, comma-separated).
        #[arg(long, value_delimiter = ',', conflicts_with = "new")]
        tiles: Option<Vec<usize>>,
        /// Only tiles not lit yet: every vertex of one colour, as new geometry arrives.
        #[arg(long)]
        new: bool,
        /// Light with what `fit-light` finds in the level's own colours.
        #[arg(long, conflicts_with_all = ["sun", "sun_colour", "sky", "occlusion"])]
        fit: bool,
        /// The way the sun's light travels, X,Y,Z.
        #[arg(long, value_name = "X,Y,Z", value_parser = light::triple, allow_hyphen_values = true, required_unless_present = "fit")]
        sun: Option<[f32; 3]>,
        /// The sun's colour, R,G,B (1.0 = raw 0x80).
        #[arg(long, value_name = "R,G,B", value_parser = light::triple, required_unless_present = "fit")]
        sun_colour: Option<[f32; 3]>,
        /// The sky's colour, R,G,B (1.0 = raw 0x80).
        #[arg(long, value_name = "R,G,B", value_parser = light::triple, required_unless_present = "fit")]
        sky: Option<[f32; 3]>,
        /// How much the level's geometry darkens the sky, 0 to 1.
        #[arg(long)]
        occlusion: Option<f32>,
        /// Sky rays a vertex (1 to 4096).
        #[arg(long = "ao-rays", value_name = "N", default_value_t = DEFAULT_RAYS)]
        rays: u32,
        /// Bake tiles with animated colours too, every colour set alike.
        #[arg(long)]
        animated: bool,
        /// Print the light and what was baked as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Find the light that explains a level's vertex colours
    ///
    /// A least-squares fit of sun direction and colour, sky colour and occlusion to the colours
    /// of the tiles with one colour set, with how much it leaves unexplained; prints the `bake`
    /// arguments that light new geometry like the level.
    FitLight {
        /// The level WAD to read.
        #[arg(value_name = "LEVEL.wad")]
        level: PathBuf,
        /// Sky rays a vertex (1 to 4096).
        #[arg(long = "ao-rays", value_name = "N", default_value_t = DEFAULT_RAYS)]
        rays: u32,
        /// Print the fit as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a synthetic level
    ///
    /// The level is the same for the same seed and size on every machine.
    Generate {
        /// Seed of the generator.
        #[arg(long)]
        seed: u64,
        /// How big a level to make.
        #[arg(long, value_parser = size_parser())]
        size: Size,
        /// The scale the tile models' collision planes are written at: the engine's (4064),
        /// note 001's wording (4096, as other tools write it), or mixed model by model.
        #[arg(long, default_value = "4064", value_parser = ["4064", "4096", "mixed"])]
        collision_scale: String,
        /// Where to write the level (replaced atomically).
        #[arg(value_name = "OUT")]
        output: PathBuf,
    },
}

fn size_parser() -> impl TypedValueParser<Value = Size> {
    PossibleValuesParser::new(Size::ALL.map(|s| PossibleValue::new(s.to_string()))).map(|s| {
        s.parse()
            .expect("the possible values are the names of Size::ALL")
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let inputs = cli.command.inputs();
    let mut out = io::stdout().lock();
    let result = llamawad::catch_panic(|| inputs, || run(cli.command, &mut out))
        .unwrap_or_else(|internal| Err(internal.into()));
    match result {
        Ok(code) => code,
        // The reader of our output went away (`llamawad info x.wad | head`): not a failure.
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

impl Command {
    /// The files the command reads, for the report of an internal error.
    fn inputs(&self) -> String {
        let paths: Vec<&Path> = match self {
            Command::Info { level, .. } | Command::Wad2gltf { level, .. } => vec![level],
            Command::Roundtrip { input, .. } => vec![input],
            Command::Gltf2wad { base, input, .. } => vec![base, input],
            Command::Probe { level, points, .. } => std::iter::once(level.as_path())
                .chain(points.as_deref())
                .collect(),
            Command::Floors { level, compare, .. } => vec![level, compare],
            Command::Check { level, base, .. } => std::iter::once(level.as_path())
                .chain(base.as_deref())
                .collect(),
            Command::Strats { level, .. } | Command::Models { level, .. } => vec![level],
            Command::StratTable { dir, .. } => vec![dir],
            Command::Testlevel { source, .. } => vec![source],
            Command::Pages { level, .. } => vec![level],
            Command::SetPage { level, image, .. } => vec![level, image],
            Command::Bake { level, .. } | Command::FitLight { level, .. } => vec![level],
            Command::Generate { .. } => vec![],
        };
        match paths.as_slice() {
            [] => "no input".to_string(),
            paths => paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" and "),
        }
    }
}

fn run(command: Command, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        Command::Info { level, json } => info::info(&level, json, out),
        Command::Roundtrip { input, output } => convert::roundtrip(&input, &output, out),
        Command::Wad2gltf { level, output } => convert::wad2gltf(&level, &output, out),
        Command::Gltf2wad {
            base,
            input,
            output,
            force,
            no_collision,
            snap_uvs,
            json,
        } => {
            let options = llamawad::gltf::GltfToWadOptions {
                force,
                generate_collision: !no_collision,
                snap_uvs,
                ..Default::default()
            };
            convert::gltf2wad(&base, &input, &output, options, json, out)
        }
        Command::Probe {
            level,
            point,
            points,
            json,
        } => {
            let point = point.map(|p| [p[0], p[1], p[2]]);
            rules::probe(&level, point, points.as_ref(), json, out)
        }
        Command::Floors {
            level,
            compare,
            points,
            seed,
            json,
        } => rules::floors(&level, &compare, points, seed, json, out),
        Command::Check { level, base, json } => {
            rules::check_command(&level, base.as_deref(), json, out)
        }
        Command::Strats { level, all, json } => strats::strats(&level, all, json, out),
        Command::StratTable { dir, json } => strats::strat_table(&dir, json, out),
        Command::Models { level, json } => models::models(&level, json, out),
        Command::Testlevel {
            source,
            output,
            name,
            spacing,
            json,
        } => {
            convert::refuse_overwriting(&output, &[(&source, "the source level")])?;
            let options = llamawad::game::testlevel::TestLevelOptions { name, spacing };
            strats::testlevel(&source, &output, &options, json, out)
        }
        Command::Pages { level, dir } => pages::pages(&level, &dir, out),
        Command::SetPage {
            level,
            page,
            image,
            output,
            resize,
        } => pages::set_page(&level, page, &image, &output, resize, out),
        Command::Bake {
            level,
            output,
            tiles,
            new,
            fit,
            sun,
            sun_colour,
            sky,
            occlusion,
            rays,
            animated,
            json,
        } => {
            let light = light::Light::of(fit, sun, sun_colour, sky, occlusion);
            let options = BakeOptions {
                which: Which::of(tiles, new),
                rays,
                animated,
            };
            light::bake(&level, &output, light, &options, json, out)
        }
        Command::FitLight { level, rays, json } => light::fit_light(&level, rays, json, out),
        Command::Generate {
            seed,
            size,
            collision_scale,
            output,
        } => generate_level(seed, size, &collision_scale, &output, out),
    }
}

/// Parses a level; the error is prefixed with the file name, which the parser does not know.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Level> {
    Level::parse(bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// `generate`: a synthetic level written to `output`.
fn generate_level(
    seed: u64,
    size: Size,
    collision_scale: &str,
    output: &Path,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let scales: generate::CollisionScales = collision_scale
        .parse()
        .expect("clap admits only the scales' names");
    let bytes = generate::generate_with(seed, size, scales)
        .to_bytes()
        .map_err(WadError::from)?;
    llamawad::write_atomically(output, &bytes)?;
    writeln!(
        out,
        "wrote {} ({} bytes, seed {seed}, size {size})",
        output.display(),
        bytes.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
