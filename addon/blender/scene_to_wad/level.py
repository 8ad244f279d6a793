"""The scene's level as the arrays ``llamawad.scene_to_wad`` turns into a WAD against the base:
our glTF mapping's nodes and meshes (rust/core/src/gltf/MAPPING.md) without a glTF. This module
says which objects are the level's and what node each becomes; ``nodes.py`` places them and
takes their custom properties as extras, ``meshes.py`` reads their meshes, ``materials.py`` what
the meshes' materials say and show, and ``gathered.py`` holds the result.

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
- the Zones mesh;
- the materials the written meshes use, by name: each one's custom properties (a page's
  material says its page in them) and the image it shows: an edited page image is written into
  its page, another image becomes new pages (MAPPING.md, "Images");
- the root node ``Strats`` and one node per strat object (custom property ``llamawad`` =
  ``strat``), with its world placement and its custom properties as extras: the Rust side writes
  where it stands and how it is turned about the vertical, its record's fields and parameters; a
  second object of one strat (Shift D) is a new strat, a strat without an object is no longer
  created at level start (MAPPING.md, "Strats");
- the root node ``Waypoints`` and one node per waypoint object (``waypoint``) the same way: a
  waypoint moved or turned is written so, a second object of one waypoint is a new waypoint
  inserted after it in its chain, the later ones and the strats naming them renumbered
  (MAPPING.md, "Waypoints"). A scene without the Strats (Waypoints) collection and without a
  strat (waypoint) object keeps the base's;
- the root node ``Object models`` and one node per object model (``object_model``), its mesh as
  it is: a model reshaped or retextured is written in place (MAPPING.md, "Object models"); its
  place and its copies are not, and blender/read_only.py names them.

Tiles, new meshes and collision objects are read as the viewport shows them, their modifiers
applied (the scene's Apply modifiers option, as Blender's own exporters do), the Zones mesh and
object models as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from .. import read_only
from .. import scene as level_scene
from . import materials
from .gathered import Gathered, Note, Unwritable
from .meshes import collision_arrays, object_model_arrays, render_arrays, zones_arrays
from .nodes import IDENTITY, AsSeen, Nodes, Placements, extras, file_local, light_extras


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


# The level's objects export hands over by role: (role, the group node's role and name, what to
# do with something else put into its collection).
LEVEL_OBJECTS = (
    ("strat", "strats", "Strats", "place a new strat with Add strat (WAD › Strat), or copy one (Shift D)"),
    ("waypoint", "waypoints", "Waypoints", "copy a waypoint (Shift D) to insert one after it in its chain"),
    ("light", "lights", "Lights", "the level's lights are edited in place: none is added"),
)


@dataclass
class _ByRole:
    """The scene's objects by the role their custom property ``llamawad`` gives them; ``loose``
    those without one."""

    tiles: list = field(default_factory=list)
    collision: list = field(default_factory=list)
    zones: bpy.types.Object | None = None
    level_objects: dict[str, list] = field(default_factory=lambda: {role: [] for role, *_ in LEVEL_OBJECTS})
    read_only: list = field(default_factory=list)
    loose: list = field(default_factory=list)


def _by_role(scene) -> _ByRole:
    out = _ByRole()
    for obj in scene.objects:
        if obj.mode == "EDIT":
            raise RuntimeError(f"{obj.name} is in edit mode: leave edit mode before gathering (attributes cannot be read)")
        role = level_scene.role(obj)
        if role == "tile":
            out.tiles.append(obj)
        elif role == "collision":
            out.collision.append(obj)
        elif role == "zones" and obj.type == "MESH":
            out.zones = obj
        elif role in out.level_objects:
            out.level_objects[role].append(obj)
        elif role in read_only.ROLES:
            out.read_only.append(obj)
        elif role is None:
            out.loose.append(obj)
    return out


def gather_level(context) -> Gathered:
    """The scene's level as the arrays ``llamawad.scene_to_wad`` takes, with what a refusal's
    node and face numbers point at."""
    out = Gathered(scene={})
    as_seen = AsSeen(context, out)
    try:
        return _gather(context, out, Nodes(out, as_seen))
    finally:
        as_seen.free()


def _gather(context, out: Gathered, nodes: Nodes) -> Gathered:
    """The nodes in the order they are handed over (a tile before its collision, the groups
    before their objects), then what the written meshes' materials say and show."""
    scene = context.scene
    placed = Placements(scene.objects)
    objects = _by_role(scene)
    new_meshes = _new_meshes(context, objects.loose, out.notes)
    _not_written(scene, objects, placed, out)
    tiles_node, tile_nodes = _tiles(scene, nodes, objects.tiles, placed)
    _collision(nodes, objects.collision, tile_nodes, placed)
    _new_geometry(nodes, new_meshes, tiles_node, placed)
    if objects.zones is not None:
        # The zone grid is one face per cell, whatever the viewport shows.
        zones = objects.zones
        nodes.node(zones.name, placed.file_world(zones), -1, extras(zones), zones, zones_arrays, as_seen=False)
    _level_objects(scene, nodes, objects.level_objects, objects.loose, placed, out.notes)
    object_models = [o for o in objects.read_only if level_scene.role(o) == "object_model"]
    _object_models(scene, nodes, object_models, placed)
    out.scene = nodes.arrays(level_scene.level_document(scene))
    used = materials.gather({n for m in nodes.meshes for n in m["materials"] if n})
    out.scene.update(images=used.images, material_images=used.material_images, material_extras=used.material_extras)
    out.notes.extend(Note("", message) for message in used.notes)
    return out


def _not_written(scene, objects: _ByRole, placed: Placements, out: Gathered) -> None:
    """What the scene changed of the parts export cannot write (read_only.py): object models
    placed or copied, lights of the artist's own, as notes."""
    lights = [o for o in objects.loose if o.type == "LIGHT"]
    not_written = read_only.edits(scene, objects.read_only + lights, placed.world_of)
    light_names = {o.name for o in lights}
    out.read_only_edited = any(name not in light_names for name, _ in not_written)
    out.notes.extend(Note(name, message) for name, message in not_written)


def _tiles(scene, nodes: Nodes, tiles: list, placed: Placements) -> tuple[int, dict]:
    """The Tiles group node and a node per tile object, tiles of one index the imported object
    first; the group's number and each tile object's node."""
    # Its objects once: an object's users_collection walks every collection of the file.
    faceless = level_scene.level_collections(scene).get(level_scene.TILES_WITHOUT_FACES[0])
    faceless_objects = set(faceless.all_objects) if faceless is not None else set()
    for obj in tiles:
        _refuse_if_no_tile(obj, faceless_objects)
    tiles.sort(key=lambda o: (level_scene.whole_number(o, "tile"), o.name != canonical_tile_name(o), o.name))
    tiles_node = nodes.node("Tiles", IDENTITY.reshape(16), extras={"llamawad": "tiles"})
    tile_nodes = {obj: nodes.node(obj.name, placed.file_world(obj), tiles_node, extras(obj), obj, render_arrays) for obj in tiles}
    return tiles_node, tile_nodes


def _collision(nodes: Nodes, collision: list, tile_nodes: dict, placed: Placements) -> None:
    """A tile's collision follows the tiles: its node comes after its parent's. One whose tile's
    object is gone (Join removes it and clears its children's parent, leaving them their
    transform in the tile) stands on its own and names its tile: the Rust side gives it to the
    faces that are that tile's, its transform taken in their tile's frame."""
    local, number = placed.local, placed.number
    under, alone = [], []
    for obj in collision:
        tile = obj.parent if obj.parent in tile_nodes else None
        if tile is None:
            index = obj.get("tile")
            tile = next((t for t in tile_nodes if t.get("tile") == index and t.name == canonical_tile_name(t)), None)
            if tile is None:
                alone.append(obj)
                continue
            m = np.linalg.inv(placed.world_of(tile).astype(np.float64)) @ placed.world_of(obj)
        else:
            m = local[number[obj]]
        under.append((obj, tile, m))
    locals_ = file_local(np.array([m for _, _, m in under], np.float32).reshape(-1, 4, 4))
    for (obj, tile, _), m in zip(under, locals_):
        nodes.node(obj.name, m, tile_nodes[tile], extras(obj), obj, collision_arrays)
    for obj, m in zip(alone, file_local(np.array([local[number[obj]] for obj in alone], np.float32).reshape(-1, 4, 4))):
        nodes.node(obj.name, m, -1, extras(obj), obj, collision_arrays)


def _new_geometry(nodes: Nodes, new_meshes: list, tiles_node: int, placed: Placements) -> None:
    """A node under Tiles per new mesh, and its given collision as its child."""
    for obj in new_meshes:
        marked = {"no_collision": True} if obj.llamawad_no_collision else None
        node = nodes.node(obj.name, placed.file_world(obj), tiles_node, marked, obj, render_arrays)
        for child in obj.children:
            if level_scene.is_given_collision(child):
                m = placed.local[placed.number[child]] if child in placed.number else np.array(child.matrix_parent_inverse @ child.matrix_basis, np.float32)
                nodes.node(child.name, file_local(m[None])[0], node, None, child, collision_arrays)


def _level_objects(scene, nodes: Nodes, objects: dict[str, list], loose: list, placed: Placements, notes: list[Note]) -> None:
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
        node = nodes.node(name, IDENTITY.reshape(16), extras={"llamawad": group})
        mine.sort(key=lambda o: (level_scene.whole_number(o, role), o.name))
        for obj in mine:
            given = light_extras(obj) if role == "light" else extras(obj)
            nodes.node(obj.name, placed.file_world(obj), node, given, obj)


def _object_models(scene, nodes: Nodes, objects: list, placed: Placements) -> None:
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
    group = nodes.node("Object models", IDENTITY.reshape(16), extras={"llamawad": "object_models"})
    for index, same in sorted(by_index.items()):
        obj = min(same, key=lambda o: (o.name != made.get(index), o.name))
        nodes.node(obj.name, placed.file_world(obj), group, extras(obj), obj, lambda mesh, obj=obj: object_model_arrays(obj, mesh), as_seen=False)

