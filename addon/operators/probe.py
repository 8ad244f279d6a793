"""Floor probe operators: the game's floor test at the 3D cursor (or a given point), and by
clicking in the viewport."""

from __future__ import annotations

import math

import bpy
from bpy.props import BoolProperty, FloatVectorProperty

from ..blender import probe
from ..blender import scene as level_scene
from ..blender.convert import Refusal
from ..common import probe as words


def _report_result(op, result: dict) -> None:
    rows = words.describe(result, result["objects"])
    op.report({"INFO"}, f"{rows[1].text} ({rows[1].detail or 'no polygon'}); probed {result['source']}")


class LLAMAWAD_OT_floor_probe(bpy.types.Operator):
    """Run the game's floor test at the 3D cursor: the polygon the llama would stand on there,
    its height and material, and every polygon that lost and why (shown in the Floor probe panel
    and drawn in the viewport)"""

    bl_idname = "llamawad.floor_probe"
    bl_label = "Probe the Floor"
    bl_options = {"REGISTER", "UNDO"}

    at_cursor: BoolProperty(name="At the 3D cursor", description="Probe at the 3D cursor; off: at Location", default=True)
    location: FloatVectorProperty(name="Location", description="Where to probe (Blender space) when not at the 3D cursor", subtype="XYZ", size=3)

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def execute(self, context):
        point = context.scene.cursor.location.copy() if self.at_cursor else self.location
        if not all(math.isfinite(v) for v in point):
            where = "the 3D cursor" if self.at_cursor else "Location"
            self.report({"ERROR"}, f"{where} is at no place ({tuple(point)}): nothing to probe")
            return {"CANCELLED"}
        try:
            level = probe.probed_level(context)
        except Refusal as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        result = probe.probe_points(level, [point])[0]
        probe.store(context.scene, result)
        probe.redraw(context)
        _report_result(self, result)
        return {"FINISHED"}


class LLAMAWAD_OT_floor_probe_click(bpy.types.Operator):
    """Click in the 3D view to run the game's floor test there: from just above the surface under
    the mouse, the polygon the llama would stand on and every polygon that lost and why. Right
    click or Esc ends"""

    bl_idname = "llamawad.floor_probe_click"
    bl_label = "Probe the Floor by Clicking"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene) and context.area is not None and context.area.type == "VIEW_3D"

    def invoke(self, context, event):
        try:
            self._level = probe.probed_level(context)
        except Refusal as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        context.window_manager.modal_handler_add(self)
        context.area.header_text_set("Floor probe: click where the llama should stand · right click / Esc: done")
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type in {"RIGHTMOUSE", "ESC"} and event.value == "PRESS":
            context.area.header_text_set(None)
            return {"FINISHED"}
        if event.type != "LEFTMOUSE" or event.value != "PRESS":
            return {"PASS_THROUGH"}
        from bpy_extras import view3d_utils

        # Invoked from the sidebar, the context's region is the sidebar's: find the view's own.
        region = next((r for r in context.area.regions if r.type == "WINDOW"), None)
        rv3d = context.area.spaces.active.region_3d
        if region is None or rv3d is None:
            return {"PASS_THROUGH"}
        coord = (event.mouse_x - region.x, event.mouse_y - region.y)
        if not (0 <= coord[0] < region.width and 0 <= coord[1] < region.height):
            return {"PASS_THROUGH"}
        origin = view3d_utils.region_2d_to_origin_3d(region, rv3d, coord)
        direction = view3d_utils.region_2d_to_vector_3d(region, rv3d, coord)
        result = probe.probe_along_ray(context, self._level, origin, direction)
        if result is None:
            self.report({"WARNING"}, "Nothing of the level under the mouse")
        else:
            probe.store(context.scene, result)
            _report_result(self, result)
        probe.redraw(context)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        self.report({"ERROR"}, "Click in the 3D view: this tool runs there (use Probe the Floor for the 3D cursor)")
        return {"CANCELLED"}


class LLAMAWAD_OT_floor_probe_clear(bpy.types.Operator):
    """Forget the last floor probe: the panel and the viewport no longer show it"""

    bl_idname = "llamawad.floor_probe_clear"
    bl_label = "Clear the Probe"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.llamawad.probe_json = ""
        probe.redraw(context)
        return {"FINISHED"}


classes = (LLAMAWAD_OT_floor_probe, LLAMAWAD_OT_floor_probe_click, LLAMAWAD_OT_floor_probe_clear)
