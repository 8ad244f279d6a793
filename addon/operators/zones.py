"""Zones panel operators: the visibility zone of grid cells and the 32 × 32 visibility matrix
(which zones the game draws while the camera is in a zone)."""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, IntProperty

from ..blender import faces as face_tools
from ..blender import scene as level_scene
from ..blender.modes import object_mode
from ..blender import materials as mats
from ..common import game
from . import _edit


def recolour(mesh) -> None:
    zone = _edit.face_ints(mesh, "wad_zone")
    total = _edit.get(mesh.polygons, "loop_total", np.int64)
    attr = mesh.color_attributes.get(mats.COLOUR_ATTRIBUTE)
    if attr is None:
        attr = mesh.color_attributes.new(mats.COLOUR_ATTRIBUTE, "FLOAT_COLOR", "CORNER")
    attr.data.foreach_set("color", np.repeat(game.colour_table(game.zone_colour, zone), total, axis=0).ravel())


def _zones_target(context):
    obj = level_scene.zones_object(context.scene)
    return obj


class LLAMAWAD_OT_zone_set(bpy.types.Operator):
    """Put the selected grid cells (faces of the Zones mesh) into a visibility zone: the game draws
    a cell's tiles when the camera's zone sees the cell's zone"""

    bl_idname = "llamawad.zone_set"
    bl_label = "Set Zone"
    bl_options = {"REGISTER", "UNDO"}

    zone: IntProperty(name="Zone", min=0, max=31, description="Visibility zone 0 to 31")

    @classmethod
    def poll(cls, context):
        return _zones_target(context) is not None

    def execute(self, context):
        obj = _zones_target(context)
        with object_mode(context):
            cells = _edit.selected_faces(obj)
            if not len(cells):
                self.report({"ERROR"}, _edit.no_faces_message("cells of the Zones mesh"))
                return {"CANCELLED"}
            zone = _edit.face_ints(obj.data, "wad_zone")
            zone[cells] = self.zone
            _edit.set_face_ints(obj.data, "wad_zone", zone)
            recolour(obj.data)
            obj.data.update()
        context.scene.llamawad.zone = self.zone
        self.report({"INFO"}, f"{len(cells)} cell{'s' if len(cells) != 1 else ''} in zone {self.zone}")
        return {"FINISHED"}


class LLAMAWAD_OT_zone_visibility_set(bpy.types.Operator):
    """Say whether the game draws zone 'Other' while the camera is in zone 'Zone' (bit Other of
    Zone's visibility mask)"""

    bl_idname = "llamawad.zone_visibility_set"
    bl_label = "Set Zone Visibility"
    bl_options = {"REGISTER", "UNDO"}

    zone: IntProperty(name="Zone", min=0, max=31, description="The zone the camera is in")
    other: IntProperty(name="Other", min=0, max=31, description="The zone that is drawn or not")
    state: EnumProperty(
        name="State",
        items=(("ON", "Visible", "Zone sees Other"), ("OFF", "Hidden", "Zone does not see Other"), ("TOGGLE", "Toggle", "Flip the bit")),
        default="TOGGLE",
    )
    both_ways: BoolProperty(name="Both ways", description="Set the same for Other seeing Zone", default=False)

    @classmethod
    def poll(cls, context):
        return bool(level_scene.level_document(context.scene).get("regions"))

    def execute(self, context):
        doc = level_scene.level_document(context.scene)
        regions = doc["regions"]
        visible = {"ON": True, "OFF": False}.get(self.state, not game.sees(regions, self.zone, self.other))
        pairs = [(self.zone, self.other)] + ([(self.other, self.zone)] if self.both_ways else [])
        for a, z in pairs:
            mask = int(regions[a]["mask"])
            mask = mask | (1 << z) if visible else mask & ~(1 << z)
            regions[a]["mask"] = mask
        level_scene.store_level_document(context.scene, doc)
        self.report({"INFO"}, f"Zone {self.zone} {'sees' if visible else 'does not see'} zone {self.other}")
        return {"FINISHED"}


class LLAMAWAD_OT_zone_select_visible(bpy.types.Operator):
    """Select the cells the game draws from here: every cell whose zone is visible from the zone of
    the selected cells (or from the zone given)"""

    bl_idname = "llamawad.zone_select_visible"
    bl_label = "Show Cells Visible from Here"
    bl_options = {"REGISTER", "UNDO"}

    zone: IntProperty(name="Zone", min=-1, max=31, default=-1, description="The camera's zone; -1: the zone of the selected cells")

    @classmethod
    def poll(cls, context):
        return _zones_target(context) is not None

    def execute(self, context):
        obj = _zones_target(context)
        regions = level_scene.level_document(context.scene).get("regions", [])
        with object_mode(context):
            zone = _edit.face_ints(obj.data, "wad_zone")
            if self.zone >= 0:
                here = {self.zone}
            else:
                here = set(zone[_edit.selected_faces(obj)].tolist())
            if not here:
                self.report({"ERROR"}, _edit.no_faces_message("a cell of the Zones mesh"))
                return {"CANCELLED"}
            seen = {z for a in here for z in range(game.ZONES) if a < len(regions) and game.sees(regions, a, z)}
            picked = np.nonzero(np.isin(zone, sorted(seen)))[0]
            face_tools.select_faces(obj, picked)
        self.report({"INFO"}, f"Zone{'s' if len(here) > 1 else ''} {', '.join(map(str, sorted(here)))} see{'' if len(here) > 1 else 's'} {len(picked)} cells (zones {', '.join(map(str, sorted(seen))) or 'none'})")
        return {"FINISHED"}


class LLAMAWAD_OT_zones_show(bpy.types.Operator):
    """Show the zone grid filled with each zone's colour (to see and paint zones), or as a wire over
    the level (to work on the tiles); it never renders"""

    bl_idname = "llamawad.zones_show"
    bl_label = "Show Zone Colours"
    bl_options = {"REGISTER", "UNDO"}

    colours: BoolProperty(name="Colours", description="Filled with the zone colours; off: wire", default=True)

    @classmethod
    def poll(cls, context):
        return _zones_target(context) is not None

    def execute(self, context):
        obj = _zones_target(context)
        obj.display_type = "SOLID" if self.colours else "WIRE"
        if self.colours:
            recolour(obj.data)
            for area in context.screen.areas if context.screen else []:
                if area.type == "VIEW_3D":
                    area.spaces.active.shading.color_type = "VERTEX"
        return {"FINISHED"}


classes = (LLAMAWAD_OT_zone_set, LLAMAWAD_OT_zone_visibility_set, LLAMAWAD_OT_zone_select_visible, LLAMAWAD_OT_zones_show)
