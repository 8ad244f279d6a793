//! `check`: every rule of the notes a level must keep for the game to load it, draw it and let
//! the llama stand on it, each problem with its culprit named in the game's terms.
//!
//! The rules are those of FORMAT.md §10 (the notes' checklists for new geometry and a new MAP,
//! and what crashes the game), the limits of §3, the collision coverage of
//! [`crate::game::coverage`], and what the floor test says about the player's start. Errors are
//! what crashes the game, corrupts the level or loses a floor; warnings what is likely to look or
//! play wrong. `Level::to_bytes` refuses only what cannot be written at all.

mod map;
mod models;
mod strats;
mod textures;

use crate::codes::Code;
use serde::Serialize;

use crate::container::{Convention, Tag, TotalLength, CONTAINER};
use crate::error::ParseError;
use crate::level::Level;
use crate::limits::{MAX_GRID_CELLS, MAX_MODELS, MAX_TILES};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One broken rule. The location fields that do not apply are None.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The rule, short and stable (`coverage`, `tile-in-grid`, …).
    pub code: Code,
    pub severity: Severity,
    /// What is wrong and what to do, in the game's terms.
    pub message: String,
    pub tile: Option<usize>,
    pub model: Option<usize>,
    /// Collision polygon, counted over the model's groups A, B and C.
    pub polygon: Option<usize>,
    /// Face of the model.
    pub face: Option<usize>,
    pub strat: Option<usize>,
    /// Grid cell (column, row).
    pub cell: Option<[u32; 2]>,
    /// Texture entry. Not in the JSON, whose culprit fields tools and the add-on take as fixed
    /// (the message names the entry); it tells two entries' problems apart against a base.
    #[serde(skip)]
    pub entry: Option<usize>,
    /// With a base level: the base has the same problem already.
    pub pre_existing: bool,
    /// In a conversion's refusal: the tile whose edit made the problem, where that is not the
    /// tile named (a neighbour's floor left over a cell a deleted or moved tile emptied): the
    /// one to show the artist.
    pub cause: Option<usize>,
}

impl Problem {
    fn new(code: Code, severity: Severity, message: impl Into<String>) -> Problem {
        Problem {
            code,
            severity,
            message: message.into(),
            tile: None,
            model: None,
            polygon: None,
            face: None,
            strat: None,
            cell: None,
            entry: None,
            pre_existing: false,
            cause: None,
        }
    }

    pub(crate) fn error(code: Code, message: impl Into<String>) -> Problem {
        Problem::new(code, Severity::Error, message)
    }

    pub(crate) fn warning(code: Code, message: impl Into<String>) -> Problem {
        Problem::new(code, Severity::Warning, message)
    }

    pub(crate) fn tile(mut self, tile: usize) -> Problem {
        self.tile = Some(tile);
        self
    }

    pub(crate) fn model(mut self, model: usize) -> Problem {
        self.model = Some(model);
        self
    }

    pub(crate) fn polygon(mut self, polygon: usize) -> Problem {
        self.polygon = Some(polygon);
        self
    }

    pub(crate) fn face(mut self, face: usize) -> Problem {
        self.face = Some(face);
        self
    }

    pub(crate) fn strat(mut self, strat: usize) -> Problem {
        self.strat = Some(strat);
        self
    }

    pub(crate) fn cell(mut self, col: u32, row: u32) -> Problem {
        self.cell = Some([col, row]);
        self
    }

    pub(crate) fn entry(mut self, entry: usize) -> Problem {
        self.entry = Some(entry);
        self
    }

    /// The same rule broken at the same place, as far as two versions of a level can tell: a
    /// strat keeps its number, a tile may not (an edited level renumbers nothing, but a re-tiled
    /// one has new tiles), so a tile's problem is known by its cell; a model's by its number and
    /// face or polygon; a texture entry's by its number.
    fn same_as(&self, other: &Problem) -> bool {
        let place = |p: &Problem| match (p.strat, p.cell) {
            (Some(s), _) => (Some(s), None, None, None, None, None),
            (None, Some(cell)) => (None, Some(cell), None, None, None, None),
            (None, None) => (None, None, p.model, p.face, p.polygon, p.entry),
        };
        self.code == other.code && place(self) == place(other)
    }
}

/// Every problem of a level.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub problems: Vec<Problem>,
    pub errors: usize,
    pub warnings: usize,
}

impl Report {
    fn of(mut problems: Vec<Problem>) -> Report {
        problems.sort_by_key(|p| p.severity);
        let errors = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        Report {
            warnings: problems.len() - errors,
            errors,
            problems,
        }
    }

    /// Problems that are not pre-existing.
    pub fn new_problems(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| !p.pre_existing)
    }
}

/// Checks a level against every rule.
pub fn check(level: &Level) -> Report {
    Report::of(problems(level))
}

/// Checks a level and marks the problems `base` already has; what may not change from the base
/// is checked too.
pub fn check_against(level: &Level, base: &Level) -> Report {
    let mut found = problems(level);
    // The base is checked only when there is something to find in it: every export of an
    // edited level is checked, and a level without problems is the common case.
    if !found.is_empty() {
        let known = problems(base);
        for p in &mut found {
            p.pre_existing = known.iter().any(|k| k.same_as(p));
        }
    }
    changed_from(level, base, &mut found);
    Report::of(found)
}

/// Checks the bytes of a level, against `base` when given. A file the reader refuses is one
/// error where the reading stopped, naming the tile or TRAK model it was reading or found at
/// fault (code `container` when the container is at fault, else `unreadable`). Bytes that are
/// no level WAD at all are refused as the reader refuses them.
pub fn check_bytes(level: &[u8], base: Option<&Level>) -> Result<Report, ParseError> {
    let level = match Level::parse(level) {
        Ok(level) => level,
        Err(e @ ParseError::NotAWad { .. }) => return Err(e),
        Err(e) => return Ok(Report::of(vec![unreadable(&e)])),
    };
    Ok(match base {
        Some(base) => check_against(&level, base),
        None => check(&level),
    })
}

/// The problem of a file the reader refuses.
fn unreadable(e: &ParseError) -> Problem {
    let at = e.location();
    let code = match at {
        Some(at) if at.chunk == CONTAINER => Code::Container,
        _ => Code::Unreadable,
    };
    let mut problem = Problem::error(
        code,
        format!("{e}: the game would read the rest of the file wrong or not at all"),
    );
    problem.tile = at.and_then(|at| at.tile).map(|t| t as usize);
    problem.model = at.and_then(|at| at.model).map(|m| m as usize);
    problem
}

/// What must stay as the base has it: WFPC (note 002: the layout flags "must stay as they are";
/// note 003 rule 6: do not change them) and the container's conventions (FORMAT.md §1: the
/// writer keeps what it found; a file that reads only as another one was not written so).
fn changed_from(level: &Level, base: &Level, out: &mut Vec<Problem>) {
    let (flags, was) = (level.wfpc(), base.wfpc());
    if flags != was {
        out.push(Problem::error(
            Code::Wfpc,
            format!(
                "WFPC is {flags:#x}, the base's is {was:#x} (bits {:#x} changed): the flags decide which blocks the game reads (0x10, 0x100, 0x10000, 0x100000, 0x200000, 0x4000000) and how it plays (0x800 fog, 0x80000, 0x8000000 materials 17/18); keep the base's",
                flags ^ was
            ),
        ));
    }
    let (now, was) = (level.convention, base.convention);
    let total = |c: Convention| match c.total {
        TotalLength::FileSize => "the file's size",
        TotalLength::FileSizeMinus4 => "the file's size − 4",
    };
    let header = |c: Convention| match c.size_includes_header {
        true => "counts",
        false => "leaves out",
    };
    let mut differences = Vec::new();
    if now.total != was.total {
        differences.push(format!(
            "the length field says {}, the base's {}",
            total(now),
            total(was)
        ));
    }
    if now.size_includes_header != was.size_includes_header {
        differences.push(format!(
            "a chunk's size {} its 8-byte header, the base's {} it",
            header(now),
            header(was)
        ));
    }
    if now.alignment != was.alignment {
        differences.push(format!(
            "chunks start at multiples of {}, the base's of {}",
            now.alignment, was.alignment
        ));
    }
    if !differences.is_empty() {
        out.push(Problem::error(
            Code::Container,
            format!(
                "the WAD is not laid out as its base: {}; write it as the base is",
                differences.join("; ")
            ),
        ));
    }
}

/// The chunks the game needs to load a level, draw it and play it: its flags, textures, tile
/// models, strats and grid (FORMAT.md §9). The notes describe no level without one of them, nor
/// one with two: which of two the game would read they do not say.
const NEEDED: [Tag; 5] = [Tag::WFPC, Tag::TEXT, Tag::TRAK, Tag::STPC, Tag::MAP];

fn needed_chunks(level: &Level, out: &mut Vec<Problem>) {
    for tag in NEEDED {
        let message = match level.chunks.iter().filter(|c| c.tag == tag).count() {
            0 => format!(
                "the level has no {tag} chunk; the game needs WFPC, TEXT, TRAK, STPC and MAP to load a level"
            ),
            1 => continue,
            n => format!(
                "the level has {n} {tag} chunks; which one the game reads the notes do not say, and only the first is checked here: keep one"
            ),
        };
        out.push(Problem::error(Code::Chunks, message));
    }
}

/// Levels past the caps of `limits` (where the notes give no limit, generous against the game's
/// own levels): more tiles, models or cells than any level the game is known to hold.
fn level_size(level: &Level, out: &mut Vec<Problem>) {
    let tiles = level.map().map_or(0, |m| m.tiles.len());
    let models = level.trak().map_or(0, |t| t.models.len());
    let cells = level.map().map_or(0, |m| m.width as u64 * m.height as u64);
    for (count, max, what) in [
        (
            tiles as u64,
            MAX_TILES as u64,
            "tiles (the game's levels have a few thousand)",
        ),
        (
            models as u64,
            MAX_MODELS as u64,
            "TRAK models (the game's levels have 100 to 650)",
        ),
        (
            cells,
            MAX_GRID_CELLS,
            "grid cells (the game's levels have a couple hundred a side)",
        ),
    ] {
        if count > max {
            out.push(Problem::error(
                Code::LevelSize,
                format!("the level has {count} {what}; at most {max} are taken to be what the game holds"),
            ));
        }
    }
}

fn problems(level: &Level) -> Vec<Problem> {
    let mut out = Vec::new();
    needed_chunks(level, &mut out);
    level_size(level, &mut out);
    let entries = level.text().map_or(&[][..], |t| t.entries.as_slice());
    if let Some(text) = level.text() {
        textures::check_textures(text, &mut out);
    }
    let models = level.trak().map_or(&[][..], |t| t.models.as_slice());
    for (i, model) in models.iter().enumerate() {
        models::check_model(model, i, entries, &mut out);
    }
    // Object models are transformed and culled like tile models: their floats too.
    for (i, object) in level
        .stpc()
        .map_or(&[][..], |s| &s.models[..])
        .iter()
        .enumerate()
    {
        let name = format!("STPC object model {i}");
        models::not_finite(&object.model, &name, &mut out, |p| p);
    }
    if let Some(map) = level.map() {
        map::check_map(level, map, models, &mut out);
        strats::check_strats(level, map, models, &mut out);
    }
    out
}

#[cfg(test)]
mod tests;
