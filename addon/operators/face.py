"""Face panel operators: face flags, the corner choice of the texture rule, texture entries.
Each keeps the faces' UVs, displayed colours and materials in step with what the game draws."""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import EnumProperty, IntProperty

from ..blender import scene as level_scene
from ..blender.modes import object_mode
from ..blender import materials as mats
from ..common import game
from . import _edit

RENDER_ROLES = {"tile", None}


def refresh_faces(obj, faces: np.ndarray, entries: list[dict]) -> None:
    """UVs, displayed colours and material slots of ``faces`` from their flags and entries."""
    mesh = obj.data
    if not len(faces):
        return
    flags = _edit.face_ints(mesh, "wad_flags")
    textures = _edit.face_ints(mesh, "wad_texture")
    loops, face_of_loop = _edit.loops_of_faces(mesh, faces)
    totals = _edit.get(mesh.polygons, "loop_total", np.int64)

    # UVs: the rule gives each triangle's three corners in file order = Blender loop order.
    triangles = faces[totals[faces] == 3]
    if len(triangles):
        layer = mesh.uv_layers.get("UVMap") or mesh.uv_layers.active or mesh.uv_layers.new(name="UVMap")
        uv = _edit.get(layer.uv, "vector", np.float32, 2)
        rule, has = game.face_uvs(entries, textures[triangles], flags[triangles])
        tri_loops, _ = _edit.loops_of_faces(mesh, triangles)
        tri_loops = tri_loops.reshape(-1, 3)[has]
        values = rule[has].copy()
        values[..., 1] = 1.0 - values[..., 1]
        uv[tri_loops.ravel()] = values.reshape(-1, 2)
        layer.uv.foreach_set("vector", uv.ravel())

    # Displayed colours: what the game shows for the raw colours and the faces' flags.
    colours = mesh.color_attributes.get(mats.COLOUR_ATTRIBUTE)
    raw = _edit.point_ints(mesh, "wad_rgb_0")
    if colours is not None and colours.domain == "CORNER" and raw is not None:
        values = _edit.get(colours.data, "color", np.float32, 4)
        loop_vertex = _edit.get(mesh.loops, "vertex_index", np.int64)
        values[loops] = game.shown_colour(raw[loop_vertex[loops]], flags[face_of_loop])
        colours.data.foreach_set("color", values.ravel())

    # Materials: page, blend mode and sidedness of each face's entry.
    index = _edit.get(mesh.polygons, "material_index", np.int32)
    for f in faces.tolist():
        mat = mats.material_for_entry(entries, int(textures[f]), bool(flags[f] & game.FACE_DOUBLE_SIDED))
        slot = next((i for i, m in enumerate(mesh.materials) if m == mat), None)
        if slot is None:
            mesh.materials.append(mat)
            slot = len(mesh.materials) - 1
        index[f] = slot
    mesh.polygons.foreach_set("material_index", index)
    mesh.update()


def _targets(context):
    out = []
    for obj in _edit.candidate_objects(context, RENDER_ROLES):
        faces = _edit.selected_faces(obj)
        if len(faces):
            out.append((obj, faces))
    return out


class _FaceOperator:
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return bool(_edit.candidate_objects(context, RENDER_ROLES))

    def execute(self, context):
        entries = level_scene.level_document(context.scene).get("texture_entries", [])
        with object_mode(context):
            targets = _targets(context)
            if not targets:
                self.report({"ERROR"}, _edit.no_faces_message("faces of a tile"))
                return {"CANCELLED"}
            count = 0
            for obj, faces in targets:
                self.change(obj, faces, entries)
                refresh_faces(obj, faces, entries)
                count += len(faces)
        self.report({"INFO"}, f"{self.done_message()} on {count} face{'s' if count != 1 else ''}")
        return {"FINISHED"}


class LLAMAWAD_OT_face_flag_set(_FaceOperator, bpy.types.Operator):
    """Set or clear a face flag bit on the selected faces (0x400 double-sided, 0x4000 ignore vertex
    colours, 0x1 and 0x2 special draw modes, 0x20 mirrored texture, or any raw bit)"""

    bl_idname = "llamawad.face_flag_set"
    bl_label = "Set Face Flag"

    flag: IntProperty(name="Flag", description="The bit (a power of two, 0x1 to 0x8000)", min=1, max=0x8000, default=game.FACE_DOUBLE_SIDED)
    state: EnumProperty(
        name="State",
        items=(
            ("ON", "On", "Set the bit on every selected face"),
            ("OFF", "Off", "Clear the bit on every selected face"),
            ("TOGGLE", "Toggle", "On if any selected face lacks it, off otherwise"),
        ),
        default="TOGGLE",
    )

    @classmethod
    def description(cls, context, properties):
        for bit, name, meaning in game.NAMED_FLAGS:
            if properties.flag == bit:
                return f"{name}: {meaning}"
        if properties.flag == game.FACE_MIRROR_U:
            return "0x20: the texture rectangle is mirrored left to right on these faces"
        if properties.flag == game.FACE_NEW_BATCH:
            return "0x8: a new render batch starts here; the export sets it itself"
        return f"Raw bit 0x{properties.flag:x}: its meaning in the game is not documented; kept as it is"

    def change(self, obj, faces, entries):
        flags = _edit.face_ints(obj.data, "wad_flags")
        on = self.state == "ON" or (self.state == "TOGGLE" and not (flags[faces] & self.flag).all())
        flags[faces] = flags[faces] | self.flag if on else flags[faces] & ~self.flag
        _edit.set_face_ints(obj.data, "wad_flags", flags)
        self._on = on

    def done_message(self):
        return f"Flag 0x{self.flag:x} {'set' if self._on else 'cleared'}"


class LLAMAWAD_OT_face_uv_half_set(_FaceOperator, bpy.types.Operator):
    """Choose which half of its texture rectangle each selected triangle shows: the whole-triangle
    rule, or the first or second half of a quad (flags 0x800 and 0x10)"""

    bl_idname = "llamawad.face_uv_half_set"
    bl_label = "Set Texture Half"

    half: EnumProperty(name="Half", items=[(k, name, desc) for k, name, desc, _ in game.UV_HALVES], default="FIRST")

    def change(self, obj, faces, entries):
        bits = next(b for k, _, _, b in game.UV_HALVES if k == self.half)
        flags = _edit.face_ints(obj.data, "wad_flags")
        flags[faces] = (flags[faces] & ~(game.FACE_QUAD_HALF | game.FACE_SECOND_HALF)) | bits
        _edit.set_face_ints(obj.data, "wad_flags", flags)

    def done_message(self):
        return f"Texture half '{self.half.lower()}'"


def _entry_items(self, context):
    entries = level_scene.level_document(context.scene).get("texture_entries", [])
    from ..blender import previews

    return [
        (str(i), game.entry_label(i, e), f"Texture entry {i}", previews.entry_icon(context, i), i)
        for i, e in enumerate(entries)
    ] or [("0", "No texture entries", "Import a level first", 0, 0)]


class LLAMAWAD_OT_face_texture_set(_FaceOperator, bpy.types.Operator):
    """Give the selected faces a texture entry of the level's table: the page rectangle (or flat
    colour) they show. UVs and materials follow"""

    bl_idname = "llamawad.face_texture_set"
    bl_label = "Set Texture Entry"
    bl_property = "choice"

    entry: IntProperty(name="Entry", description="Index in the level's texture table (TEXT)", min=-1, default=-1)
    choice: EnumProperty(name="Texture entry", items=_entry_items)

    def invoke(self, context, event):
        if self.entry < 0:
            context.window_manager.invoke_search_popup(self)
            return {"RUNNING_MODAL"}
        return self.execute(context)

    def execute(self, context):
        entries = level_scene.level_document(context.scene).get("texture_entries", [])
        if self.entry < 0:
            self.entry = int(self.choice)
        if not 0 <= self.entry < len(entries):
            self.report({"ERROR"}, f"Texture entry {self.entry} does not exist: the level has entries 0 to {len(entries) - 1}")
            return {"CANCELLED"}
        return super().execute(context)

    def change(self, obj, faces, entries):
        textures = _edit.face_ints(obj.data, "wad_texture")
        textures[faces] = self.entry
        _edit.set_face_ints(obj.data, "wad_texture", textures)

    def done_message(self):
        return f"Texture entry {self.entry}"


class LLAMAWAD_OT_face_select_texture(bpy.types.Operator):
    """Select every face of the edited tiles that uses the active face's texture entry"""

    bl_idname = "llamawad.face_select_texture"
    bl_label = "Select Same Entry"
    bl_options = {"REGISTER", "UNDO"}

    entry: IntProperty(name="Entry", min=0)

    @classmethod
    def poll(cls, context):
        return bool(_edit.candidate_objects(context, RENDER_ROLES))

    def execute(self, context):
        from ..blender import faces as face_tools

        with object_mode(context):
            n = 0
            for obj in _edit.candidate_objects(context, RENDER_ROLES):
                picked = np.nonzero(_edit.face_ints(obj.data, "wad_texture", -1) == self.entry)[0]
                face_tools.select_faces(obj, picked)
                n += len(picked)
        self.report({"INFO"}, f"{n} faces use texture entry {self.entry}")
        return {"FINISHED"}


classes = (LLAMAWAD_OT_face_flag_set, LLAMAWAD_OT_face_uv_half_set, LLAMAWAD_OT_face_texture_set, LLAMAWAD_OT_face_select_texture)
