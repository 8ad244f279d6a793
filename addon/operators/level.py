"""Level panel operators: the level check, selecting a problem's culprit, and what the last export
changed."""

from __future__ import annotations

import bpy
from bpy.props import IntProperty

from ..blender import check
from ..blender import scene as level_scene
from ..blender.convert import Refusal, read_base
from ..common import problems as found


class LLAMAWAD_OT_check_level(bpy.types.Operator):
    """Convert the scene as export would, without writing a file, and run the game's rules over
    the result (the same check as the command line's). Lists every problem, new ones first; click
    one to select and frame the object and faces at fault"""

    bl_idname = "llamawad.check_level"
    bl_label = "Check Level"
    # Undoable: besides the problem list, a problem naming a collision polygon makes the tiles'
    # collision objects, so that selecting it selects the polygon's faces.
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def execute(self, context):
        props = context.scene.llamawad
        try:
            base = read_base(context.scene, props.base_path)
        except Refusal as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        problems = check.check_level(context, base)
        check.store(props, problems)
        new = found.counts(problems)
        self.report({"WARNING"} if new["errors"] or new["warnings"] else {"INFO"}, found.summary(problems))
        return {"FINISHED"}


class LLAMAWAD_OT_problem_select(bpy.types.Operator):
    """Select the object and the faces at fault of a problem found by the level check, and frame
    them in the 3D view"""

    bl_idname = "llamawad.problem_select"
    bl_label = "Select Culprit"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Problem", min=0)

    def execute(self, context):
        problems = context.scene.llamawad.problems
        if not 0 <= self.index < len(problems):
            self.report({"ERROR"}, "No such problem: run the level check again")
            return {"CANCELLED"}
        p = problems[self.index]
        if not p.object:
            self.report({"INFO"}, "This problem concerns the level as a whole")
            return {"FINISHED"}
        if check.select_problem(context, p) is None:
            self.report({"ERROR"}, f"{p.object} is no longer in the scene")
            return {"CANCELLED"}
        context.scene.llamawad["problem_index"] = self.index
        return {"FINISHED"}


class LLAMAWAD_OT_export_changes(bpy.types.Operator):
    """What the last export changed, tile by tile: tiles moved, reshaped (and how: vertices,
    faces, textures, painted corners, collision), recoloured, added, emptied, re-tiled,
    collision-only tiles, what became of shared models, texture entries fitted and added,
    collision made for new meshes, and its warnings"""

    bl_idname = "llamawad.export_changes"
    bl_label = "What the Export Changed"
    # It only shows the last export's changes: nothing to undo.
    bl_options = {"REGISTER"}

    # Rows the popup shows; the Level panel's list has them all.
    SHOWN = 40

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def invoke(self, context, event):
        return context.window_manager.invoke_popup(self, width=700)

    def draw(self, context):
        props = context.scene.llamawad
        layout = self.layout
        layout.label(text=f"Last export: {props.last_export or 'none yet'}", icon="EXPORT")
        col = layout.column(align=True)
        for item in props.changes[: self.SHOWN]:
            col.label(text=item.text, icon="BLANK1" if item.tile < 0 else "MESH_DATA")
        if len(props.changes) > self.SHOWN:
            col.label(text=f"… {len(props.changes) - self.SHOWN} more in the Level panel's list")

    def execute(self, context):
        props = context.scene.llamawad
        self.report({"INFO"}, f"Last export: {props.last_export or 'none yet'}")
        for item in props.changes:
            self.report({"INFO"}, item.text)
        return {"FINISHED"}


classes = (LLAMAWAD_OT_check_level, LLAMAWAD_OT_problem_select, LLAMAWAD_OT_export_changes)
