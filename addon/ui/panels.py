"""The "WAD" tab of the 3D view's sidebar: Level (with Pages), Floor probe, Light, Face, Collision,
Zones and Strat panels. Every button is an operator (scriptable, found with F3, undoable when it
changes the scene); the panels only show state."""

from __future__ import annotations

import os

import bpy
import numpy as np

from ..blender import faces as face_tools
from ..blender import page_files
from ..blender import probe
from ..blender import scene as level_scene
from ..blender import strats
from ..common import game
from ..common import guide
from ..common import probe as probe_words
from ..blender import previews
from ..operators.original import LLAMAWAD_OT_restore_original

CATEGORY = "WAD"


def _selection_values(obj, name, default=0):
    """Values of a face attribute on the selected faces (edit mode: live; object mode: select
    flags)."""
    faces = face_tools.selected_face_indices(obj)
    if not len(faces):
        return faces, np.zeros(0, np.int64)
    return faces, face_tools.read_face_ints(obj, name, default)[faces]


def _state(values: np.ndarray, bit: int) -> str:
    on = (values & bit) != 0
    return "ALL" if on.all() else "NONE" if not on.any() else "MIXED"


def _flag_button(layout, values, bit, text):
    state = _state(values, bit)
    icon = {"ALL": "CHECKBOX_HLT", "NONE": "CHECKBOX_DEHLT", "MIXED": "REMOVE"}[state]
    op = layout.operator("llamawad.face_flag_set", text=text + (" (mixed)" if state == "MIXED" else ""), icon=icon, depress=state == "ALL")
    op.flag = bit
    op.state = "OFF" if state == "ALL" else "ON"


class _Panel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def draw_header(self, context):
        # "?": the guide's page for this panel, in the web browser.
        self.layout.operator("wm.url_open", text="", icon="QUESTION", emboss=False).url = guide.page_url(guide.PANEL_PAGES[self.bl_idname])


class LLAMAWAD_PT_face(_Panel, bpy.types.Panel):
    bl_label = "Face"
    bl_idname = "LLAMAWAD_PT_face"

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        if obj is None or obj.type != "MESH" or level_scene.role(obj) not in ("tile", None):
            layout.label(text="Select a tile and its faces (edit mode)", icon="INFO")
            return
        faces, flags = _selection_values(obj, "wad_flags")
        if not len(faces):
            layout.label(text="No faces selected" + ("" if obj.mode == "EDIT" else ": Tab into edit mode"), icon="INFO")
            return
        layout.label(text=f"{obj.name}: {len(faces)} face{'s' if len(faces) != 1 else ''}")
        col = layout.column(align=True)
        for bit, name, _ in game.NAMED_FLAGS:
            _flag_button(col, flags, bit, f"{name} (0x{bit:x})")

        box = layout.box()
        box.label(text="Texture half")
        row = box.row(align=True)
        halves = flags & (game.FACE_QUAD_HALF | game.FACE_SECOND_HALF)
        for key, name, _, bits in game.UV_HALVES:
            chosen = (halves == (bits if bits & game.FACE_QUAD_HALF else 0)) | ((bits == 0) & ((halves & game.FACE_QUAD_HALF) == 0))
            op = row.operator("llamawad.face_uv_half_set", text=name, depress=bool(chosen.all()))
            op.half = key
        _flag_button(box, flags, game.FACE_MIRROR_U, "Mirrored (0x20)")

        box = layout.box()
        box.label(text="Texture entry")
        _, textures = _selection_values(obj, "wad_texture", -1)
        distinct = np.unique(textures)
        entries = level_scene.level_document(context.scene).get("texture_entries", [])
        if len(distinct) == 1 and 0 <= distinct[0] < len(entries):
            entry = int(distinct[0])
            row = box.row()
            row.template_icon(icon_value=previews.entry_icon(context, entry), scale=4.0)
            col = row.column()
            col.label(text=game.entry_label(entry, entries[entry]))
            col.label(text=game.blender_material_name(entries[entry], bool(((flags & game.FACE_DOUBLE_SIDED) != 0).all())))
            col.operator("llamawad.face_select_texture", text="Select same entry").entry = entry
        elif len(distinct) > 1:
            box.label(text=f"Mixed: entries {', '.join(map(str, distinct[:6]))}{' …' if len(distinct) > 6 else ''}")
        else:
            box.label(text="No entry", icon="ERROR")
        box.operator("llamawad.face_texture_set", text="Pick entry…", icon="TEXTURE").entry = -1

        box = layout.box()
        box.label(text="Other bits (raw)")
        grid = box.grid_flow(columns=4, align=True)
        for bit in game.RAW_BITS:
            state = _state(flags, bit)
            op = grid.operator("llamawad.face_flag_set", text=f"0x{bit:x}" + ("~" if state == "MIXED" else ""), depress=state == "ALL")
            op.flag = bit
            op.state = "OFF" if state == "ALL" else "ON"


class LLAMAWAD_PT_collision(_Panel, bpy.types.Panel):
    bl_label = "Collision"
    bl_idname = "LLAMAWAD_PT_collision"

    def draw(self, context):
        layout = self.layout
        props = context.scene.llamawad
        row = layout.row(align=True)
        op = row.operator("llamawad.collision_show", text="Hide collision" if props.show_collision else "Show collision", icon="HIDE_OFF" if props.show_collision else "HIDE_ON", depress=props.show_collision)
        op.show = not props.show_collision
        op = row.operator("llamawad.collision_show", text="Colour by material", icon="COLOR")
        op.show = True
        op.colour_by_material = True

        obj = context.active_object
        if obj is not None and obj.type == "MESH" and (level_scene.role(obj) == "tile" or level_scene.is_new_mesh(context, obj)):
            # Decoration: the tile loses its collision, a new mesh gets none made.
            layout.prop(obj, "llamawad_no_collision")
            if level_scene.role(obj) == "tile" and obj.get("collision_polygons") == 0 and not obj.llamawad_no_collision:
                layout.label(text="This tile has no collision: the llama passes through it", icon="INFO")
        if obj is not None and obj.type == "MESH" and (level_scene.role(obj) == "collision" or level_scene.is_given_collision(obj)):
            faces, material = _selection_values(obj, "wad_material")
            users = obj.data.users
            layout.label(text=f"{obj.name}" + (f" (model shared by {users} tiles)" if users > 1 else ""))
            if len(faces):
                distinct = np.unique(material)
                layout.label(text=f"{len(faces)} faces: material {', '.join(map(str, distinct[:6]))}" + (" (mixed)" if len(distinct) > 1 else ""))
            else:
                layout.label(text="No collision faces selected", icon="INFO")
        col = layout.column(align=True)
        for m, name, meaning in game.COLLISION_PRESETS:
            op = col.operator("llamawad.collision_material_set", text=f"{m}: {name}")
            op.material = m
        row = layout.row(align=True)
        row.prop(props, "collision_material", text="Material")
        row.operator("llamawad.collision_material_set", text="Set").material = props.collision_material
        row.operator("llamawad.collision_select_material", text="Select").material = props.collision_material
        layout.operator("llamawad.collision_from_faces", text="Collision from selected faces", icon="MOD_PHYSICS").material = props.collision_material


class LLAMAWAD_PT_zones(_Panel, bpy.types.Panel):
    bl_label = "Zones"
    bl_idname = "LLAMAWAD_PT_zones"

    def draw(self, context):
        layout = self.layout
        props = context.scene.llamawad
        zones = level_scene.zones_object(context.scene)
        if zones is None:
            layout.label(text="The level has no Zones mesh")
            return
        if context.active_object == zones:
            cells, zone = _selection_values(zones, "wad_zone")
            if len(cells):
                distinct = np.unique(zone)
                layout.label(text=f"{len(cells)} cells in zone {', '.join(map(str, distinct[:6]))}" + (" (mixed)" if len(distinct) > 1 else ""))
            else:
                layout.label(text="No cells selected (edit the Zones mesh)", icon="INFO")
        filled = zones.display_type != "WIRE"
        op = layout.operator("llamawad.zones_show", text="Zone colours", icon="COLOR", depress=filled)
        op.colours = not filled
        row = layout.row(align=True)
        row.prop(props, "zone")
        row.operator("llamawad.zone_set", text="Set").zone = props.zone
        layout.operator("llamawad.zone_select_visible", text="Show cells visible from here", icon="HIDE_OFF").zone = -1

        regions = level_scene.level_document(context.scene).get("regions", [])
        if not regions:
            return
        box = layout.box()
        row = box.row()
        row.prop(props, "view_zone", text="Zone sees")
        grid = box.grid_flow(columns=8, align=True)
        for z in range(game.ZONES):
            seen = game.sees(regions, props.view_zone, z)
            op = grid.operator("llamawad.zone_visibility_set", text=str(z), depress=seen)
            op.zone = props.view_zone
            op.other = z
            op.state = "OFF" if seen else "ON"


class LLAMAWAD_PT_zone_matrix(_Panel, bpy.types.Panel):
    bl_label = "Visibility matrix"
    bl_idname = "LLAMAWAD_PT_zone_matrix"
    bl_parent_id = "LLAMAWAD_PT_zones"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        regions = level_scene.level_document(context.scene).get("regions", [])
        col = self.layout.column(align=True)
        col.label(text="Row: the camera's zone; column: the zone drawn")
        for a in range(min(len(regions), game.ZONES)):
            row = col.row(align=True)
            row.scale_x = 0.5
            row.label(text=f"{a:2}")
            for z in range(game.ZONES):
                seen = game.sees(regions, a, z)
                op = row.operator("llamawad.zone_visibility_set", text="", icon="CHECKBOX_HLT" if seen else "CHECKBOX_DEHLT", emboss=False)
                op.zone, op.other, op.state = a, z, "OFF" if seen else "ON"


class LLAMAWAD_PT_strat(_Panel, bpy.types.Panel):
    bl_label = "Strat"
    bl_idname = "LLAMAWAD_PT_strat"

    def draw(self, context):
        layout = self.layout
        layout.operator("llamawad.strat_add", text="Add strat at 3D cursor", icon="ADD")
        layout.operator("llamawad.strat_table", text="Strat table of a folder…", icon="SPREADSHEET")
        obj = context.active_object
        if obj is None or level_scene.role(obj) != "strat":
            layout.label(text="Select a strat (Strats collection) to tune it", icon="INFO")
            return
        box = layout.box()
        box.label(text=f"{obj.get('type_name') or 'unnamed type'}: strat {obj.get('strat')}", icon="EMPTY_SINGLE_ARROW")
        box.label(text=f"Code offset {obj.get('code_offset')}")
        created = not game.strat_not_created_at_start(obj)
        op = box.operator(
            "llamawad.strat_created_at_start",
            text="Created at level start" if created else "Not created at level start",
            icon="CHECKBOX_HLT" if created else "CHECKBOX_DEHLT",
            depress=created,
        )
        op.created = not created
        box.operator("llamawad.strat_drop_to_floor", icon="TRIA_DOWN_BAR")
        parameters = obj.get("parameters")
        col = layout.column(align=True)
        if hasattr(parameters, "to_list"):
            col.label(text=f"Parameters ({len(parameters)})")
            for k, value in enumerate(parameters.to_list()):
                row = col.row(align=True)
                row.prop(obj, '["parameters"]', index=k, text=f"{k}")
                units = game.parameter_units(value)
                row.label(text=f"= {units:.4g} units" if units is not None else "")
        elif parameters in (None, "[]"):
            col.label(text="No parameters")
        else:
            col.label(text="Parameters: edit the custom property 'parameters'", icon="INFO")
        waypoint = obj.get("waypoint")
        if not isinstance(waypoint, int) or waypoint < 0:
            layout.label(text="No waypoints")
            return
        chain = strats.waypoint_chain(strats.waypoint_order(context.scene), waypoint)
        box = layout.box()
        box.label(text=f"Waypoint chain from {waypoint}: {len(chain)} point{'s' if len(chain) != 1 else ''} (move them; Shift D inserts one after)")
        col = box.column(align=True)
        for point in chain[:12]:
            col.label(text=point.name, icon="EMPTY_AXIS")
        if len(chain) > 12:
            col.label(text=f"… {len(chain) - 12} more")


class LLAMAWAD_UL_problems(bpy.types.UIList):
    """The level check's problems: new errors and warnings first, then (greyed) those the base
    level has already. Clicking one selects and frames its culprit."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.active = not item.pre_existing
        text = item.message + (" (in the base already)" if item.pre_existing else "")
        row.label(text=text, icon="CANCEL" if item.error else "ERROR")
        # What the problem means and how to fix it: its code's section of the guide.
        row.operator("wm.url_open", text="", icon="QUESTION", emboss=False).url = guide.code_url(item.code)
        if item.object:
            row.operator("llamawad.problem_select", text="", icon="RESTRICT_SELECT_OFF", emboss=False).index = index


class LLAMAWAD_UL_changes(bpy.types.UIList):
    """What the last export changed, tile by tile, then its figures and warnings. Clicking a
    tile's row selects its object."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        layout.label(text=item.text, icon="MESH_DATA" if item.object else "BLANK1")


class LLAMAWAD_PT_level(_Panel, bpy.types.Panel):
    bl_label = "Level"
    bl_idname = "LLAMAWAD_PT_level"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        props = scene.llamawad
        doc = level_scene.level_document(scene)
        col = layout.column(align=True)
        col.label(text=f"Name: {doc.get('level_name') or '?'}")
        w, h = doc.get("grid", [0, 0])
        col.label(text=f"Grid: {w} × {h} cells")
        col.label(text=f"WFPC flags: 0x{int(doc.get('wfpc', 0)):08x} (read-only)")
        colls = level_scene.level_collections(scene)
        tiles = colls.get("tiles")
        if tiles is not None:
            col.label(text=f"Tiles: {len(tiles.all_objects)}, texture entries: {len(doc.get('texture_entries', []))}")
        strats = colls.get("strats")
        if strats is not None:
            col.label(text=f"Strats: {len(strats.objects)}")
        layout.prop(props, "base_path")
        if props.last_export:
            row = layout.row()
            row.label(text=f"Last export: {props.last_export}", icon="CHECKMARK")
            if props.changes:
                row.operator("llamawad.export_changes", text="", icon="TEXT")
                layout.template_list("LLAMAWAD_UL_changes", "", props, "changes", props, "change_index", rows=4)
        for warning in filter(None, props.import_warnings.split("\n")):
            layout.label(text=warning, icon="ERROR")
        layout.operator("llamawad.check_level", icon="VIEWZOOM")
        if props.checked:
            if props.problems:
                layout.label(text=props.check_summary)
                layout.template_list("LLAMAWAD_UL_problems", "", props, "problems", props, "problem_index", rows=6)
            else:
                layout.label(text="No problems found", icon="CHECKMARK")
        layout.operator("export_scene.llamawad", text="Export…", icon="EXPORT")
        if LLAMAWAD_OT_restore_original.poll(context):
            layout.operator("llamawad.restore_original", text="Restore original", icon="LOOP_BACK")
        layout.operator("llamawad.test_level", text="Make test level…", icon="EXPERIMENTAL")


class LLAMAWAD_PT_pages(_Panel, bpy.types.Panel):
    """The level's texture pages: each with its size and how its image shows it, its file (once
    saved as files) and a button that sets it from a PNG file."""

    bl_label = "Pages"
    bl_idname = "LLAMAWAD_PT_pages"
    bl_parent_id = "LLAMAWAD_PT_level"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        layout.operator("llamawad.save_pages", text="Save pages as files…", icon="FILE_IMAGE")
        listed = game.pages(context.scene.llamawad.pages_json)
        if not listed:
            layout.label(text="The level has no texture pages")
            return
        col = layout.column(align=True)
        for page in listed:
            row = col.row(align=True)
            image = page_files.page_image(page["page"])
            file = page_files.linked_file(image) if image is not None else None
            row.label(text=game.page_label(page), icon="IMAGE_DATA")
            row.label(text=os.path.basename(file) if file else "packed in the .blend")
            op = row.operator("llamawad.page_from_file", text="", icon="FILEBROWSER")
            op.page = page["page"]


class LLAMAWAD_PT_probe(_Panel, bpy.types.Panel):
    bl_label = "Floor probe"
    bl_idname = "LLAMAWAD_PT_probe"

    def draw(self, context):
        layout = self.layout
        props = context.scene.llamawad
        row = layout.row(align=True)
        row.operator("llamawad.floor_probe", text="At 3D cursor", icon="PIVOT_CURSOR")
        row.operator("llamawad.floor_probe_click", text="Click in view", icon="EYEDROPPER")
        result = probe.stored(context.scene)
        if result is None:
            layout.label(text="The floor test where the llama would stand", icon="INFO")
            return
        row = layout.row(align=True)
        row.prop(props, "probe_show", text="Draw in viewport")
        row.operator("llamawad.floor_probe_clear", text="", icon="X")
        layout.label(text=f"Probed {result['source']}")
        rows = probe_words.describe(result, result["objects"])
        col = layout.column(align=True)
        for r in rows[:2]:
            col.label(text=r.text, icon="CHECKMARK" if r.won else "BLANK1")
            if r.detail:
                col.label(text=r.detail, icon="BLANK1")
        if len(rows) > 2:
            box = layout.box()
            box.label(text="Other polygons the test looked at")
            for r in rows[2:]:
                box.label(text=r.text)
                box.label(text=r.detail, icon="BLANK1")


class LLAMAWAD_PT_light(_Panel, bpy.types.Panel):
    bl_label = "Light"
    bl_idname = "LLAMAWAD_PT_light"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        props = context.scene.llamawad
        layout.label(text="Game space (y up); colours as the game shows them")
        col = layout.column(align=True)
        col.prop(props, "light_sun_direction", text="Sun goes")
        col.prop(props, "light_sun_colour")
        col.prop(props, "light_sky_colour")
        col = layout.column(align=True)
        col.prop(props, "light_occlusion")
        col.prop(props, "light_rays")
        col.prop(props, "light_animated")
        col.prop(props, "light_blender_lights")
        layout.operator("llamawad.fit_light", icon="EYEDROPPER")
        if props.light_fit:
            layout.label(text=props.light_fit, icon="INFO")
        row = layout.row(align=True)
        row.operator("llamawad.bake_light", text="Bake selected", icon="LIGHT_SUN").whole_level = False
        row.operator("llamawad.bake_light", text="Bake level", icon="WORLD").whole_level = True


classes = (
    LLAMAWAD_PT_level,
    LLAMAWAD_PT_pages,
    LLAMAWAD_PT_probe,
    LLAMAWAD_PT_light,
    LLAMAWAD_PT_face,
    LLAMAWAD_PT_collision,
    LLAMAWAD_PT_zones,
    LLAMAWAD_PT_zone_matrix,
    LLAMAWAD_PT_strat,
    LLAMAWAD_UL_problems,
    LLAMAWAD_UL_changes,
)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
    previews.clear()
