"""Collision panel operators: the material byte of collision polygons, selecting by material,
showing the collision coloured by material, and collision made from render faces."""

from __future__ import annotations

import bmesh
import bpy
import numpy as np
from bpy.props import BoolProperty, IntProperty
from mathutils import Vector

from ..blender import scene as level_scene
from ..blender.collision import ensure_tile_collision, show_collision
from ..blender.convert import Refusal
from ..blender import materials as mats
from ..blender.wad_to_scene.collision import collision_object_name
from ..blender.modes import object_mode
from ..common import game
from . import _edit

PRESET_TEXT = ", ".join(f"{m} {name.lower()}" for m, name, _ in game.COLLISION_PRESETS)


def recolour(mesh) -> None:
    """The collision mesh's corner colours from its faces' materials (the viewport colouring)."""
    material = _edit.face_ints(mesh, "wad_material")
    total = _edit.get(mesh.polygons, "loop_total", np.int64)
    colours = np.repeat(game.colour_table(game.collision_colour, material), total, axis=0)
    attr = mesh.color_attributes.get(mats.COLOUR_ATTRIBUTE)
    if attr is None or attr.domain != "CORNER":
        if attr is not None:
            mesh.color_attributes.remove(attr)
        attr = mesh.color_attributes.new(mats.COLOUR_ATTRIBUTE, "FLOAT_COLOR", "CORNER")
    attr.data.foreach_set("color", colours.ravel())
    mesh.color_attributes.active_color = attr


class LLAMAWAD_OT_collision_material_set(bpy.types.Operator):
    """Set the collision material of the selected collision faces: what the game does when Kuzco
    touches them (0 normal ground, 16 exit floor, 17 and 18 special floors, 30 death plane or
    water; any number 0 to 255)"""

    bl_idname = "llamawad.collision_material_set"
    bl_label = "Set Collision Material"
    bl_options = {"REGISTER", "UNDO"}

    material: IntProperty(name="Material", min=0, max=255, description=f"Collision material byte: {PRESET_TEXT}")
    whole_model: BoolProperty(
        name="Every tile of the model",
        description="Change the collision of every tile that shares this model's collision mesh. Off: only the "
        "selected tiles change (their collision becomes their own)",
        default=False,
    )

    @classmethod
    def poll(cls, context):
        return bool(collision_objects(context))

    def execute(self, context):
        with object_mode(context):
            count = 0
            done = set()
            for obj in collision_objects(context):
                faces = _edit.selected_faces(obj)
                if not len(faces):
                    continue
                if not self.whole_model:
                    _edit.make_single_user(obj)
                if obj.data in done:
                    continue
                done.add(obj.data)
                material = _edit.face_ints(obj.data, "wad_material")
                material[faces] = self.material
                _edit.set_face_ints(obj.data, "wad_material", material)
                recolour(obj.data)
                obj.data.update()
                count += len(faces)
        if not count:
            self.report({"ERROR"}, _edit.no_faces_message("collision faces"))
            return {"CANCELLED"}
        context.scene.llamawad.collision_material = self.material
        self.report({"INFO"}, f"Collision material {self.material} on {count} face{'s' if count != 1 else ''}")
        return {"FINISHED"}


class LLAMAWAD_OT_collision_select_material(bpy.types.Operator):
    """Select every face of the edited collision meshes with this collision material"""

    bl_idname = "llamawad.collision_select_material"
    bl_label = "Select Material"
    bl_options = {"REGISTER", "UNDO"}

    material: IntProperty(name="Material", min=0, max=255, description=f"Collision material byte: {PRESET_TEXT}")

    @classmethod
    def poll(cls, context):
        return bool(collision_objects(context))

    def execute(self, context):
        from ..blender import faces as face_tools

        with object_mode(context):
            n = 0
            for obj in collision_objects(context):
                picked = np.nonzero(_edit.face_ints(obj.data, "wad_material", -1) == self.material)[0]
                face_tools.select_faces(obj, picked)
                n += len(picked)
        self.report({"INFO"}, f"{n} collision faces with material {self.material}")
        return {"FINISHED"}


class LLAMAWAD_OT_collision_show(bpy.types.Operator):
    """Show or hide the collision meshes in the viewport (they never render)"""

    bl_idname = "llamawad.collision_show"
    bl_label = "Show Collision"
    bl_options = {"REGISTER", "UNDO"}

    show: BoolProperty(name="Show", default=True)
    colour_by_material: BoolProperty(
        name="Colour by material",
        description="Shade the viewport by colour attribute: collision in its material's colour (0 grey-green, "
        "16 yellow, 17 cyan, 18 blue, 30 red), tiles in their vertex colours",
        default=False,
    )

    def execute(self, context):
        scene = context.scene
        try:
            show_collision(context, self.show)
        except Refusal as e:
            self.report({"ERROR"}, f"Collision not shown: {e}")
            return {"CANCELLED"}
        # Set after it is shown: its update would show it again.
        scene.llamawad["show_collision"] = self.show
        if self.colour_by_material:
            for obj in level_scene.objects_with_role(scene, "collision"):
                if obj.type == "MESH":
                    recolour(obj.data)
            for area in context.screen.areas if context.screen else []:
                if area.type == "VIEW_3D":
                    shading = area.spaces.active.shading
                    shading.type = "SOLID"
                    shading.color_type = "VERTEX"
        return {"FINISHED"}


class LLAMAWAD_OT_collision_from_faces(bpy.types.Operator):
    """Make collision from the selected render faces of the edited tiles and new meshes: one
    collision polygon per face (a flat convex quad stays a quad), with the material chosen in the
    panel, added to each tile's own collision; a new mesh gets a child mesh named "collision…",
    which export takes as its collision"""

    bl_idname = "llamawad.collision_from_faces"
    bl_label = "Collision from Faces"
    bl_options = {"REGISTER", "UNDO"}

    material: IntProperty(name="Material", min=0, max=255, description=f"Collision material byte: {PRESET_TEXT}")

    @classmethod
    def poll(cls, context):
        return bool(render_objects(context))

    def execute(self, context):
        scene = context.scene
        try:
            # Added to each tile's own collision: the tiles' collision objects first.
            ensure_tile_collision(context)
        except Refusal as e:
            self.report({"ERROR"}, f"No collision made: {e}")
            return {"CANCELLED"}
        with object_mode(context):
            made = 0
            for obj in render_objects(context):
                faces = _edit.selected_faces(obj)
                if not len(faces):
                    continue
                made += add_collision(scene, obj, faces, self.material)
        if not made:
            self.report({"ERROR"}, _edit.no_faces_message("render faces of a tile or a new mesh"))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{made} collision polygon{'s' if made != 1 else ''} made")
        return {"FINISHED"}


def render_objects(context) -> list:
    """The edited or selected tiles and new meshes."""
    return [o for o in _edit.candidate_objects(context, {"tile", None}) if level_scene.role(o) == "tile" or level_scene.is_new_mesh(context, o)]


def collision_objects(context) -> list:
    """The edited or selected collision meshes: tiles' and new meshes'."""
    return [o for o in _edit.candidate_objects(context, {"collision", None}) if level_scene.role(o) == "collision" or level_scene.is_given_collision(o)]


def _new_collision_object(scene, owner):
    """An empty collision object for ``owner`` at its origin: a tile's (role ``collision``, the
    tile's numbers) or a new mesh's (its child named "collision…"). In the level's Collision
    collection: shown with the rest of the collision, never rendered."""
    is_tile = level_scene.role(owner) == "tile"
    mesh = bpy.data.meshes.new(f"{owner.name} · collision")
    if is_tile:
        collision = bpy.data.objects.new(collision_object_name(level_scene.whole_number(owner, "tile")), mesh)
        collision["llamawad"] = "collision"
        collision["tile"] = owner.get("tile", 0)
        collision["model"] = owner.get("model", 0)
    else:
        collision = bpy.data.objects.new(f"collision · {owner.name}", mesh)
    collision.parent = owner
    coll = level_scene.level_collections(scene).get("collision") or scene.collection
    coll.objects.link(collision)
    collision_material = next((m for m in bpy.data.materials if m.get(mats.KEY) == "collision"), None)
    if collision_material is not None:
        mesh.materials.append(collision_material)
    return collision


def add_collision(scene, owner, faces: np.ndarray, material: int) -> int:
    """Appends the render faces ``faces`` of a tile or new mesh ``owner`` to its collision mesh
    (made when it has none) as new polygons: on a tile ``wad_polygon`` −1 (no polygon of the
    base), on a new mesh a number of their own each."""
    src = owner.data
    loops, face_of_loop = _edit.loops_of_faces(src, faces)
    loop_vertex = _edit.get(src.loops, "vertex_index", np.int64)
    co = _edit.get(src.vertices, "co", np.float32, 3)
    totals = _edit.get(src.polygons, "loop_total", np.int64)[faces]

    is_tile = level_scene.role(owner) == "tile"
    collision = level_scene.collision_of(owner) if is_tile else level_scene.given_collision_of(owner)
    if collision is None:
        collision = _new_collision_object(scene, owner)
    else:
        _edit.make_single_user(collision)
    # Numbers for a new mesh's polygons: each face a polygon of its own.
    number = -1 if is_tile else int(_edit.face_ints(collision.data, "wad_polygon", -1).max(initial=-1)) + 1
    # Collision corners are in the owner's frame; the collision object sits at its origin.
    local = collision.matrix_parent_inverse @ collision.matrix_basis
    to_collision = local.inverted()
    bm = bmesh.new()
    bm.from_mesh(collision.data)
    layers = {name: bm.faces.layers.int.get(name) or bm.faces.layers.int.new(name) for name in ("wad_polygon", "wad_material", "wad_kind", "wad_group")}
    start = 0
    made = 0
    new_verts = []
    for total in totals.tolist():
        corners = [to_collision @ Vector(co[loop_vertex[loops[start + k]]]) for k in range(total)]
        start += total
        verts = [bm.verts.new(c) for c in corners]
        new_verts.extend(verts)
        try:
            face = bm.faces.new(verts)
        except ValueError:
            continue
        face[layers["wad_polygon"]] = number
        face[layers["wad_material"]] = material
        face[layers["wad_kind"]] = 0
        face[layers["wad_group"]] = 0
        if not is_tile:
            number += 1
        made += 1
    bmesh.ops.remove_doubles(bm, verts=new_verts, dist=1e-6)
    bm.to_mesh(collision.data)
    bm.free()
    recolour(collision.data)
    collision.data.update()
    return made


classes = (
    LLAMAWAD_OT_collision_material_set,
    LLAMAWAD_OT_collision_select_material,
    LLAMAWAD_OT_collision_show,
    LLAMAWAD_OT_collision_from_faces,
)
