"""Files from strangers (tests/crafted.py) opened through the add-on's import operator in real
Blender: each one is reported as an error (the operator raises RuntimeError with the report),
nothing is added to the scene, and Blender keeps running: a real level imports afterwards."""

import addon_support
import bpy
import crafted
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
    import os

    os.symlink("/dev/zero", tmp_path / "zero.wad")
    os.mkfifo(tmp_path / "pipe.wad")
    addon_support.register_addon()
    for name in ("zero.wad", "pipe.wad"):
        bpy.ops.wm.read_homefile(use_empty=True)
        with pytest.raises(RuntimeError, match="not a regular file"):
            bpy.ops.import_scene.llamawad(filepath=str(tmp_path / name))
