"""Modifiers (issue 21): export writes what the artist sees, the meshes as the viewport evaluates
them (modifiers applied), unless "Apply modifiers" is off; the Level check and the Floor probe
convert alike. Each written WAD is read back: by content (addon_support.level_state), through the
add-on's import, and by the floor test."""

from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    base = small_wad_file.read_bytes()
    return SimpleNamespace(base=base, state=addon_support.level_state(base), out=tmp_path / "edited.wad")


def export(level, **options) -> bytes:
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out), **options) == {"FINISHED"}
    return level.out.read_bytes()


def corners(state, tile) -> np.ndarray:
    """Every corner of a tile's faces (file space, tile frame), sorted."""
    return np.array(sorted(c for f in state["tiles"][tile]["faces"] for c, _ in f[2]))


def test_an_array_on_a_tile_adds_its_faces(level):
    tile = addon_support.mesh_tiles()[5]
    faces = len(tile.data.polygons)
    array = tile.modifiers.new("Array", "ARRAY")
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (0.0, 0.0, 0.5)
    after = addon_support.level_state(export(level))
    i = tile["tile"]
    # Its collision is copied with its faces (test_an_array_on_a_tile_copies_its_collision…).
    assert addon_support.level_diff(level.state, after) == {"faces": [i], "collision": [i]}
    assert len(after["tiles"][i]["faces"]) == 2 * faces
    # The copy stands 0.5 above the original (file y is Blender's z).
    raised = corners(level.state, i) + [0.0, 0.5, 0.0]
    got = corners(after, i)
    assert all(np.abs(got - c).max(axis=1).min() < 1e-3 for c in raised)
    addon_support.import_level(level.out)
    assert len(addon_support.tile_object(i).data.polygons) == 2 * faces


def test_an_array_on_a_tile_copies_its_collision_with_its_faces(level):
    # The tile's collision as the viewport shows the tile (issue 34): the floor test finds the
    # copy's floor half a unit above the tile's, and the report says the collision was copied.
    tiles = [t for t in addon_support.mesh_tiles() if t["tile"] in addon_support.tiles_with_collision(level.base)]
    tile = tiles[3]
    i = tile["tile"]
    array = tile.modifiers.new("Array", "ARRAY")
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (0.0, 0.0, 0.5)
    written = export(level)
    report = bpy.context.scene.llamawad
    assert any(c.tile == i and "collision copied" in c.text for c in report.changes), [(c.tile, c.text) for c in report.changes]
    addon_support.assert_no_new_errors(written, level.base)
    models = llamawad.tile_models(written)
    base_models = llamawad.tile_models(level.base)
    assert models[i] != base_models[i]
    # Every floor of the tile is found again 0.5 higher, over the tile's own cell.
    x, y = tile.location.x, tile.location.y
    probes = [(x + dx, 3.0, -(y + dy)) for dx in (-0.3, 0.0, 0.3) for dy in (-0.3, 0.0, 0.3)]
    low = {p: r["floor"] for p, r in zip(probes, llamawad.probe(level.base, probes))}
    high = {p: r["floor"] for p, r in zip(probes, llamawad.probe(written, probes))}
    raised = [p for p in probes if low[p] is not None and low[p]["tile"] == i]
    assert raised, "the tile has a floor to copy"
    for p in raised:
        assert high[p] is not None and abs(high[p]["height"] - (low[p]["height"] + 0.5)) < 1e-3, (p, low[p], high[p])


def test_a_displace_on_a_tile_moves_its_vertices(level):
    tile = addon_support.mesh_tiles()[7]
    displace = tile.modifiers.new("Displace", "DISPLACE")
    # Without a texture every vertex moves by strength × (1 − mid level) along the direction.
    displace.direction = "Z"
    displace.mid_level = 0.0
    displace.strength = 0.4
    after = addon_support.level_state(export(level))
    i = tile["tile"]
    # Every vertex moved alike is the tile moved, keeping its model (issue 21).
    assert addon_support.level_diff(level.state, after) == {"placement": [i]}
    (x0, y0, z0), turn0 = level.state["tiles"][i]["placement"]
    (x1, y1, z1), turn1 = after["tiles"][i]["placement"]
    assert (x1, y1, z1, turn1) == pytest.approx((x0, y0 + 0.4, z0, turn0), abs=1e-3)
    np.testing.assert_allclose(corners(after, i), corners(level.state, i), atol=1e-4)


def test_a_displace_along_the_normals_reshapes_the_tile(level):
    # A tile whose faces face several ways: its vertices move apart, not alike.
    def normals(obj):
        values = np.empty(3 * len(obj.data.polygons), np.float32)
        obj.data.polygons.foreach_get("normal", values)
        return values.reshape(-1, 3)

    tile = next(o for o in addon_support.mesh_tiles() if np.ptp(normals(o), axis=0).max() > 0.5)
    displace = tile.modifiers.new("Displace", "DISPLACE")
    displace.direction = "NORMAL"
    displace.mid_level = 0.0
    displace.strength = 0.4
    after = addon_support.level_state(export(level))
    assert addon_support.level_diff(level.state, after) == {"faces": [tile["tile"]]}


def test_apply_modifiers_off_writes_the_meshes_as_they_are(level):
    tile = addon_support.mesh_tiles()[7]
    tile.modifiers.new("Displace", "DISPLACE").strength = 0.4
    assert export(level, apply_modifiers=False) == level.base
    # The scene keeps the option: the Level check and the Floor probe convert without them too.
    assert not bpy.context.scene.llamawad.apply_modifiers


def test_a_modifier_disabled_in_the_viewport_is_not_applied(level):
    tile = addon_support.mesh_tiles()[7]
    tile.modifiers.new("Displace", "DISPLACE").show_viewport = False
    assert export(level) == level.base


def new_floor(level, name: str):
    """A new 0.8-unit floor over cell (4, 5), 2 units above its ground, with an Array modifier
    that repeats it one cell east."""
    (ground,) = llamawad.probe(level.base, [(4.5, 60.0, 5.5)])
    height = round(ground["floor"]["height"] + 2.0, 3)
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(4.5, -5.5, height)) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.name = name
    obj.data.materials.append(addon_support.page_material())
    array = obj.modifiers.new("Array", "ARRAY")
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (1.0, 0.0, 0.0)
    return obj, height


def test_an_array_on_a_new_mesh_and_the_floor_probe(level):
    """The copy an Array modifier makes of a new floor is written with its collision; the Floor
    probe, converting as export does, stands on it before anything is written."""
    _, height = new_floor(level, "bridge")
    bpy.context.scene.cursor.location = (5.5, -5.5, height + 0.2)
    assert bpy.ops.llamawad.floor_probe() == {"FINISHED"}
    from addon.blender import probe

    probed = probe.stored(bpy.context.scene)
    assert probed["floor"] is not None and probed["floor"]["height"] == pytest.approx(height, abs=1e-3)
    wad = export(level)
    (result,) = llamawad.probe(wad, [(5.5, height + 0.25, 5.5)])
    assert result["floor"] is not None and result["floor"]["height"] == pytest.approx(height, abs=1e-3)


def test_the_check_sees_the_modifiers(level):
    """An Array that takes a tile past the game's vertex limit is an error the Level check finds,
    naming the tile; without the modifiers applied there is none."""
    tile = addon_support.mesh_tiles()[5]
    array = tile.modifiers.new("Array", "ARRAY")
    array.count = 8001 // len(tile.data.vertices) + 1
    array.use_relative_offset = False
    array.use_constant_offset = True
    # Close together, so that the copies' collision stays within its 8 units of the tile.
    array.constant_offset_displace = (0.0, 0.0, 0.001)
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    errors = [p for p in bpy.context.scene.llamawad.problems if p.error]
    assert errors and errors[0].object == tile.name and "a tile model can have at most 8000" in errors[0].message
    bpy.context.scene.llamawad.apply_modifiers = False
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    assert not [p for p in bpy.context.scene.llamawad.problems if p.error]


def test_a_hidden_collision_objects_modifiers_are_named(level, capfd):
    """Collision hidden (as after import) is left out of the viewport's evaluation: a collision
    object's modifiers cannot be applied then, and export says so by name. Shown, they are."""
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    col = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "collision")
    col.data = col.data.copy()
    displace = col.modifiers.new("Displace", "DISPLACE")
    displace.direction = "Z"
    displace.mid_level = 0.0
    displace.strength = 0.25
    tile = col.parent["tile"]
    shown = addon_support.level_state(export(level))
    assert addon_support.level_diff(level.state, shown).get("collision") == [tile]
    assert bpy.ops.llamawad.collision_show(show=False) == {"FINISHED"}
    capfd.readouterr()
    hidden = export(level)
    out = capfd.readouterr().out
    assert f"{col.name}: its modifiers are not applied" in out
    assert "collision" not in addon_support.level_diff(level.state, addon_support.level_state(hidden))


def test_a_refusal_of_a_modified_mesh_names_the_object_not_faces(level):
    """Faces of a mesh with its modifiers applied are not the object's own: a refusal names and
    selects the object, without face numbers that would point at other faces."""
    obj, _ = new_floor(level, "unpainted")
    obj.data.materials.clear()
    with pytest.raises(RuntimeError, match="no material that says its page") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert "(selected: unpainted)" in str(error.value)
    assert not level.out.exists()
