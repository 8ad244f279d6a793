"""Files from strangers (tests/crafted.py) opened through the add-on's import operator in real
Blender: each one is reported as an error (the operator raises RuntimeError with the report),
nothing is added to the scene, and Blender keeps running: a real level imports afterwards. Then
a base that is a device or a pipe: each operator that reads the base reports it within 2 s and
500 MB, and the previous output stays."""

import contextlib
import os
import resource
import signal
import time

import addon_support
import bpy
import crafted
import pytest

pytestmark = pytest.mark.generator


def test_each_crafted_file_is_an_error_report_and_blender_keeps_running(tmp_path):
    corpus = crafted.build(tmp_path / "crafted")
    opened = []
    for case in corpus:
        if case.python is None:
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

