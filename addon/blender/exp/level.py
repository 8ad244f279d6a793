"""The scene's level → our glTF document (rust/core/src/gltf/MAPPING.md) as a GLB, with arrays
gathered by foreach_get; llamawad.gltf_to_wad turns it into a WAD against the base.

What is written:

- scene 0 ``Level`` with the imported level's extras (source, grid, texture entries; zone masks
  as the Zones panel left them) and the nodes ``Tiles`` and ``Zones``;
- one node per tile object (custom property ``llamawad`` = ``tile``), with its world placement in
  file space and its mesh; its collision object as a child node; tiles of one index are written
  original first (the object with the imported name), so that a copy (Shift D) becomes a new
  tile;
- one node without a role per mesh object without one in the Tiles collection: new geometry,
  which the Rust side cuts into new tiles; a child mesh named ``collision…`` is its collision;
- render meshes: triangles (faces fanned), per corner POSITION, COLOR_0, TEXCOORD_0 and
  ``_FLAGS``, ``_TEXTURE``, ``_FACE``, ``_VERTEX``, ``_RGB_k``, ``_ALPHA_k`` from the attributes the
  importer made, one primitive per material (named like the import's);
- collision meshes: ``_POLYGON``, ``_MATERIAL``, ``_KIND``, ``_GROUP``; a polygon index that two
  faces carry stays with the first, the other face is a new polygon;
- the Zones mesh: ``_CELL``, ``_ZONE``.

Strats and object models are not written: nothing in Blender changes them, and the base keeps
their bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ...common import space
from ...common.gltf_write import GltfBuilder
from .. import scene as level_scene
from ..imp import materials as mats

COLOUR = mats.COLOUR_ATTRIBUTE
# Refusals (ImportRefused.code) of a tile's collision mesh.
COLLISION_REFUSALS = ("collision-material", "collision-polygon")


@dataclass(frozen=True)
class Note:
    """Something export leaves out, and the object it concerns."""

    object: str
    message: str


@dataclass
class Gathered:
    glb: bytes
    # glTF node index → object, and for mesh nodes: the Blender face of each triangle in the
    # order the glTF lists them (what a refusal's face numbers mean).
    node_objects: dict[int, bpy.types.Object] = field(default_factory=dict)
    face_of_triangle: dict[int, np.ndarray] = field(default_factory=dict)
    node_names: dict[str, int] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)

    def culprit(self, object_name: str | None, faces: list[int], code: str = "", source_faces: list[int] | None = None) -> tuple[bpy.types.Object | None, list[int]]:
        """The object and Blender faces a refusal names: its ``object`` (the node's name, which is
        the object's, or "node N" for a node without one), and its faces as Blender's
        (``source_faces``) or as triangle numbers (``faces``)."""
        if not object_name:
            return None, []
        index = self.node_names.get(object_name)
        number = object_name.removeprefix("node ")
        if index is None and number.isdigit():
            index = int(number)
        obj = self.node_objects.get(index)
        if obj is None:
            return None, []
        # A tile's collision refusals name the tile but count the collision mesh's faces.
        if code in COLLISION_REFUSALS and level_scene.role(obj) == "tile":
            child = level_scene.collision_of(obj)
            if child is not None:
                obj = child
                index = next((i for i, o in self.node_objects.items() if o == child), index)
        if source_faces:
            return obj, sorted(set(source_faces))
        table = self.face_of_triangle.get(index)
        if table is None:
            return obj, []
        picked = sorted({int(table[t]) for t in faces if 0 <= t < len(table)})
        return obj, picked


def world_matrix(obj) -> Matrix:
    """The object's world matrix from its own transforms (parent chain, parent inverse), so that
    objects the depsgraph does not evaluate (hidden collision) are placed right too."""
    m = obj.matrix_basis.copy()
    while obj.parent is not None:
        m = obj.parent.matrix_basis @ obj.matrix_parent_inverse @ m
        obj = obj.parent
    return m


def _get(collection, attr: str, dtype, width: int = 1) -> np.ndarray:
    values = np.empty(len(collection) * width, dtype)
    if len(values):
        collection.foreach_get(attr, values)
    return values if width == 1 else values.reshape(-1, width)


def _fan(mesh) -> tuple[np.ndarray, np.ndarray]:
    """Loops of each triangle (faces fanned from their first corner) and each triangle's face."""
    loop_total = _get(mesh.polygons, "loop_total", np.int32)
    if len(loop_total) and (loop_total == 3).all():
        return np.arange(3 * len(loop_total), dtype=np.int64).reshape(-1, 3), np.arange(len(loop_total))
    loop_start = _get(mesh.polygons, "loop_start", np.int64)
    tris_per_face = np.maximum(loop_total - 2, 0)
    face = np.repeat(np.arange(len(loop_total)), tris_per_face)
    k = np.arange(len(face)) - np.repeat(np.cumsum(tris_per_face) - tris_per_face, tris_per_face)
    start = loop_start[face]
    return np.stack([start, start + k + 1, start + k + 2], 1), face


def _int_values(mesh, name: str, domain: str) -> np.ndarray | None:
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != domain or attr.data_type not in ("INT", "INT8", "FLOAT", "BOOLEAN"):
        return None
    n = {"FACE": len(mesh.polygons), "POINT": len(mesh.vertices), "CORNER": len(mesh.loops)}[domain]
    if attr.data_type == "FLOAT":
        return _get(attr.data, "value", np.float32)
    return _get(attr.data, "value", np.int32) if n else np.zeros(0, np.int32)


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
    """One Blender mesh as glTF primitives: (material name or None, attributes) each, and the
    Blender face of each triangle in the written order."""

    primitives: list[tuple[str | None, dict[str, np.ndarray]]]
    face_of_triangle: np.ndarray


def _material_names(mesh) -> list[str | None]:
    return [None if m is None else (m.get(mats.KEY) or m.name) for m in mesh.materials]


def render_arrays(mesh) -> MeshArrays:
    tri_loops, tri_face = _fan(mesh)
    corners = tri_loops.ravel()
    loop_vertex = _get(mesh.loops, "vertex_index", np.int64)
    corner_vertex = loop_vertex[corners]
    co = _get(mesh.vertices, "co", np.float32, 3)
    attrs: dict[str, np.ndarray] = {"POSITION": space.blender_to_file(co[corner_vertex])}
    corner_face = np.repeat(tri_face, 3)
    # The Blender face of every corner: the way back cuts quads along the diagonal the game can
    # show their UVs along, and names faces the artist sees.
    attrs["_SOURCE_FACE"] = corner_face.astype(np.float32)
    for name, key in (("wad_flags", "_FLAGS"), ("wad_texture", "_TEXTURE"), ("wad_face", "_FACE")):
        values = _int_values(mesh, name, "FACE")
        if values is not None:
            attrs[key] = values[corner_face].astype(np.float32)
    vertex = _int_values(mesh, "wad_vertex", "POINT")
    if vertex is not None:
        attrs["_VERTEX"] = vertex[corner_vertex].astype(np.float32)
    k = 0
    while (rgb := _int_values(mesh, f"wad_rgb_{k}", "POINT")) is not None:
        alpha = _int_values(mesh, f"wad_alpha_{k}", "POINT")
        attrs[f"_RGB_{k}"] = rgb[corner_vertex].astype(np.float32)
        attrs[f"_ALPHA_{k}"] = (alpha[corner_vertex] if alpha is not None else np.zeros(len(corners))).astype(np.float32)
        k += 1
    colours = mesh.color_attributes.get(COLOUR)
    if colours is not None:
        values = _get(colours.data, "color", np.float32, 4)
        attrs["COLOR_0"] = values[corners] if colours.domain == "CORNER" else values[corner_vertex]
    uv_layer = mesh.uv_layers.active
    if uv_layer is not None:
        uv = _get(uv_layer.uv, "vector", np.float32, 2)[corners]
        uv[:, 1] = 1.0 - uv[:, 1]
        attrs["TEXCOORD_0"] = uv
    names = _material_names(mesh)
    if len(names) <= 1:
        return MeshArrays([(names[0] if names else None, attrs)], tri_face)
    material_index = np.clip(_get(mesh.polygons, "material_index", np.int32)[tri_face], 0, len(names) - 1)
    order = np.argsort(material_index, kind="stable")
    primitives = []
    for slot in np.unique(material_index):
        tris = order[material_index[order] == slot]
        corner_index = (tris[:, None] * 3 + np.arange(3)).ravel()
        primitives.append((names[slot], {key: values[corner_index] for key, values in attrs.items()}))
    return MeshArrays(primitives, tri_face[order])


def _face_data_arrays(mesh, face_attributes) -> tuple[dict, np.ndarray, np.ndarray]:
    """Positions of every triangle corner (file space) and the named FACE-domain integer
    attributes as per-corner floats, for meshes whose data belong to faces (collision, zones)."""
    tri_loops, tri_face = _fan(mesh)
    loop_vertex = _get(mesh.loops, "vertex_index", np.int64)
    co = _get(mesh.vertices, "co", np.float32, 3)
    attrs = {"POSITION": space.blender_to_file(co[loop_vertex[tri_loops.ravel()]])}
    corner_face = np.repeat(tri_face, 3)
    for name, key in face_attributes:
        values = _int_values(mesh, name, "FACE")
        if values is not None:
            attrs[key] = values[corner_face].astype(np.float32)
    return attrs, tri_face, corner_face


def collision_arrays(mesh) -> MeshArrays:
    attrs, tri_face, corner_face = _face_data_arrays(
        mesh, (("wad_material", "_MATERIAL"), ("wad_kind", "_KIND"), ("wad_group", "_GROUP"))
    )
    polygon = _int_values(mesh, "wad_polygon", "FACE")
    polygon = np.full(len(mesh.polygons), -1, np.int32) if polygon is None else _first_keeps(polygon.astype(np.int32))
    attrs["_POLYGON"] = polygon[corner_face].astype(np.float32)
    attrs["_SOURCE_FACE"] = corner_face.astype(np.float32)
    return MeshArrays([("collision", attrs)], tri_face)


def zones_arrays(mesh) -> MeshArrays:
    attrs, tri_face, _ = _face_data_arrays(mesh, (("wad_cell", "_CELL"), ("wad_zone", "_ZONE")))
    return MeshArrays([("zones", attrs)], tri_face)


class _Writer:
    def __init__(self):
        self.b = GltfBuilder()
        self.materials: dict[str, int] = {}
        self.b.json["materials"] = []
        self.meshes: dict[str, tuple[int, np.ndarray]] = {}

    def material(self, name: str | None) -> int | None:
        if name is None:
            return None
        if name not in self.materials:
            self.b.json["materials"].append({"name": name})
            self.materials[name] = len(self.b.json["materials"]) - 1
        return self.materials[name]

    def mesh(self, mesh, arrays_of) -> tuple[int, np.ndarray]:
        """The glTF mesh of a Blender mesh, written once however many objects use it."""
        key = mesh.name_full
        if key not in self.meshes:
            arrays = arrays_of(mesh)
            prims = []
            for material, attrs in arrays.primitives:
                prim = {
                    "attributes": {k: self.b.accessor(v, bounds=k == "POSITION") for k, v in attrs.items()},
                    "mode": 4,
                }
                m = self.material(material)
                if m is not None:
                    prim["material"] = m
                prims.append(prim)
            self.b.json["meshes"].append({"name": mesh.name, "primitives": prims})
            self.meshes[key] = (len(self.b.json["meshes"]) - 1, arrays.face_of_triangle)
        return self.meshes[key]


def _placement(matrix: Matrix) -> dict:
    loc, rot, scale = matrix.decompose()
    out = {"translation": space.vector_to_file(loc)}
    rot.normalize()
    if tuple(rot) != (1.0, 0.0, 0.0, 0.0):
        out["rotation"] = space.quaternion_to_file(rot)
    if any(abs(s - 1.0) > 1e-6 for s in scale):
        sx, sy, sz = scale
        out["scale"] = [sx, sz, sy]
    return out


def _is_identity(m: Matrix) -> bool:
    return all(abs(m[i][j] - (1.0 if i == j else 0.0)) < 1e-6 for i in range(4) for j in range(4))


def _extras(obj) -> dict:
    out = {}
    for key in obj.keys():
        value = obj[key]
        if hasattr(value, "to_dict"):
            value = value.to_dict()
        elif hasattr(value, "to_list"):
            value = value.to_list()
        if isinstance(value, (str, int, float, bool, list, dict)):
            out[key] = value
    return out


def canonical_tile_name(obj) -> str:
    return f"tile {obj.get('tile', 0):04} · model {obj.get('model', 0)}"


def gather_level(context) -> Gathered:
    """The scene's level as our glTF (GLB bytes), with what a refusal's node and face numbers
    point at."""
    scene = context.scene
    for obj in scene.objects:
        if obj.mode == "EDIT":
            raise RuntimeError(f"{obj.name} is in edit mode: leave edit mode before gathering (attributes cannot be read)")

    w = _Writer()
    b = w.b
    out = Gathered(glb=b"")
    colls = level_scene.level_collections(scene)
    tiles_collection = colls.get("tiles")

    tiles, new_meshes, collisions, zones = [], [], [], None
    for obj in scene.objects:
        role = level_scene.role(obj)
        if role == "tile":
            tiles.append(obj)
        elif role == "collision":
            collisions.append(obj)
        elif role == "zones" and obj.type == "MESH":
            zones = obj
        elif role is None and obj.type == "MESH" and level_scene.in_tiles_collection(obj, tiles_collection):
            if level_scene.is_given_collision(obj):
                continue  # a new mesh's given collision, written as its child
            new_meshes.append(obj)
        elif role is None and obj.type == "MESH" and not level_scene.is_given_collision(obj):
            out.notes.append(Note(obj.name, f"{obj.name}: not in the Tiles collection, so not part of the level; move it there to add it"))
    tiles.sort(key=lambda o: (int(o.get("tile", 0)), o.name != canonical_tile_name(o), o.name))

    def add_node(obj, node_fields, arrays_of=None):
        mesh_index = None
        if arrays_of is not None and obj.type == "MESH" and len(obj.data.polygons):
            mesh_index, table = w.mesh(obj.data, arrays_of)
        index = b.node(name=obj.name, mesh=mesh_index, **node_fields)
        out.node_objects[index] = obj
        out.node_names[obj.name] = index
        if mesh_index is not None:
            out.face_of_triangle[index] = table
        return index

    tile_nodes = []
    worlds = {}
    for obj in tiles:
        world = world_matrix(obj)
        worlds[obj] = world
        tile_nodes.append(add_node(obj, {**_placement(world), "extras": _extras(obj)}, render_arrays))
    tile_node_of = {out.node_objects[i]: i for i in tile_nodes}

    for obj in collisions:
        tile = obj.parent if obj.parent in tile_node_of else None
        if tile is None:
            # Unparented: it still belongs to the tile its properties name.
            index = obj.get("tile")
            tile = next((t for t in tiles if t.get("tile") == index and t.name == canonical_tile_name(t)), None)
            if tile is None:
                out.notes.append(Note(obj.name, f"{obj.name}: collision of no tile; left out"))
                continue
            local = worlds[tile].inverted() @ world_matrix(obj)
        else:
            local = obj.matrix_parent_inverse @ obj.matrix_basis
        fields = {"extras": _extras(obj)}
        if not _is_identity(local):
            fields["matrix"] = space.matrix_to_file(local)
        node = add_node(obj, fields, collision_arrays)
        b.add_child(tile_node_of[tile], node)

    for obj in new_meshes:
        node = add_node(obj, _placement(world_matrix(obj)), render_arrays)
        tile_nodes.append(node)
        for child in obj.children:
            if level_scene.is_given_collision(child):
                local = child.matrix_parent_inverse @ child.matrix_basis
                fields = {} if _is_identity(local) else {"matrix": space.matrix_to_file(local)}
                b.add_child(node, add_node(child, fields, collision_arrays))

    tiles_node = b.node(name="Tiles", children=tile_nodes or None, extras={"llamawad": "tiles"})
    scene_nodes = [tiles_node]
    if zones is not None:
        scene_nodes.append(add_node(zones, {**_placement(world_matrix(zones)), "extras": _extras(zones)}, zones_arrays))
    b.scene("Level", scene_nodes, extras={"llamawad": level_scene.level_document(scene)})
    if not b.json["materials"]:
        del b.json["materials"]
    out.glb = b.glb()
    return out
