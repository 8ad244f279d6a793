//! Models: the TRAK tile models (the level's construction kit) and the STPC object models share
//! one format (FORMAT.md §3). Their layouts in [`crate::raw::model`] are the level model as they
//! are: a model's fields are its header's values and its data, without the counts.

pub use crate::raw::model::{LoadSlots, Model, ObjectModel, Trak};
