"""Edits that change where the llama stands, in real Blender 5.0 through the add-on's operators:
a new mesh gets collision from its floors and walls, none when asked, or its own made from faces;
a tile copied with Shift D or Alt D stands on its model's collision; a tile without faces moved
is written, or refused by name where it held a neighbour's wall. Each written level is read back
(the floor test, the add-on's import) and checked by the Rust check against its base (no new
error)."""

from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from addon_support import SPOT, floor_under, new_floor

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(base=small_wad_file, out=tmp_path / "edited.wad", tmp=tmp_path)


def test_a_new_mesh_gets_collision(level):
    base = level.base.read_bytes()
    _, height = new_floor(base)
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, base)
    assert "new floor: collision made from its floors and walls" in [c.text for c in bpy.context.scene.llamawad.changes]
    # The llama stands on it.
    floor = floor_under(wad, *SPOT, height + 0.25)
    assert floor is not None and floor["height"] == pytest.approx(height, abs=1e-3)
    addon_support.reimport(level.out, collision=True)
    collision = [o for o in bpy.context.scene.objects if o.get("llamawad") == "collision"]
    # Collision starts hidden, out of the depsgraph: its placement from its own transforms.
    corners = np.array([tuple(addon_support.world_matrix(o) @ v.co) for o in collision for v in o.data.vertices])
    near = np.abs(corners[:, :2] - SPOT).max(axis=1) < 0.45
    assert np.abs(corners[near, 2] - height).min() < 1e-3


def test_a_new_mesh_without_collision_is_named(level, capfd):
    base = level.base.read_bytes()
    _, height = new_floor(base)
    capfd.readouterr()
    wad = addon_support.export(level.out, generate_collision=False)
    out = capfd.readouterr().out
    assert "new floor" in out and "has no collision" in out
    assert any("new floor" in c.text and "has no collision" in c.text for c in bpy.context.scene.llamawad.changes)
    assert not bpy.context.scene.llamawad.generate_collision
    addon_support.assert_no_new_errors(wad, base)
    # The llama falls through it, onto the ground.
    floor = floor_under(wad, *SPOT, height + 0.25)
    assert floor is not None and floor["height"] < height - 1


def test_collision_from_faces_on_a_new_mesh(level):
    base = level.base.read_bytes()
    obj, height = new_floor(base)
    addon_support.select_faces(obj, [0])
    assert bpy.ops.llamawad.collision_from_faces(material=16) == {"FINISHED"}
    (child,) = obj.children
    assert child.name.startswith("collision") and list(addon_support.ints(child.data, "wad_material")) == [16]
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, base)
    # Its own collision: none was made from its faces.
    assert not any("collision made" in c.text for c in bpy.context.scene.llamawad.changes)
    floor = floor_under(wad, *SPOT, height + 0.25)
    assert floor is not None and floor["material"] == 16 and floor["height"] == pytest.approx(height, abs=1e-3)


@pytest.mark.parametrize("made", [False, True], ids=["collision-not-made", "collision-made"])
@pytest.mark.parametrize("linked", [False, True], ids=["shift-d", "alt-d"])
def test_a_copied_tile_keeps_its_collision(level, linked, made):
    """A tile copied with Shift D or Alt D (its collision object not copied along, or not made
    yet) and moved by two cells: the copy stands on the collision of its model."""
    if made:
        assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    with_collision = addon_support.tiles_with_collision(level.base.read_bytes())
    tile = next(o for o in addon_support.mesh_tiles() if o["tile"] in with_collision)
    addon_support.select_faces(tile, [])
    assert bpy.ops.object.duplicate(linked=linked) == {"FINISHED"}
    copy = bpy.context.active_object
    assert copy != tile and not [c for c in copy.children if c.get("llamawad") == "collision"]
    copy.location.x += 2.0
    base = level.base.read_bytes()
    before = addon_support.level_state(base)
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, base)
    after = addon_support.level_state(wad)
    added = [t for t in after["tiles"] if t not in before["tiles"] and after["tiles"][t]["faces"]]
    assert len(added) == 1
    assert after["tiles"][added[0]]["collision"] == before["tiles"][tile["tile"]]["collision"]
    addon_support.reimport(level.out, collision=True)
    copies = [o for o in bpy.context.scene.objects if o.get("llamawad") == "tile" and o.get("tile") == added[0]]
    assert [c for c in copies[0].children if c.get("llamawad") == "collision"]


def test_a_tile_without_faces_moved_arrives(level):
    """Tiles without faces start excluded from the view layer; included and moved, the move is
    written, and the level as written imports with the tile where it was put."""
    bpy.context.view_layer.layer_collection.children["Tiles"].children["Tiles without faces"].exclude = False
    tile = min(bpy.data.collections["Tiles without faces"].objects, key=lambda o: o.name)
    index = int(tile["tile"])
    # This one, moved up, keeps its collision within cells that hold it; a move the coverage
    # rule refuses is not what this test is about.
    tile.location.z += 0.25
    moved = tile.location.z
    original = level.base.read_bytes()
    written = addon_support.export(level.out)
    addon_support.assert_no_new_errors(written, original)
    diff = addon_support.level_diff(addon_support.level_state(original), addon_support.level_state(written))
    assert diff.get("placement") == [index] and "added" not in diff and "gone" not in diff
    addon_support.reimport(level.out)
    assert addon_support.tile_object(index).location.z == pytest.approx(moved, abs=1e-4)


def test_a_tile_without_faces_that_held_a_wall_moved_is_refused(level):
    """A tile without faces that stands on its own floor (the floor test finds its polygon at its
    origin) also holds, in its cell, a neighbour's wall that reaches in. Moved up, it holds the
    wall no more: the llama would walk through there, so export refuses, naming the neighbour's
    wall and the cell the move left, selects the tile the artist moved (issue 34) and writes
    nothing."""
    bpy.context.view_layer.layer_collection.children["Tiles"].children["Tiles without faces"].exclude = False
    faceless = sorted(bpy.data.collections["Tiles without faces"].objects, key=lambda o: o.name)
    floors = llamawad.probe(level.base.read_bytes(), [(o.location.x, 60.0, -o.location.y) for o in faceless])
    tile = next(o for o, r in zip(faceless, floors) if r["floor"] and r["floor"]["tile"] == int(o["tile"]))
    tile.location.z += 0.25
    with pytest.raises(RuntimeError, match="Not written") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    assert "where no tile holds it: the llama there walks through it" in str(error.value)
    assert f"is where tile {tile['tile']} was moved)" in str(error.value)
    culprit = bpy.context.view_layer.objects.active
    assert culprit == tile and f"(selected: {tile.name}" in str(error.value)
