//! What went wrong, as one short and stable code: every problem of `check` and every refusal of
//! the way back carries one, and tools decide by it, never by a message's wording. This table is
//! the one place that says what each code means and what an artist does about it; the command
//! line, the Python module (`llamawad.CODES`), the add-on and the artist's guide
//! (`scripts/guide-codes` writes its "When Blender says no" page from this file) read it from here.

use serde::{Serialize, Serializer};

macro_rules! codes {
    (@fix $fix:literal) => { Some($fix) };
    (@fix) => { None };
    ($($variant:ident = $name:literal: $meaning:literal $(=> $fix:literal)?,)*) => {
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

            /// What the artist does about it, in Blender's and the add-on's words (the guide's
            /// "When Blender says no" page is made from it; its test fails for a code without).
            pub fn fix(self) -> Option<&'static str> {
                match self {
                    $(Code::$variant => codes!(@fix $($fix)?),)*
                }
            }
        }
    };
}

codes! {
    // Reading the file.
    Unreadable = "unreadable": "the file, or a part of a glTF or of the arrays handed over, cannot be read as what it claims to be"
        => "Open the level from the game's own folder or your last export; a file another tool wrote may be damaged. In Blender, a scene whose level data was damaged: import the level again.",
    Container = "container": "the WAD's chunks are not laid out as the game (or the base) lays them out"
        => "Export over the level you imported (the add-on keeps its layout); do not mix a level's file with another's.",
    Chunks = "chunks": "a chunk the game needs is missing or there twice"
        => "Import the original level again (Restore original if you exported over it): the add-on never removes chunks, so the file was damaged outside it.",
    Wfpc = "wfpc": "the WFPC layout flags differ from the base's: the game would read the other chunks wrong"
        => "Export with the level you imported as the base: the add-on keeps its WFPC flags, which cannot be edited.",
    LevelSize = "level-size": "more tiles, models, cells or faces than the game's own levels come near"
        => "Remove tiles or faces (duplicates, unneeded copies), or split a huge mesh: the game's own levels stay far below these numbers.",
    // Tiles and the grid.
    TileInGrid = "tile-in-grid": "a tile stands outside the grid: the loader would write into foreign memory"
        => "Move the tile (G) back over the level's grid: every tile must stand over a cell.",
    TileOutsideGrid = "tile-outside-grid": "a tile of the scene would stand outside the grid"
        => "Move the object back over the grid (the Zones mesh shows its cells); geometry may hang over the edge, a tile's origin may not.",
    BeyondGrid = "beyond-grid": "geometry reaches past the grid, where no cell can hold it"
        => "Move or shrink the mesh so that it lies over the grid, or accept that the faces out there belong to the nearest cell.",
    TileCopies = "tile-copies": "a tile's two copies in MAP (floats and fixed point, or its model index) disagree"
        => "Import the original level again: the add-on writes both copies alike, so the file was changed outside it.",
    TileRotation = "tile-rotation": "a tile's rotation is a full turn or more (4096 to the turn)"
        => "Turn the tile back within one turn: set its Rotation Z between -360° and 360°.",
    TileScaled = "tile-scaled": "a tile is scaled: the game places tiles by position and a turn only"
        => "Set the tile's Scale back to 1, 1, 1 (Alt S), or apply the scale (Ctrl A › Scale) so that the faces change shape instead: a tile is placed by position and a turn only.",
    TileTilted = "tile-tilted": "a tile is turned about another axis than the vertical one"
        => "Clear the turn about X and Y (Rotation X and Y to 0): tiles turn about the vertical only. To tilt the look, rotate the faces in Edit Mode instead.",
    TileSwap = "tile-swap": "a tile's swap entry (doors, bridges) does not match the tile"
        => "Undo the change to the door or bridge tile, or import the level again: swap entries are not editable.",
    UnknownTile = "unknown-tile": "a node names a tile the base level does not have"
        => "Remove the object's custom property `tile`, or copy a tile of this level: the number names a tile the base does not have (from another level's scene?).",
    ModelIndex = "model-index": "a tile names a model that does not exist"
        => "Import the level again: a tile names a model that does not exist (the file was changed outside the add-on).",
    VertexColours = "vertex-colours": "a tile has more or fewer vertex colours than its model has vertices"
        => "Import the level again, or repaint the tile: its colours do not match its model's vertices.",
    ZoneNumber = "zone-number": "a cell's zone is not 0 to 31"
        => "Set the cells' zone to 0 to 31 (Zones › Zone, Set).",
    ZoneMask = "zone-mask": "a zone's mask or value does not fit the visibility table"
        => "Set the visibility again with the Zones panel's buttons instead of editing the scene's custom properties.",
    VisibleZone = "visible-zone": "a tile's zone is seen from no zone: the tile is never drawn"
        => "In Zones › Zone sees, tick the tile's zone for at least one zone (the zone it stands in, at least).",
    // Models and faces.
    VertexLimit = "vertex-limit": "a model has more vertices than the engine transforms per model"
        => "Split the mesh (P › By Loose Parts, or select and separate) or reduce its vertices (Decimate, Merge by Distance).",
    FaceLimit = "face-limit": "a model or a tile's part has more faces than one model can hold"
        => "Split the mesh into smaller objects or reduce its faces: one model holds at most the faces the message names.",
    FaceCorners = "face-corners": "a face names a vertex its model does not have"
        => "Import the level again: a face names a vertex its model does not have.",
    FacePlane = "face-plane": "a face's stored plane is not the plane its vertices give"
        => "Usually harmless (a warning): the game's stored plane of a face differs from its vertices. Re-export after editing the faces, which recomputes the planes.",
    BoundingBox = "bounding-box": "a model's box does not hold its vertices: the engine culls the model by it"
        => "Usually harmless (a warning): the model's box is recomputed from its vertices when you edit the tile.",
    BatchBit = "batch-bit": "a face that starts a new page or render state lacks flag 0x8"
        => "Import the level again; the add-on sets these bits itself on export.",
    BatchLength = "batch-length": "more faces since the last flag 0x8 than one render batch holds"
        => "Import the level again; the add-on sets these bits itself on export.",
    NotFinite = "not-finite": "a position, transform or value is not a finite number: in a scene, or in a level where the game reads floats (a model's vertex, normal, box or face plane, a tile's position)"
        => "Find the object with a broken number (a location, rotation, UV or colour that shows as nan or inf) and type a real number in. A level file with such a number (Check names the tile, model or face) shows it as 0 in Blender: move that tile, or reshape its faces, and export: what Blender shows is written.",
    AttributeValue = "attribute-value": "a face attribute (flags, texture entry) holds a value its field cannot store"
        => "Set the face's flags and texture entry with the Face panel instead of editing the attributes `wad_flags` and `wad_texture` by hand.",
    // Textures.
    TextureEntry = "texture-entry": "a face names a texture entry that does not exist, or none can show its UVs"
        => "Give the faces a texture entry (Face › Pick entry…) or UVs that show a rectangle of a page.",
    TextureEntryLimit = "texture-entry-limit": "more texture entries than a face's 16-bit index can name"
        => "Reuse texture entries: map faces onto rectangles already used (Face › Select same entry shows them) instead of new UVs for each face.",
    NoMaterial = "no-material": "faces have no material, so no page to show"
        => "Give the faces a page's material (one of the level's, whatever it is called now: its custom properties say its page) or a material of your own with an Image Texture.",
    NoUvs = "no-uvs": "faces have no UVs, so no texture rectangle to show"
        => "Unwrap the faces (U in Edit Mode) onto their page or image.",
    UvsNotRectangle = "uvs-not-rectangle": "a face's UVs are not half of a rectangle, all the game can show"
        => "Make each triangle's UVs half of a rectangle with sides along U and V (the game shows no other shape), or tick Snap UVs in the export options to have them snapped.",
    EntryOutsidePage = "entry-outside-page": "a texture entry's rectangle reaches past its page's pixels, or its page does not exist"
        => "Import the level again, or pick another entry (Face › Pick entry…): this entry's rectangle does not fit its page.",
    PageImage = "page-image": "a page's edited image cannot be written into it (RLE16-compressed or damaged page, another size, no palette colour), or two images of one page differ"
        => "Keep the page image's size, do not paint over an RLE16 page (the message names it), and paint the page in one image only: two images of one page must match.",
    PageCount = "page-count": "more texture pages than a texture entry's signed page byte can name (pages 0 to 127)"
        => "Use fewer images of your own, or paint onto existing pages: the level can hold 128 pages.",
    // Collision.
    CollisionMaterial = "collision-material": "a collision polygon's material is not a number the game stores"
        => "Set the collision material with the Collision panel (0 to 255).",
    CollisionPolygon = "collision-polygon": "a collision face cannot become a polygon the floor test reads"
        => "Make the collision face flat and convex with 3 or 4 corners (triangulate it, Ctrl T), and not too small.",
    CollisionNormal = "collision-normal": "a collision plane's normal is not of unit length (× 127)"
        => "Usually harmless (a warning). Re-export after editing the collision, which recomputes the normals.",
    CollisionEdge = "collision-edge": "a collision polygon's edge normals do not point inwards"
        => "Flip the collision face (Mesh › Normals › Flip) or rebuild it: its corners run the wrong way round.",
    CollisionKind = "collision-kind": "a collision polygon's kind byte has bits besides the known 0x1 (a quad) and 0x4 (facing down): what the game does with them is not known"
        => "Usually harmless (a warning) in a level you did not make: the add-on keeps the byte. If you edited the collision, export again: the add-on writes only the known bits.",
    CollisionReach = "collision-reach": "collision lies more than 8 units from its tile, past what the plane's d holds"
        => "Keep collision within 8 units of its tile: split a long collision mesh into tiles of its own.",
    Coverage = "coverage": "collision reaches into a cell whose list lacks its tile: the llama falls through there"
        => "Export again: the add-on enters moved and new collision into every cell it covers. After a delete or a move the problem names the tile you edited and the cell it left: an untouched neighbour's floor reaches over that cell, which now holds nothing. Put a floor back there (or Undo), or move the tile so that its collision lies over cells it is entered in.",
    Needle = "needle": "a collision corner so sharp that the floor test's edge tolerance reaches past it"
        => "Usually harmless (a warning): widen the sharp corner of the collision face, or cut it off.",
    // Strats and the player.
    StratCode = "strat-code": "a strat's code offset is not a strat start in this level's code"
        => "Delete the strat and place it again with Strat › Add strat at 3D cursor, or undo the edit of its custom property `code_offset`.",
    StratRotation = "strat-rotation": "a strat's rotation is a full turn or more (4096 to the turn)"
        => "Turn the strat back into one turn (Rotation Z between -360° and 360°).",
    StratParameters = "strat-parameters": "a strat's parameters lie outside the parameter pool"
        => "Undo the edit of the strat's custom properties, or place a new strat with Strat › Add strat at 3D cursor.",
    StratWaypoint = "strat-waypoint": "a strat names a waypoint that does not exist"
        => "Set the strat's custom property `waypoint` to a waypoint of the Waypoints collection, or undo the edit.",
    StratTypeFields = "strat-type-fields": "strats of one type differ in the fields the type fixes"
        => "Do not edit a strat's type fields; place strats with Strat › Add strat at 3D cursor, which copies them.",
    StratReserved = "strat-reserved": "a strat's field the notes call always 0 (offset 50 or 56 of its record) is not 0: what the game does with it is not known"
        => "Usually harmless (a warning) in a level you did not make. If you typed it into the strat's custom properties (`reserved_32`, `reserved_38`), set it back to 0.",
    StratPool = "strat-pool": "poolExtra leaves too few strat slots for the level's strats, or asks for more than the engine can allocate"
        => "Remove strats you added, or place fewer: the level's strat pool is full. A poolExtra past the limit the message names comes from a damaged file: import the original level again.",
    UnknownStrat = "unknown-strat": "a node names a strat the base level does not have"
        => "Remove the object's custom property `strat`, or copy a strat of this level (Shift D): the number names a strat the base does not have.",
    UnknownWaypoint = "unknown-waypoint": "a node names a waypoint the base level does not have"
        => "Copy a waypoint of this level (Shift D) instead of making one from scratch: the number names a waypoint the base does not have.",
    UnknownLight = "unknown-light": "a node names a level light the base level does not have, or names one light twice: the LGHT chunk's layout is read, not known, so lights are neither added nor removed"
        => "Delete the copied light (Shift D keeps its custom properties, `llamawad` and `light`): the level's lights are edited in place, none added.",
    LightField = "light-field": "a level light's type, colour or words in the scene do not fit its LGHT entry (a type changed, a colour not three numbers 0 to 255, words not as many as it had, or a place past 20.12 fixed point)"
        => "Keep the light's type and number of words; give its colour as three whole numbers 0 to 255; move it within the level.",
    StratTilted = "strat-tilted": "a strat's or waypoint's node is turned about another axis than the vertical one: the record holds only the turn about y as the node shows it"
        => "Clear the strat's (or waypoint's) turn about X and Y: it turns about the vertical only.",
    StratField = "strat-field": "a strat's or waypoint's field or parameter in the scene does not fit its place in the record or the pool (not a whole number, out of range, or a list of the wrong length)"
        => "Type whole numbers into the strat's custom properties (parameters, flags, waypoint), in range and with as many parameters as it had.",
    PlayerStart = "player-start": "the llama's start is missing, not created at level start, above no floor, or over a deadly floor"
        => "Move the Llama's start (strat 0, \"Llama · strat 000\") over a floor and use Strat › Drop to floor; make sure the floor below is not material 30. A Llama in the collection Not created at start: select it and click \"Not created at level start\" in the Strat panel, which makes it created at start.",
    PlayerStartMaterial = "player-start-material": "the llama starts on a material its floor test skips"
        => "Move the Llama's start onto another floor, or give the floor under it another collision material than 17 (the one its floor test skips).",
    // The conversion as a whole.
    OtherLevel = "other-level": "the glTF or scene was made from another level than the base"
        => "Choose as the Base WAD (Level panel, or the export's options) the level the scene was imported from, or import the level you mean to change. \"Other base\" in the export's options writes anyway.",
    BaseIncomplete = "base-incomplete": "the base level lacks a chunk the conversion needs"
        => "Choose the level's own WAD as the base; this one lacks a chunk (damaged, or not a level).",
    GameRules = "game-rules": "the converted level would break the game's rules (its problems say which)"
        => "Read the problems listed in the Level panel: each has its own section on this page. Click one to select its culprit.",
    ObjectModelCounts = "object-model-counts": "an object model's vertices, faces or bones changed in number: the strat code refers into STPC by byte offsets, so object models keep their counts"
        => "Undo the edit that added or deleted vertices or faces (or moved a vertex to another bone's group); move, paint and retexture the model's own vertices and faces instead.",
    UnknownObjectModel = "unknown-object-model": "a node names an object model the base level does not have, or one another node names"
        => "Object models cannot be added or copied: delete the copy, or keep its mesh as new geometry by clearing its custom properties.",
    Refused = "refused": "the scene cannot become a level (the message says why)"
        => "Read the message: it names the object and what to do. Fix it and export again.",
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
            assert!(
                c.fix().is_some_and(|f| !f.is_empty()),
                "{name}: no fix for the guide"
            );
        }
    }
}
