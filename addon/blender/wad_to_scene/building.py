"""What the importer's parts share: the batches of ``llamawad.wad_to_scene``' hand-over, and
the meshes and objects made from them with foreach_set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dataclasses import dataclass

import bpy
import numpy as np
from mathutils import Matrix

from ...common import space
from .. import materials as mats
from .. import scene as level_scene


def int_attribute(mesh, name: str, domain: str, values: np.ndarray, new: bool = True) -> None:
    """Sets an INT attribute, made first unless ``new`` is False (a copied mesh has it)."""
    attr = mesh.attributes.new(name, "INT", domain) if new else mesh.attributes[name]
    attr.data.foreach_set("value", np.ascontiguousarray(values, np.int32))


def colour_attribute(mesh, colours: np.ndarray, new: bool = True) -> None:
    if not new:
        mesh.color_attributes[mats.COLOUR_ATTRIBUTE].data.foreach_set("color", np.ascontiguousarray(colours, np.float32).ravel())
        return
    attr = mesh.color_attributes.new(mats.COLOUR_ATTRIBUTE, "FLOAT_COLOR", "CORNER")
    attr.data.foreach_set("color", np.ascontiguousarray(colours, np.float32).ravel())
    mesh.color_attributes.active_color = attr
    mesh.color_attributes.render_color_index = mesh.color_attributes.active_color_index


def new_mesh(name: str, co: np.ndarray, corner_verts: np.ndarray, face_starts: np.ndarray, into=None):
    """A mesh of these faces; with ``into``, that mesh emptied and made them, which its objects
    keep: a mesh removed costs Blender a new dependency graph of every object, a mesh refilled
    does not."""
    if into is None:
        mesh = bpy.data.meshes.new(name)
    else:
        mesh = into
        mesh.clear_geometry()
    mesh.vertices.add(len(co))
    mesh.loops.add(len(corner_verts))
    mesh.polygons.add(len(face_starts))
    mesh.vertices.foreach_set("co", np.ascontiguousarray(co, np.float32).ravel())
    mesh.loops.foreach_set("vertex_index", np.ascontiguousarray(corner_verts, np.int32))
    mesh.polygons.foreach_set("loop_start", np.ascontiguousarray(face_starts, np.int32))
    return mesh


def finish(mesh) -> None:
    """Edges from the faces. Blender 5.0's calc_edges gives a mesh whose vertices have a select
    flag a ".select_edge" of the edge-vertex type (INT32_2D), on which selecting an edge
    crashes: drop it, Blender makes a proper one when needed."""
    mesh.update(calc_edges=True)
    bogus = mesh.attributes.get(".select_edge")
    if bogus is not None and bogus.data_type != "BOOLEAN":
        mesh.attributes.remove(bogus)


@dataclass
class Batch:
    """Meshes read together (``llamawad.wad_to_scene`` hands them over so): every attribute
    concatenated over all their primitives, so that conversions run once over the whole level
    instead of once per mesh. Where one primitive lacks an attribute another has, its corners
    carry the mapping's "missing" value (llamawad::gltf::arrays::missing_value)."""

    meshes: list[int]
    names: list[str]
    # Corner range of mesh i: corner_start[i]:corner_start[i + 1].
    corner_start: np.ndarray
    # Per mesh: material index (or None) of each primitive and its number of triangles.
    primitive_materials: list[list[int | None]]
    primitive_triangles: list[list[int]]
    attributes: dict[str, np.ndarray]
    # Per attribute: the meshes (positions in the batch) none of whose primitives has it.
    missing: dict[str, set[int]]
    # Per mesh: an earlier mesh it differs from only in the tile's colours, or None.
    same_but_colours: list[int | None]

    def __len__(self):
        return len(self.meshes)

    def has(self, i: int, name: str) -> bool:
        return name in self.attributes and i not in self.missing[name]


def read_batch(batch: Mapping[str, Any], arrays: list[bytes]) -> Batch:
    """A batch of the hand-over; its arrays are read in place (np.frombuffer), not copied."""
    attributes, missing = {}, {}
    for a in batch["attributes"]:
        values = np.frombuffer(arrays[a["array"]], "<f4")
        attributes[a["name"]] = values if a["width"] == 1 else values.reshape(-1, a["width"])
        missing[a["name"]] = set(a["meshes_without"])
    return Batch(
        batch["meshes"],
        batch["names"],
        np.asarray(batch["corner_start"], np.int64),
        batch["primitive_materials"],
        batch["primitive_triangles"],
        attributes,
        missing,
        batch["same_but_colours"],
    )


def creation_order(names: list[str]) -> list[int]:
    """The order to make IDs with these names in: by name, last first. Blender keeps each kind
    of ID sorted by name and places a new one by walking its list and comparing names; an ID
    whose name comes before all others goes to the front with hardly a comparison (1,913
    objects: 13 ms made this way, 55 ms in name order)."""
    return sorted(range(len(names)), key=lambda i: names[i].lower(), reverse=True)


def per_triangle_ints(batch: Batch, name: str, default: int) -> np.ndarray:
    values = batch.attributes.get(name)
    n = int(batch.corner_start[-1]) // 3
    return np.full(n, default, np.int32) if values is None else np.rint(values[0::3]).astype(np.int32)


def first_material(materials, batch: Batch, i: int):
    prims = batch.primitive_materials[i]
    m = prims[0] if prims else None
    return materials[m] if m is not None and 0 <= m < len(materials) else None


def _vertical_angle(rotation: list[float], scale: list[float]) -> float | None:
    """The angle about the vertical of a placement that turns about it only, else None. Tiles
    and strats turn so: a plain Z angle is what an artist edits."""
    if scale != [1.0, 1.0, 1.0] or abs(rotation[0]) >= 1e-7 or abs(rotation[2]) >= 1e-7:
        return None
    return space.vertical_angle(rotation) if rotation[1] != 0.0 else 0.0


def _turn(obj, rotation: list[float], scale: list[float]) -> None:
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = space.quaternion_to_blender(rotation)
    if scale != [1.0, 1.0, 1.0]:
        sx, sy, sz = scale
        obj.scale = (sx, sz, sy)


def place(obj, transform: list[float]) -> None:
    """``transform``: translation, rotation (x, y, z, w) and scale in file space, as
    ``llamawad.wad_to_scene`` hands each node's over."""
    t, r, scale = transform[0:3], transform[3:7], transform[7:10]
    if t != [0.0, 0.0, 0.0]:
        obj.location = space.vector_to_blender(t)
    angle = _vertical_angle(r, scale)
    if angle is None:
        _turn(obj, r, scale)
    elif angle != 0.0:
        obj.rotation_euler = (0.0, 0.0, angle)


def place_again(obj, transform: list[float], extras: dict) -> None:
    """An object the scene keeps placed and numbered as a new one would be: ``place`` from
    Blender's rest (no move, no turn, scale 1, Euler angles) and the node's ``extras``."""
    obj.matrix_basis = Matrix.Identity(4)
    obj.rotation_mode = "XYZ"
    place(obj, transform)
    set_properties(obj, extras)


def place_all(objects, transforms: list[list[float]]) -> None:
    """``place`` for every object of ``objects`` (a collection's objects, linked in the order of
    ``transforms``) at once: two foreach_set instead of two attribute sets per object (1,900
    objects an import)."""
    if len(objects) != len(transforms):
        raise ValueError(f"{len(objects)} objects for {len(transforms)} placements")
    n = len(transforms)
    locations = np.array([t[0:3] for t in transforms], np.float32).reshape(n, 3)
    # At the origin an object keeps Blender's (0, 0, 0), as ``place`` leaves it.
    at_origin = ~locations.any(axis=1)
    locations = space.file_to_blender(locations)
    locations[at_origin] = 0.0
    angles = np.zeros((n, 3), np.float32)
    turned = []
    for i, t in enumerate(transforms):
        angle = _vertical_angle(t[3:7], t[7:10])
        if angle is None:
            turned.append(i)
        else:
            angles[i, 2] = angle
    objects.foreach_set("location", locations.ravel())
    objects.foreach_set("rotation_euler", angles.ravel())
    for i in turned:
        _turn(objects[i], transforms[i][3:7], transforms[i][7:10])


def set_properties(idblock, extras: dict) -> None:
    for key, value in extras.items():
        if value is None:
            continue
        try:
            idblock[key] = value
        except (TypeError, OverflowError):
            idblock[key] = str(value)


def bone_groups(obj, bone_vertex_counts: list[int]) -> None:
    """A skinned object model's bones as vertex groups ``bone 0``, ``bone 1``, …: the model's
    vertices come bone by bone (FORMAT.md §3), and each Blender vertex says which model vertex it
    is (``wad_vertex``). Export hands the group back, so that a vertex moved to another bone's
    group is refused by name rather than written where the bone counts would not hold it."""
    mesh = obj.data
    if not bone_vertex_counts or mesh is None:
        return
    vertex = mesh.attributes.get("wad_vertex")
    if vertex is None:
        return
    model_vertex = np.empty(len(mesh.vertices), np.int32)
    vertex.data.foreach_get("value", model_vertex)
    bone_of = np.repeat(np.arange(len(bone_vertex_counts)), bone_vertex_counts)
    for b in range(len(bone_vertex_counts)):
        group = obj.vertex_groups.new(name=f"{level_scene.BONE_GROUP}{b}")
        members = np.nonzero((model_vertex >= 0) & (model_vertex < len(bone_of)) & (bone_of[np.clip(model_vertex, 0, max(len(bone_of) - 1, 0))] == b))[0]
        if len(members):
            group.add(members.tolist(), 1.0, "REPLACE")
