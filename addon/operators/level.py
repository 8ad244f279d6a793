"""Level panel operators: the level check and selecting a problem's culprit."""

from __future__ import annotations

import bpy
from bpy.props import IntProperty

from ..blender import faces as face_tools
from ..blender import scene as level_scene


class LLAMAWAD_OT_check_level(bpy.types.Operator):
    """Run every export rule over the scene without writing a file, and list the problems (click
    one to select the object and faces at fault)"""

    bl_idname = "llamawad.check_level"
    bl_label = "Check Level"
    bl_options = {"REGISTER"}

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def execute(self, context):
        from ..blender.check import check_level
        from .export_level import Refusal, read_base

        scene = context.scene
        props = scene.llamawad
        base = None
        try:
            base = read_base(scene, props.base_path)
        except Refusal as e:
            self.report({"WARNING"}, f"{e}; only the add-on's own rules were checked")
        result = check_level(context, base)
        props.problems.clear()
        for p in result.problems:
            item = props.problems.add()
            item.object = p.object
            item.faces = " ".join(map(str, p.faces))
            item.message = p.message
        props["problem_index"] = -1
        props.checked = True
        if result.problems:
            self.report({"WARNING"}, f"{len(result.problems)} problem{'s' if len(result.problems) != 1 else ''}: {result.problems[0].message}")
        else:
            self.report({"INFO"}, "No problems: the level can be exported")
        return {"FINISHED"}


class LLAMAWAD_OT_problem_select(bpy.types.Operator):
    """Select the object and the faces at fault of a problem found by the level check"""

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
        obj = face_tools.select_culprit(context, p.object, p.face_list())
        if obj is None:
            self.report({"ERROR"}, f"{p.object} is no longer in the scene")
            return {"CANCELLED"}
        context.scene.llamawad["problem_index"] = self.index
        return {"FINISHED"}


classes = (LLAMAWAD_OT_check_level, LLAMAWAD_OT_problem_select)
