"""Level › Make Test Level: note 003's test level (``llamawad.test_level``, what ``llamawad
testlevel`` writes) of the scene as export would write it, written beside the base WAD and opened
in a new scene."""

from __future__ import annotations

import os

import bpy
from bpy.props import IntProperty, StringProperty

from ..blender import scene as level_scene
from ..blender.convert import Refusal, convert, read_base
from ..common.files import same_file, write_file

# The test level's file beside the base: LEVEL.wad → LEVEL-test.wad.
SUFFIX = "-test.wad"


def default_path(base_path: str) -> str:
    return os.path.splitext(bpy.path.abspath(base_path))[0] + SUFFIX if base_path else ""


class LLAMAWAD_OT_test_level(bpy.types.Operator):
    """Write a test level with one strat of every type this level can place, and open it in a
    new scene: in new grid rows past the level's far edge, a floor plate with the strats, the
    player's start at its edge and a parkour of stepping plates to a LevelDoor on an exit floor.
    Made from the scene as export would write it; nothing is written when the test level would
    break a rule the level keeps"""

    bl_idname = "llamawad.test_level"
    bl_label = "Make Test Level"
    bl_options = {"REGISTER", "UNDO"}

    filepath: StringProperty(
        name="File",
        description="Where the test level is written (empty: beside the base WAD, LEVEL-test.wad)",
        subtype="FILE_PATH",
    )
    level_name: StringProperty(
        name="Name",
        description="The test level's name, as the game's level list shows it (1 to 64 Latin-1 characters); "
        "empty: the level's own",
    )
    spacing: IntProperty(name="Spacing", description="Cells from one strat to the next on the plate", default=3, min=1, max=16)

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def invoke(self, context, event):
        if not self.filepath:
            self.filepath = default_path(context.scene.llamawad.base_path)
        return context.window_manager.invoke_props_dialog(self, width=500)

    def execute(self, context):
        import llamawad

        base_path = bpy.path.abspath(context.scene.llamawad.base_path)
        target = os.path.abspath(bpy.path.abspath(self.filepath)) if self.filepath else default_path(base_path)
        if not target:
            self.report({"ERROR"}, "No file to write to")
            return {"CANCELLED"}
        if os.path.exists(target) and same_file(target, base_path):
            self.report({"ERROR"}, f"{os.path.basename(target)} is the base level: choose another file for the test level")
            return {"CANCELLED"}
        try:
            level = convert(context, read_base(context.scene)).wad
        except Refusal as e:
            self.report({"ERROR"}, f"No test level: the scene cannot be written ({e}); Check Level lists why")
            return {"CANCELLED"}
        try:
            made, report = llamawad.test_level(level, self.level_name or None, self.spacing)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"No test level: {e}")
            return {"CANCELLED"}
        try:
            write_file(target, made)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot write {e}")
            return {"CANCELLED"}
        # Import opens it in a scene of its own (the scene holds this level).
        if bpy.ops.import_scene.llamawad(filepath=target) != {"FINISHED"}:
            self.report({"ERROR"}, f"Wrote {target}, but could not open it: import it with File › Import")
            return {"CANCELLED"}
        for left in report["left_out"]:
            self.report({"INFO"}, f"left out: {left['name']}: {left['reason']}")
        for warning in report["new_warnings"]:
            self.report({"WARNING"}, warning)
        (w0, h0), (w, h) = report["grid_before"], report["grid"]
        before, after = report["pool_extra"]
        self.report(
            {"INFO"},
            f"Wrote the test level {target} and opened it in the scene '{context.scene.name}': grid {w0} × {h0} → {w} × {h}, "
            f"{len(report['placed'])} strats placed past the far (south) edge (poolExtra {before} → {after}), "
            f"the player's start ({report['player']['name']}) moved to the plate",
        )
        return {"FINISHED"}


classes = (LLAMAWAD_OT_test_level,)
