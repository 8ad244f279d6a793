"""Strat operators: add a strat of a type the level places, create strats at level start or not,
drop strats onto the floor the game's floor test finds below them, and the strat table of a
folder of levels. Moving, turning, copying and deleting strat objects are Blender's own (G, R,
Shift D, X); export writes them."""

from __future__ import annotations

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..blender import scene as level_scene
from ..blender import strats
from ..blender.convert import Refusal
from ..common import strat_table

# Enum items a callback gives must outlive the call (Blender keeps only pointers to them).
_items: list[tuple[str, str, str]] = []


def _type_items(self, context):
    global _items
    _items = [
        (
            str(t["code_offset"]),
            strats.type_label(t) + ("" if t["placeable"] else " (cannot be placed)"),
            f"{t['instances']} placed in this level" if t["placeable"] else f"Cannot be placed: {t['why_not']}",
        )
        for t in sorted(strats.types(context.scene), key=lambda t: (not t["placeable"], strats.type_label(t).lower()))
    ] or [("NONE", "No strat types", "The level's code names no strat type")]
    return _items


def _selected_strats(context) -> list[bpy.types.Object]:
    return [o for o in context.selected_objects if level_scene.role(o) == "strat"]


class LLAMAWAD_OT_strat_add(bpy.types.Operator):
    """Place a new strat at the 3D cursor: a copy of a placed strat of the chosen type, with its
    parameters. Export writes it as a new strat of the level; types the level's code names but
    never places cannot be placed (their type fields are unknown)"""

    bl_idname = "llamawad.strat_add"
    bl_label = "Add Strat"
    bl_options = {"REGISTER", "UNDO"}
    bl_property = "strat_type"

    strat_type: EnumProperty(name="Type", description="The strat type of the new strat", items=_type_items)

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene) and context.mode == "OBJECT"

    def invoke(self, context, event):
        context.window_manager.invoke_search_popup(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        t = next((t for t in strats.types(context.scene) if str(t["code_offset"]) == self.strat_type), None)
        if t is None:
            self.report({"ERROR"}, "The level has no such strat type")
            return {"CANCELLED"}
        try:
            obj = strats.add_strat(context, t, context.scene.cursor.location)
        except ValueError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for o in context.selected_objects:
            o.select_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
        self.report({"INFO"}, f"{obj.name}: a new {strats.type_label(t)} at the 3D cursor; export writes it as a new strat")
        return {"FINISHED"}


class LLAMAWAD_OT_strat_created_at_start(bpy.types.Operator):
    """Whether the game creates the selected strats at level start (flag bit 1 clear): a strat not
    created at start keeps its record and number, shown in the collection 'Not created at
    start'"""

    bl_idname = "llamawad.strat_created_at_start"
    bl_label = "Created at Level Start"
    bl_options = {"REGISTER", "UNDO"}

    created: BoolProperty(name="Created at level start", default=True)

    @classmethod
    def poll(cls, context):
        return bool(_selected_strats(context))

    def execute(self, context):
        chosen = _selected_strats(context)
        for obj in chosen:
            strats.set_created_at_start(context.scene, obj, self.created)
        what = "created at level start" if self.created else "not created at level start"
        self.report({"INFO"}, f"{len(chosen)} strat{'s' if len(chosen) != 1 else ''} {what}")
        return {"FINISHED"}


class LLAMAWAD_OT_strat_drop_to_floor(bpy.types.Operator):
    """Put the selected strats onto the floor the game's floor test finds below them, in the
    scene as export would write it"""

    bl_idname = "llamawad.strat_drop_to_floor"
    bl_label = "Drop to Floor"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return bool(_selected_strats(context)) and level_scene.has_level(context.scene)

    def execute(self, context):
        chosen = _selected_strats(context)
        try:
            heights = strats.floors_below(context, chosen)
        except Refusal as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        missed = []
        for obj, height in zip(chosen, heights):
            if height is None:
                missed.append(obj.name)
                continue
            m = obj.matrix_world.copy()
            m.translation.z = height
            obj.matrix_world = m
        dropped = len(chosen) - len(missed)
        self.report({"INFO"}, f"{dropped} strat{'s' if dropped != 1 else ''} dropped to the floor")
        for name in missed:
            self.report({"WARNING"}, f"{name}: the floor test finds no floor below it; left where it is (move it above a floor)")
        return {"FINISHED"}


class LLAMAWAD_OT_strat_table(bpy.types.Operator):
    """How many strats of each type every level of a folder places (a row per type, a column per
    level), as note 003's strat table makes it: shown in the Text Editor as the text 'Strat
    table'. Every .wad file of the folder is read; a file that is no level is named and skipped"""

    bl_idname = "llamawad.strat_table"
    bl_label = "Strat Table of a Folder"
    bl_options = {"REGISTER", "UNDO"}

    # The text the table is written into (replaced by the next table).
    TEXT = "Strat table"

    directory: StringProperty(name="Folder", description="The folder of levels", subtype="DIR_PATH")
    filter_folder: BoolProperty(default=True, options={"HIDDEN", "SKIP_SAVE"})

    def invoke(self, context, event):
        if not self.directory and context.scene.llamawad.base_path:
            self.directory = os.path.dirname(bpy.path.abspath(context.scene.llamawad.base_path)) + os.sep
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        import llamawad

        folder = os.path.normpath(bpy.path.abspath(self.directory)) if self.directory else ""
        if not folder:
            self.report({"ERROR"}, "Choose a folder of levels")
            return {"CANCELLED"}
        try:
            table = llamawad.strat_table(folder)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot read the folder {e}")
            return {"CANCELLED"}
        text = bpy.data.texts.get(self.TEXT) or bpy.data.texts.new(self.TEXT)
        text.from_string(strat_table.text(folder, table))
        shown = _show_text(context, text)
        where = "in a new window" if shown else f"in the Text Editor as the text '{text.name}'"
        levels, skipped = len(table["levels"]), len(table["skipped"])
        self.report(
            {"WARNING"} if skipped else {"INFO"},
            f"Strat table of {folder}: {strat_table.counted(levels, 'level')}, {strat_table.counted(len(table['types']), 'type')}"
            + (f", {strat_table.counted(skipped, 'file')} skipped (named in the table)" if skipped else "")
            + f"; shown {where}",
        )
        return {"FINISHED"}


def _show_text(context, text) -> bool:
    """Opens ``text`` in a Text Editor of a new window (Blender's window, not headless); True
    when it did."""
    if bpy.app.background or context.window is None:
        return False
    before = set(context.window_manager.windows[:])
    if bpy.ops.wm.window_new() != {"FINISHED"}:
        return False
    window = next((w for w in context.window_manager.windows if w not in before), None)
    if window is None or not window.screen.areas:
        return False
    area = max(window.screen.areas, key=lambda a: a.width * a.height)
    area.type = "TEXT_EDITOR"
    area.spaces.active.text = text
    return True


classes = (LLAMAWAD_OT_strat_add, LLAMAWAD_OT_strat_created_at_start, LLAMAWAD_OT_strat_drop_to_floor, LLAMAWAD_OT_strat_table)
