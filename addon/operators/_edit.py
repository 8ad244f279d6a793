"""What the panel operators share: the objects and faces they act on, in edit mode (the faces
selected there) and in object mode (the selected objects' faces whose select flag is set, which
is how scripts and tests choose faces)."""

from __future__ import annotations

import numpy as np

from ..blender import scene as level_scene


def candidate_objects(context, roles: set) -> list:
    """Mesh objects being edited (edit mode) or selected (object mode) with one of ``roles``
    (None: a mesh without a role, i.e. new geometry)."""
    if context.mode == "EDIT_MESH":
        objects = list(context.objects_in_mode)
    else:
        objects = list(context.selected_objects)
        active = context.view_layer.objects.active
        if active is not None and active not in objects and active.select_get():
            objects.append(active)
    return [o for o in objects if o.type == "MESH" and level_scene.role(o) in roles]


def selected_faces(obj) -> np.ndarray:
    """Indices of the selected faces (object mode data)."""
    mesh = obj.data
    sel = np.zeros(len(mesh.polygons), bool)
    if len(sel):
        mesh.polygons.foreach_get("select", sel)
    return np.nonzero(sel)[0]


def get(collection, attr, dtype, width=1):
    values = np.empty(len(collection) * width, dtype)
    if len(values):
        collection.foreach_get(attr, values)
    return values if width == 1 else values.reshape(-1, width)


def face_ints(mesh, name: str, default: int = 0) -> np.ndarray:
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != "FACE":
        return np.full(len(mesh.polygons), default, np.int32)
    return get(attr.data, "value", np.int32)


def set_face_ints(mesh, name: str, values: np.ndarray) -> None:
    attr = mesh.attributes.get(name)
    if attr is not None and (attr.domain != "FACE" or attr.data_type != "INT"):
        mesh.attributes.remove(attr)
        attr = None
    if attr is None:
        attr = mesh.attributes.new(name, "INT", "FACE")
    attr.data.foreach_set("value", np.ascontiguousarray(values, np.int32))


def point_ints(mesh, name: str) -> np.ndarray | None:
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != "POINT":
        return None
    return get(attr.data, "value", np.int32)


def loops_of_faces(mesh, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The loops of the given faces (concatenated) and each one's face."""
    start = get(mesh.polygons, "loop_start", np.int64)[faces]
    total = get(mesh.polygons, "loop_total", np.int64)[faces]
    face_of_loop = np.repeat(faces, total)
    offset = np.arange(int(total.sum())) - np.repeat(np.cumsum(total) - total, total)
    return np.repeat(start, total) + offset, face_of_loop


def make_single_user(obj) -> bool:
    """Gives the object a mesh of its own when others share it; True when it did."""
    if obj.data.users > 1:
        obj.data = obj.data.copy()
        return True
    return False


def no_faces_message(what: str) -> str:
    return f"Select {what} first (in edit mode, or set the faces' select flags and select the objects)"
