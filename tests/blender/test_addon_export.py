"""File › Export › Emperor's New Groove level (bpy.ops.export_scene.llamawad) in real Blender 5.0:
an unchanged scene gives the base byte for byte; the base is never overwritten without
confirmation; a refusal writes nothing and selects the culprit (the level check:
test_addon_check.py)."""

import os
from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture(scope="module")
def levels(tmp_path_factory):
    out = {}
    for name, seed, size in (("small", 2, "small"), ("full", 1, "full"), ("tiny", 3, "tiny")):
        path = tmp_path_factory.mktemp("base") / f"{size}-{seed}.wad"
        path.write_bytes(llamawad.generate(seed, size))
        out[name] = path
    return SimpleNamespace(**out)


@pytest.fixture
def small(levels, tmp_path):
    assert addon_support.import_level(levels.small) == {"FINISHED"}
    return SimpleNamespace(base=levels.small, out=tmp_path / "out.wad")


@pytest.mark.parametrize("name", ["tiny", "small", "full"])
def test_unchanged_scene_exports_the_base(levels, tmp_path, name, capfd):
    base = getattr(levels, name)
    assert addon_support.import_level(base) == {"FINISHED"}
    out = tmp_path / "out.wad"
    assert bpy.ops.export_scene.llamawad(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == base.read_bytes()
    out = capfd.readouterr().out
    assert "no changes: identical to the base" in out
    # Nothing left out: no object named as not written.
    assert "not written" not in out and "Warning" not in out.split("Imported")[-1]
    assert bpy.context.scene.llamawad.last_export.endswith("identical to the base")
    # No temporary file left beside it.
    assert sorted(os.listdir(tmp_path)) == ["out.wad"]


def test_export_in_edit_mode_sees_the_edit(small):
    """Edits still in edit mode are written (the exporter syncs edit meshes first). The whole
    mesh raised is the tile raised, with its model."""
    tile = addon_support.mesh_tiles()[5]
    addon_support.select_faces(tile, [])
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.translate(value=(0, 0, 0.25))
    assert bpy.ops.export_scene.llamawad(filepath=str(small.out)) == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    diff = addon_support.level_diff(addon_support.level_state(small.base.read_bytes()), addon_support.level_state(small.out.read_bytes()))
    assert diff == {"placement": [tile["tile"]]}


def test_never_over_the_base_without_confirmation(small, tmp_path):
    base_copy = tmp_path / "base.wad"
    base_copy.write_bytes(small.base.read_bytes())
    bpy.context.scene.llamawad.base_path = str(base_copy)
    addon_support.tile_object(3).location.z += 0.5
    before = base_copy.read_bytes()
    with pytest.raises(RuntimeError, match="is the base level"):
        bpy.ops.export_scene.llamawad(filepath=str(base_copy))
    assert base_copy.read_bytes() == before
    # Confirmed: written over the base.
    assert bpy.ops.export_scene.llamawad(filepath=str(base_copy), overwrite_base=True) == {"FINISHED"}
    assert base_copy.read_bytes() != before


def test_export_edit_export_over_the_base(small, tmp_path):
    """Written over its base, the scene becomes the level as written: the next export, edited or
    not, over the base or elsewhere, starts from it."""
    base = tmp_path / "base.wad"
    original = small.base.read_bytes()
    base.write_bytes(original)
    bpy.context.scene.llamawad.base_path = str(base)

    addon_support.tile_object(3).location.x += 1.0
    first = addon_support.export(base, overwrite_base=True)
    assert first != original
    assert "written over its base" in bpy.context.scene.llamawad.last_export
    addon_support.assert_no_new_errors(first, original)
    # Unchanged since: the base again, byte for byte, written over it or elsewhere.
    assert addon_support.export(tmp_path / "again.wad") == first
    assert addon_support.export(base, overwrite_base=True) == first

    addon_support.new_floor(first)
    second = addon_support.export(small.out)
    addon_support.assert_no_new_errors(second, first)
    assert base.read_bytes() == first
    assert "base.wad" in bpy.context.scene.llamawad.last_export
    third = addon_support.export(base, overwrite_base=True)
    assert third == second
    added = llamawad.parse_info(third)["tiles"] - llamawad.parse_info(first)["tiles"]
    assert added >= 1

    # Once more: a move on the level as written.
    addon_support.tile_object(4).location.x += 1.0
    fourth = addon_support.export(base, overwrite_base=True)
    addon_support.assert_no_new_errors(fourth, third)
    diff = addon_support.level_diff(addon_support.level_state(third), addon_support.level_state(fourth))
    assert 4 in diff.get("placement", []) and "added" not in diff and "gone" not in diff
    addon_support.reimport(base)
    assert addon_support.tile_object(3).location.x == pytest.approx(addon_support.level_state(original)["tiles"][3]["placement"][0][0] + 1.0, abs=1e-4)


def test_another_base_is_refused_unless_forced(small, levels, tmp_path):
    with pytest.raises(RuntimeError, match="tiny-3.wad is not the level this scene was made from"):
        bpy.ops.export_scene.llamawad(filepath=str(small.out), base_path=str(levels.tiny))
    assert not small.out.exists()


def test_refusal_writes_nothing_and_selects_the_culprit(small, capfd):
    tile = addon_support.tile_object(4)
    tile.scale = (2, 2, 2)
    with pytest.raises(RuntimeError, match=f"{tile.name}.*scaled"):
        bpy.ops.export_scene.llamawad(filepath=str(small.out))
    assert not small.out.exists()
    assert bpy.context.view_layer.objects.active == tile
    assert [o.name for o in bpy.context.selected_objects] == [tile.name]


@pytest.mark.parametrize("value", [float("nan"), [1.0, float("inf")]], ids=["nan", "list with infinity"])
def test_a_custom_property_that_is_no_number_is_refused_by_object_and_property(small, value):
    # JSON cannot hold it: refused naming the object and the property, nothing written (it
    # used to become JSON text the Rust side could not read).
    tile = addon_support.tile_object(4)
    tile["note"] = value
    with pytest.raises(RuntimeError, match=f"{tile.name}.*custom property 'note'"):
        bpy.ops.export_scene.llamawad(filepath=str(small.out))
    assert not small.out.exists()


def test_refusal_names_and_selects_the_faces(small):
    tile = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "tile" and o.type == "MESH" and len(o.data.polygons) >= 4)
    textures = np.empty(len(tile.data.polygons), np.int32)
    tile.data.attributes["wad_texture"].data.foreach_get("value", textures)
    textures[[1, 3]] = 9999
    tile.data.attributes["wad_texture"].data.foreach_set("value", textures)
    with pytest.raises(RuntimeError, match="texture entry 9999 does not exist") as error:
        bpy.ops.export_scene.llamawad(filepath=str(small.out))
    assert tile.name in str(error.value)
    assert not small.out.exists()
    assert bpy.context.view_layer.objects.active == tile
    selected = np.zeros(len(tile.data.polygons), bool)
    tile.data.polygons.foreach_get("select", selected)
    assert list(np.nonzero(selected)[0]) == [1, 3]


def test_collision_refusal_selects_collision_faces(small):
    """A collision polygon the game cannot hold (a warped quad) is refused; the faces selected
    are the collision mesh's."""
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    # A level quad: raising one corner warps it (a wall's corner would move within its plane).
    col, quad = next((o, p.index) for o in bpy.context.scene.objects if o.get("llamawad") == "collision" for p in o.data.polygons if p.loop_total == 4 and abs(p.normal.z) > 0.9)
    col.data = col.data.copy()
    v = col.data.polygons[quad].vertices[0]
    col.data.vertices[v].co.z += 0.5
    with pytest.raises(RuntimeError, match="collision") as error:
        bpy.ops.export_scene.llamawad(filepath=str(small.out))
    assert not small.out.exists()
    assert bpy.context.view_layer.objects.active == col, str(error.value)
    selected = np.zeros(len(col.data.polygons), bool)
    col.data.polygons.foreach_get("select", selected)
    assert selected[quad]


def test_exporting_over_the_base_keeps_the_original_once_and_restores_it(small, tmp_path, capfd):
    """The way an artist works inside the game folder: exporting over the WAD the level was
    imported from keeps its original bytes once, beside it (level.wad.original), which later
    exports never overwrite; Restore original writes them back and imports the level again."""
    folder = tmp_path / "game"
    folder.mkdir()
    base = folder / "level.wad"
    original = small.base.read_bytes()
    base.write_bytes(original)
    bpy.context.scene.llamawad.base_path = str(base)
    backup = folder / "level.wad.original"
    x = addon_support.tile_object(3).location.x

    addon_support.tile_object(3).location.x += 1.0
    capfd.readouterr()
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert f"the original kept as {backup}" in capfd.readouterr().out
    first = base.read_bytes()
    assert first != original and backup.read_bytes() == original
    addon_support.tile_object(4).location.x += 1.0
    capfd.readouterr()
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert "the original kept as" not in capfd.readouterr().out
    assert base.read_bytes() not in (first, original)
    assert backup.read_bytes() == original
    assert sorted(os.listdir(folder)) == ["level.wad", "level.wad.original"]

    assert bpy.ops.llamawad.restore_original() == {"FINISHED"}
    assert base.read_bytes() == original and backup.read_bytes() == original
    # The scene is the original level again: its tile where it was, and an export gives it.
    assert addon_support.tile_object(3).location.x == pytest.approx(x)
    assert bpy.context.scene.llamawad.base_path == str(base)
    assert bpy.ops.export_scene.llamawad(filepath=str(small.out)) == {"FINISHED"}
    assert small.out.read_bytes() == original
    assert sorted(os.listdir(folder)) == ["level.wad", "level.wad.original"]


def test_no_backup_without_writing_over_the_base(small, tmp_path):
    """An export elsewhere keeps no backup, and Restore original has nothing to restore."""
    addon_support.tile_object(3).location.x += 1.0
    assert bpy.ops.export_scene.llamawad(filepath=str(small.out)) == {"FINISHED"}
    assert not os.path.exists(str(small.base) + ".original")
    assert not bpy.ops.llamawad.restore_original.poll()


def test_an_unwritable_backup_writes_nothing(small, tmp_path):
    """When the original cannot be kept, the base is not overwritten."""
    folder = tmp_path / "game"
    folder.mkdir()
    base = folder / "level.wad"
    base.write_bytes(small.base.read_bytes())
    bpy.context.scene.llamawad.base_path = str(base)
    # A folder in the way: no original is kept there, and none can be written.
    (folder / "level.wad.original").mkdir()
    addon_support.tile_object(3).location.x += 1.0
    with pytest.raises(RuntimeError, match="Cannot keep the original"):
        bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True)
    assert base.read_bytes() == small.base.read_bytes()


def damaged_levels():
    import held_out

    return [lv for lv in held_out.levels() if lv.name.startswith("damaged-")]


@pytest.mark.parametrize("level", damaged_levels(), ids=lambda lv: lv.name)
def test_an_unchanged_damaged_level_exports_its_own_bytes(level, tmp_path):
    """Issue 35: a level with a NaN in a model's vertex (used by several tiles), a NaN tile y, a
    NaN box or normal, an infinite plane, an unknown collision kind, a huge poolExtra: imported
    and exported unchanged, it is written as it was (the damage `check` names is the base's)."""
    path = tmp_path / "damaged.wad"
    path.write_bytes(level.data)
    assert addon_support.import_level(path) == {"FINISHED"}
    assert addon_support.export(tmp_path / "out.wad") == level.data
