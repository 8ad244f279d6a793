"""Shared by the add-on tests (tests/blender/test_addon_*.py): the add-on package importable as
``addon`` from the repository root, without installing it."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def register_addon():
    """Registers the add-on from the source tree (once per process)."""
    import bpy

    import addon

    if not hasattr(bpy.types.Scene, "llamawad"):
        addon.register()
    return addon


def import_level(path) -> set:
    """An empty home file with the level at ``path`` imported through the add-on's operator."""
    import bpy

    register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy.ops.import_scene.llamawad(filepath=str(path))
