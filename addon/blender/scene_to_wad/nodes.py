"""The nodes handed to ``llamawad.scene_to_wad``, parents before children: each with its name,
its transform in its parent's frame in file space, its custom properties as extras and its mesh
(``meshes.py``) as the viewport shows it, modifiers applied where the scene's Apply modifiers
option says so (as Blender's own exporters do). An object's placement is taken from its own
transforms (parent chain, parent inverse), so that objects the depsgraph does not evaluate
(hidden collision) are placed right too."""

from __future__ import annotations

import numpy as np

from ...common import game, space
from .gathered import Gathered, Note, Unwritable, json_properties


def extras(obj) -> dict:
    """An object's extras: its custom properties; and ``no_collision`` when the artist marked it
    decoration the llama passes through."""
    out: dict[str, object] = {"no_collision": True} if getattr(obj, "llamawad_no_collision", False) else {}
    out.update(json_properties(obj, "Object Properties"))
    return out


def light_extras(obj) -> dict:
    """A level light's extras: its custom properties, the colour the artist sees (the light's,
    or an empty marker's object colour) as its colour bytes."""
    out = extras(obj)
    out["colour"] = game.light_colour_to_file(obj.data.color if obj.type == "LIGHT" else obj.color)
    return out


class Placements:
    """Every object of the scene placed: its world matrix (Blender space) and its transform in its
    parent's frame, and in file space its world matrix."""

    def __init__(self, objects):
        self.world, self.local = _matrices(objects)
        self.number = {obj: k for k, obj in enumerate(objects)}
        self._file_world = space.matrices_to_file(self.world)

    def world_of(self, obj) -> np.ndarray:
        return self.world[self.number[obj]]

    def file_world(self, obj) -> np.ndarray:
        return self._file_world[self.number[obj]]


IDENTITY = np.eye(4, dtype=np.float32)


def file_local(m: np.ndarray) -> np.ndarray:
    """(n, 4, 4) transforms in the parent's frame in file space; one within float noise of none
    is none, as an imported collision object is placed."""
    m = m.copy()
    m[np.abs(m - IDENTITY).max(axis=(1, 2)) < 1e-6] = IDENTITY
    return space.matrices_to_file(m)


class AsSeen:
    """The meshes of objects as the viewport shows them, modifiers applied (the depsgraph's,
    made when first asked for and freed by ``free``), with the scene's Apply modifiers option.
    An object without a modifier shown in the viewport keeps its own mesh, and then nothing is
    evaluated: an unchanged level is gathered without the depsgraph."""

    def __init__(self, context, out: Gathered):
        self.context = context
        self.apply = context.scene.llamawad.apply_modifiers
        self.out = out
        self.depsgraph = None
        self.made: list = []

    def mesh(self, obj) -> tuple:
        """The mesh to write for ``obj`` and what tells it apart from other meshes."""
        if not (self.apply and len(obj.modifiers) and any(m.show_viewport for m in obj.modifiers)):
            return obj.data, obj.data.name_full
        if self.depsgraph is None:
            self.depsgraph = self.context.evaluated_depsgraph_get()
        evaluated = obj.evaluated_get(self.depsgraph)
        if not evaluated.is_evaluated:
            self.out.notes.append(
                Note(
                    obj.name,
                    f"{obj.name}: its modifiers are not applied, as the viewport does not evaluate it (it or its "
                    "collection is disabled in viewports, as collision is while hidden): show it and export again, or "
                    "apply them (Object › Apply)",
                )
            )
            return obj.data, obj.data.name_full
        self.made.append(evaluated)
        self.out.evaluated.add(obj.name)
        return evaluated.to_mesh(), ("as seen", obj.name_full)

    def free(self) -> None:
        for evaluated in self.made:
            evaluated.to_mesh_clear()
        self.made.clear()


class Nodes:
    """The nodes and meshes handed to ``llamawad.scene_to_wad``, parents before children."""

    def __init__(self, out: Gathered, as_seen: AsSeen):
        self.out = out
        self.as_seen = as_seen
        self.names: list[str] = []
        self.parents: list[int] = []
        self.matrices: list[np.ndarray] = []
        self.node_meshes: list[int] = []
        self.extras: list[dict | None] = []
        self.meshes: list[dict] = []
        self.mesh_of: dict[object, tuple[int, np.ndarray]] = {}

    def mesh(self, mesh, key, arrays_of) -> tuple[int, np.ndarray]:
        """The number of a Blender mesh among the meshes, gathered once however many objects
        use it (``key``), and the Blender face of each of its triangles."""
        if key not in self.mesh_of:
            arrays = arrays_of(mesh)
            self.meshes.append(
                {
                    "attributes": arrays.corner,
                    "point_attributes": arrays.point,
                    "corner_points": arrays.corner_points,
                    "face_attributes": arrays.face,
                    "triangle_faces": arrays.face_of_triangle,
                    "materials": arrays.materials,
                    "triangle_materials": arrays.triangle_materials,
                }
            )
            self.mesh_of[key] = (len(self.meshes) - 1, arrays.face_of_triangle)
        return self.mesh_of[key]

    def node(self, name: str, matrix: np.ndarray, parent: int = -1, extras: dict | None = None, obj=None, arrays_of=None, as_seen: bool = True) -> int:
        """A node; with ``arrays_of``, its object's mesh gathered by it (``as_seen``: with the
        modifiers the viewport applies, if the scene's option says so)."""
        index = len(self.names)
        mesh_index = -1
        if arrays_of is not None and obj.type == "MESH":
            mesh, key = self.as_seen.mesh(obj) if as_seen else (obj.data, obj.data.name_full)
            if len(mesh.polygons):
                try:
                    mesh_index, table = self.mesh(mesh, key, arrays_of)
                except Unwritable as e:
                    # Faces of a mesh with its modifiers applied are not the object's.
                    faces = [] if obj.name in self.out.evaluated else e.faces
                    raise Unwritable(obj.name, e.message, faces) from None
                self.out.face_of_triangle[index] = table
        if obj is not None:
            self.out.node_objects[index] = obj
            self.out.node_names[obj.name] = index
        self.names.append(name)
        self.parents.append(parent)
        self.matrices.append(matrix)
        self.node_meshes.append(mesh_index)
        self.extras.append(extras)
        return index

    def arrays(self, level: dict) -> dict:
        return {
            "extras": level or None,
            "nodes": {
                "name": self.names,
                "parent": np.array(self.parents, np.int32),
                "matrix": np.array(self.matrices, np.float32).reshape(-1),
                "mesh": np.array(self.node_meshes, np.int32),
                "extras": self.extras,
            },
            "meshes": self.meshes,
        }


def _matrices(objects) -> tuple[np.ndarray, np.ndarray]:
    """Every object's world matrix and its transform in its parent's frame (rows, Blender space),
    from the objects' own transforms (parent chain, parent inverse), so that objects the
    depsgraph does not evaluate (hidden collision) are placed right too."""
    n = len(objects)
    basis = np.empty(16 * n, np.float32)
    parent_inverse = np.empty(16 * n, np.float32)
    if n:
        objects.foreach_get("matrix_basis", basis)
        objects.foreach_get("matrix_parent_inverse", parent_inverse)
    # foreach_get gives Blender's column-major matrices.
    basis = basis.reshape(n, 4, 4).transpose(0, 2, 1)
    parent_inverse = parent_inverse.reshape(n, 4, 4).transpose(0, 2, 1)
    number = {obj: k for k, obj in enumerate(objects)}
    parents = np.array([number.get(obj.parent, -1) if obj.parent is not None else -1 for obj in objects], np.int64)
    parented = np.flatnonzero(parents >= 0)
    local = basis.copy()
    local[parented] = parent_inverse[parented] @ basis[parented]
    world = local.copy()
    # Parents before children: one generation below the roots at a time.
    depth = _depth(parents, parented)
    for d in range(1, int(depth.max(initial=0)) + 1):
        at = parented[depth == d]
        world[at] = world[parents[at]] @ local[at]
    return world, local


def _depth(parents: np.ndarray, which: np.ndarray) -> np.ndarray:
    """How many parents each of ``which`` has above it."""
    depth = np.zeros(len(which), np.int64)
    up = parents[which]
    while (up >= 0).any():
        depth += up >= 0
        up = np.where(up >= 0, parents[np.maximum(up, 0)], -1)
    return depth


