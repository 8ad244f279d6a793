"""New geometry outside the Tiles collection (issue 21): every mesh of the view layer that is not
one of the level's objects is part of the level, wherever it was added; a mesh in a collection the
artist excluded from the view layer is left out and named. After import the Tiles collection is
the active one, so that Shift A puts a new mesh there. Export reports what was added by object
name; the written WAD is read back (the floor test, the add-on's import)."""

import addon_support
import bpy
import llamawad
import pytest

pytestmark = pytest.mark.generator

SPOT = addon_support.SPOT


@pytest.fixture
def level(small_wad_file, tmp_path):
    return addon_support.level_with_spot(small_wad_file, tmp_path)


def add_plane(name: str) -> bpy.types.Object:
    """Shift A › Mesh › Plane, 0.8 units wide, over SPOT, given a page's material: it lands in
    the active collection."""
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, 0.0)) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.name = obj.data.name = name
    obj.data.materials.append(addon_support.page_material())
    return obj


def export(level) -> bytes:
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    return level.out.read_bytes()


def floor_height(wad: bytes, above: float) -> float | None:
    (result,) = llamawad.probe(wad, [(SPOT[0], above, -SPOT[1])])
    return result["floor"]["height"] if result["floor"] else None


def changes() -> list[str]:
    return [c.text for c in bpy.context.scene.llamawad.changes]


def test_shift_a_right_after_import_lands_in_tiles_and_is_written(level):
    plane = add_plane("Plane")
    plane.location.z = level.height
    tiles = next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "tiles")
    assert plane.users_collection == (tiles,)
    wad = export(level)
    assert wad != level.base
    assert floor_height(wad, level.height + 0.25) == pytest.approx(level.height, abs=1e-3)
    # Named in the report by object, with the tiles it became.
    assert any(t.startswith("Plane: added as new tile") for t in changes()), changes()


def test_a_mesh_in_the_scene_collection_is_written(level):
    """Outside the Tiles collection (here in the Scene Collection, where Shift A put it before
    import made Tiles the active collection) a mesh is new geometry all the same."""
    plane = add_plane("outside")
    plane.location.z = level.height
    for coll in plane.users_collection:
        coll.objects.unlink(plane)
    bpy.context.scene.collection.objects.link(plane)
    wad = export(level)
    assert floor_height(wad, level.height + 0.25) == pytest.approx(level.height, abs=1e-3)
    assert any(t.startswith("outside: added as new tile") for t in changes()), changes()
    assert not any("not part of the level" in t for t in changes())
    addon_support.import_level(level.out)
    assert any(o.get("llamawad") == "tile" and abs(o.matrix_world.translation.z - level.height) < 0.5 for o in bpy.context.scene.objects)


def test_a_mesh_in_an_excluded_collection_is_left_out_and_named(level, capfd):
    """The documented way to keep a mesh out of the level: a collection excluded from the view
    layer (its checkbox in the Outliner). Export leaves it out and names it."""
    plane = add_plane("reference")
    plane.location.z = level.height
    refs = bpy.data.collections.new("References")
    bpy.context.scene.collection.children.link(refs)
    for coll in plane.users_collection:
        coll.objects.unlink(plane)
    refs.objects.link(plane)
    bpy.context.view_layer.layer_collection.children["References"].exclude = True
    capfd.readouterr()
    assert export(level) == level.base
    out = capfd.readouterr().out
    message = "reference: in the collection 'References', which is excluded from the view layer: left out of the level"
    assert message in out and any(message in t for t in changes())


def test_import_names_the_meshes_already_in_the_scene(small_wad_file, capfd):
    """A mesh that was in the scene before the level came (Blender's default cube) is new
    geometry to export: the import says so, naming it."""
    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.mesh.primitive_cube_add() == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.import_scene.llamawad(filepath=str(small_wad_file)) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "Cube: not part of the level you imported" in out


def test_written_over_the_base_a_mesh_outside_tiles_becomes_its_tiles(level, small_wad_file, tmp_path):
    """Written over its base, the scene is imported again from what was written: a new mesh
    from outside the Tiles collection is gone with its collision, now that it is tiles of the
    level, so that the next export does not add it twice."""
    base = tmp_path / "base.wad"
    base.write_bytes(level.base)
    bpy.context.scene.llamawad.base_path = str(base)
    plane = add_plane("outside")
    plane.location.z = level.height
    for coll in plane.users_collection:
        coll.objects.unlink(plane)
    bpy.context.scene.collection.objects.link(plane)
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    written = base.read_bytes()
    assert "outside" not in bpy.data.objects
    assert [o.name for o in bpy.context.scene.objects if o.get("llamawad") is None and o.type == "MESH"] == []
    assert export(level) == written
