"""Level panel operators: the level check, selecting a problem's culprit, what the last export
changed, and the pages saved as files."""

from __future__ import annotations

import os

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from ..blender import check, page_files
from ..blender import scene as level_scene
from ..blender.convert import Refusal, read_base
from ..common import problems as found


class LLAMAWAD_OT_check_level(bpy.types.Operator):
    """Convert the scene as export would, without writing a file, and run the game's rules over
    the result (the same check as the command line's). Lists every problem, new ones first; click
    one to select and frame the object and faces at fault"""

    bl_idname = "llamawad.check_level"
    bl_label = "Check Level"
    bl_options = {"REGISTER"}

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


class LLAMAWAD_OT_save_pages(bpy.types.Operator):
    """Save the level's texture pages as PNG files (page-000.png, …) and link the page images to
    them instead of the copies packed into the .blend: a page then edited in another program
    (GIMP, Krita) and reloaded (Image › Reload), or replaced by another file (Image › Replace),
    is what Blender shows and export writes. Into a folder beside the .blend named after it, or
    the one chosen"""

    bl_idname = "llamawad.save_pages"
    bl_label = "Save Pages as Files"
    bl_options = {"REGISTER", "UNDO"}

    directory: StringProperty(
        name="Folder",
        description="Where the pages are saved (empty: beside the .blend, in a folder named after it)",
        subtype="DIR_PATH",
    )
    overwrite: BoolProperty(
        name="Overwrite",
        description="Write over files in the folder that show other pixels than the page images (off: such a file "
        "is left as it is, and its page with it, and both are named)",
        default=False,
    )

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene) and any(page_files.is_page(i) for i in bpy.data.images)

    def invoke(self, context, event):
        # A dialog rather than the file browser: the folder beside the .blend need not exist
        # yet, and the field's own button browses for another.
        if not self.directory and page_files.default_folder():
            self.directory = bpy.path.relpath(page_files.default_folder()) + os.sep
        return context.window_manager.invoke_props_dialog(self, width=500)

    def execute(self, context):
        import llamawad

        folder = bpy.path.abspath(self.directory) if self.directory else page_files.default_folder()
        if not folder:
            self.report({"ERROR"}, "Save the .blend first, or choose a folder: pages are saved beside the .blend unless a folder is chosen")
            return {"CANCELLED"}
        try:
            saved = page_files.save_pages(folder, self.overwrite)
        except (llamawad.WadError, OSError) as e:
            self.report({"ERROR"}, f"Cannot save the pages in {folder}: {e}")
            return {"CANCELLED"}
        for why in saved.left:
            self.report({"WARNING"}, why)
        linked = len(saved.written) + len(saved.linked)
        message = f"{linked} page images linked to their files in {os.path.normpath(folder)} ({len(saved.written)} written)"
        if saved.left:
            message += f"; {len(saved.left)} left as they were, named in the warnings"
        self.report({"WARNING"} if saved.left else {"INFO"}, message)
        return {"FINISHED"}


classes = (LLAMAWAD_OT_check_level, LLAMAWAD_OT_problem_select, LLAMAWAD_OT_export_changes, LLAMAWAD_OT_save_pages)
