"""A Blender mesh as ``llamawad.scene_to_wad`` takes it: the attributes of our glTF mapping
(rust/core/src/gltf/MAPPING.md) by its names, read by foreach_get into numpy arrays, per
triangle corner (faces fanned), per point or per face as Blender holds them (the Rust side
spreads them over the corners).

- render meshes (tiles, new geometry, object models): POSITION, COLOR_0, TEXCOORD_0 and
  ``_FLAGS``, ``_TEXTURE``, ``_FACE``, ``_TILE``, ``_VERTEX``, ``_RGB_k``, ``_ALPHA_k`` from the
  attributes the importer made, and each triangle's material by name (what the material says of
  its page is handed over with it: ``materials.py``); an object model's with each vertex's bone
  (``_BONE``);
- collision meshes: ``_POLYGON``, ``_MATERIAL``, ``_KIND``, ``_GROUP``; a polygon index that two
  faces carry stays with the first, the other face is a new polygon;
- the Zones mesh: ``_CELL``, ``_ZONE``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...common import space
from .. import materials as mats
from .. import scene as level_scene
from .gathered import Unwritable

COLOUR = mats.COLOUR_ATTRIBUTE


_INTEGER_TYPES = ("INT", "INT8", "BOOLEAN")


def _get(collection, attr: str, dtype, width: int = 1) -> np.ndarray:
    values = np.empty(len(collection) * width, dtype)
    collection.foreach_get(attr, values)
    return values if width == 1 else values.reshape(-1, width)


class _Corners:
    """Where each triangle corner comes from, faces fanned from their first corner: its loop,
    its point and its face. A mesh of triangles only (what import makes) has its loops as its
    corners, in order, and its values are taken as they are."""

    def __init__(self, mesh):
        # Every face has at least three loops: three a face is triangles only.
        if len(mesh.loops) == 3 * len(mesh.polygons):
            self.loops = None
            self.tri_face = np.arange(len(mesh.polygons), dtype=np.uint32)
        else:
            loop_total = _get(mesh.polygons, "loop_total", np.int32)
            loop_start = _get(mesh.polygons, "loop_start", np.int32).astype(np.int64)
            tris_per_face = np.maximum(loop_total - 2, 0)
            face = np.repeat(np.arange(len(loop_total), dtype=np.uint32), tris_per_face)
            k = np.arange(len(face)) - np.repeat(np.cumsum(tris_per_face) - tris_per_face, tris_per_face)
            start = loop_start[face]
            self.loops = np.stack([start, start + k + 1, start + k + 2], 1).ravel()
            self.tri_face = face
        # The loops' vertices as the attribute Blender (4.0 on) keeps them in: read four times
        # faster than through MeshLoop.vertex_index.
        loop_points = _get(mesh.attributes[".corner_vert"].data, "value", np.int32)
        self.points = self.of_loops(loop_points).view(np.uint32)

    def of_loops(self, values: np.ndarray) -> np.ndarray:
        return values if self.loops is None else values[self.loops]

    def faces(self, corners: np.ndarray) -> list[int]:
        """The Blender faces of the corners where ``corners`` (one a corner) is true."""
        return np.unique(self.tri_face[np.flatnonzero(corners) // 3]).tolist()


def _int_values(attributes, name: str, domain: str) -> np.ndarray | None:
    """The values of an integer attribute of the importer's (among a mesh's ``attributes``) as
    float32 (as the mapping carries integers: exact below 2^24), or None where the mesh has no
    such attribute."""
    attr = attributes.get(name)
    if attr is None or attr.domain != domain:
        return None
    kind = attr.data_type
    if kind == "FLOAT":
        return _get(attr.data, "value", np.float32)
    if kind not in _INTEGER_TYPES:
        return None
    return _get(attr.data, "value", np.int32).astype(np.float32)


def _first_keeps(values: np.ndarray) -> np.ndarray:
    """Values where a number that several faces carry stays with the first; the others get −1."""
    out = values.copy()
    _, first = np.unique(values, return_index=True)
    keep = np.zeros(len(values), bool)
    keep[first] = True
    out[~keep & (values >= 0)] = -1
    return out


@dataclass
class MeshArrays:
    """One Blender mesh as scene_to_wad takes it: float32 attributes by the mapping's names, per
    triangle corner (three corners a triangle, faces fanned), per point or per face, as Blender
    holds them (the Rust side spreads them over the corners: far faster than numpy per mesh);
    each corner's point; the material names of its slots and each triangle's slot (empty when
    there is at most one); the Blender face of each triangle."""

    corner: dict[str, np.ndarray]
    point: dict[str, np.ndarray]
    face: dict[str, np.ndarray]
    corner_points: np.ndarray
    materials: list[str | None]
    triangle_materials: np.ndarray
    face_of_triangle: np.ndarray


NO_MATERIALS = np.zeros(0, np.uint32)


def _material_names(mesh) -> list[str | None]:
    return [None if m is None else m.name for m in mesh.materials]


NOT_NUMBERS = {
    "TEXCOORD_0": "UVs that are not numbers (NaN or infinity): unwrap these faces again (UV › Unwrap)",
    "COLOR_0": "vertex colours that are not numbers (NaN or infinity): paint these faces again",
}


def render_arrays(mesh) -> MeshArrays:
    corners = _Corners(mesh)
    attributes = mesh.attributes
    corner: dict[str, np.ndarray] = {}
    point = {"POSITION": space.blender_to_file(_get(mesh.vertices, "co", np.float32, 3))}
    # The Blender face of every corner: the way back cuts quads along the diagonal the game can
    # show their UVs along, and names faces the artist sees.
    face = {"_SOURCE_FACE": np.arange(len(mesh.polygons), dtype=np.float32)}
    for name, key in (("wad_flags", "_FLAGS"), ("wad_texture", "_TEXTURE"), ("wad_face", "_FACE")):
        values = _int_values(attributes, name, "FACE")
        if values is not None:
            face[key] = values
    tile = _int_values(attributes, level_scene.TILE_ATTRIBUTE, "FACE")
    if tile is not None:
        # The tile + 1; 0 (a face that came without it) says no tile, NaN in the mapping.
        tile -= 1
        tile[tile < 0] = np.nan
        face["_TILE"] = tile
    vertex = _int_values(attributes, "wad_vertex", "POINT")
    if vertex is not None:
        point["_VERTEX"] = vertex
    k = 0
    while (rgb := _int_values(attributes, f"wad_rgb_{k}", "POINT")) is not None:
        alpha = _int_values(attributes, f"wad_alpha_{k}", "POINT")
        point[f"_RGB_{k}"] = rgb
        point[f"_ALPHA_{k}"] = alpha if alpha is not None else np.zeros(len(rgb), np.float32)
        k += 1
    colours = mesh.color_attributes.get(COLOUR)
    if colours is not None:
        values = _get(colours.data, "color", np.float32, 4)
        if colours.domain == "CORNER":
            corner["COLOR_0"] = corners.of_loops(values)
        else:
            point["COLOR_0"] = values
    uv_layer = mesh.uv_layers.active
    if uv_layer is not None:
        uv = corners.of_loops(_get(uv_layer.uv, "vector", np.float32, 2))
        uv[:, 1] = 1.0 - uv[:, 1]
        corner["TEXCOORD_0"] = uv
    # NaN says "no UV" or "no colour" at a corner to the way back (a glTF primitive without
    # them); a Blender mesh has a value at every corner, so NaN or infinity there is damage.
    for key, message in NOT_NUMBERS.items():
        for values, of_corners in ((corner.get(key), slice(None)), (point.get(key), corners.points)):
            # (A sum is finite when every value is, and cheaper to ask than each value.)
            if values is not None and not np.isfinite(values.sum()):
                wrong = ~np.isfinite(values).all(axis=1)[of_corners]
                if wrong.any():
                    raise Unwritable("", message, corners.faces(wrong))
    names = _material_names(mesh)
    if len(names) <= 1:
        return MeshArrays(corner, point, face, corners.points, names[:1], NO_MATERIALS, corners.tri_face)
    slots = _get(mesh.polygons, "material_index", np.int32)
    # A face may keep the index of a slot since removed: it has the last slot, as in Blender.
    triangle_materials = np.minimum(slots, len(names) - 1).astype(np.uint32)[corners.tri_face]
    return MeshArrays(corner, point, face, corners.points, names, triangle_materials, corners.tri_face)


def _face_data_arrays(mesh, face_attributes, material: str, polygons: bool = False) -> MeshArrays:
    """Positions and the named FACE-domain integer attributes, for meshes whose data belong to
    faces (collision, zones); with ``polygons``, the collision polygon of each face."""
    corners = _Corners(mesh)
    attributes = mesh.attributes
    point = {"POSITION": space.blender_to_file(_get(mesh.vertices, "co", np.float32, 3))}
    face = {}
    for name, key in face_attributes:
        values = _int_values(attributes, name, "FACE")
        if values is not None:
            face[key] = values
    if polygons:
        polygon = _int_values(attributes, "wad_polygon", "FACE")
        face["_POLYGON"] = np.full(len(mesh.polygons), -1, np.float32) if polygon is None else _first_keeps(polygon)
        face["_SOURCE_FACE"] = np.arange(len(mesh.polygons), dtype=np.float32)
    return MeshArrays({}, point, face, corners.points, [material], NO_MATERIALS, corners.tri_face)


def collision_arrays(mesh) -> MeshArrays:
    return _face_data_arrays(mesh, (("wad_material", "_MATERIAL"), ("wad_kind", "_KIND"), ("wad_group", "_GROUP")), "collision", polygons=True)


def zones_arrays(mesh) -> MeshArrays:
    return _face_data_arrays(mesh, (("wad_cell", "_CELL"), ("wad_zone", "_ZONE")), "zones")


def object_model_arrays(obj, mesh) -> MeshArrays:
    """An object model's mesh as a tile's is handed over, with each vertex's bone (``_BONE``):
    the ``bone k`` vertex group it weighs most in (NaN in none), for a skinned model's bones
    hold fixed runs of its vertices."""
    arrays = render_arrays(mesh)
    bones = {g.index: int(g.name[len(level_scene.BONE_GROUP) :]) for g in obj.vertex_groups if g.name.startswith(level_scene.BONE_GROUP) and g.name[len(level_scene.BONE_GROUP) :].isdigit()}
    if bones:
        bone = np.full(len(mesh.vertices), np.nan, np.float32)
        for v in mesh.vertices:
            weights = [(g.weight, bones[g.group]) for g in v.groups if g.group in bones]
            if weights:
                bone[v.index] = max(weights)[1]
        arrays.point["_BONE"] = bone
    return arrays

