//! A mesh of new geometry as one tile at its anchor, where that tile is a model the level has
//! already: how a re-tiled tile comes back as the tile it was.

use glam::Vec3;

use super::{subset, tile_local, NewTile, Slot, REACH};
use crate::gltf::fit::Fitter;
use crate::gltf::gltf_to_wad::attributes::per_triangle;
use crate::gltf::gltf_to_wad::collision::{encode, GivenPolygon};
use crate::gltf::gltf_to_wad::error::{GltfToWadError, NodeRef};
use crate::gltf::gltf_to_wad::look::needs_fit;
use crate::gltf::gltf_to_wad::model::{build_model, ModelSource};
use crate::gltf::gltf_to_wad::report::ChangeReport;
use crate::gltf::gltf_to_wad::share::Sharing;
use crate::gltf::read::Triangles;
use crate::level::Model;

/// A mesh to be tried as one tile.
pub(super) struct OneTile<'a> {
    pub(super) tris: &'a Triangles,
    pub(super) flags: &'a [Option<u16>],
    pub(super) polygons: &'a [GivenPolygon],
    pub(super) slot: Slot,
    pub(super) rotation: u32,
    pub(super) culprit: &'a NodeRef,
    pub(super) object: &'a str,
}

/// The mesh as one tile at its anchor, where that tile is a model the level has already (after a
/// quarter turn): a tile re-tiled whole, as the notes' builders merge identical tiles; the
/// original drew its faces from that one cell too. None where it is not, or where its faces would
/// need texture entries fitted: then it is split by cell like any new geometry.
pub(super) fn as_one_tile(
    one: OneTile,
    fitter: &mut Fitter,
    (sharing, models): (&Sharing, &[Model]),
) -> Result<Option<NewTile>, GltfToWadError> {
    let OneTile {
        tris,
        flags,
        polygons,
        slot,
        rotation,
        culprit,
        object,
    } = one;
    if !sharing.has_face_count(tris.count()) {
        return Ok(None);
    }
    let all: Vec<usize> = (0..tris.count()).collect();
    let local = subset(tris, &all, slot.origin(), rotation);
    let textures = per_triangle(&local, "TEXTURE");
    let fits = (0..local.count())
        .any(|t| needs_fit(&local, t, (flags[t], textures[t]), &fitter.entries, None));
    if fits {
        return Ok(None);
    }
    let source = ModelSource {
        tris: &local,
        flags,
        textures: &textures,
        culprit,
        object,
        base: None,
        frames: 1,
    };
    // Nothing is fitted: the report would only count what the split tiles count again.
    let Ok(built) = build_model(source, fitter, &mut ChangeReport::default()) else {
        return Ok(None);
    };
    let mut model = built.model;
    for polygon in polygons {
        let origin = slot.origin();
        let local: Vec<Vec3> = polygon
            .corners
            .iter()
            .map(|c| tile_local(*c, origin, rotation))
            .collect();
        if local
            .iter()
            .any(|c| !c.is_finite() || c.abs().max_element() > REACH)
        {
            return Ok(None);
        }
        let Ok(encoded) = encode(
            &local,
            polygon.material,
            polygon.kind,
            culprit,
            &polygon.tris,
            model.collision_count(),
        ) else {
            return Ok(None);
        };
        model.collision[polygon.group].push(encoded);
    }
    let shared = sharing
        .find(&model, &built.colours, |i| &models[i as usize])
        .is_some();
    Ok(shared.then_some(NewTile {
        model,
        colours: built.colours,
        fitted: false,
    }))
}
