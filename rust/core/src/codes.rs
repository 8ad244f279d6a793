//! What went wrong, as one short and stable code: every problem of `check` and every refusal of
//! the way back carries one, and tools decide by it, never by a message's wording. This table is
//! the one place that says what each code means; the command line, the Python module
//! (`llamawad.CODES`) and the add-on read it from here.

use serde::{Serialize, Serializer};

macro_rules! codes {
    ($($variant:ident = $name:literal: $meaning:literal,)*) => {
        /// A problem's or refusal's kind.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            /// Every code, in the table's order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as tools spell it (`no-uvs`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// What it means, in the game's terms.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Code::$variant => $meaning,)*
                }
            }
        }
    };
}

codes! {
    // Reading the file.
    Unreadable = "unreadable": "the file, or a part of a glTF or of the arrays handed over, cannot be read as what it claims to be",
    Container = "container": "the WAD's chunks are not laid out as the game (or the base) lays them out",
    Chunks = "chunks": "a chunk the game needs is missing or there twice",
    Wfpc = "wfpc": "the WFPC layout flags differ from the base's: the game would read the other chunks wrong",
    LevelSize = "level-size": "more tiles, models, cells or faces than the game's own levels come near",
    // Tiles and the grid.
    TileInGrid = "tile-in-grid": "a tile stands outside the grid: the loader would write into foreign memory",
    TileOutsideGrid = "tile-outside-grid": "a tile of the scene would stand outside the grid",
    BeyondGrid = "beyond-grid": "geometry reaches past the grid, where no cell can hold it",
    TileCopies = "tile-copies": "a tile's two copies in MAP (floats and fixed point, or its model index) disagree",
    TileRotation = "tile-rotation": "a tile's rotation is a full turn or more (4096 to the turn)",
    TileScaled = "tile-scaled": "a tile is scaled: the game places tiles by position and a turn only",
    TileTilted = "tile-tilted": "a tile is turned about another axis than the vertical one",
    TileSwap = "tile-swap": "a tile's swap entry (doors, bridges) does not match the tile",
    UnknownTile = "unknown-tile": "a node names a tile the base level does not have",
    ModelIndex = "model-index": "a tile names a model that does not exist",
    VertexColours = "vertex-colours": "a tile has more or fewer vertex colours than its model has vertices",
    ZoneNumber = "zone-number": "a cell's zone is not 0 to 31",
    ZoneMask = "zone-mask": "a zone's mask or value does not fit the visibility table",
    VisibleZone = "visible-zone": "a tile's zone is seen from no zone: the tile is never drawn",
    // Models and faces.
    VertexLimit = "vertex-limit": "a model has more vertices than the engine transforms per model",
    FaceLimit = "face-limit": "a model or a tile's part has more faces than one model can hold",
    FaceCorners = "face-corners": "a face names a vertex its model does not have",
    FacePlane = "face-plane": "a face's stored plane is not the plane its vertices give",
    BoundingBox = "bounding-box": "a model's box does not hold its vertices: the engine culls the model by it",
    BatchBit = "batch-bit": "a face that starts a new page or render state lacks flag 0x8",
    BatchLength = "batch-length": "more faces since the last flag 0x8 than one render batch holds",
    NotFinite = "not-finite": "a position, transform or value is not a finite number",
    AttributeValue = "attribute-value": "a face attribute (flags, texture entry) holds a value its field cannot store",
    // Textures.
    TextureEntry = "texture-entry": "a face names a texture entry that does not exist, or none can show its UVs",
    TextureEntryLimit = "texture-entry-limit": "more texture entries than a face's 16-bit index can name",
    NoMaterial = "no-material": "faces have no material, so no page to show",
    NoUvs = "no-uvs": "faces have no UVs, so no texture rectangle to show",
    UvsNotRectangle = "uvs-not-rectangle": "a face's UVs are not half of a rectangle, all the game can show",
    EntryOutsidePage = "entry-outside-page": "a texture entry's rectangle reaches past its page's pixels, or its page does not exist",
    PageImage = "page-image": "a page's edited image cannot be written into it (RLE16-compressed or damaged page, another size, no palette colour), or two images of one page differ",
    PageCount = "page-count": "more texture pages than a texture entry's signed page byte can name (pages 0 to 127)",
    // Collision.
    CollisionMaterial = "collision-material": "a collision polygon's material is not a number the game stores",
    CollisionPolygon = "collision-polygon": "a collision face cannot become a polygon the floor test reads",
    CollisionNormal = "collision-normal": "a collision plane's normal is not of unit length (× 127)",
    CollisionEdge = "collision-edge": "a collision polygon's edge normals do not point inwards",
    CollisionReach = "collision-reach": "collision lies more than 8 units from its tile, past what the plane's d holds",
    Coverage = "coverage": "collision reaches into a cell whose list lacks its tile: the llama falls through there",
    Needle = "needle": "a collision corner so sharp that the floor test's edge tolerance reaches past it",
    // Strats and the player.
    StratCode = "strat-code": "a strat's code offset is not a strat start in this level's code",
    StratRotation = "strat-rotation": "a strat's rotation is a full turn or more (4096 to the turn)",
    StratParameters = "strat-parameters": "a strat's parameters lie outside the parameter pool",
    StratWaypoint = "strat-waypoint": "a strat names a waypoint that does not exist",
    StratTypeFields = "strat-type-fields": "strats of one type differ in the fields the type fixes",
    StratPool = "strat-pool": "poolExtra leaves too few strat slots for the level's strats",
    UnknownStrat = "unknown-strat": "a node names a strat the base level does not have",
    UnknownWaypoint = "unknown-waypoint": "a node names a waypoint the base level does not have",
    StratTilted = "strat-tilted": "a strat's or waypoint's node is turned about another axis than the vertical one: the record holds only the turn about y as the node shows it",
    StratField = "strat-field": "a strat's or waypoint's field or parameter in the scene does not fit its place in the record or the pool (not a whole number, out of range, or a list of the wrong length)",
    PlayerStart = "player-start": "the llama's start is missing, above no floor, or over a deadly floor",
    PlayerStartMaterial = "player-start-material": "the llama starts on a material its floor test skips",
    // The conversion as a whole.
    OtherLevel = "other-level": "the glTF or scene was made from another level than the base",
    BaseIncomplete = "base-incomplete": "the base level lacks a chunk the conversion needs",
    GameRules = "game-rules": "the converted level would break the game's rules (its problems say which)",
    Refused = "refused": "the scene cannot become a level (the message says why)",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Code;
    use std::collections::HashSet;

    #[test]
    fn every_code_is_spelled_once_in_kebab_case_and_means_something() {
        let names: HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), Code::ALL.len());
        for c in Code::ALL {
            let name = c.as_str();
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{name}"
            );
            assert!(!c.meaning().is_empty(), "{name}");
        }
    }
}
