"""Read-only parts say so (issue 21): an object model's place, copies and deletion (its strats
place it, STPC holds it once; its mesh is written: test_addon_object_models.py), and a Blender
light of the artist's own (the level's lights are written: test_addon_lights.py). Such an edit
(moved, turned, custom properties changed, deleted, copied, added) is compared with what import
made, and every such object is named as not written, in the export's report and by the Level
check; the WAD keeps the base's bytes for them. Strats are written (test_addon_strats.py); what
is in the Strats collection but no strat is named."""

from types import SimpleNamespace

import addon_support
import bpy
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(path=small_wad_file, base=small_wad_file.read_bytes(), out=tmp_path / "edited.wad")


def with_role(role):
    return sorted((o for o in bpy.context.scene.objects if o.get("llamawad") == role), key=lambda o: o.name)


def export(level, capfd) -> tuple[bytes, str]:
    capfd.readouterr()
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    return level.out.read_bytes(), capfd.readouterr().out


def assert_named(out: str, name: str, what: str, part: str):
    """The export's output and its list of changes name ``name`` with ``what`` was done, as not
    written."""
    lines = [line for line in out.splitlines() if line.startswith(f"Warning: {name}: {what}")]
    assert lines and f"{part} are placed by their strats and held once each: not written" in lines[0], out
    assert any(c.text.startswith(f"{name}: {what}") for c in bpy.context.scene.llamawad.changes)


def test_nothing_edited_names_nothing(level, capfd):
    wad, out = export(level, capfd)
    assert wad == level.base
    assert "not written" not in out


def moved(obj):
    obj.location.x += 1.0


def turned(obj):
    obj.rotation_euler.z += 0.5


def deleted(obj):
    bpy.data.objects.remove(obj)


def copied(obj):
    """A copy (what Shift D makes; object models are outside the view layer), moved: the copy is
    named."""
    copy = obj.copy()
    obj.users_collection[0].objects.link(copy)
    copy.location.x += 1.0
    return copy.name


def properties_changed(obj):
    obj["model"] = int(obj.get("model", 0)) + 1


# (role, what was done to it as the message says it, the edit: returns the name it is named by
# when not its own).
EDITS = [
    ("object_model", "moved", moved),
    ("object_model", "turned", turned),
    ("object_model", "deleted", deleted),
    ("object_model", "a copy of", copied),
    ("object_model", "custom properties changed", properties_changed),
]
PARTS = {"object_model": "object models"}


@pytest.mark.parametrize("role, what, edit", EDITS, ids=[f"{role}-{what}" for role, what, _ in EDITS])
def test_an_edit_is_named_and_not_written(level, capfd, role, what, edit):
    obj = with_role(role)[3]
    original = obj.name
    name = edit(obj) or original
    wad, out = export(level, capfd)
    assert wad == level.base
    assert_named(out, name, f"{what} {original}" if what == "a copy of" else what, PARTS[role])
    assert bpy.context.scene.llamawad.last_export.endswith("no changes: identical to the base; 1 edit not written, named in the warnings")
    # The Level check lists it too, by the object it names (none for a deleted one).
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    named = [p for p in bpy.context.scene.llamawad.problems if "not written" in p.message]
    assert len(named) == 1 and not named[0].error
    assert named[0].object == ("" if what == "deleted" else name)


def test_an_empty_added_to_strats_is_named(level, capfd):
    """An empty the artist puts in Strats has no strat's record: not written, and the way to add
    a strat said."""
    empty = bpy.data.objects.new("new marker", None)
    next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "strats").objects.link(empty)
    wad, out = export(level, capfd)
    assert wad == level.base
    assert "Warning: new marker: in Strats, but not one of the level's strats (it has no strat's custom properties): not written; place a new strat with Add strat" in out


def test_an_empty_added_to_object_models_is_named(level, capfd):
    empty = bpy.data.objects.new("new model", None)
    next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "object_models").objects.link(empty)
    wad, out = export(level, capfd)
    assert wad == level.base
    assert_named(out, "new model", "added to Object models", "object models")


def test_a_blender_light_is_named(level, capfd):
    light = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    bpy.context.scene.collection.objects.link(light)
    wad, out = export(level, capfd)
    assert wad == level.base
    said = "Sun: a Blender light of your own, not one of the level's (those are in Lights): not written"
    assert f"Warning: {said}" in out
    assert any(c.text.startswith(said) for c in bpy.context.scene.llamawad.changes)


def test_a_curve_is_named(level, capfd):
    """Geometry that is no mesh (a curve, a text) is not written either, and said so."""
    curve = bpy.data.objects.new("path", bpy.data.curves.new("path", "CURVE"))
    bpy.context.scene.collection.objects.link(curve)
    wad, out = export(level, capfd)
    assert wad == level.base
    assert "Warning: path: a curve object, not a mesh: not written; convert it to a mesh (Object › Convert › Mesh) to add it" in out


def test_after_writing_over_the_base_the_level_as_written_is_what_import_made(level, capfd, tmp_path):
    """Written over its base, the scene is imported again: an object model moved before is back
    where the level has it, and the next export names nothing."""
    base = tmp_path / "base.wad"
    base.write_bytes(level.base)
    bpy.context.scene.llamawad.base_path = str(base)
    model = with_role("object_model")[3]
    model.location.x += 1.0
    addon_support.tile_object(3).location.x += 1.0
    capfd.readouterr()
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert "not written" in capfd.readouterr().out
    wad, out = export(level, capfd)
    assert wad == base.read_bytes()
    assert "not written" not in out


def test_writing_over_the_base_keeps_strats_and_object_models_not_edited(level, capfd, tmp_path):
    """Without an edit to them, the strats and object models are the written level's already:
    an export over the base with a tile moved keeps their objects (remaking 163 strats was a third
    of that export on a full level), and the next export names nothing."""
    base = tmp_path / "base.wad"
    base.write_bytes(level.base)
    bpy.context.scene.llamawad.base_path = str(base)
    kept = {o.as_pointer(): o.name for role in ("strat", "object_model") for o in with_role(role)}
    assert kept
    addon_support.tile_object(3).location.x += 1.0
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert {o.as_pointer(): o.name for role in ("strat", "object_model") for o in with_role(role)} == kept
    wad, out = export(level, capfd)
    assert wad == base.read_bytes()
    assert "not written" not in out
