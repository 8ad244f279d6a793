"""Blender's modes around work that needs another: mesh data is read and written (foreach_get,
foreach_set) in object mode."""

from __future__ import annotations

from contextlib import contextmanager

import bpy


@contextmanager
def object_mode(context):
    """Leaves edit mode for the body (so that mesh data and selection are current and can be
    written with foreach_set), then goes back to it."""
    was_edit = context.mode == "EDIT_MESH"
    if was_edit:
        bpy.ops.object.mode_set(mode="OBJECT")
    try:
        yield
    finally:
        if was_edit:
            bpy.ops.object.mode_set(mode="EDIT")
