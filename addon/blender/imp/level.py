"""The level's glTF document, as llamawad.wad_to_arrays hands it over taken apart (nodes,
materials and per role every mesh attribute in one float32 array), → Blender: collections,
objects, meshes with per-face and per-corner attributes, materials and page images, built
directly with foreach_set (no io_scene_gltf2, no glTF parsed in Python).

What a tile mesh carries (the way back needs all of it, see blender/exp/level.py):

- vertices: the model's vertices (corners merged by ``_VERTEX``), Blender space;
  ``wad_vertex``, ``wad_rgb_k``, ``wad_alpha_k`` (POINT, INT): model vertex index and the raw
  colour bytes of colour frame k (R + G·256 + B·65536; byte 3).
- faces: one triangle per game face, in the glTF's order; ``wad_flags``, ``wad_texture``,
  ``wad_face`` (FACE, INT): face flags, texture entry, face index in the model.
- corners: ``Col`` (FLOAT_COLOR): the colour the game shows (COLOR_0); ``UVMap``: the face's
  half of its texture rectangle.

Collision meshes (one per TRAK model, shared by its tiles): one face per collision polygon,
``wad_polygon``, ``wad_material``, ``wad_kind``, ``wad_group`` (FACE, INT). Zones: one face per
cell, ``wad_cell``, ``wad_zone`` (FACE, INT).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...common import game, space
from .. import scene as level_scene
from . import materials as mats

UV_NAME = "UVMap"


@dataclass
class ImportSummary:
    level_name: str = ""
    tiles: int = 0
    triangles: int = 0
    collision_polygons: int = 0
    cells: int = 0
    strats: int = 0
    object_models: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def text(self) -> str:
        name = f"'{self.level_name}'" if self.level_name else "level"
        out = (
            f"Imported {name}: {self.tiles} tiles, {self.triangles} triangles, "
            f"{self.collision_polygons} collision polygons, {self.cells} cells, {self.strats} strats "
            f"in {self.seconds:.2f} s"
        )
        if self.warnings:
            out += f"; {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}"
        return out


# --- small helpers


def _int_attribute(mesh, name: str, domain: str, values: np.ndarray, new: bool = True) -> None:
    """Sets an INT attribute, made first unless ``new`` is False (a copied mesh has it)."""
    attr = mesh.attributes.new(name, "INT", domain) if new else mesh.attributes[name]
    attr.data.foreach_set("value", np.ascontiguousarray(values, np.int32))


def _colour_attribute(mesh, colours: np.ndarray, new: bool = True) -> None:
    if not new:
        mesh.color_attributes[mats.COLOUR_ATTRIBUTE].data.foreach_set("color", np.ascontiguousarray(colours, np.float32).ravel())
        return
    attr = mesh.color_attributes.new(mats.COLOUR_ATTRIBUTE, "FLOAT_COLOR", "CORNER")
    attr.data.foreach_set("color", np.ascontiguousarray(colours, np.float32).ravel())
    mesh.color_attributes.active_color = attr
    mesh.color_attributes.render_color_index = mesh.color_attributes.active_color_index


def _new_mesh(name: str, co: np.ndarray, corner_verts: np.ndarray, face_starts: np.ndarray):
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(co))
    mesh.loops.add(len(corner_verts))
    mesh.polygons.add(len(face_starts))
    mesh.vertices.foreach_set("co", np.ascontiguousarray(co, np.float32).ravel())
    mesh.loops.foreach_set("vertex_index", np.ascontiguousarray(corner_verts, np.int32))
    mesh.polygons.foreach_set("loop_start", np.ascontiguousarray(face_starts, np.int32))
    return mesh


def _finish(mesh) -> None:
    """Edges from the faces. Blender 5.0's calc_edges gives a mesh whose vertices have a select
    flag a ".select_edge" of the edge-vertex type (INT32_2D), on which selecting an edge
    crashes: drop it, Blender makes a proper one when needed."""
    mesh.update(calc_edges=True)
    bogus = mesh.attributes.get(".select_edge")
    if bogus is not None and bogus.data_type != "BOOLEAN":
        mesh.attributes.remove(bogus)


def _merge_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first of each distinct row and, for each row, its distinct row's index."""
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


# --- batches: many meshes read at once


@dataclass
class Batch:
    """Meshes read together (``llamawad.wad_to_arrays`` hands them over so): every attribute
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


def read_batch(batch: dict, arrays: list[bytes]) -> Batch:
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


def _per_triangle_ints(batch: Batch, name: str, default: int) -> np.ndarray:
    values = batch.attributes.get(name)
    n = int(batch.corner_start[-1]) // 3
    return np.full(n, default, np.int32) if values is None else np.rint(values[0::3]).astype(np.int32)


def _material_slots(materials: list, primitive_materials: list[int], primitive_triangles: list[int]):
    slots, slot_of_primitive = [], []
    for m in primitive_materials:
        mat = materials[m] if m is not None and 0 <= m < len(materials) else None
        if mat not in slots:
            slots.append(mat)
        slot_of_primitive.append(slots.index(mat))
    index = np.repeat(np.asarray(slot_of_primitive, np.int32), primitive_triangles) if len(slots) > 1 else None
    return slots, index


def build_render_meshes(batch: Batch, materials: list, with_colours: bool) -> list:
    """Tile (or object model) meshes: one triangle per face, in the glTF's order, vertices
    merged by _VERTEX (a model vertex is one Blender vertex)."""
    A = batch.attributes
    positions = A["POSITION"]
    n = len(positions)
    counts = np.diff(batch.corner_start)
    mesh_of_corner = np.repeat(np.arange(len(batch), dtype=np.int64), counts)
    co_all = space.file_to_blender(positions)

    vertex = A.get("_VERTEX")
    merged = vertex is not None and n > 0
    separate = np.zeros(len(batch), bool)
    if merged:
        v = np.rint(vertex).astype(np.int64)
        separate[np.unique(mesh_of_corner[v < 0])] = True
        key = (mesh_of_corner << 32) | (v & 0xFFFFFFFF)
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        # Corners of one model vertex stand at one place; where not (another tool's edit), a
        # mesh keeps its corners apart. Blender faces need three different vertices.
        moved = (positions[first][inverse] != positions).any(axis=1)
        separate[np.unique(mesh_of_corner[moved])] = True
        tri = inverse.reshape(-1, 3)
        degenerate = (tri[:, 0] == tri[:, 1]) | (tri[:, 1] == tri[:, 2]) | (tri[:, 0] == tri[:, 2])
        separate[np.unique(mesh_of_corner[0::3][degenerate])] = True
        vertex_start = np.searchsorted(uniq >> 32, np.arange(len(batch) + 1))
        vertex_ints = v.astype(np.int32)

    flags = _per_triangle_ints(batch, "_FLAGS", 0)
    textures = _per_triangle_ints(batch, "_TEXTURE", 0)
    faces = _per_triangle_ints(batch, "_FACE", -1)
    raw = []
    if with_colours:
        k = 0
        while f"_RGB_{k}" in A:
            alpha = A.get(f"_ALPHA_{k}")
            raw.append(
                (
                    np.rint(A[f"_RGB_{k}"]).astype(np.int32),
                    np.zeros(n, np.int32) if alpha is None else np.rint(alpha).astype(np.int32),
                )
            )
            k += 1
    colours = A.get("COLOR_0") if with_colours else None
    if colours is not None and colours.shape[1] == 3:
        colours = np.concatenate([colours, np.ones((n, 1), np.float32)], 1)
    uv = A.get("TEXCOORD_0")
    if uv is not None:
        uv = space.uv_to_blender(uv)

    out = []
    for i in range(len(batch)):
        c0, c1 = int(batch.corner_start[i]), int(batch.corner_start[i + 1])
        t0, t1 = c0 // 3, c1 // 3
        if merged and not separate[i]:
            v0, v1 = int(vertex_start[i]), int(vertex_start[i + 1])
            corner_of_vertex = first[v0:v1]
            loops = inverse[c0:c1] - v0
        else:
            corner_of_vertex = np.arange(c0, c1)
            loops = np.arange(c1 - c0)
        same = batch.same_but_colours[i]
        if same is None:
            mesh = _new_mesh(batch.names[i], co_all[corner_of_vertex], loops, np.arange(0, c1 - c0, 3))
            _int_attribute(mesh, "wad_flags", "FACE", flags[t0:t1])
            _int_attribute(mesh, "wad_texture", "FACE", textures[t0:t1])
            _int_attribute(mesh, "wad_face", "FACE", faces[t0:t1])
            _int_attribute(mesh, "wad_vertex", "POINT", vertex_ints[corner_of_vertex] if merged else np.full(len(corner_of_vertex), -1, np.int32))
        else:
            # Another tile of the same model: its mesh but for the colours, copied in one go.
            mesh = out[same].copy()
            mesh.name = batch.names[i]
        for k, (rgb, alpha) in enumerate(raw):
            if not batch.has(i, f"_RGB_{k}"):
                break
            _int_attribute(mesh, f"wad_rgb_{k}", "POINT", rgb[corner_of_vertex], same is None)
            _int_attribute(mesh, f"wad_alpha_{k}", "POINT", alpha[corner_of_vertex], same is None)
        if colours is not None and batch.has(i, "COLOR_0"):
            _colour_attribute(mesh, colours[c0:c1], same is None)
        if same is not None:
            if uv is not None and batch.has(i, "TEXCOORD_0"):
                # A copy shares its arrays with the mesh it copies until either is written through
                # the attribute API; Blender 5.0's uv_layers[...].uv writes into the shared array,
                # which would change every tile of the model at once. Written once here, the copy
                # owns its UVs.
                mesh.attributes[UV_NAME].data.foreach_set("vector", uv[c0:c1].ravel())
            out.append(mesh)
            continue
        if uv is not None and batch.has(i, "TEXCOORD_0"):
            mesh.uv_layers.new(name=UV_NAME).uv.foreach_set("vector", uv[c0:c1].ravel())
        slots, slot_index = _material_slots(materials, batch.primitive_materials[i], batch.primitive_triangles[i])
        for mat in slots:
            mesh.materials.append(mat)
        if slot_index is not None:
            mesh.polygons.foreach_set("material_index", slot_index)
        _finish(mesh)
        out.append(mesh)
    return out


def _polygon_loops(tris_vertices: np.ndarray) -> list[int]:
    """One polygon's corners from its triangles (a fan, either winding): the boundary walked
    in the triangles' own direction."""
    if len(tris_vertices) == 1:
        return list(tris_vertices[0])
    edges = {}
    for a, b, c in tris_vertices:
        for u, v in ((a, b), (b, c), (c, a)):
            if edges.pop((v, u), None) is None:
                edges[(u, v)] = True
    nxt = {u: v for u, v in edges}
    if len(nxt) != len(edges):
        return []
    start = next(iter(nxt))
    loop = [start]
    while True:
        v = nxt.get(loop[-1])
        if v is None or len(loop) > len(nxt):
            return []
        if v == start:
            return loop
        loop.append(v)


def _reorder_faces(face_tri: np.ndarray, sizes: np.ndarray, corners: np.ndarray):
    """Faces given group by group, put in the order of their first triangle."""
    order = np.argsort(face_tri, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    new_sizes = sizes[order]
    new_starts = np.concatenate([[0], np.cumsum(new_sizes)[:-1]]).astype(np.int64)
    index = np.arange(int(new_sizes.sum()), dtype=np.int64) + np.repeat(starts[order] - new_starts, new_sizes)
    return face_tri[order], new_sizes, corners[index]


def build_collision_meshes(batch: Batch, material) -> list:
    """Collision meshes: one face per collision polygon (the glTF's triangles sharing _POLYGON;
    a quad's two triangles become one face), corners merged by position within each mesh."""
    A = batch.attributes
    positions = A["POSITION"]
    n = len(positions)
    nt = n // 3
    counts = np.diff(batch.corner_start)
    mesh_of_corner = np.repeat(np.arange(len(batch), dtype=np.int64), counts)
    # Merge by (mesh, exact position): rows of a big-endian mesh number, then the float bits;
    # sorting such rows as bytes keeps each mesh's vertices together.
    rows = np.empty((n, 4), np.uint32)
    rows[:, 0] = mesh_of_corner.astype(">u4").view(np.uint32)
    rows[:, 1:] = np.ascontiguousarray(positions, np.float32).view(np.uint32)
    keys = rows.view(np.dtype((np.void, 16))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    vertex_start = np.searchsorted(mesh_of_corner[first], np.arange(len(batch) + 1))
    tri_vertices = inverse.reshape(-1, 3)

    polygon = _per_triangle_ints(batch, "_POLYGON", -1)
    mesh_of_tri = mesh_of_corner[0::3]
    change = np.ones(nt, bool)
    if nt > 1:
        change[1:] = (polygon[1:] != polygon[:-1]) | (mesh_of_tri[1:] != mesh_of_tri[:-1])
    starts = np.nonzero(change)[0]
    run = np.diff(np.append(starts, nt))
    valid = polygon[starts] >= 0

    groups = []  # (first triangles, sizes, corners)
    singles = starts[run == 1]
    groups.append((singles, np.full(len(singles), 3), tri_vertices[singles].ravel()))
    pair = starts[(run == 2) & valid]
    t1, t2 = tri_vertices[pair], tri_vertices[pair + 1]
    same = t1[:, 0] == t2[:, 0]
    plain = same & (t2[:, 1] == t1[:, 2])
    swapped = same & ~plain & (t2[:, 2] == t1[:, 1])
    ok = plain | swapped
    quads = np.where(
        plain[:, None],
        np.stack([t1[:, 0], t1[:, 1], t1[:, 2], t2[:, 2]], 1),
        np.stack([t2[:, 0], t2[:, 1], t2[:, 2], t1[:, 2]], 1),
    )
    groups.append((pair[ok], np.full(int(ok.sum()), 4), quads[ok].ravel()))
    apart = np.concatenate([pair[~ok], pair[~ok] + 1])
    groups.append((apart, np.full(len(apart), 3), tri_vertices[apart].ravel()))
    rest = ((run > 2) & valid) | ((run > 1) & ~valid)
    extra_tri, extra_sizes, extra_corners = [], [], []
    for s0, length, good in zip(starts[rest].tolist(), run[rest].tolist(), valid[rest].tolist()):
        corners = _polygon_loops(tri_vertices[s0 : s0 + length]) if good else []
        if corners:
            extra_tri.append(s0)
            extra_sizes.append(len(corners))
            extra_corners.extend(corners)
        else:
            for u in range(s0, s0 + length):
                extra_tri.append(u)
                extra_sizes.append(3)
                extra_corners.extend(tri_vertices[u].tolist())
    groups.append((np.asarray(extra_tri, np.int64), np.asarray(extra_sizes, np.int64), np.asarray(extra_corners, np.int64)))
    face_tri, sizes, loops = _reorder_faces(
        np.concatenate([g[0] for g in groups]).astype(np.int64),
        np.concatenate([g[1] for g in groups]).astype(np.int64),
        np.concatenate([g[2] for g in groups]).astype(np.int64),
    )
    loop_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    co_all = space.file_to_blender(positions[first])
    material_of_face = _per_triangle_ints(batch, "_MATERIAL", 0)[face_tri]
    kind = _per_triangle_ints(batch, "_KIND", 0)[face_tri]
    group = _per_triangle_ints(batch, "_GROUP", 0)[face_tri]
    polygon_of_face = polygon[face_tri]
    loop_colours = np.repeat(game.colour_table(game.collision_colour, material_of_face), sizes, axis=0)
    face_start = np.searchsorted(face_tri, batch.corner_start // 3)

    out = []
    for i in range(len(batch)):
        f0, f1 = int(face_start[i]), int(face_start[i + 1])
        v0, v1 = int(vertex_start[i]), int(vertex_start[i + 1])
        l0, l1 = int(loop_start[f0]), int(loop_start[f1])
        mesh = _new_mesh(batch.names[i], co_all[v0:v1], loops[l0:l1] - v0, loop_start[f0:f1] - l0)
        _int_attribute(mesh, "wad_polygon", "FACE", polygon_of_face[f0:f1])
        _int_attribute(mesh, "wad_material", "FACE", material_of_face[f0:f1])
        _int_attribute(mesh, "wad_kind", "FACE", kind[f0:f1])
        _int_attribute(mesh, "wad_group", "FACE", group[f0:f1])
        _colour_attribute(mesh, loop_colours[l0:l1])
        if material is not None:
            mesh.materials.append(material)
        _finish(mesh)
        out.append(mesh)
    return out


def build_zones_mesh(batch: Batch, i: int, material):
    """One face per cell: the glTF's two triangles of a cell become a quad."""
    c0, c1 = int(batch.corner_start[i]), int(batch.corner_start[i + 1])
    positions = batch.attributes["POSITION"][c0:c1]
    nt = len(positions) // 3
    cell = _per_triangle_ints(batch, "_CELL", -1)[c0 // 3 : c1 // 3]
    zone = _per_triangle_ints(batch, "_ZONE", 0)[c0 // 3 : c1 // 3]
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
    mesh = _new_mesh(batch.names[i], co, loops, np.arange(0, len(loops), size))
    _int_attribute(mesh, "wad_cell", "FACE", face_cell)
    _int_attribute(mesh, "wad_zone", "FACE", face_zone)
    _colour_attribute(mesh, np.repeat(game.colour_table(game.zone_colour, face_zone), size, axis=0))
    if material is not None:
        mesh.materials.append(material)
    _finish(mesh)
    return mesh


# --- objects


def _place(obj, transform: list[float]) -> None:
    """``transform``: translation, rotation (x, y, z, w) and scale in file space, as
    ``llamawad.wad_to_arrays`` hands each node's over."""
    t, r, scale = transform[0:3], transform[3:7], transform[7:10]
    if t != [0.0, 0.0, 0.0]:
        obj.location = space.vector_to_blender(t)
    if scale == [1.0, 1.0, 1.0] and abs(r[0]) < 1e-7 and abs(r[2]) < 1e-7:
        # Tiles and strats turn about the vertical only: a plain Z angle is what an artist edits.
        if r[1] != 0.0:
            obj.rotation_euler = (0.0, 0.0, space.vertical_angle(r))
        return
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = space.quaternion_to_blender(r)
    if scale != [1.0, 1.0, 1.0]:
        sx, sy, sz = scale
        obj.scale = (sx, sz, sy)


def _set_properties(idblock, extras: dict) -> None:
    for key, value in extras.items():
        if value is None:
            continue
        try:
            idblock[key] = value
        except (TypeError, OverflowError):
            idblock[key] = str(value)


def _collection(scene, role: str, name: str):
    coll = bpy.data.collections.new(name)
    coll[level_scene.ROLE] = role
    scene.collection.children.link(coll)
    return coll


def collision_object_name(tile: int) -> str:
    """The collision object of a tile. The glTF calls its node "collision · tile 0123"; Blender
    names ending in digits cost twice as much to make unique, which 1,750 of them make felt."""
    return f"tile {tile:04} · collision"


def _first_material(materials, batch: Batch, i: int):
    prims = batch.primitive_materials[i]
    m = prims[0] if prims else None
    return materials[m] if m is not None and 0 <= m < len(materials) else None


def _build(batches: dict, role: str, build) -> dict:
    """The Blender meshes of a role's batch by glTF mesh index ({} without one)."""
    batch = batches.get(role)
    return {} if batch is None else dict(zip(batch.meshes, build(batch)))


def import_level(context, data: bytes, filepath: str = "", progress=None) -> ImportSummary:
    """Builds the level from its WAD bytes into ``context.scene``. ``progress(fraction)`` is
    called now and then. Raises llamawad.WadError for a file that is not a level."""
    import llamawad

    started = time.perf_counter()
    report = progress or (lambda fraction: None)
    info, arrays, transforms, pngs, warnings = llamawad.wad_to_arrays(data)
    extras = (info["scene_extras"][0] or {}).get("llamawad", {}) if info["scene_extras"] else {}
    summary = ImportSummary(level_name=extras.get("level_name") or "", warnings=list(warnings))
    batches = {role: read_batch(batch, arrays) for role, batch in info["batches"].items()}
    report(0.05)

    scene = context.scene
    images = mats.build_images(info, pngs)
    materials = mats.build_materials(info, images)
    report(0.1)

    # Meshes first, all of a kind at once.
    render = _build(batches, "tile", lambda b: build_render_meshes(b, materials, True))
    report(0.55)
    collision = _build(batches, "collision", lambda b: build_collision_meshes(b, _first_material(materials, b, 0)))
    zones = _build(batches, "zones", lambda b: [build_zones_mesh(b, i, _first_material(materials, b, i)) for i in range(len(b))])
    summary.triangles = sum(len(m.polygons) for m in render.values())
    report(0.7)

    colls = {r: _collection(scene, r, name) for r, name in level_scene.COLLECTIONS}
    # Collision never renders, and starts disabled in the viewport (the panel shows it).
    colls["collision"].hide_render = True
    colls["collision"].hide_viewport = True
    scene.llamawad["show_collision"] = False
    # The zone grid is an editing aid: never rendered, drawn as wire over the level.
    colls["zones"].hide_render = True

    nodes = info["nodes"]
    transforms = np.frombuffer(transforms, "<f4").reshape(-1, 10).tolist()
    objects: dict[int, bpy.types.Object] = {}
    tiles_link = colls["tiles"].objects.link
    collision_link = colls["collision"].objects.link
    for k, (scene_index, role, mesh_index) in enumerate(zip(nodes["scene"], nodes["role"], nodes["mesh"])):
        if scene_index != 0:
            continue
        name = nodes["name"][k] or f"node {nodes['node'][k]}"
        node_extras = nodes["extras"][k] or {}
        if role == "tile":
            mesh = render.get(mesh_index)
            obj = bpy.data.objects.new(name, mesh)
            if mesh is None:
                obj.empty_display_size = 0.25
            tiles_link(obj)
            summary.tiles += 1
        elif role == "collision":
            mesh = collision.get(mesh_index)
            if mesh is None:
                continue
            obj = bpy.data.objects.new(collision_object_name(int(node_extras.get("tile", 0))), mesh)
            parent_obj = objects.get(nodes["parent"][k])
            if parent_obj is not None:
                obj.parent = parent_obj
            collision_link(obj)
            summary.collision_polygons += len(mesh.polygons)
        elif role == "zones":
            mesh = zones.get(mesh_index)
            if mesh is not None:
                summary.cells = len(mesh.polygons)
            obj = bpy.data.objects.new(name, mesh)
            obj.display_type = "WIRE"
            colls["zones"].objects.link(obj)
        elif role == "strat":
            obj = bpy.data.objects.new(name, None)
            obj.empty_display_type = "SINGLE_ARROW"
            obj.empty_display_size = 0.5
            colls["strats"].objects.link(obj)
            summary.strats += 1
        else:
            continue
        _place(obj, transforms[k])
        _set_properties(obj, node_extras)
        objects[nodes["node"][k]] = obj
    report(0.9)

    # Scene 1: the STPC object models, excluded from the view layer.
    built = _build(batches, "object_model", lambda b: build_render_meshes(b, materials, False))
    for k, (scene_index, role, mesh_index) in enumerate(zip(nodes["scene"], nodes["role"], nodes["mesh"])):
        if scene_index != 1 or role != "object_model":
            continue
        obj = bpy.data.objects.new(nodes["name"][k] or f"object model {nodes['node'][k]}", built.get(mesh_index))
        _place(obj, transforms[k])
        _set_properties(obj, nodes["extras"][k] or {})
        colls["object_models"].objects.link(obj)
        summary.object_models += 1
    lc = level_scene.layer_collection(context.view_layer, colls["object_models"])
    if lc is not None:
        lc.exclude = True

    props = scene.llamawad
    props.base_path = filepath
    level_scene.store_level_document(scene, extras)
    props.import_warnings = "\n".join(summary.warnings)
    props.problems.clear()
    props.last_export = ""
    props.changes.clear()
    report(1.0)
    summary.seconds = time.perf_counter() - started
    return summary
