"""Level › Restore Original: the level as it was before the first export over it, kept beside it
(common/files.py), written back over the base WAD, and the scene imported again from it."""

from __future__ import annotations

import os

import bpy

from ..blender import scene as level_scene
from ..blender import written
from ..common.files import original_path, read_file, write_file


def kept_original(scene) -> str:
    """The path of the base WAD's kept original ("" when the scene has no base)."""
    base = scene.llamawad.base_path
    return original_path(os.path.abspath(bpy.path.abspath(base))) if base else ""


class LLAMAWAD_OT_restore_original(bpy.types.Operator):
    """Write the level's original back over the base WAD (the first export over it kept it beside
    it, as NAME.wad.original) and import it again: the scene's level becomes the original, and its
    edits since are dropped (meshes outside the level's collections stay)"""

    bl_idname = "llamawad.restore_original"
    bl_label = "Restore Original"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene) and os.path.isfile(kept_original(context.scene))

    def invoke(self, context, event):
        base = os.path.basename(bpy.path.abspath(context.scene.llamawad.base_path))
        return context.window_manager.invoke_confirm(
            self, event, title="Restore Original", message=f"Write the original back over {base} and drop the scene's edits?", confirm_text="Restore"
        )

    def execute(self, context):
        import llamawad

        base = os.path.abspath(bpy.path.abspath(context.scene.llamawad.base_path))
        kept = original_path(base)
        try:
            data = read_file(kept)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot read the original {e}; nothing restored")
            return {"CANCELLED"}
        try:
            llamawad.parse_info(data)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"{kept} is not a level ({e}): nothing restored; remove or replace it")
            return {"CANCELLED"}
        try:
            write_file(base, data)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot write {e}; nothing restored")
            return {"CANCELLED"}
        summary = written.reload(context, data, base)
        self.report({"INFO"}, f"Restored {base} from {kept}: the scene holds the original level again ({summary.text()})")
        return {"FINISHED"}


classes = (LLAMAWAD_OT_restore_original,)
