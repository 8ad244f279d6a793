"""What the gathering of the scene gives: ``Gathered``, the arrays ``llamawad.scene_to_wad``
takes with which object each node and triangle came from (what a refusal's numbers point at);
``Note``, an edit it leaves out; ``Unwritable``, an object it cannot hand over at all. And an ID's
custom properties as the extras a glTF would carry (``json_properties``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy
import numpy as np

from .. import scene as level_scene

# Refusals (GltfToWadRefused.code) of a tile's collision mesh.
COLLISION_REFUSALS = ("collision-material", "collision-polygon")


@dataclass(frozen=True)
class Note:
    """Something export leaves out, and the object it concerns."""

    object: str
    message: str


class Unwritable(Exception):
    """An object the gathering cannot hand over, whatever the conversion would make of it: its
    name, why (``message``) and its Blender faces at fault."""

    def __init__(self, object_name: str, message: str, faces: list[int] | None = None):
        super().__init__(message)
        self.object = object_name
        self.message = message
        self.faces = faces or []


@dataclass
class Gathered:
    # What llamawad.scene_to_wad takes (its doc says how the dict is made).
    scene: dict
    # Node number → object, and for mesh nodes: the Blender face of each triangle in the order
    # the mesh lists them (what a refusal's face numbers mean).
    node_objects: dict[int, bpy.types.Object] = field(default_factory=dict)
    face_of_triangle: dict[int, np.ndarray] = field(default_factory=dict)
    node_names: dict[str, int] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    # Objects whose mesh was written with its modifiers applied: its faces are not Blender's.
    evaluated: set[str] = field(default_factory=set)
    # Whether an object model is no longer as import made it (named in ``notes``).
    read_only_edited: bool = False

    def new_geometry(self) -> list[bpy.types.Object]:
        """The objects written as new geometry: new meshes and their collision."""
        return [o for o in self.node_objects.values() if level_scene.role(o) is None]

    def culprit(self, node_index: int | None, object_name: str | None, faces: list[int], code: str = "", source_faces: list[int] | None = None) -> tuple[bpy.types.Object | None, list[int]]:
        """The object and Blender faces a refusal names: its node by ``node_index`` (the node's
        number in the arrays handed over), else by ``object`` (the node's name, which is the
        object's, for a refusal that knows the node by its name alone), and its faces as Blender's
        (``source_faces``) or as triangle numbers (``faces``)."""
        index = node_index
        if index is None and object_name:
            index = self.node_names.get(object_name)
        if index is None:
            return None, []
        obj = self.node_objects.get(index)
        if obj is None:
            return None, []
        # A tile's collision refusals name the tile but count the collision mesh's faces.
        if code in COLLISION_REFUSALS and level_scene.role(obj) == "tile":
            child = level_scene.collision_of(obj)
            if child is not None:
                obj = child
                index = next((i for i, o in self.node_objects.items() if o == child), index)
        if obj.name in self.evaluated:
            return obj, []
        if source_faces:
            return obj, sorted(set(source_faces))
        table = self.face_of_triangle.get(index)
        if table is None:
            return obj, []
        picked = sorted({int(table[t]) for t in faces if 0 <= t < len(table)})
        return obj, picked


def json_properties(idblock, panel: str) -> dict:
    """The custom properties of an object or material that JSON can hold: its extras. A number
    that is none (NaN, infinity) is refused by property, naming the ``panel`` it is edited in:
    JSON cannot hold it."""
    out: dict[str, object] = {}
    for key, value in idblock.items():
        if isinstance(value, (str, int)):
            out[key] = value
            continue
        if not isinstance(value, float):
            if hasattr(value, "to_dict"):
                value = value.to_dict()
            elif hasattr(value, "to_list"):
                value = value.to_list()
            if not isinstance(value, (list, dict)):
                continue
        if not _finite(value):
            raise Unwritable(idblock.name, f"its custom property '{key}' holds {value}, which is not a number: give it a number ({panel} › Custom Properties)")
        out[key] = value
    return out


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True

