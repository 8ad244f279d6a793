"""The scene's level as the arrays ``llamawad.scene_to_wad`` turns into a WAD against the base:
our glTF mapping's nodes and meshes (rust/core/src/gltf/MAPPING.md) without a glTF, gathered by
foreach_get and handed over as numpy arrays.

What is handed over:

- the imported level's document as the scene's extras (source, grid, texture entries; zone
  masks as the Zones panel left them), and the root nodes ``Tiles`` and ``Zones``;
- one node per tile object (custom property ``llamawad`` = ``tile``), with its world placement in
  file space and its mesh; its collision object as a child node; tiles of one index are written
  original first (the object with the imported name), so that a copy (Shift D) becomes a new
  tile;
- one node without a role per mesh object without one in the view layer (scene.is_new_mesh):
  new geometry, which the Rust side cuts into new tiles; a child mesh named ``collision…`` is its
  collision;
- render meshes: triangles (faces fanned), per corner POSITION, COLOR_0, TEXCOORD_0 and
  ``_FLAGS``, ``_TEXTURE``, ``_FACE``, ``_TILE``, ``_VERTEX``, ``_RGB_k``, ``_ALPHA_k`` from the
  attributes the importer made, and each triangle's material (named like the import's);
- collision meshes: ``_POLYGON``, ``_MATERIAL``, ``_KIND``, ``_GROUP``; a polygon index that two
  faces carry stays with the first, the other face is a new polygon;
- the Zones mesh: ``_CELL``, ``_ZONE``;
- the images the written meshes' materials show, and which material shows which
  (``images.py``): an edited page image is written into its page, another image becomes new
  pages (MAPPING.md, "Images");
- the root node ``Strats`` and one node per strat object (custom property ``llamawad`` =
  ``strat``), with its world placement and its custom properties as extras: the Rust side writes
  where it stands and how it is turned about the vertical, its record's fields and parameters; a
  second object of one strat (Shift D) is a new strat, a strat without an object is no longer
  created at level start (MAPPING.md, "Strats");
- the root node ``Waypoints`` and one node per waypoint object (``waypoint``) the same way: a
  waypoint moved or turned is written so, a second object of one waypoint is a new waypoint
  inserted after it in its chain, the later ones and the strats naming them renumbered
  (MAPPING.md, "Waypoints"). A scene without the Strats (Waypoints) collection and without a
  strat (waypoint) object keeps the base's.

Tiles, new meshes and collision objects are read as the viewport shows them, their modifiers
applied (the scene's Apply modifiers option, as Blender's own exporters do), the Zones mesh as
it is.

- the root node ``Object models`` and one node per object model (``object_model``), its mesh as
  it is with each vertex's bone (``_BONE``, from its ``bone k`` vertex group): a model reshaped
  or retextured is written in place (MAPPING.md, "Object models"); its place and its copies are
  not, and blender/read_only.py names them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...common import game, space
from .. import read_only
from . import images as scene_images
from .. import scene as level_scene
from .. import materials as mats

COLOUR = mats.COLOUR_ATTRIBUTE
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
    return [None if m is None else (m.get(mats.KEY) or m.name) for m in mesh.materials]


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


def _extras(obj) -> dict:
    """The object's custom properties that JSON can hold: the node's extras; and
    ``no_collision`` when the artist marked it decoration the llama passes through. A number
    that is none (NaN, infinity) is refused by property: JSON cannot hold it."""
    out: dict[str, object] = {"no_collision": True} if getattr(obj, "llamawad_no_collision", False) else {}
    for key, value in obj.items():
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
            raise Unwritable(obj.name, f"its custom property '{key}' holds {value}, which is not a number: give it a number (Object Properties › Custom Properties)")
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


class _AsSeen:
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


class _Scene:
    """The nodes and meshes handed to ``llamawad.scene_to_wad``, parents before children."""

    def __init__(self, out: Gathered, as_seen: _AsSeen):
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


def canonical_tile_name(obj) -> str:
    return f"tile {level_scene.whole_number(obj, 'tile'):04} · model {obj.get('model', 0)}"


def _a_kind(obj) -> str:
    """What an object that is no mesh is, as an artist says it: "a curve", "an empty"."""
    kind = NOT_MESHES.get(obj.type, obj.type.lower().replace("_", " "))
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _refuse_if_no_tile(obj, faceless: set) -> None:
    """A tile is a mesh, or an empty in Tiles without faces (``faceless``: its objects; a tile
    the game shows nothing of, or a copy of one): any other object that carries a tile's custom
    properties (Copy to Selected) would become a new tile without faces."""
    if obj.type == "MESH" or (obj.type == "EMPTY" and obj in faceless):
        return
    raise Unwritable(
        obj.name,
        f"{_a_kind(obj)} with the custom properties of a tile (llamawad = tile), but not a tile: "
        "only a mesh is (an empty only in 'Tiles without faces'); remove its custom properties (Object Properties › "
        "Custom Properties) or the object",
    )


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


# Geometry that is no mesh, which export does not read: what an artist calls it.
NOT_MESHES = {"CURVE": "curve", "SURFACE": "surface", "META": "metaball", "FONT": "text", "CURVES": "hair curves", "POINTCLOUD": "point cloud", "VOLUME": "volume"}


def _new_meshes(context, loose: list, notes: list[Note]) -> list:
    """Of the objects without a role, the meshes export writes as new geometry
    (scene.is_new_mesh); a note for each other mesh it leaves out, and for every other object in
    the Tiles collection (an empty or a camera Shift A put there, import making it the active
    collection)."""
    object_colls = level_scene.object_collections(context.scene)
    tiles = [c for c in [level_scene.level_collections(context.scene).get("tiles")] if c is not None]
    out = []
    for obj in loose:
        if level_scene.is_new_mesh(context, obj, object_colls):
            out.append(obj)
        elif level_scene.in_collections(obj, object_colls):
            continue  # named by read_only.edits and _level_objects
        elif obj.type in NOT_MESHES and level_scene.in_view_layer(context.view_layer, obj):
            notes.append(Note(obj.name, f"{obj.name}: a {NOT_MESHES[obj.type]} object, not a mesh: not written; convert it to a mesh (Object › Convert › Mesh) to add it"))
        elif obj.type not in ("MESH", "LIGHT") and level_scene.in_collections(obj, tiles):
            notes.append(Note(obj.name, f"{obj.name}: {_a_kind(obj)} in the Tiles collection, not a mesh: not written"))
        elif obj.type == "MESH" and not level_scene.is_given_collision(obj):
            excluded = level_scene.excluded_collection(context.view_layer, obj)
            coll = f"the collection '{excluded.name}'" if excluded is not None else "a collection"
            notes.append(Note(obj.name, f"{obj.name}: in {coll}, which is excluded from the view layer: left out of the level (tick the collection in the Outliner to add it)"))
    return out


def gather_level(context) -> Gathered:
    """The scene's level as the arrays ``llamawad.scene_to_wad`` takes, with what a refusal's
    node and face numbers point at."""
    out = Gathered(scene={})
    as_seen = _AsSeen(context, out)
    try:
        return _gather(context, out, _Scene(out, as_seen))
    finally:
        as_seen.free()


def _gather(context, out: Gathered, w: _Scene) -> Gathered:
    scene = context.scene
    world, local = _matrices(scene.objects)
    number = {}

    tiles, loose, collisions, zones, read_only_objects = [], [], [], None, []
    level_objects: dict[str, list] = {role: [] for role, *_ in LEVEL_OBJECTS}
    for k, obj in enumerate(scene.objects):
        if obj.mode == "EDIT":
            raise RuntimeError(f"{obj.name} is in edit mode: leave edit mode before gathering (attributes cannot be read)")
        number[obj] = k
        role = level_scene.role(obj)
        if role == "tile":
            tiles.append(obj)
        elif role == "collision":
            collisions.append(obj)
        elif role == "zones" and obj.type == "MESH":
            zones = obj
        elif role in level_objects:
            level_objects[role].append(obj)
        elif role in read_only.ROLES:
            read_only_objects.append(obj)
        elif role is None:
            loose.append(obj)
    new_meshes = _new_meshes(context, loose, out.notes)
    lights = [o for o in loose if o.type == "LIGHT"]
    not_written = read_only.edits(scene, read_only_objects + lights, lambda o: world[number[o]])
    light_names = {o.name for o in lights}
    out.read_only_edited = any(name not in light_names for name, _ in not_written)
    out.notes.extend(Note(name, message) for name, message in not_written)
    # Its objects once: an object's users_collection walks every collection of the file.
    faceless = level_scene.level_collections(scene).get(level_scene.TILES_WITHOUT_FACES[0])
    faceless_objects = set(faceless.all_objects) if faceless is not None else set()
    for obj in tiles:
        _refuse_if_no_tile(obj, faceless_objects)
    tiles.sort(key=lambda o: (level_scene.whole_number(o, "tile"), o.name != canonical_tile_name(o), o.name))
    file_world = space.matrices_to_file(world)
    identity = np.eye(4, dtype=np.float32)

    def file_local(m: np.ndarray) -> np.ndarray:
        """(n, 4, 4) transforms in the parent's frame in file space; one within float noise of
        none is none, as an imported collision object is placed."""
        m = m.copy()
        m[np.abs(m - identity).max(axis=(1, 2)) < 1e-6] = identity
        return space.matrices_to_file(m)

    tiles_node = w.node("Tiles", identity.reshape(16), extras={"llamawad": "tiles"})
    tile_node_of = {}
    for obj in tiles:
        tile_node_of[obj] = w.node(obj.name, file_world[number[obj]], tiles_node, _extras(obj), obj, render_arrays)

    # A tile's collision follows the tiles: its node comes after its parent's. One whose tile's
    # object is gone (Join removes it and clears its children's parent, leaving them their
    # transform in the tile) stands on its own and names its tile: the Rust side gives it to the
    # faces that are that tile's, its transform taken in their tile's frame.
    placed, alone = [], []
    for obj in collisions:
        tile = obj.parent if obj.parent in tile_node_of else None
        if tile is None:
            index = obj.get("tile")
            tile = next((t for t in tiles if t.get("tile") == index and t.name == canonical_tile_name(t)), None)
            if tile is None:
                alone.append(obj)
                continue
            m = np.linalg.inv(world[number[tile]].astype(np.float64)) @ world[number[obj]]
        else:
            m = local[number[obj]]
        placed.append((obj, tile, m))
    locals_ = file_local(np.array([m for _, _, m in placed], np.float32).reshape(-1, 4, 4))
    for (obj, tile, _), m in zip(placed, locals_):
        w.node(obj.name, m, tile_node_of[tile], _extras(obj), obj, collision_arrays)
    for obj, m in zip(alone, file_local(np.array([local[number[obj]] for obj in alone], np.float32).reshape(-1, 4, 4))):
        w.node(obj.name, m, -1, _extras(obj), obj, collision_arrays)

    for obj in new_meshes:
        marked = {"no_collision": True} if obj.llamawad_no_collision else None
        node = w.node(obj.name, file_world[number[obj]], tiles_node, marked, obj, render_arrays)
        for child in obj.children:
            if level_scene.is_given_collision(child):
                m = local[number[child]] if child in number else np.array(child.matrix_parent_inverse @ child.matrix_basis, np.float32)
                w.node(child.name, file_local(m[None])[0], node, None, child, collision_arrays)

    if zones is not None:
        # The zone grid is one face per cell, whatever the viewport shows.
        w.node(zones.name, file_world[number[zones]], -1, _extras(zones), zones, zones_arrays, as_seen=False)
    _level_objects(scene, w, level_objects, loose, lambda obj: file_world[number[obj]], out.notes)
    object_models = [o for o in read_only_objects if level_scene.role(o) == "object_model"]
    _object_models(scene, w, object_models, lambda obj: file_world[number[obj]])
    out.scene = w.arrays(level_scene.level_document(scene))
    out.scene["images"], out.scene["material_images"], image_notes = scene_images.gather({n for m in w.meshes for n in m["materials"] if n})
    out.notes.extend(Note("", message) for message in image_notes)
    return out


# The level's objects export hands over by role: (role, the group node's role and name, what to
# do with something else put into its collection).
LEVEL_OBJECTS = (
    ("strat", "strats", "Strats", "place a new strat with Add strat (WAD › Strat), or copy one (Shift D)"),
    ("waypoint", "waypoints", "Waypoints", "copy a waypoint (Shift D) to insert one after it in its chain"),
    ("light", "lights", "Lights", "the level's lights are edited in place: none is added"),
)


def _level_objects(scene, w: _Scene, objects: dict[str, list], loose: list, file_world, notes: list[Note]) -> None:
    """For strats and waypoints, when the scene gives them (it has their collection or one of
    their objects): the group node and a node per object; a note for every other object in the
    collection, and for a scene without it. The objects of one strat or waypoint go by name: the
    one import made first, then its copies (Blender names a copy by adding a number), whose order
    is the order the new ones are written in."""
    colls = level_scene.level_collections(scene)
    for role, group, name, instead in LEVEL_OBJECTS:
        coll, mine = colls.get(group), objects[role]
        if coll is None and not mine:
            notes.append(Note("", f"The {name} collection is gone: the level keeps its {group} as the base has them (delete their objects instead)"))
            continue
        inside = set(coll.all_objects) if coll is not None else set()
        for obj in loose:
            if obj in inside and obj.type != "LIGHT":
                notes.append(Note(obj.name, f"{obj.name}: in {name}, but not one of the level's {group} (it has no {role}'s custom properties): not written; {instead}"))
        node = w.node(name, np.eye(4, dtype=np.float32).reshape(16), extras={"llamawad": group})
        mine.sort(key=lambda o: (level_scene.whole_number(o, role), o.name))
        for obj in mine:
            extras = _light_extras(obj) if role == "light" else _extras(obj)
            w.node(obj.name, file_world(obj), node, extras, obj)


def _object_models(scene, w: _Scene, objects: list, file_world) -> None:
    """The Object models group node and, for each object model, the object import made (the one
    with its imported name, else the first by name) with its mesh as it is: the Rust side writes
    a model reshaped or retextured in place and refuses one whose counts changed. Its place, and
    its copies, read_only names as not written."""
    if not objects:
        return
    made = read_only.imported_names(scene, "object_model")
    by_index: dict[int, list] = {}
    for obj in objects:
        if obj.type == "MESH":
            by_index.setdefault(level_scene.whole_number(obj, "object_model"), []).append(obj)
    group = w.node("Object models", np.eye(4, dtype=np.float32).reshape(16), extras={"llamawad": "object_models"})
    for index, same in sorted(by_index.items()):
        obj = min(same, key=lambda o: (o.name != made.get(index), o.name))
        w.node(obj.name, file_world(obj), group, _extras(obj), obj, lambda mesh, obj=obj: object_model_arrays(obj, mesh), as_seen=False)


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


def _light_extras(obj) -> dict:
    """A level light's extras: its custom properties, the colour the artist sees (the light's,
    or an empty marker's object colour) as its colour bytes."""
    extras = _extras(obj)
    extras["colour"] = game.light_colour_to_file(obj.data.color if obj.type == "LIGHT" else obj.color)
    return extras
