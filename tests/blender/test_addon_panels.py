"""The "WAD" sidebar panels draw without errors in every state and offer the right operators with
the right arguments. Headless Blender has no window to draw in, so each panel's draw() runs
against a layout that records what it is asked to show."""

from types import SimpleNamespace

import addon_support
import bpy  # noqa: I001  (bmesh exists only once bpy is imported)
import bmesh
import numpy as np
import pytest
from addon.common import game

pytestmark = pytest.mark.generator


class Recorded(SimpleNamespace):
    """An operator button: its idname, text and the properties the panel set on it."""


class Layout:
    def __init__(self, log):
        self.log = log

    def operator(self, idname, text="", **kwargs):
        button = Recorded(idname=idname, text=text, **kwargs)
        self.log.append(("operator", button))
        return button

    def label(self, text="", **kwargs):
        self.log.append(("label", text))

    def prop(self, data, name, **kwargs):
        assert hasattr(data, name), name
        self.log.append(("prop", name))

    def template_icon(self, icon_value=0, **kwargs):
        self.log.append(("icon", icon_value))

    def template_list(self, *args, **kwargs):
        self.log.append(("list", args))

    def __getattr__(self, name):
        # row(), column(), box(), grid_flow(), ... and settings like scale_x.
        return lambda *args, **kwargs: Layout(self.log)

    def __setattr__(self, name, value):
        if name == "log":
            object.__setattr__(self, name, value)


def draw(panel_name):
    cls = getattr(bpy.types, panel_name)
    log = []
    panel = SimpleNamespace(layout=Layout(log))
    assert cls.poll(bpy.context)
    cls.draw(panel, bpy.context)
    return log


def buttons(log, idname=None):
    return [b for kind, b in log if kind == "operator" and (idname is None or b.idname == idname)]


def labels(log):
    return [t for kind, t in log if kind == "label"]


@pytest.fixture
def level(small_wad_file):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}


PANELS = ["LLAMAWAD_PT_level", "LLAMAWAD_PT_pages", "LLAMAWAD_PT_probe", "LLAMAWAD_PT_face", "LLAMAWAD_PT_collision", "LLAMAWAD_PT_zones", "LLAMAWAD_PT_zone_matrix"]


def test_panels_live_in_the_wad_tab(level):
    for name in PANELS:
        cls = getattr(bpy.types, name)
        assert (cls.bl_space_type, cls.bl_region_type, cls.bl_category) == ("VIEW_3D", "UI", "WAD")


def registered(idname: str) -> bool:
    """Whether an operator of that idname (``module.name``) is registered. ``bpy.ops`` makes an
    attribute of any name, so hasattr is always true; the operator's RNA type exists only once
    its class is registered (looked up, it raises KeyError otherwise)."""
    module, name = idname.split(".")
    try:
        getattr(getattr(bpy.ops, module), name).get_rna_type()
    except KeyError:
        return False
    return True


def test_registered_tells_a_made_up_operator_from_a_registered_one(level):
    assert registered("llamawad.check_level") and registered("export_scene.llamawad")
    assert registered("object.select_all")
    for made_up in ("llamawad.no_such_operator", "llamawad.check_levels", "no_such_module.check_level"):
        # What the test asked before, true of any name.
        assert hasattr(getattr(bpy.ops, made_up.split(".")[0]), made_up.split(".")[1])
        assert not registered(made_up), made_up


def test_every_button_is_a_registered_operator(level):
    tile = addon_support.mesh_tiles()[0]
    addon_support.select_faces(tile, [0, 1])
    idnames = set()
    for name in PANELS:
        idnames |= {b.idname for b in buttons(draw(name))}
    assert {"llamawad.check_level", "llamawad.floor_probe", "llamawad.face_flag_set"} <= idnames
    assert [i for i in sorted(idnames) if not registered(i)] == []


def test_face_panel_shows_mixed_flags_in_edit_mode(level):
    tile = next(o for o in addon_support.mesh_tiles() if len(o.data.polygons) >= 2)
    addon_support.select_faces(tile, [0, 1])
    assert bpy.ops.llamawad.face_flag_set(flag=game.FACE_DOUBLE_SIDED, state="OFF") == {"FINISHED"}
    addon_support.select_faces(tile, [0])
    assert bpy.ops.llamawad.face_flag_set(flag=game.FACE_DOUBLE_SIDED, state="ON") == {"FINISHED"}
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(tile.data)
    bm.faces.ensure_lookup_table()
    for f in bm.faces:
        f.select_set(f.index in (0, 1))
    log = draw("LLAMAWAD_PT_face")
    assert f"{tile.name}: 2 faces" in labels(log)
    flag_buttons = {b.flag: b for b in buttons(log, "llamawad.face_flag_set")}
    double = flag_buttons[game.FACE_DOUBLE_SIDED]
    assert "(mixed)" in double.text and double.state == "ON" and not double.depress
    # Every named flag and every raw bit has a button; 0x20 (mirror) too.
    assert {bit for bit, _, _ in game.NAMED_FLAGS} | set(game.RAW_BITS) | {game.FACE_MIRROR_U} <= set(flag_buttons)
    assert {b.half for b in buttons(log, "llamawad.face_uv_half_set")} == {"TRIANGLE", "FIRST", "SECOND"}
    assert [b.entry for b in buttons(log, "llamawad.face_texture_set")] == [-1]
    bpy.ops.object.mode_set(mode="OBJECT")


def test_face_panel_shows_the_entry_preview(level):
    """The Face panel shows a thumbnail of the selected faces' texture entry: the entry's rectangle
    cut out of its page (headless Blender gives previews no icon id, so the pixels are checked)."""
    from addon.blender import previews

    entries = addon_support.level_document()["texture_entries"]
    tile = next(o for o in addon_support.mesh_tiles() if not game.is_flat_colour(entries[o.data.attributes["wad_texture"].data[0].value]))
    entry = tile.data.attributes["wad_texture"].data[0].value
    addon_support.select_faces(tile, [0])
    log = draw("LLAMAWAD_PT_face")
    assert [kind for kind, _ in log].count("icon") == 1
    assert any(t.startswith(f"{entry}: page") for t in labels(log))
    e = entries[entry]
    image = bpy.data.images[f"page {e['page']}"]
    page = np.empty(image.size[0] * image.size[1] * 4, np.float32)
    image.pixels.foreach_get(page)
    page = page.reshape(image.size[1], image.size[0], 4)[::-1]
    np.testing.assert_array_equal(previews.entry_pixels(e), page[e["v0"] : e["v1"] + 1, e["u0"] : e["u1"] + 1])
    key = next(k for k in previews._previews().keys() if k.split(":")[1] == str(entry))
    thumb = np.empty(previews.THUMB * previews.THUMB * 4, np.float32)
    previews._previews()[key].image_pixels_float.foreach_get(thumb)
    # Bottom-up like every Blender image: its top row is the rectangle's first row.
    top_left = thumb.reshape(previews.THUMB, previews.THUMB, 4)[-1, 0]
    np.testing.assert_array_equal(top_left, page[e["v0"], e["u0"]])


def test_collision_panel(level):
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    col = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "collision")
    addon_support.select_faces(col, [0])
    log = draw("LLAMAWAD_PT_collision")
    presets = [b.material for b in buttons(log, "llamawad.collision_material_set")]
    assert [m for m, _, _ in game.COLLISION_PRESETS] == presets[: len(game.COLLISION_PRESETS)]
    # What 17 and 18 do to the llama is on the buttons, not only in their tooltips: the floor
    # test skips 17, or 18 instead for a strat with flag 0x8000000.
    texts = {b.material: b.text for b in buttons(log, "llamawad.collision_material_set")}
    assert texts[17] == "17: Llama falls through unless flagged"
    assert texts[18] == "18: Llama falls through if flagged"
    assert any("1 faces: material" in t for t in labels(log))
    assert buttons(log, "llamawad.collision_from_faces") and buttons(log, "llamawad.collision_select_material")


def test_zones_panel_and_matrix(level):
    regions = addon_support.level_document()["regions"]
    bpy.context.scene.llamawad.view_zone = 3
    log = draw("LLAMAWAD_PT_zones")
    row = buttons(log, "llamawad.zone_visibility_set")
    assert len(row) == 32
    assert [b.depress for b in row] == [game.sees(regions, 3, z) for z in range(32)]
    matrix = buttons(draw("LLAMAWAD_PT_zone_matrix"), "llamawad.zone_visibility_set")
    assert len(matrix) == 32 * 32
    assert buttons(log, "llamawad.zone_select_visible")


def test_level_panel(level):
    log = draw("LLAMAWAD_PT_level")
    text = labels(log)
    doc = addon_support.level_document()
    assert f"Name: {doc['level_name']}" in text
    assert f"Grid: {doc['grid'][0]} × {doc['grid'][1]} cells" in text
    assert any(t.startswith("WFPC flags: 0x") and "read-only" in t for t in text)
    assert buttons(log, "llamawad.check_level") and buttons(log, "export_scene.llamawad")
    assert buttons(log, "llamawad.test_level")
    # Save pages as files is in its Pages panel (test_addon_jobs.py).
    assert buttons(draw("LLAMAWAD_PT_pages"), "llamawad.save_pages")
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    log = draw("LLAMAWAD_PT_level")
    # A generated level keeps every rule: nothing to list (the list itself: test_addon_check).
    assert len(bpy.context.scene.llamawad.problems) == 0
    assert "No problems found" in labels(log)
    assert not [args for kind, args in log if kind == "list"]
    # Broken on purpose (a tile outside the grid): the list, with the summary above it.
    tile = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "tile")
    tile.location.x = -5.0
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    log = draw("LLAMAWAD_PT_level")
    problems = bpy.context.scene.llamawad.problems
    assert len(problems) >= 1 and problems[0].error and not problems[0].pre_existing
    assert "New: 1 error, 0 warnings; in the base already: 0" in labels(log)
    assert [args for kind, args in log if kind == "list"][0][:3] == ("LLAMAWAD_UL_problems", "", bpy.context.scene.llamawad)


def test_level_panel_offers_restore_once_an_original_is_kept(level, small_wad_file, tmp_path):
    base = tmp_path / "level.wad"
    base.write_bytes(small_wad_file.read_bytes())
    bpy.context.scene.llamawad.base_path = str(base)
    assert not buttons(draw("LLAMAWAD_PT_level"), "llamawad.restore_original")
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert buttons(draw("LLAMAWAD_PT_level"), "llamawad.restore_original")


def test_floor_probe_panel(level):
    log = draw("LLAMAWAD_PT_probe")
    assert buttons(log, "llamawad.floor_probe") and buttons(log, "llamawad.floor_probe_click")
    assert not buttons(log, "llamawad.floor_probe_clear")
    llama = next(o for o in bpy.context.scene.objects if o.get("type_name") == "Llama")
    bpy.context.scene.cursor.location = llama.location
    assert bpy.ops.llamawad.floor_probe() == {"FINISHED"}
    log = draw("LLAMAWAD_PT_probe")
    text = labels(log)
    assert "Probed the scene" in text
    assert any(t.startswith("Floor: height ") for t in text)
    assert buttons(log, "llamawad.floor_probe_clear")


def test_level_panel_lists_the_last_exports_changes(level, tmp_path):
    tile = addon_support.tile_object(6)
    tile.location.x += 1.0
    assert bpy.ops.export_scene.llamawad(filepath=str(tmp_path / "out.wad")) == {"FINISHED"}
    props = bpy.context.scene.llamawad
    log = draw("LLAMAWAD_PT_level")
    assert any(t.startswith("Last export: out.wad (base small-2.wad): ") and "1 tile moved" in t for t in labels(log))
    assert [args for kind, args in log if kind == "list"][0][:4] == ("LLAMAWAD_UL_changes", "", props, "changes")
    assert buttons(log, "llamawad.export_changes")
    row = next(i for i, c in enumerate(props.changes) if c.tile == 6)
    assert props.changes[row].text.startswith("tile 6: moved or turned") and props.changes[row].object == tile.name
    # Clicking the row selects the tile.
    addon_support.select_faces(addon_support.tile_object(2), [])
    props.change_index = row
    assert bpy.context.active_object == tile and [o.name for o in bpy.context.selected_objects] == [tile.name]
    # The popup shows the same rows.
    popup = SimpleNamespace(layout=Layout(log := []), SHOWN=bpy.types.LLAMAWAD_OT_export_changes.SHOWN)
    bpy.types.LLAMAWAD_OT_export_changes.draw(popup, bpy.context)
    assert [c.text for c in props.changes] == labels(log)[1:]
