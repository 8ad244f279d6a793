"""Files from strangers (tests/crafted.py) opened through the add-on's import operator in real
Blender: each one is reported as an error (the operator raises RuntimeError with the report),
nothing is added to the scene, and Blender keeps running: a real level imports afterwards. Then
hostile scenes (a base that is a device or a pipe, custom properties that are no tile number, a
level document that is none, objects that carry a tile's properties but are no tile, UVs and
colours that are no numbers): each operator that reads the base or converts the scene reports
them by name within 2 s and 500 MB, no traceback, and the previous output stays."""

import contextlib
import json
import os
import resource
import signal
import time

import addon_support
import bpy
import crafted
import crafted_wad
import pytest

pytestmark = pytest.mark.generator


def test_each_crafted_file_is_an_error_report_and_blender_keeps_running(tmp_path):
    corpus = crafted.build(tmp_path / "crafted")
    opened = []
    for case in corpus:
        # Files the add-on opens: levels and glTFs (not the commands' other inputs).
        if case.python is None or case.python[0] not in ("gltf_to_wad", "wad_to_glb"):
            continue
        path = next(case.folder / name for name in ("in.glb", "in/level.gltf", "in.wad") if (case.folder / name).exists())
        addon_support.register_addon()
        bpy.ops.wm.read_homefile(use_empty=True)
        with pytest.raises(RuntimeError, match="is not a level this add-on can read"):
            bpy.ops.import_scene.llamawad(filepath=str(path))
        assert len(bpy.data.objects) == 0, case.name
        opened.append(case.name)
    assert len(opened) >= 40
    assert any(name.startswith("wad-") for name in opened)
    assert addon_support.import_level(crafted.BASE) == {"FINISHED"}
    assert any(o.get("llamawad") == "tile" for o in bpy.data.objects)


def test_a_device_or_pipe_named_as_a_level_is_an_error_report(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.wad")
    os.mkfifo(tmp_path / "pipe.wad")
    addon_support.register_addon()
    for name in ("zero.wad", "pipe.wad"):
        bpy.ops.wm.read_homefile(use_empty=True)
        with pytest.raises(RuntimeError, match="not a regular file"):
            bpy.ops.import_scene.llamawad(filepath=str(tmp_path / name))


# What a hostile scene may cost one operator call (Blender's own memory aside): wall time, and
# memory beyond what Blender holds already, as an address-space limit, so that a call past it
# fails there with MemoryError instead of taking the machine's memory.
SECONDS = 2
MEMORY = 500 * 1024 * 1024


@contextlib.contextmanager
def bounded():
    """Runs the block under the limits above; an alarm interrupts a call waiting on a pipe."""

    def interrupted(signum, frame):
        raise TimeoutError(f"still running after {SECONDS * 5} s")

    with open("/proc/self/statm") as f:
        in_use = int(f.read().split()[0]) * resource.getpagesize()
    limits = resource.getrlimit(resource.RLIMIT_AS)
    previous = signal.signal(signal.SIGALRM, interrupted)
    resource.setrlimit(resource.RLIMIT_AS, (in_use + MEMORY, limits[1]))
    signal.alarm(SECONDS * 5)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, limits)
    assert time.monotonic() - start < SECONDS


def refused(call) -> str:
    """The report of an operator call that refuses, within the bounds: no traceback."""
    with bounded():
        with pytest.raises(RuntimeError) as raised:
            call()
    message = str(raised.value)
    assert "Traceback" not in message and "Error:" in message, message
    return message


def checked() -> list[str]:
    """Check level's problems (a scene the conversion refuses is listed, not an error)."""
    with bounded():
        assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    return [p.message for p in bpy.context.scene.llamawad.problems]


@pytest.fixture
def level(tmp_path):
    """The crafted files' base level imported, its collision not yet made (Show collision makes
    it from the base), the 3D cursor over tile 3."""
    assert addon_support.import_level(crafted.BASE) == {"FINISHED"}
    out = tmp_path / "out.wad"
    out.write_bytes(b"the previous output")
    bpy.context.scene.cursor.location = addon_support.tile_object(3).location
    return out


def operators(out):
    """Every operator that reads the base or converts the scene, by name."""
    return {
        "export": lambda: bpy.ops.export_scene.llamawad(filepath=str(out)),
        "check": bpy.ops.llamawad.check_level,
        "show collision": lambda: bpy.ops.llamawad.collision_show(show=True),
        "floor probe": bpy.ops.llamawad.floor_probe,
    }


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_a_base_that_is_a_device_or_pipe_is_refused_unread(level, tmp_path, kind):
    base = tmp_path / "base.wad"
    if kind == "zero":
        os.symlink("/dev/zero", base)
    else:
        os.mkfifo(base)
    bpy.context.scene.llamawad.base_path = str(base)
    for name, call in operators(level).items():
        message = refused(call)
        assert "not a regular file" in message and str(base) in message, (name, message)
    assert level.read_bytes() == b"the previous output"


HOSTILE_TILE_NUMBERS = {"text": "abc", "nan": float("nan"), "inf": float("inf"), "list": [1, 2], "20 MB": "x" * 20_000_000}


@pytest.mark.parametrize("value", HOSTILE_TILE_NUMBERS.values(), ids=HOSTILE_TILE_NUMBERS.keys())
def test_a_tile_whose_number_is_no_number_is_refused_by_name(level, value):
    tile = addon_support.tile_object(3)
    tile["tile"] = value
    assert tile.name in refused(operators(level)["export"])
    assert any(tile.name in m for m in checked())
    # Collision is made for the tiles it can be made for; a refused scene is probed as its base
    # level, and the probe says why.
    for name in ("show collision", "floor probe"):
        with bounded():
            assert operators(level)[name]() == {"FINISHED"}, name
    assert tile.name in json.loads(bpy.context.scene.llamawad.probe_json)["source"]
    assert level.read_bytes() == b"the previous output"


@pytest.mark.parametrize("text", ["not json {", "[1, 2]", '"a level"', '{"source": 7}', "grid"])
def test_a_scene_level_document_that_is_none_is_refused(level, text):
    props = bpy.context.scene.llamawad
    if text == "grid":
        doc = json.loads(props.level_json)
        doc["grid"], doc["regions"], doc["texture_entries"] = "abc", 5, None
        text = json.dumps(doc)
    props.level_json = text
    for name, call in operators(level).items():
        assert "level document" in refused(call), name
    assert level.read_bytes() == b"the previous output"


def copied_tile_properties(obj):
    """``obj`` in the Tiles collection with tile 3's custom properties (Copy to Selected)."""
    tiles = next(c for c in bpy.data.collections if c.get("llamawad") == "tiles")
    tiles.objects.link(obj)
    source = addon_support.tile_object(3)
    for key in source.keys():
        obj[key] = source[key]
    return obj


@pytest.mark.parametrize("kind", ["empty", "curve"])
def test_an_empty_or_curve_with_a_tiles_properties_is_refused_by_name(level, kind):
    data = bpy.data.curves.new("path", "CURVE") if kind == "curve" else None
    obj = copied_tile_properties(bpy.data.objects.new(f"not a tile ({kind})", data))
    message = refused(operators(level)["export"])
    assert obj.name in message and "not a tile" in message, message
    assert any(obj.name in m and "not a tile" in m for m in checked())
    assert level.read_bytes() == b"the previous output"


@pytest.mark.parametrize("what", ["uv", "colour"])
def test_nan_uvs_or_colours_on_an_unchanged_tile_are_refused_by_name(level, what):
    tile = addon_support.tile_object(3)
    if what == "uv":
        tile.data.uv_layers.active.uv[4].vector = (float("nan"), 0.5)
        words = "UVs"
    else:
        tile.data.color_attributes["Col"].data[4].color = (float("nan"), 1.0, 1.0, 1.0)
        words = "colours"
    message = refused(operators(level)["export"])
    assert tile.name in message and words in message and "Blender face 1" in message, message
    assert any(tile.name in m and words in m for m in checked())
    assert level.read_bytes() == b"the previous output"


def test_a_non_mesh_object_in_the_tiles_collection_is_named(level, capfd):
    tiles = next(c for c in bpy.data.collections if c.get("llamawad") == "tiles")
    for name, data in (("helper empty", None), ("camera", bpy.data.cameras.new("camera")), ("lattice", bpy.data.lattices.new("lattice"))):
        tiles.objects.link(bpy.data.objects.new(name, data))
    capfd.readouterr()
    with bounded():
        assert bpy.ops.export_scene.llamawad(filepath=str(level)) == {"FINISHED"}
    out = capfd.readouterr().out
    for name, kind in (("helper empty", "an empty"), ("camera", "a camera"), ("lattice", "a lattice")):
        assert f"Warning: {name}: {kind} in the Tiles collection, not a mesh: not written" in out, out
    assert level.read_bytes() == crafted.BASE.read_bytes()


def timed_import(path) -> float:
    start = time.monotonic()
    assert addon_support.import_level(path) == {"FINISHED"}
    return time.monotonic() - start


def test_a_level_naming_a_pool_many_times_over_is_refused_and_blender_keeps_running(tmp_path):
    """5,013 strats each naming a pool of 50,000 parameters: once 26 s, 4.2 GB and an abort."""
    wad = crafted.BASE.read_bytes()
    path = tmp_path / "strats.wad"
    path.write_bytes(crafted_wad.with_strats(wad, 50_000, [(50_000, None, -1)] * 5_000))
    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    with bounded():
        with pytest.raises(RuntimeError, match="at most 1048576"):
            bpy.ops.import_scene.llamawad(filepath=str(path))
    assert len(bpy.data.objects) == 0
    assert addon_support.import_level(crafted.BASE) == {"FINISHED"}


def test_waypoint_lines_are_worked_out_once_a_change_not_at_each_redraw(tmp_path):
    """1,000 strats on one chain of 2,000 waypoints: a redraw once took 6.9 s; the lines are a
    segment a strat and one a step of the chain, and a redraw takes what it found."""
    from addon.ui import overlay

    path = tmp_path / "chain.wad"
    path.write_bytes(crafted_wad.with_strats(crafted.BASE.read_bytes(), 0, [(0, None, None)] * 1_000, waypoints=2_000))
    timed_import(path)
    scene = bpy.context.scene
    start = time.monotonic()
    lines = overlay.waypoint_lines(scene)
    assert time.monotonic() - start < SECONDS
    strats_on_chains = [o for o in scene.objects if o.get("llamawad") == "strat" and o.get("waypoint", -1) >= 0]
    # Each strat's segment and each step of the new chain once (the base's chains besides).
    assert 2 * (len(strats_on_chains) + 1999) <= len(lines) <= 2 * (len(strats_on_chains) + 2006), len(lines)
    start = time.monotonic()
    for _ in range(10):
        assert overlay.waypoint_lines(scene) is lines
    assert (time.monotonic() - start) / 10 < 0.005
    overlay.changed()
    assert overlay.waypoint_lines(scene) is not lines


def test_lights_past_the_add_ons_limit_are_refused_and_up_to_it_import_in_time(tmp_path):
    """20,000 lights in colours of their own: once 33 s and 910 MB; now refused by name at once,
    and as many as the add-on makes import within the bounds."""
    from addon.blender.wad_to_scene import level

    path = tmp_path / "lights.wad"
    path.write_bytes(crafted_wad.with_lights(crafted.BASE.read_bytes(), 20_000))
    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    with bounded():
        with pytest.raises(RuntimeError, match=f"20000 lights; the add-on makes at most {level.MAX_LIGHTS}"):
            bpy.ops.import_scene.llamawad(filepath=str(path))
    assert len(bpy.data.objects) == 0
    path.write_bytes(crafted_wad.with_lights(crafted.BASE.read_bytes(), level.MAX_LIGHTS))
    seconds = timed_import(path)
    assert len([o for o in bpy.context.scene.objects if o.get("llamawad") == "light"]) == level.MAX_LIGHTS
    assert seconds < SECONDS, f"{seconds:.1f} s"


def test_a_level_document_nested_100000_deep_is_refused_as_none(level):
    bpy.context.scene.llamawad.level_json = "[" * 100_000 + "]" * 100_000
    for name, call in operators(level).items():
        assert "level document" in refused(call), name
    assert level.read_bytes() == b"the previous output"


def test_a_cursor_or_strat_at_no_place_is_said_not_a_traceback(level):
    bpy.context.scene.cursor.location = (float("nan"), 0.0, 0.0)
    assert "3D cursor is at no place" in refused(operators(level)["floor probe"])
    strat = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "strat")
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    strat.select_set(True)
    bpy.context.view_layer.objects.active = strat
    strat.location.x = float("nan")
    with bounded():
        assert bpy.ops.llamawad.strat_drop_to_floor() == {"FINISHED"}


def test_overwriting_a_read_only_base_leaves_no_original_behind(tmp_path):
    base = tmp_path / "level.wad"
    base.write_bytes(crafted.BASE.read_bytes())
    assert addon_support.import_level(base) == {"FINISHED"}
    addon_support.tile_object(3).location.x -= 1.0
    base.chmod(0o444)
    try:
        message = refused(lambda: bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True))
    finally:
        base.chmod(0o644)
    assert "Cannot write" in message, message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.wad"]
    assert base.read_bytes() == crafted.BASE.read_bytes()
