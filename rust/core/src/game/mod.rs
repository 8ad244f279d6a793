//! The game's rules, once: what the engine does with a level, as the notes describe it.
//!
//! [`space`] is the engine's fixed-point space and tile frame; [`cells`] the cell lists the MAP
//! loader builds; [`floor`] the floor test (`FUN_004036d0`) in the engine's integers.

pub mod cells;
pub mod floor;
pub mod space;
