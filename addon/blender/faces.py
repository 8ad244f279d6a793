"""Per-face attributes of the selected faces, in edit mode (through bmesh) and in object mode
(through the mesh's select flags, for scripts), and selecting the faces at fault."""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from . import scene as level_scene


def in_edit_mode(obj) -> bool:
    return obj is not None and obj.type == "MESH" and obj.mode == "EDIT"


def selected_face_indices(obj) -> np.ndarray:
    mesh = obj.data
    if in_edit_mode(obj):
        bm = bmesh.from_edit_mesh(mesh)
        return np.fromiter((f.index for f in bm.faces if f.select), np.int64)
    sel = np.zeros(len(mesh.polygons), bool)
    mesh.polygons.foreach_get("select", sel)
    return np.nonzero(sel)[0]


def read_face_ints(obj, name: str, default: int = 0) -> np.ndarray:
    """A FACE-domain INT attribute over all faces (edit mode included)."""
    mesh = obj.data
    if in_edit_mode(obj):
        bm = bmesh.from_edit_mesh(mesh)
        layer = bm.faces.layers.int.get(name)
        if layer is None:
            return np.full(len(bm.faces), default, np.int64)
        return np.fromiter((f[layer] for f in bm.faces), np.int64, len(bm.faces))
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != "FACE":
        return np.full(len(mesh.polygons), default, np.int64)
    values = np.empty(len(mesh.polygons), np.int32)
    attr.data.foreach_get("value", values)
    return values.astype(np.int64)


def select_faces(obj, faces) -> None:
    """Selects exactly these faces of a mesh object (and their vertices and edges)."""
    mesh = obj.data
    faces = np.asarray(list(faces), np.int64)
    if in_edit_mode(obj):
        bm = bmesh.from_edit_mesh(mesh)
        bm.faces.ensure_lookup_table()
        for f in bm.faces:
            f.select_set(False)
        for f in faces.tolist():
            if f < len(bm.faces):
                bm.faces[f].select_set(True)
        bm.select_flush_mode()
        bmesh.update_edit_mesh(mesh, loop_triangles=False, destructive=False)
        return
    faces = faces[faces < len(mesh.polygons)]
    poly = np.zeros(len(mesh.polygons), bool)
    poly[faces] = True
    mesh.polygons.foreach_set("select", poly)
    loop_start = np.empty(len(mesh.polygons), np.int32)
    loop_total = np.empty(len(mesh.polygons), np.int32)
    mesh.polygons.foreach_get("loop_start", loop_start)
    mesh.polygons.foreach_get("loop_total", loop_total)
    loop_vert = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", loop_vert)
    loop_edge = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("edge_index", loop_edge)
    selected_loops = np.repeat(poly, loop_total)
    vert = np.zeros(len(mesh.vertices), bool)
    vert[loop_vert[selected_loops]] = True
    edge = np.zeros(len(mesh.edges), bool)
    edge[loop_edge[selected_loops]] = True
    mesh.vertices.foreach_set("select", vert)
    bogus = mesh.attributes.get(".select_edge")
    if bogus is not None and bogus.data_type != "BOOLEAN":
        mesh.attributes.remove(bogus)  # see blender/wad_to_scene/level.py _finish
    mesh.edges.foreach_set("select", edge)
    mesh.update()


def select_culprit(context, object_name: str, faces: list[int], edit: bool = True) -> bpy.types.Object | None:
    """Makes the object at fault the only selected and the active object, selects its faces at
    fault and, when there is a UI to show them in, enters edit mode with face selection."""
    obj = context.scene.objects.get(object_name) if object_name else None
    if obj is None:
        return None
    if level_scene.role(obj) == "collision" and not context.scene.llamawad.show_collision:
        context.scene.llamawad.show_collision = True
    if context.mode != "OBJECT" and context.view_layer.objects.active is not None:
        try:
            bpy.ops.object.mode_set(mode="OBJECT")
        except RuntimeError:
            pass
    for o in context.view_layer.objects.selected:
        o.select_set(False)
    if level_scene.include_in_view_layer(context.view_layer, obj):
        obj.hide_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
    # Where it still cannot be selected, its faces are marked all the same.
    if obj.type == "MESH" and faces:
        select_faces(obj, faces)
        if edit and context.window is not None:
            # Face select mode first: switching to it inside edit mode would also select every
            # face whose corners are all selected.
            context.tool_settings.mesh_select_mode = (False, False, True)
            try:
                bpy.ops.object.mode_set(mode="EDIT")
            except RuntimeError:
                pass
    return obj
