"""The level's glTF document, as llamawad.wad_to_scene hands it over taken apart (nodes,
materials and per role every mesh attribute in one float32 array), → Blender: collections,
objects, meshes with per-face and per-corner attributes, materials and page images, built
directly with foreach_set (no io_scene_gltf2, no glTF parsed in Python).

What a tile mesh carries (the way back needs all of it, see blender/scene_to_wad/meshes.py):

- vertices: the model's vertices (corners merged by ``_VERTEX``), Blender space;
  ``wad_vertex``, ``wad_rgb_k``, ``wad_alpha_k`` (POINT, INT): model vertex index and the raw
  colour bytes of colour frame k (R + G·256 + B·65536; byte 3).
- faces: one triangle per game face, in the glTF's order; ``wad_flags``, ``wad_texture``,
  ``wad_face`` (FACE, INT): face flags, texture entry, face index in the model; ``wad_tile``
  (FACE, INT): the tile + 1, so that faces of two tiles joined into one mesh stay each their
  tile's (0, Blender's value for faces that come without it, is no tile's).
- corners: ``Col`` (FLOAT_COLOR): the colour the game shows (COLOR_0); ``UVMap``: the face's
  half of its texture rectangle.

A tile without faces is an empty in the collection Tiles without faces, excluded from the view
layer. Tile collision is left for later (blender/wad_to_scene/collision.py). Zones: one face per cell,
``wad_cell``, ``wad_zone`` (FACE, INT). The meshes are made in meshes.py, the objects, their
collections and placements here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import bpy
import numpy as np

from ...common import game
from .. import read_only
from .. import scene as level_scene
from . import collision
from .. import materials as mats
from .building import bone_groups, creation_order, first_material, place, place_again, place_all, read_batch, set_properties
from .meshes import build_render_meshes, build_zones_mesh

if TYPE_CHECKING:
    from llamawad.answers import HandOverNodes


@dataclass
class ImportSummary:
    level_name: str = ""
    tiles: int = 0
    tiles_without_faces: int = 0
    triangles: int = 0
    # Each tile counts its model's (`llamawad info` counts each model's once).
    collision_polygons: int = 0
    cells: int = 0
    strats: int = 0
    object_models: int = 0
    warnings: list[str] = field(default_factory=list)
    # Meshes the scene held before the level came, which export would add as new geometry.
    meshes_in_scene: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def text(self) -> str:
        name = f"'{self.level_name}'" if self.level_name else "level"
        out = (
            f"Imported {name}: {self.tiles} tiles, {self.triangles} triangles, "
            f"{self.collision_polygons} collision polygons over tiles, {self.cells} cells, {self.strats} strats "
            f"in {self.seconds:.2f} s"
        )
        if self.tiles_without_faces:
            out += f"; {self.tiles_without_faces} tiles without faces in the excluded collection 'Tiles without faces' (tick it in the Outliner to see them)"
        if self.warnings:
            out += f"; {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}"
        return out

    def scene_notes(self) -> list[str]:
        return [
            f"{name}: not part of the level you imported, but export writes every mesh of the view layer as the "
            "level's: it would be added as new geometry (delete it, or exclude its collection to leave it out)"
            for name in self.meshes_in_scene
        ]


# --- objects


def _collection(parent, role: str, name: str):
    """A collection in ``parent`` (a scene or a collection)."""
    coll = bpy.data.collections.new(name)
    coll[level_scene.ROLE] = role
    getattr(parent, "collection", parent).children.link(coll)
    return coll


def _build(batches: dict, role: str, build) -> dict:
    """The Blender meshes of a role's batch by glTF mesh index ({} without one)."""
    batch = batches.get(role)
    return {} if batch is None else dict(zip(batch.meshes, build(batch)))


# At most this many lights are made objects: Blender makes a light and its object at about 5 ms
# each (20,000 once took 33 s), and the game's levels have a handful. A level of more is refused
# by name before anything is made.
MAX_LIGHTS = 2048

# What each LGHT type is taken to be (the core's game::lights): Blender's light of that kind.
_LIGHT_TYPES = {1: "SUN", 2: "POINT"}


def _level_light(name: str, extras: dict):
    """A level light's object: a Sun (type 1, its +z towards the light) or a Point (type 2), in
    its stored colour; another type an empty sphere in that colour (object colour, shown by the
    viewport's Object colour shading)."""
    colour = game.light_colour_to_blender(extras.get("colour") or (255, 255, 255))
    kind = _LIGHT_TYPES.get(int(extras.get("kind") or 0))
    if kind is None:
        obj = bpy.data.objects.new(name, None)
        obj.empty_display_type = "SPHERE"
        obj.empty_display_size = 0.25
        obj.color = (*colour, 1.0)
        return obj
    light = bpy.data.lights.new(name, kind)
    light.color = colour
    return bpy.data.objects.new(name, light)


@dataclass
class _Meshes:
    """The level's meshes by glTF mesh index, every kind made at once: tiles' (those wanted),
    the Zones mesh and the object models'."""

    tiles: dict = field(default_factory=dict)
    zones: dict = field(default_factory=dict)
    object_models: dict = field(default_factory=dict)


def _meshes(info, batches: dict, materials: list, only_tiles: set[int] | None, kept_zones, level_objects: bool, report) -> _Meshes:
    nodes = info["nodes"]
    tile_of_mesh = {m: e["tile"] for role, m, e in zip(nodes["role"], nodes["mesh"], nodes["extras"]) if role == "tile" and m is not None}

    def tile_meshes(b):
        tiles = [tile_of_mesh[m] for m in b.meshes]
        wanted = (lambda i: tiles[i] in only_tiles) if only_tiles is not None else None
        return build_render_meshes(b, materials, True, tiles, wanted)

    out = _Meshes(tiles=_build(batches, "tile", tile_meshes))
    report(0.55)
    # One Zones mesh a level: a kept one is refilled.
    into = kept_zones.data if kept_zones is not None else None
    out.zones = _build(batches, "zones", lambda b: [build_zones_mesh(b, i, first_material(materials, b, i), into if len(b) == 1 else None) for i in range(len(b))])
    # Before any object: a material appended to a mesh visits every object of the file.
    if level_objects:
        out.object_models = _build(batches, "object_model", lambda b: build_render_meshes(b, materials, False))
    return out


def _collections(scene, partial: bool, level_objects: bool) -> dict:
    """The level's collections by role: made (a whole import), or those the scene has, with what
    a scene imported before they existed lacks."""
    faceless, faceless_name = level_scene.TILES_WITHOUT_FACES
    not_created, not_created_name = level_scene.STRATS_NOT_CREATED
    if partial:
        colls = level_scene.level_collections(scene)
        if level_objects and not_created not in colls and "strats" in colls:
            colls[not_created] = _collection(colls["strats"], not_created, not_created_name)
        if level_objects and "waypoints" not in colls:
            # A scene imported before waypoints were shown.
            colls["waypoints"] = _collection(scene, "waypoints", "Waypoints")
        return colls
    colls = {r: _collection(scene, r, name) for r, name in level_scene.COLLECTIONS}
    colls[faceless] = _collection(colls["tiles"], faceless, faceless_name)
    colls[not_created] = _collection(colls["strats"], not_created, not_created_name)
    # Collision never renders, and starts disabled in the viewport and not made: showing it
    # (the panel) makes the tiles' collision objects.
    colls["collision"].hide_render = True
    colls["collision"].hide_viewport = True
    scene.llamawad["show_collision"] = False
    scene.llamawad.tile_collision_made = False
    # The zone grid is an editing aid: never rendered, drawn as wire over the level.
    colls["zones"].hide_render = True
    return colls


@dataclass
class _Objects:
    """The objects of one import's nodes: what it is given (the hand-over's nodes, the meshes
    made, the collections; for an import of part of the level, the tiles to make, the objects
    kept and whether the strats, waypoints and object models are made) and, per collection, the
    placements of the objects it links there, in order."""

    nodes: HandOverNodes
    meshes: _Meshes
    colls: dict
    summary: ImportSummary
    only_tiles: set[int] | None
    kept_tiles: dict
    kept_zones: bpy.types.Object | None
    level_objects: bool
    placements: dict[str, list] = field(default_factory=dict)

    def make(self, k: int, name: str, transform: list[float], polygons: dict) -> None:
        """The object of node ``k`` of scene 0, linked and its placement kept; a kept object placed
        again; nothing for a node that makes none."""
        role, mesh_index = self.nodes["role"][k], self.nodes["mesh"][k]
        extras = self.nodes["extras"][k] or {}
        partial = self.only_tiles is not None
        if role == "tile" and partial and extras.get("tile") in self.kept_tiles:
            self.summary.tiles += 1
            place_again(self.kept_tiles[extras["tile"]], transform, extras)
            return
        if role == "collision":
            self.summary.collision_polygons += polygons.get(mesh_index, 0) if mesh_index is not None else 0
            return
        if role == "zones":
            mesh = self.meshes.zones.get(mesh_index)
            if mesh is not None:
                self.summary.cells = len(mesh.polygons)
            if self.kept_zones is not None and mesh is not None and mesh == self.kept_zones.data:
                place_again(self.kept_zones, transform, extras)
                return
        made = self._object(role, name, extras, mesh_index)
        if made is None:
            return
        obj, key, properties = made
        self.colls[key].objects.link(obj)
        self.placements.setdefault(key, []).append(transform)
        set_properties(obj, properties)

    def _object(self, role: str | None, name: str, extras: dict, mesh_index):
        """A new object for the node: the object, its collection's key and its custom properties;
        None for a role this import makes nothing of."""
        partial = self.only_tiles is not None
        if role == "tile" and (self.only_tiles is None or extras.get("tile") in self.only_tiles):
            mesh = self.meshes.tiles.get(mesh_index)
            obj = bpy.data.objects.new(name, mesh)
            self.summary.tiles += 1
            if mesh is not None:
                return obj, "tiles", extras
            obj.empty_display_size = 0.25
            self.summary.tiles_without_faces += 1
            return obj, level_scene.TILES_WITHOUT_FACES[0], extras
        if role == "zones":
            obj = bpy.data.objects.new(name, self.meshes.zones.get(mesh_index))
            obj.display_type = "WIRE"
            return obj, "zones", extras
        if role == "strat" and self.level_objects:
            obj = bpy.data.objects.new(name, None)
            obj.empty_display_type = "SINGLE_ARROW"
            obj.empty_display_size = 0.5
            self.summary.strats += 1
            key = level_scene.STRATS_NOT_CREATED[0] if game.strat_not_created_at_start(extras) else "strats"
            return obj, key, game.strat_properties(extras)
        if role == "waypoint" and self.level_objects:
            obj = bpy.data.objects.new(name, None)
            obj.empty_display_type = "PLAIN_AXES"
            obj.empty_display_size = 0.25
            return obj, "waypoints", extras
        if role == "light" and not partial:
            # Export over the base leaves the lights as the artist has them: made once, on import.
            return _level_light(name, extras), "lights", game.light_properties(extras)
        return None

    def make_object_model(self, k: int, transform: list[float]) -> None:
        """An object of scene 1 (the STPC object models), excluded from the view layer."""
        nodes = self.nodes
        obj = bpy.data.objects.new(nodes["name"][k] or f"object model {nodes['node'][k]}", self.meshes.object_models.get(nodes["mesh"][k]))
        set_properties(obj, nodes["extras"][k] or {})
        bone_groups(obj, (nodes["extras"][k] or {}).get("bone_vertex_counts") or [])
        self.colls["object_models"].objects.link(obj)
        self.placements.setdefault("object_models", []).append(transform)
        self.summary.object_models += 1

    def place(self) -> None:
        """Every object made placed. A whole import places each collection's at once; a partial
        one's collections hold the level's other objects too, and these are their last ones."""
        for key, transforms in self.placements.items():
            objects = self.colls[key].objects
            if self.only_tiles is None:
                place_all(objects, transforms)
                continue
            for obj, transform in zip(list(objects)[len(objects) - len(transforms) :], transforms):
                place(obj, transform)


def import_level(
    context,
    data: bytes,
    filepath: str = "",
    progress=None,
    only_tiles: set[int] | None = None,
    level_objects: bool = True,
    kept_tiles: dict[int, bpy.types.Object] | None = None,
    kept_zones: bpy.types.Object | None = None,
) -> ImportSummary:
    """Builds the level from its WAD bytes into ``context.scene``. ``progress(fraction)`` is
    called now and then. Raises llamawad.WadError for a file that is not a level.

    With ``only_tiles``, the scene holds the level already but for those tiles, the Zones mesh
    and, with ``level_objects``, the strats, waypoints and object models (after an export over the
    base, ``blender/written.py``): only their objects are made, in the level's collections,
    with its pages and materials. The objects of ``kept_tiles`` (by tile) are placed and
    numbered as the level has them, and ``kept_zones`` gets the level's zone grid in its mesh:
    they stay the objects they are."""
    import llamawad

    partial = only_tiles is not None
    started = time.perf_counter()
    report = progress or (lambda fraction: None)
    info, arrays, transforms, pngs, warnings = llamawad.wad_to_scene(data)
    extras = (info["scene_extras"][0] or {}).get("llamawad", {}) if info["scene_extras"] else {}
    summary = ImportSummary(level_name=extras.get("level_name") or "", warnings=list(warnings))
    lights = sum(role == "light" for role in info["nodes"]["role"]) if not partial else 0
    if lights > MAX_LIGHTS:
        raise llamawad.WadError(f"the level has {lights} lights; the add-on makes at most {MAX_LIGHTS} (the game's levels have a handful)")
    batches = {role: read_batch(batch, arrays) for role, batch in info["batches"].items()}
    report(0.05)

    scene = context.scene
    before = [o for o in scene.objects if o.type == "MESH"]
    images = mats.level_images(info, pngs) if partial else mats.build_images(info, pngs)
    materials = mats.level_materials(info, images) if partial else mats.build_materials(info, images)
    report(0.1)
    meshes = _meshes(info, batches, materials, only_tiles, kept_zones, level_objects, report)
    # Every triangle of the tile batch is a face of one tile mesh.
    summary.triangles = int(batches["tile"].corner_start[-1]) // 3 if "tile" in batches else 0
    report(0.7)

    objects = _Objects(info["nodes"], meshes, _collections(scene, partial, level_objects), summary, only_tiles, kept_tiles or {}, kept_zones, level_objects)
    _make_objects(objects, batches, np.frombuffer(transforms, "<f4").reshape(-1, 10).tolist())
    report(0.9)
    objects.place()
    if not partial:
        _arrange_view_layer(context, objects.colls)
        summary.meshes_in_scene = [o.name for o in before if level_scene.is_new_mesh(context, o)]
    read_only.remember(scene)
    return _finish(context, summary, filepath, extras, started, report, data, level_objects)


def _make_objects(objects: _Objects, batches: dict, transforms: list) -> None:
    """The objects of every node, in the order Blender would name them (scene 0: the level; scene
    1: the object models)."""
    nodes = objects.nodes
    polygons = dict(zip(batches["collision"].meshes, collision.polygon_counts(batches["collision"]).tolist())) if "collision" in batches else {}
    names = [name or f"node {node}" for name, node in zip(nodes["name"], nodes["node"])]
    for k in creation_order(names):
        if nodes["scene"][k] == 0:
            objects.make(k, names[k], transforms[k], polygons)
    if not objects.level_objects:
        return
    for k, (scene_index, role) in enumerate(zip(nodes["scene"], nodes["role"])):
        if scene_index == 1 and role == "object_model":
            objects.make_object_model(k, transforms[k])


def _arrange_view_layer(context, colls: dict) -> None:
    """After a whole import: tiles without faces and object models excluded from the view layer,
    strats not created at start hidden, and Tiles the active collection, where what the artist
    adds (Shift A) looks at home."""
    for excluded in (level_scene.TILES_WITHOUT_FACES[0], "object_models"):
        lc = level_scene.layer_collection(context.view_layer, colls[excluded])
        if lc is not None:
            lc.exclude = True
    lc = level_scene.layer_collection(context.view_layer, colls[level_scene.STRATS_NOT_CREATED[0]])
    if lc is not None:
        lc.hide_viewport = True
    tiles_layer = level_scene.layer_collection(context.view_layer, colls["tiles"])
    if tiles_layer is not None:
        context.view_layer.active_layer_collection = tiles_layer


def _strat_types(data: bytes) -> str:
    """The strat types of the level (``llamawad.strats``) that Add strat offers, as JSON."""
    import llamawad

    try:
        types = llamawad.strats(data)["types"]
    except llamawad.WadError:
        types = []  # a level without strats (no MAP chunk)
    kept = [
        {"name": t["name"], "code_offset": t["code_offset"], "instances": t["instances"], "placeable": t["placeable"], "why_not": t["why_not"], "first_instance": t["first_instance"]}
        for t in types
    ]
    return json.dumps(kept, separators=(",", ":"))


def _finish(context, summary: ImportSummary, filepath: str, extras: dict, started: float, report, data: bytes, strats_made: bool) -> ImportSummary:
    """The scene's level state: its base, its document, its pages, its strat types (when the
    strats were made: they change only with them), nothing checked or exported yet."""
    import llamawad

    props = context.scene.llamawad
    if strats_made:
        props.strat_types_json = _strat_types(data)
    props.base_path = filepath
    props.pages_json = json.dumps(llamawad.pages(data), separators=(",", ":"))
    level_scene.store_level_document(context.scene, extras)
    props.import_warnings = "\n".join(summary.warnings)
    props.problems.clear()
    props.last_export = ""
    props.changes.clear()
    report(1.0)
    summary.seconds = time.perf_counter() - started
    return summary
