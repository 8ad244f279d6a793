//! The game's rules, once: what the engine does with a level (FORMAT.md), its fixed limits
//! apart in [`crate::limits`], below the geometry that keeps to them.
//!
//! [`space`] holds the engine's fixed-point space and tile frame;
//! [`cells`] the cell lists the MAP loader builds; [`floor`] the floor test (`FUN_004036d0`) in
//! the engine's integers, [`floors`] two levels' floors compared; [`coverage`] which cells a
//! collision polygon must be entered into, and the collision-only tiles that enter it there;
//! [`plane_scale`] which scale a level's collision planes were written at; [`object_models`]
//! what the level's object models are;
//! [`strats`] the placed strats and the types the code names, in units and degrees;
//! [`testlevel`] note 003's test level of every placeable type; [`light`] sun, sky and ambient
//! occlusion baked into the tiles' vertex colours, and fitted to a level's; [`lights`] what the
//! level's own lights (LGHT) mean; [`check`](mod@check) every
//! rule, with the culprit named.

pub mod cells;
pub mod check;
pub mod coverage;
pub mod floor;
pub mod floors;
pub mod light;
pub mod lights;
pub mod object_models;
pub mod plane_scale;
pub mod space;
pub mod strats;
pub mod testlevel;

pub use check::{check, check_against, check_bytes, Problem, Report, Severity};
