"""Decoration the llama passes through (issue 21 §4), in real Blender 5.0 through the add-on: any
mesh can be marked "No collision" in the Collision panel; a new mesh so marked gets none made
from its faces, a tile so marked loses its model's, with collision never shown; a tile whose
model has no collision says so in the panel and stays without. Read back with the floor test."""

import addon_support
import bpy
import pytest
from addon_support import SPOT, floor_under, new_floor
from test_addon_panels import draw
from test_addon_whole_edits import level  # noqa: F401  (level is a fixture)

pytestmark = pytest.mark.generator


def test_a_new_mesh_marked_no_collision_gets_none(level):
    obj, height = new_floor(level.base, "plinth")
    obj.llamawad_no_collision = True
    wad = addon_support.export(level.out)
    assert bpy.context.scene.llamawad.generate_collision
    found = floor_under(wad, *SPOT, height + 0.1)
    assert found is None or found["height"] < height - 0.5, found
    assert not any("collision made from its floors and walls" in c.text for c in bpy.context.scene.llamawad.changes)
    # Unmarked, the same mesh is stood on.
    obj.llamawad_no_collision = False
    found = floor_under(addon_support.export(level.out), *SPOT, height + 0.1)
    assert found is not None and found["height"] == pytest.approx(height, abs=0.002)


def own_floor(base: bytes, obj) -> dict | None:
    """The floor the test finds 0.2 across from a tile's origin, when it is the tile's own."""
    found = floor_under(base, obj.location.x + 0.2, obj.location.y + 0.2, obj.location.z + 5.0)
    return found if found is not None and found["tile"] == obj["tile"] else None


def test_a_tile_marked_no_collision_loses_it_never_shown(level):
    tile = next(o for o in addon_support.mesh_tiles() if own_floor(level.base, o))
    point = (tile.location.x + 0.2, tile.location.y + 0.2)
    tile.llamawad_no_collision = True
    assert not bpy.context.scene.llamawad.tile_collision_made
    wad = addon_support.export(level.out)
    found = floor_under(wad, *point, tile.location.z + 5.0)
    assert found is None or found["tile"] != tile["tile"], found
    rows = [c.text for c in bpy.context.scene.llamawad.changes]
    assert any(r.startswith(f"tile {tile['tile']}: reshaped: collision changed") for r in rows), rows


def test_a_tile_without_collision_says_so_and_stays_without(level, tmp_path):
    obj, height = new_floor(level.base, "plinth")
    obj.llamawad_no_collision = True
    written = addon_support.export(level.out)
    # The level as written, imported: the plinth is a tile whose model has no collision.
    assert addon_support.import_level(level.out) == {"FINISHED"}
    (new_tile,) = [o for o in addon_support.mesh_tiles() if o.get("collision_polygons") == 0]
    bpy.context.view_layer.objects.active = new_tile
    log = draw("LLAMAWAD_PT_collision")
    assert ("prop", "llamawad_no_collision") in log
    assert ("label", "This tile has no collision: the llama passes through it") in log
    # Moved up, it is re-tiled and exported: still nothing to stand on.
    new_tile.location.z += 0.5
    again = addon_support.export(tmp_path / "again.wad")
    assert again != written
    found = floor_under(again, *SPOT, height + 0.6)
    assert found is None or found["height"] < height - 0.5, found
