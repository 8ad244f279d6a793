"""The level's glTF document, as llamawad.wad_to_scene hands it over taken apart (nodes,
materials and per role every mesh attribute in one float32 array), → Blender: collections,
objects, meshes with per-face and per-corner attributes, materials and page images, built
directly with foreach_set (no io_scene_gltf2, no glTF parsed in Python).

What a tile mesh carries (the way back needs all of it, see blender/scene_to_wad/level.py):

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
``wad_cell``, ``wad_zone`` (FACE, INT).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...common import game, space
from .. import read_only
from .. import scene as level_scene
from . import collision
from .. import materials as mats
from .building import Batch, bone_groups, colour_attribute, creation_order, finish, first_material, int_attribute, new_mesh, per_triangle_ints, place, place_again, place_all, read_batch, set_properties

UV_NAME = "UVMap"


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


def _merge_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first of each distinct row and, for each row, its distinct row's index."""
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _material_slots(materials: list, primitive_materials: list[int | None], primitive_triangles: list[int]):
    slots, slot_of_primitive = [], []
    for m in primitive_materials:
        mat = materials[m] if m is not None and 0 <= m < len(materials) else None
        if mat not in slots:
            slots.append(mat)
        slot_of_primitive.append(slots.index(mat))
    index = np.repeat(np.asarray(slot_of_primitive, np.int32), primitive_triangles) if len(slots) > 1 else None
    return slots, index


def build_render_meshes(batch: Batch, materials: list, with_colours: bool, tiles: list[int] | None = None, wanted=None) -> list:
    """Tile (or object model) meshes: one triangle per face, in the glTF's order, vertices
    merged by _VERTEX (a model vertex is one Blender vertex). ``tiles``: the tile of each mesh
    of the batch, for its faces' ``wad_tile``; ``wanted(i)``: whether mesh i is made (None for
    the meshes left out)."""
    A = batch.attributes
    positions = A["POSITION"]
    n = len(positions)
    counts = np.diff(batch.corner_start)
    mesh_of_corner = np.repeat(np.arange(len(batch), dtype=np.int64), counts)

    # The Blender vertices of the whole batch, mesh after mesh: per vertex the corner it is
    # made from (``first``), per corner its vertex (``inverse``), so that every mesh below only
    # takes slices.
    vertex = A.get("_VERTEX")
    if vertex is not None and n > 0:
        v = np.rint(vertex).astype(np.int64)
        separate = np.zeros(len(batch), bool)
        separate[np.unique(mesh_of_corner[v < 0])] = True
        key = (mesh_of_corner << 32) | (v & 0xFFFFFFFF)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        # Corners of one model vertex stand at one place; where not (another tool's edit), a
        # mesh keeps its corners apart. Blender faces need three different vertices.
        moved = (positions[first][inverse] != positions).any(axis=1)
        separate[np.unique(mesh_of_corner[moved])] = True
        tri = inverse.reshape(-1, 3)
        degenerate = (tri[:, 0] == tri[:, 1]) | (tri[:, 1] == tri[:, 2]) | (tri[:, 0] == tri[:, 2])
        separate[np.unique(mesh_of_corner[0::3][degenerate])] = True
        if separate.any():
            # A vertex per corner in those meshes, in corner order.
            corner_in_mesh = np.arange(n) - batch.corner_start[mesh_of_corner]
            key = np.where(separate[mesh_of_corner], (mesh_of_corner << 32) | (corner_in_mesh + (1 << 31)), key)
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            inverse = inverse.ravel()
        vertex_start = np.searchsorted(mesh_of_corner[first], np.arange(len(batch) + 1))
        vertex_ints = v.astype(np.int32)[first]
    else:
        first = inverse = np.arange(n)
        vertex_start = np.asarray(batch.corner_start)
        vertex_ints = np.full(n, -1, np.int32)
    co = space.file_to_blender(positions[first])
    loops = (inverse - vertex_start[mesh_of_corner]).astype(np.int32)
    face_starts = np.arange(0, int(counts.max(initial=0)), 3, dtype=np.int32)

    flags = per_triangle_ints(batch, "_FLAGS", 0)
    textures = per_triangle_ints(batch, "_TEXTURE", 0)
    faces = per_triangle_ints(batch, "_FACE", -1)
    raw = []
    if with_colours:
        k = 0
        while f"_RGB_{k}" in A:
            alpha = A.get(f"_ALPHA_{k}")
            raw.append(
                (
                    np.rint(A[f"_RGB_{k}"][first]).astype(np.int32),
                    np.zeros(len(first), np.int32) if alpha is None else np.rint(alpha[first]).astype(np.int32),
                )
            )
            k += 1
    colours = A.get("COLOR_0") if with_colours else None
    if colours is not None and colours.shape[1] == 3:
        colours = np.concatenate([colours, np.ones((n, 1), np.float32)], 1)
    uv = A.get("TEXCOORD_0")
    if uv is not None:
        uv = space.uv_to_blender(uv)

    out: list = [None] * len(batch)
    corner_start, vertex_start = batch.corner_start.tolist(), vertex_start.tolist()
    # A tile of a model made before copies that tile's mesh: whichever tile comes first in
    # creation order, as any of them differs from the others only in its colours.
    source: dict[int, int] = {}
    for i in creation_order(batch.names):
        if wanted is not None and not wanted(i):
            continue
        c0, c1 = corner_start[i], corner_start[i + 1]
        v0, v1 = vertex_start[i], vertex_start[i + 1]
        t0, t1 = c0 // 3, c1 // 3
        group = batch.same_but_colours[i]
        group = i if group is None else group
        same = source.get(group)
        if same is None:
            source[group] = i
            mesh = new_mesh(batch.names[i], co[v0:v1], loops[c0:c1], face_starts[: t1 - t0])
            int_attribute(mesh, "wad_flags", "FACE", flags[t0:t1])
            int_attribute(mesh, "wad_texture", "FACE", textures[t0:t1])
            int_attribute(mesh, "wad_face", "FACE", faces[t0:t1])
            int_attribute(mesh, "wad_vertex", "POINT", vertex_ints[v0:v1])
        else:
            # Another tile of the same model: its mesh but for the colours, copied in one go.
            mesh = out[same].copy()
            # ID.rename (Blender 4.3 on) costs a third of setting .name, 855 times an import.
            if hasattr(mesh, "rename"):
                mesh.rename(batch.names[i])
            else:
                mesh.name = batch.names[i]
        if tiles is not None:
            int_attribute(mesh, level_scene.TILE_ATTRIBUTE, "FACE", np.full(t1 - t0, tiles[i] + 1, np.int32), same is None)
        for k, (rgb, alpha) in enumerate(raw):
            if not batch.has(i, f"_RGB_{k}"):
                break
            int_attribute(mesh, f"wad_rgb_{k}", "POINT", rgb[v0:v1], same is None)
            int_attribute(mesh, f"wad_alpha_{k}", "POINT", alpha[v0:v1], same is None)
        if colours is not None and batch.has(i, "COLOR_0"):
            colour_attribute(mesh, colours[c0:c1], same is None)
        if same is not None:
            if uv is not None and batch.has(i, "TEXCOORD_0"):
                # A copy shares its arrays with the mesh it copies until either is written through
                # the attribute API; Blender 5.0's uv_layers[...].uv writes into the shared array,
                # which would change every tile of the model at once. Written once here, the copy
                # owns its UVs.
                mesh.attributes[UV_NAME].data.foreach_set("vector", uv[c0:c1].ravel())
            out[i] = mesh
            continue
        if uv is not None and batch.has(i, "TEXCOORD_0"):
            mesh.uv_layers.new(name=UV_NAME).uv.foreach_set("vector", uv[c0:c1].ravel())
        slots, slot_index = _material_slots(materials, batch.primitive_materials[i], batch.primitive_triangles[i])
        for mat in slots:
            mesh.materials.append(mat)
        if slot_index is not None:
            mesh.polygons.foreach_set("material_index", slot_index)
        finish(mesh)
        out[i] = mesh
    return out


def build_zones_mesh(batch: Batch, i: int, material, into=None):
    """One face per cell: the glTF's two triangles of a cell become a quad; with ``into``, in
    that mesh (``new_mesh``)."""
    c0, c1 = int(batch.corner_start[i]), int(batch.corner_start[i + 1])
    positions = batch.attributes["POSITION"][c0:c1]
    nt = len(positions) // 3
    cell = per_triangle_ints(batch, "_CELL", -1)[c0 // 3 : c1 // 3]
    zone = per_triangle_ints(batch, "_ZONE", 0)[c0 // 3 : c1 // 3]
    first, inverse = _merge_rows(positions) if nt else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    tri = inverse.reshape(-1, 3)
    # The export writes each cell as (x0,z0) (x0,z1) (x1,z0) | (x1,z0) (x0,z1) (x1,z1).
    pairs = nt % 2 == 0 and nt > 0
    if pairs:
        a, b = tri[0::2], tri[1::2]
        pairs = bool((cell[0::2] == cell[1::2]).all() and (a[:, 2] == b[:, 0]).all() and (a[:, 1] == b[:, 1]).all())
    if pairs:
        loops = np.stack([a[:, 0], a[:, 1], b[:, 2], a[:, 2]], 1).ravel()
        face_cell, face_zone = cell[0::2], zone[0::2]
        size = 4
    else:
        loops = tri.ravel()
        face_cell, face_zone = cell, zone
        size = 3
    co = space.file_to_blender(positions[first]) if nt else np.zeros((0, 3), np.float32)
    mesh = new_mesh(batch.names[i], co, loops, np.arange(0, len(loops), size), into)
    int_attribute(mesh, "wad_cell", "FACE", face_cell)
    int_attribute(mesh, "wad_zone", "FACE", face_zone)
    colour_attribute(mesh, np.repeat(game.colour_table(game.zone_colour, face_zone), size, axis=0))
    if list(mesh.materials) != ([material] if material is not None else []):
        mesh.materials.clear()
        if material is not None:
            mesh.materials.append(material)
    finish(mesh)
    return mesh


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
    chosen = only_tiles if only_tiles is not None else set()
    kept = kept_tiles or {}
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

    # Meshes first, all of a kind at once.
    nodes = info["nodes"]
    tile_of_mesh = {m: e["tile"] for role, m, e in zip(nodes["role"], nodes["mesh"], nodes["extras"]) if role == "tile" and m is not None}

    def tile_meshes(b):
        tiles = [tile_of_mesh[m] for m in b.meshes]
        wanted = (lambda i: tiles[i] in chosen) if partial else None
        return build_render_meshes(b, materials, True, tiles, wanted)

    render = _build(batches, "tile", tile_meshes)
    report(0.55)
    # One Zones mesh a level: a kept one is refilled.
    zones_into = kept_zones.data if kept_zones is not None else None
    zones = _build(batches, "zones", lambda b: [build_zones_mesh(b, i, first_material(materials, b, i), zones_into if len(b) == 1 else None) for i in range(len(b))])
    # Before any object: a material appended to a mesh visits every object of the file.
    object_models = _build(batches, "object_model", lambda b: build_render_meshes(b, materials, False)) if level_objects else {}
    # Every triangle of the tile batch is a face of one tile mesh.
    summary.triangles = int(batches["tile"].corner_start[-1]) // 3 if "tile" in batches else 0
    report(0.7)

    faceless, faceless_name = level_scene.TILES_WITHOUT_FACES
    not_created, not_created_name = level_scene.STRATS_NOT_CREATED
    if partial:
        colls = level_scene.level_collections(scene)
        if level_objects and not_created not in colls and "strats" in colls:
            colls[not_created] = _collection(colls["strats"], not_created, not_created_name)
        if level_objects and "waypoints" not in colls:
            # A scene imported before waypoints were shown.
            colls["waypoints"] = _collection(scene, "waypoints", "Waypoints")
    else:
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

    transforms = np.frombuffer(transforms, "<f4").reshape(-1, 10).tolist()
    polygons = dict(zip(batches["collision"].meshes, collision.polygon_counts(batches["collision"]).tolist())) if "collision" in batches else {}
    names = [name or f"node {node}" for name, node in zip(nodes["name"], nodes["node"])]
    # Per collection, the placements of its objects in the order they are linked.
    placements: dict[str, list] = {key: [] for key in colls}
    for k in creation_order(names):
        scene_index, role, mesh_index, name = nodes["scene"][k], nodes["role"][k], nodes["mesh"][k], names[k]
        if scene_index != 0:
            continue
        node_extras = nodes["extras"][k] or {}
        if partial and role == "tile" and node_extras.get("tile") in kept:
            summary.tiles += 1
            place_again(kept[node_extras["tile"]], transforms[k], node_extras)
            continue
        if partial and role == "tile" and node_extras.get("tile") not in chosen:
            continue
        if role == "tile":
            mesh = render.get(mesh_index)
            obj = bpy.data.objects.new(name, mesh)
            if mesh is None:
                obj.empty_display_size = 0.25
                key = faceless
                summary.tiles_without_faces += 1
            else:
                key = "tiles"
            summary.tiles += 1
        elif role == "collision":
            summary.collision_polygons += polygons.get(mesh_index, 0) if mesh_index is not None else 0
            continue
        elif role == "zones":
            mesh = zones.get(mesh_index)
            if mesh is not None:
                summary.cells = len(mesh.polygons)
            if kept_zones is not None and mesh is not None and mesh == kept_zones.data:
                place_again(kept_zones, transforms[k], node_extras)
                continue
            obj = bpy.data.objects.new(name, mesh)
            obj.display_type = "WIRE"
            key = "zones"
        elif role == "strat" and level_objects:
            obj = bpy.data.objects.new(name, None)
            obj.empty_display_type = "SINGLE_ARROW"
            obj.empty_display_size = 0.5
            key = not_created if game.strat_not_created_at_start(node_extras) else "strats"
            node_extras = game.strat_properties(node_extras)
            summary.strats += 1
        elif role == "waypoint" and level_objects:
            obj = bpy.data.objects.new(name, None)
            obj.empty_display_type = "PLAIN_AXES"
            obj.empty_display_size = 0.25
            key = "waypoints"
        elif role == "light" and not partial:
            # Export over the base leaves the lights as the artist has them: made once, on import.
            obj = _level_light(name, node_extras)
            node_extras = game.light_properties(node_extras)
            key = "lights"
        else:
            continue
        colls[key].objects.link(obj)
        placements[key].append(transforms[k])
        set_properties(obj, node_extras)
    report(0.9)

    # Scene 1: the STPC object models, excluded from the view layer.
    for k, (scene_index, role, mesh_index) in enumerate(zip(nodes["scene"], nodes["role"], nodes["mesh"])):
        if scene_index != 1 or role != "object_model" or not level_objects:
            continue
        obj = bpy.data.objects.new(nodes["name"][k] or f"object model {nodes['node'][k]}", object_models.get(mesh_index))
        set_properties(obj, nodes["extras"][k] or {})
        bone_groups(obj, (nodes["extras"][k] or {}).get("bone_vertex_counts") or [])
        colls["object_models"].objects.link(obj)
        placements["object_models"].append(transforms[k])
        summary.object_models += 1
    for key, transforms_of_key in placements.items():
        if partial:
            # The collection holds the level's other objects too: these are its last ones.
            made = list(colls[key].objects)[len(colls[key].objects) - len(transforms_of_key) :]
            for obj, transform in zip(made, transforms_of_key):
                place(obj, transform)
        else:
            place_all(colls[key].objects, transforms_of_key)
    if partial:
        read_only.remember(scene)
        return _finish(context, summary, filepath, extras, started, report, data, level_objects)
    for excluded in (faceless, "object_models"):
        lc = level_scene.layer_collection(context.view_layer, colls[excluded])
        if lc is not None:
            lc.exclude = True
    lc = level_scene.layer_collection(context.view_layer, colls[not_created])
    if lc is not None:
        lc.hide_viewport = True
    # What the artist adds (Shift A) lands in the active collection: Tiles, where it looks at home.
    tiles_layer = level_scene.layer_collection(context.view_layer, colls["tiles"])
    if tiles_layer is not None:
        context.view_layer.active_layer_collection = tiles_layer
    summary.meshes_in_scene = [o.name for o in before if level_scene.is_new_mesh(context, o)]
    read_only.remember(scene)
    return _finish(context, summary, filepath, extras, started, report, data, level_objects)


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
