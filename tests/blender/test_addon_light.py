"""Bake lighting and Fit lighting through the add-on's operators (issue 26): what the add-on
bakes into a mesh and export writes is what the Rust core bakes into the written level's tiles
(the bake depends on the geometry only, so baking the written level again must give its colours
back), other tiles keep their bytes, and the fit finds the light a level was baked with."""

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from mathutils import Vector

pytestmark = pytest.mark.generator

SPOT = addon_support.SPOT
LIGHT = {"sun_direction": (0.3, -1.0, 0.2), "sun_colour": (0.7, 0.6, 0.45), "sky_colour": (0.25, 0.3, 0.4)}


@pytest.fixture
def level(small_wad_file, tmp_path):
    level = addon_support.level_with_spot(small_wad_file, tmp_path)
    props = bpy.context.scene.llamawad
    props.light_sun_direction = LIGHT["sun_direction"]
    props.light_sun_colour = LIGHT["sun_colour"]
    props.light_sky_colour = LIGHT["sky_colour"]
    props.light_occlusion = 1.0
    return level


def select_only(obj) -> None:
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def tile_colours(wad: bytes) -> dict[int, list[int]]:
    """Each tile's raw colours (R + G·256 + B·65536 a vertex, first set), from the level's glTF."""
    state = addon_support.level_state(wad)
    return {t: sorted(c for face in s["faces"] for _, c in face[2]) for t, s in state["tiles"].items()}


def test_a_new_plane_baked_in_blender_is_what_the_core_bakes_into_its_tiles(level):
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, level.height)) == {"FINISHED"}
    plane = bpy.context.active_object
    plane.data.materials.append(addon_support.page_material())
    select_only(plane)
    assert bpy.ops.llamawad.bake_light(whole_level=False) == {"FINISHED"}
    shown = np.empty(len(plane.data.loops) * 4, np.float32)
    plane.data.color_attributes["Col"].data.foreach_get("color", shown)
    assert not np.allclose(shown, 1.0), "the viewport shows the bake at once"
    written = addon_support.export(level.out)
    tiles = llamawad.parse_info(level.base)["tiles"]
    new = list(range(tiles, llamawad.parse_info(written)["tiles"]))
    assert new
    again, report = llamawad.bake(written, **LIGHT, tiles=new)
    assert sorted(report["baked"]) == new
    assert again == written
    # Not the white the plane came with.
    assert any(c != 0x808080 for t in new for c in tile_colours(written)[t])


def test_a_baked_tile_is_lit_as_the_core_lights_it_and_no_other_tile_changes(level):
    tile = next(o for o in addon_support.mesh_tiles() if "wad_rgb_1" not in o.data.attributes and len(o.data.vertices) > 8)
    number = tile["tile"]
    select_only(tile)
    assert bpy.ops.llamawad.bake_light(whole_level=False) == {"FINISHED"}
    written = addon_support.export(level.out)
    diff = addon_support.level_diff(addon_support.level_state(level.base), addon_support.level_state(written))
    assert diff == {"faces": [number]}, diff
    again, _ = llamawad.bake(written, **LIGHT, tiles=[number])
    ours, core = tile_colours(written)[number], tile_colours(again)[number]
    # Blender's vertex normals, not the model's stored ones (equal on generated models, within
    # float noise): a step apart at most.
    steps = [max(abs((a >> s & 255) - (b >> s & 255)) for s in (0, 8, 16)) for a, b in zip(ours, core)]
    assert max(steps) <= 1, steps
    assert ours != tile_colours(level.base)[number]


def test_fit_lighting_finds_the_light_a_level_was_baked_with(small_wad_file, tmp_path):
    baked, _ = llamawad.bake(small_wad_file.read_bytes(), **LIGHT, occlusion=1.0)
    path = tmp_path / "baked.wad"
    path.write_bytes(baked)
    assert addon_support.import_level(path) == {"FINISHED"}
    assert bpy.ops.llamawad.fit_light() == {"FINISHED"}
    props = bpy.context.scene.llamawad
    angle = Vector(props.light_sun_direction).angle(Vector(LIGHT["sun_direction"]))
    assert np.degrees(angle) < 3.0
    assert np.abs(np.array(props.light_sun_colour) - LIGHT["sun_colour"]).max() * 128 <= 3
    assert np.abs(np.array(props.light_sky_colour) - LIGHT["sky_colour"]).max() * 128 <= 3
    assert "colour steps unexplained" in props.light_fit


def test_animated_tiles_are_kept_unless_asked_and_nothing_selected_is_said(level):
    select_only(addon_support.mesh_tiles()[0])
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    with pytest.raises(RuntimeError, match="select tiles or new meshes"):
        bpy.ops.llamawad.bake_light(whole_level=False)
    animated = [o for o in addon_support.mesh_tiles() if "wad_rgb_1" in o.data.attributes]
    if not animated:
        pytest.skip("the small level has no tile with animated colours")
    before = np.empty(len(animated[0].data.vertices), np.int32)
    animated[0].data.attributes["wad_rgb_0"].data.foreach_get("value", before)
    select_only(animated[0])
    with pytest.raises(RuntimeError, match="Nothing baked"):
        bpy.ops.llamawad.bake_light(whole_level=False)
    bpy.context.scene.llamawad.light_animated = True
    assert bpy.ops.llamawad.bake_light(whole_level=False) == {"FINISHED"}
    after = np.empty_like(before)
    animated[0].data.attributes["wad_rgb_0"].data.foreach_get("value", after)
    assert (after != before).any()


def test_blenders_sun_and_point_lights_are_baked_when_asked(level):
    """A plane high over the level (nothing above it), the panel's sun and sky dark: a Blender
    Sun straight down of colour 0.5 gives it 0.5 (raw 64); a Point 2 above its middle adds
    P / (4π²) · cos / d² at each corner; off, the plane stays dark; a Spot is named, not baked."""
    props = bpy.context.scene.llamawad
    props.light_sun_colour = props.light_sky_colour = (0.0, 0.0, 0.0)
    # The level's own Sun and Points (its Lights) bake too when shown: hidden, only these light.
    for obj in bpy.context.scene.objects:
        if obj.get("llamawad") == "light":
            obj.hide_set(True)
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, 50.0)) == {"FINISHED"}
    plane = bpy.context.active_object
    plane.data.materials.append(addon_support.page_material())
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.color, sun.data.energy = (0.5, 0.5, 0.5), 1.0
    point = bpy.data.objects.new("point", bpy.data.lights.new("point", "POINT"))
    point.data.color, point.data.energy = (1.0, 1.0, 1.0), 20.0
    point.location = (*SPOT, 52.0)
    spot = bpy.data.objects.new("spot", bpy.data.lights.new("spot", "SPOT"))
    for light in (sun, point, spot):
        bpy.context.scene.collection.objects.link(light)

    def baked(with_lights: bool) -> set[int]:
        props.light_blender_lights = with_lights
        select_only(plane)
        assert bpy.ops.llamawad.bake_light(whole_level=False) == {"FINISHED"}
        written = addon_support.export(level.out)
        tiles = llamawad.parse_info(level.base)["tiles"]
        return {c for t, colours in tile_colours(written).items() if t >= tiles for c in colours}

    assert baked(False) == {0}
    point.hide_set(True)
    assert baked(True) == {64 | 64 << 8 | 64 << 16}
    point.hide_set(False)
    d2 = 0.4**2 * 2 + 2.0**2
    corner = round((0.5 + 20.0 / (4 * np.pi**2) * (2.0 / np.sqrt(d2)) / d2) * 128)
    assert baked(True) == {corner | corner << 8 | corner << 16}
    from addon.blender import light

    _, notes = light.lamps(bpy.context)
    assert notes == ["spot: a spot light, not baked (Sun and Point lights are)"]


def test_a_bake_is_undone_by_undo(level):
    # Blender's Undo (Ctrl Z) takes a bake back: the tile's colours and the level written are
    # as before it.
    tile = next(o for o in addon_support.mesh_tiles() if "wad_rgb_1" not in o.data.attributes and len(o.data.vertices) > 8)
    name = tile.name

    def colours():
        mesh = bpy.data.objects[name].data
        values = np.empty(len(mesh.loops) * 4, np.float32)
        mesh.color_attributes["Col"].data.foreach_get("color", values)
        return values

    before = colours()
    # Blender's window pushes an undo step after each operator marked UNDO; headless, the
    # steps are pushed by hand around the bake.
    assert "UNDO" in bpy.ops.llamawad.bake_light.bl_options
    assert bpy.ops.ed.undo_push(message="before the bake") == {"FINISHED"}
    select_only(tile)
    assert bpy.ops.llamawad.bake_light(whole_level=False) == {"FINISHED"}
    assert bpy.ops.ed.undo_push(message="Bake lighting") == {"FINISHED"}
    assert not np.array_equal(colours(), before)
    assert bpy.ops.ed.undo() == {"FINISHED"}
    assert np.array_equal(colours(), before)
    assert addon_support.export(level.out) == level.base


def mesh_colours() -> dict[str, list]:
    out = {}
    for o in addon_support.mesh_tiles():
        values = np.empty(len(o.data.vertices), np.int32)
        o.data.attributes["wad_rgb_0"].data.foreach_get("value", values)
        out[o.name] = values.tolist()
    return out


def run_steps(steps):
    """Each step's progress of a stepped job (``light.baking``, ``light.fitting``), and what it
    returns."""
    seen = []
    while True:
        try:
            seen.append(next(steps))
        except StopIteration as finished:
            return seen, finished.value


def test_a_bake_goes_a_step_at_a_time_and_one_stopped_leaves_the_scene_as_it_was(level, monkeypatch):
    """The panel's bake runs step by step (progress in the status bar, Esc between steps): the
    steps cover every point, and a bake stopped after its first leaves every colour as it was;
    run to its end it gives what the one-call bake gives."""
    from addon.blender import light

    monkeypatch.setattr(light, "BAKE_STEP", 256)
    before = mesh_colours()
    objects = light.targets(bpy.context, True)
    steps = light.baking(bpy.context, objects)
    done, total = next(steps)
    assert done == 256 < total
    steps.close()
    assert mesh_colours() == before
    seen, baked = run_steps(light.baking(bpy.context, objects))
    assert [d for d, _ in seen] == [min(k + 256, total) for k in range(0, total, 256)]
    assert baked.vertices == total and mesh_colours() != before
    stepped = mesh_colours()
    monkeypatch.setattr(light, "BAKE_STEP", 1 << 20)
    for o in addon_support.mesh_tiles():
        o.data.attributes["wad_rgb_0"].data.foreach_set("value", np.array(before[o.name], np.int32))
    light.bake(bpy.context, objects)
    assert mesh_colours() == stepped


def test_a_fit_goes_a_step_at_a_time_and_one_stopped_leaves_the_light_as_it_was(level):
    """The panel's fit runs step by step as the bake does: stopped after its first step, the
    Light panel is as it was; run to its end, it sets what the one-call fit sets."""
    from addon.blender import light

    props = bpy.context.scene.llamawad
    before = tuple(props.light_sun_direction)
    steps = light.fitting(bpy.context)
    done, total = next(steps)
    assert 0 < done < total
    steps.close()
    assert tuple(props.light_sun_direction) == before
    seen, found = run_steps(light.fitting(bpy.context))
    assert len(seen) > 10 and all(a[0] < b[0] for a, b in zip(seen, seen[1:]))
    stepped = tuple(props.light_sun_direction)
    assert stepped != before
    props.light_sun_direction = before
    assert light.fit(bpy.context) == found and tuple(props.light_sun_direction) == stepped
