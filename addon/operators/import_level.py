"""File › Import › Emperor's New Groove level (.wad)."""

import os

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ImportHelper

from ..blender import scene as level_scene
from ..common import files


class LLAMAWAD_OT_import_level(bpy.types.Operator, ImportHelper):
    """Open a level WAD of The Emperor's New Groove: tiles textured and vertex-coloured as the game
    shows them, with collision, zones and strats; the scene remembers the file as the base for
    export"""

    bl_idname = "import_scene.llamawad"
    bl_label = "Import Emperor's New Groove level"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".wad"
    filter_glob: StringProperty(default="*.wad;*.WAD", options={"HIDDEN"})

    def execute(self, context):
        import llamawad

        from ..blender.wad_to_scene.level import import_level

        path = os.path.abspath(bpy.path.abspath(self.filepath))
        try:
            data = files.read_file(path)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot read {e}")
            return {"CANCELLED"}

        if level_scene.has_level(context.scene):
            # One level per scene (export writes a scene against one base): a new scene for it.
            if context.window is None:
                self.report({"ERROR"}, "This scene already holds a level: import into an empty scene")
                return {"CANCELLED"}
            new = bpy.data.scenes.new(os.path.splitext(os.path.basename(path))[0])
            context.window.scene = new

        wm = context.window_manager
        wm.progress_begin(0, 100)
        _status(context, f"Importing {os.path.basename(path)}…")
        try:
            summary = import_level(context, data, path, progress=lambda f: wm.progress_update(int(f * 100)))
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"{os.path.basename(path)} is not a level this add-on can read: {e}")
            return {"CANCELLED"}
        finally:
            wm.progress_end()
            _status(context, None)
        for warning in summary.warnings + summary.scene_notes():
            self.report({"WARNING"}, warning)
        self.report({"INFO"}, summary.text())
        return {"FINISHED"}


def _status(context, text):
    workspace = getattr(context, "workspace", None)
    if workspace is not None:
        try:
            workspace.status_text_set(text)
        except (AttributeError, RuntimeError):
            pass


def menu_import(self, context):
    self.layout.operator(LLAMAWAD_OT_import_level.bl_idname, text="Emperor's New Groove level (.wad)")


classes = (LLAMAWAD_OT_import_level,)
