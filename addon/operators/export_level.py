"""File › Export › Emperor's New Groove level (.wad): the scene converted against the base
(blender/convert.py) and written. The conversion runs the game's rules over what it is about to
write: errors refuse it (nothing written, every problem listed in the Level panel, the first
culprit selected in edit mode), warnings are reported. What changed is reported tile by tile, kept
for the Level panel and shown in a popup (blender/written.py). Written over its base, the scene
is made the level as written, the base of the next export."""

from __future__ import annotations

import os

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..blender import check, written
from ..blender import scene as level_scene
from ..blender.convert import Refusal, convert, read_base
from ..common import changes as words
from ..common import problems as found
from ..common.files import keep_original, original_path, same_file, write_file
from ..properties import APPLY_MODIFIERS, GENERATE_COLLISION, SNAP_UVS

# Problems of a refusal reported one by one; all of them are in the Level panel.
MAX_REPORTED = 20

# Tiles whose changes are reported one by one; all of them are in the Level panel's list.
MAX_TILES_REPORTED = 20


class LLAMAWAD_OT_export_level(bpy.types.Operator, ExportHelper):
    """Write the scene as a level WAD: built from the base level, with the tiles, faces, colours,
    collision and zones changed in Blender. Unchanged parts keep the base's bytes; an unchanged
    scene gives a copy of the base"""

    bl_idname = "export_scene.llamawad"
    bl_label = "Export Emperor's New Groove level"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".wad"
    filter_glob: StringProperty(default="*.wad;*.WAD", options={"HIDDEN"})
    base_path: StringProperty(
        name="Base WAD",
        description="The level the scene was made from (remembered at import). Everything not changed in "
        "Blender keeps its bytes",
        subtype="FILE_PATH",
    )
    overwrite_base: BoolProperty(
        name="Overwrite the base",
        description="Allow writing over the base WAD itself. Off: exporting onto the base is refused, so the "
        "original level is never lost by accident",
        default=False,
    )
    force: BoolProperty(
        name="Other base",
        description="Write even though the base is not the level the scene was imported from (its size or "
        "checksum differ)",
        default=False,
    )
    snap_uvs: BoolProperty(**SNAP_UVS)
    generate_collision: BoolProperty(**GENERATE_COLLISION)
    apply_modifiers: BoolProperty(**APPLY_MODIFIERS)

    def invoke(self, context, event):
        props = context.scene.llamawad
        # The options the scene's last export used (the level check converts with them too).
        self.snap_uvs = props.snap_uvs
        self.generate_collision = props.generate_collision
        self.apply_modifiers = props.apply_modifiers
        if not self.base_path:
            self.base_path = props.base_path
        if not self.filepath and self.base_path:
            stem = os.path.splitext(bpy.path.abspath(self.base_path))[0]
            self.filepath = stem + "-edited.wad"
        return super().invoke(context, event)

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "base_path")
        layout.prop(self, "overwrite_base")
        layout.prop(self, "force")
        layout.prop(self, "snap_uvs")
        layout.prop(self, "generate_collision")
        layout.prop(self, "apply_modifiers")

    def execute(self, context):
        """Export as one pipeline: gather and convert the scene (a refusal writes nothing), put
        what changed into words, write the file, update the scene, report."""
        import llamawad

        scene = context.scene
        base_path = bpy.path.abspath(self.base_path or scene.llamawad.base_path)
        target = bpy.path.abspath(self.filepath)
        problem = self.unwritable(scene, base_path, target)
        if problem:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        scene.llamawad.snap_uvs = self.snap_uvs
        scene.llamawad.generate_collision = self.generate_collision
        scene.llamawad.apply_modifiers = self.apply_modifiers
        try:
            base = read_base(scene, base_path, force=self.force)
            converted = convert(context, base, force=self.force)
        except Refusal as e:
            return self.refused(context, e)
        told = words.told(converted.report, llamawad.tile_models(base), llamawad.tile_models(converted.wad), [n.message for n in converted.gathered.notes])
        over_base = bool(base_path) and os.path.exists(target) and same_file(target, base_path)
        try:
            kept = _write(target, base, converted.wad, over_base)
        except llamawad.WadError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        _update_scene(context, converted, told, target, over_base and (converted.wad != base or bool(converted.gathered.notes)))
        if over_base:
            scene.llamawad.last_export = f"{os.path.basename(target)}, written over its base: {told.summary}"
            message = f"Wrote {target} over its base; the scene now holds the level as written, the base of the next export: {told.summary}"
            if kept:
                message += f"; the original kept as {kept} (Restore original in the Level panel brings it back)"
        else:
            scene.llamawad.last_export = f"{os.path.basename(target)} (base {os.path.basename(base_path)}): {told.summary}"
            message = f"Wrote {target} against the base {base_path}: {told.summary}"
        self.tell(context, told, message)
        return {"FINISHED"}

    def unwritable(self, scene, base_path: str, target: str) -> str:
        """Why nothing can be written, said before anything is gathered; empty when it can."""
        if not level_scene.has_level(scene):
            return "This scene holds no level: import one with File › Import › Emperor's New Groove level"
        if not target:
            return "No file to write to"
        if base_path and os.path.exists(target) and same_file(target, base_path) and not self.overwrite_base:
            return f"{os.path.basename(target)} is the base level: choose another file, or tick 'Overwrite the base' to replace it"
        return ""

    def tell(self, context, told: words.Told, message: str) -> None:
        """The export reported: tile by tile (the first of them), what it did beyond tiles, the
        warnings, the last line; the changes' popup in Blender's window."""
        for r in told.rows[:MAX_TILES_REPORTED]:
            self.report({"INFO"}, r.text())
        if len(told.rows) > MAX_TILES_REPORTED:
            self.report({"INFO"}, f"… {len(told.rows) - MAX_TILES_REPORTED} more tiles in the Level panel's list of changes")
        for line in told.details:
            self.report({"INFO"}, line)
        for note in told.warnings:
            self.report({"WARNING"}, note)
        self.report({"INFO"}, message)
        if not bpy.app.background and context.window is not None and len(context.scene.llamawad.changes):
            bpy.ops.llamawad.export_changes("INVOKE_DEFAULT")

    def refused(self, context, e: Refusal):
        props = context.scene.llamawad
        listed = check.locate_all(e.problems, check.scene_index(context.scene, e.sources, strat_sources=e.strat_sources))
        check.store(props, listed)
        where = ""
        item = props.problems[0]
        obj = check.select_problem(context, item)
        if obj is not None:
            faces = found.faces_text(check.culprit_faces(obj, item))
            where = f" (selected{' in Edit Mode' if obj.mode == 'EDIT' else ''}: {obj.name}{', ' + faces if faces else ''})"
        self.report({"ERROR"}, f"Not written: {e}{where}")
        shown = listed[1:MAX_REPORTED]
        for p in shown:
            self.report({"ERROR"}, p["message"])
        if len(listed) > len(shown) + 1:
            self.report({"ERROR"}, f"… {len(listed) - len(shown) - 1} more in the Level panel's problem list")
        return {"CANCELLED"}


def _write(target: str, base: bytes, wad: bytes, over_base: bool) -> str | None:
    """The level written to ``target``; over the level the scene was made from (in the game's
    folder), its original kept first. Returns the original's path when it was kept now. Raises
    llamawad.WadError saying what was not written."""
    import llamawad

    kept = None
    if over_base:
        try:
            kept = keep_original(target, base)
        except llamawad.WadError as e:
            raise llamawad.WadError(f"Cannot keep the original of {target} as {original_path(target)} ({e}): nothing written; make room for it there, or export to another file") from None
    try:
        write_file(target, wad)
    except llamawad.WadError as e:
        if kept is not None:
            # Made for this write only (a read-only base refuses it): gone with it, so that a
            # later write keeps the original the file then has.
            os.remove(kept)
        raise llamawad.WadError(f"Cannot write {e}") from None
    return kept


def _update_scene(context, converted, told: words.Told, target: str, reload: bool) -> None:
    """What the export leaves in the scene: with ``reload`` (written over its base, other than
    the scene was made from or with edits left out), the scene made the level as written, so
    that the next export starts from it (its new tiles and models, its texture entries, its
    checksum, the read-only parts as the level has them); and the changes listed for the Level
    panel."""
    if reload:
        report = converted.report
        level_objects = converted.gathered.read_only_edited or words.level_objects_changed(report)
        written.update(context, converted.wad, target, report, converted.gathered.new_geometry(), level_objects)
    written.store_changes(context.scene, converted.report, told, reload)


def menu_export(self, context):
    self.layout.operator(LLAMAWAD_OT_export_level.bl_idname, text="Emperor's New Groove level (.wad)")


classes = (LLAMAWAD_OT_export_level,)
