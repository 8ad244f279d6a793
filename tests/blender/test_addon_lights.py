"""The level's own lights (LGHT, issue 26): import makes a Sun for a directional light (its +z
towards the light) and a Point for a positional one, in their stored colours, in the Lights
collection; export writes an edited colour, direction or position into the light's words and
keeps the rest; an unchanged scene gives the base byte for byte. The artist's own Blender
lights stay unwritten (test_addon_read_only.py)."""

import math

import addon_support
import bpy
import llamawad
import pytest
from mathutils import Vector

pytestmark = pytest.mark.generator


def level_lights(wad: bytes) -> list[dict]:
    """The lights of ``wad`` as the core hands them over: index, kind, colour, words."""
    info = llamawad.wad_to_scene(wad)[0]
    nodes = info["nodes"]
    return sorted((e for r, e in zip(nodes["role"], nodes["extras"]) if r == "light"), key=lambda e: e["light"])


def light_objects():
    return sorted((o for o in bpy.context.scene.objects if o.get("llamawad") == "light"), key=lambda o: o["light"])


@pytest.fixture
def level(small_wad_file, tmp_path):
    return addon_support.level_with_spot(small_wad_file, tmp_path)


def test_import_makes_a_sun_and_points_in_their_colours(level):
    stored = level_lights(level.base)
    objects = light_objects()
    assert [o["light"] for o in objects] == [e["light"] for e in stored]
    assert [o.data.type for o in objects] == ["SUN"] + ["POINT"] * (len(stored) - 1)
    coll = next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "lights")
    assert set(coll.objects) == set(objects)
    for obj, e in zip(objects, stored):
        assert tuple(obj.data.color) == pytest.approx(tuple(c / 255 for c in e["colour"]), abs=1e-6)
        assert "colour" not in obj, "the light holds the colour, once"
    # The sun's +z points towards the light: the stored direction with z negated, in Blender's
    # z-up (file (x, y, z) is Blender (x, -z, y)).
    x, y, z = (w - (1 << 32) if w >= 1 << 31 else w for w in stored[0]["words"][:3])
    towards = Vector((x, z, y)).normalized()
    up = (objects[0].matrix_world.to_3x3() @ Vector((0, 0, 1))).normalized()
    assert up.dot(towards) == pytest.approx(1.0, abs=1e-5)
    # A point stands where its words say.
    px, py, pz = (w - (1 << 32) if w >= 1 << 31 else w for w in stored[1]["words"][:3])
    assert tuple(objects[1].location) == pytest.approx((px / 4096, pz / 4096, py / 4096), abs=1e-4)


def test_an_unchanged_scene_gives_the_base_and_names_no_light(level, capfd):
    capfd.readouterr()
    assert addon_support.export(level.out) == level.base
    assert "light" not in capfd.readouterr().out.lower()


def test_a_moved_point_and_a_recoloured_turned_sun_are_written(level):
    stored = level_lights(level.base)
    sun, point = light_objects()[:2]
    sun.data.color = (1.0, 0.0, 0.5)
    # Straight overhead: +z up.
    sun.rotation_mode = "XYZ"
    sun.rotation_euler = (0.0, 0.0, 0.0)
    point.location = (3.0, -4.5, 2.0)
    written = level_lights(addon_support.export(level.out))
    assert written[0]["colour"] == [255, 0, 128]
    x, y, z, rest = written[0]["words"]
    length = math.sqrt(sum((w - (1 << 32) if w >= 1 << 31 else w) ** 2 for w in stored[0]["words"][:3]))
    assert (x, y, z) == (0, round(length), 0)
    assert rest == stored[0]["words"][3]
    # Blender (3, -4.5, 2) is file (3, 2, 4.5); stored with z negated.
    assert written[1]["words"] == [3 * 4096, 2 * 4096, (1 << 32) - 18432, stored[1]["words"][3]]
    assert written[1]["colour"] == stored[1]["colour"]
    assert written[2:] == stored[2:]


def test_lights_of_types_0_1_and_2_are_shown_and_written_in_the_level_s_own_z(tmp_path):
    """Issue 35: a level written by another tool with note 003's types and word counts (a light
    of type 0, a sun of type 1, a point of type 2 stored at z +1.5, as note 002 has lights in
    game space). Each light is an object; the point stands over the grid; the sun turned and
    the point moved are written with z as the level stores it."""
    import held_out

    (level,) = [lv for lv in held_out.levels() if lv.name == "fixture-lights-of-the-notes"]
    path = tmp_path / "notes.wad"
    path.write_bytes(level.data)
    assert addon_support.import_level(path) == {"FINISHED"}
    objects = light_objects()
    assert [o["light"] for o in objects] == [0, 1, 2]
    assert objects[0].type == "EMPTY", "type 0: a light of colour only, shown as a sphere"
    assert [o.data.type for o in objects[1:]] == ["SUN", "POINT"]
    # File (1.5, 1, 1.5) is Blender (1.5, -1.5, 1): over the grid (Blender y in [-H, 0]).
    assert tuple(objects[2].location) == pytest.approx((1.5, -1.5, 1.0), abs=1e-5)
    out = tmp_path / "out.wad"
    assert addon_support.export(out) == level.data

    sun, point = objects[1], objects[2]
    # Turned from overhead towards Blender -y, which is file +z.
    sun.rotation_mode = "XYZ"
    sun.rotation_euler = (math.pi / 2, 0.0, 0.0)
    point.location = (1.25, -2.5, 2.0)
    written = level_lights(addon_support.export(out))
    assert written[1]["words"] == [0, 0, 4096], "z stored positive, as the level stores it"
    assert written[2]["words"] == [0x1400, 0x2000, 0x2800]
    assert written[0] == level_lights(level.data)[0]
