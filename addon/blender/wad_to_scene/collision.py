"""Tile collision: meshes of one face per collision polygon, shared by the tiles of a model,
and the tiles' collision objects. The importer leaves the objects out (1,750 of them are a third
of an import) and makes them when collision is first shown or edited; until then the scene
leaves tile collision out, and export keeps each tile's model's (``tile_collision_given``)."""

from __future__ import annotations

import bpy
import numpy as np

from ...common import game, space
from .. import scene as level_scene
from .. import materials as mats
from .building import Batch, colour_attribute, finish, int_attribute, new_mesh, per_triangle_ints, place, read_batch, set_properties


def _polygon_loops(tris_vertices: np.ndarray) -> list[int]:
    """One polygon's corners from its triangles (a fan, either winding): the boundary walked
    in the triangles' own direction."""
    if len(tris_vertices) == 1:
        return list(tris_vertices[0])
    edges: dict[tuple[int, int], bool] = {}
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


def _mesh_of_triangle(batch: Batch) -> np.ndarray:
    return np.repeat(np.arange(len(batch), dtype=np.int64), np.diff(batch.corner_start) // 3)


def _polygon_runs(batch: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each triangle's ``_POLYGON``, and the runs of triangles of one polygon of one mesh: their
    first triangles and lengths."""
    polygon = per_triangle_ints(batch, "_POLYGON", -1)
    mesh_of_tri = _mesh_of_triangle(batch)
    nt = len(polygon)
    change = np.ones(nt, bool)
    if nt > 1:
        change[1:] = (polygon[1:] != polygon[:-1]) | (mesh_of_tri[1:] != mesh_of_tri[:-1])
    starts = np.nonzero(change)[0]
    return polygon, starts, np.diff(np.append(starts, nt))


def polygon_counts(batch: Batch) -> np.ndarray:
    """How many collision polygons each mesh of the batch has (a triangle of none counts as one)."""
    polygon, starts, _ = _polygon_runs(batch)
    mesh_of_tri = _mesh_of_triangle(batch)
    numbered = starts[polygon[starts] >= 0]
    return np.bincount(mesh_of_tri[numbered], minlength=len(batch)) + np.bincount(mesh_of_tri[polygon < 0], minlength=len(batch))


def build_collision_meshes(batch: Batch, material) -> list:
    """Collision meshes: one face per collision polygon (the glTF's triangles sharing _POLYGON;
    a quad's two triangles become one face), corners merged by position within each mesh."""
    A = batch.attributes
    positions = A["POSITION"]
    n = len(positions)
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

    polygon, starts, run = _polygon_runs(batch)
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
    material_of_face = per_triangle_ints(batch, "_MATERIAL", 0)[face_tri]
    kind = per_triangle_ints(batch, "_KIND", 0)[face_tri]
    group = per_triangle_ints(batch, "_GROUP", 0)[face_tri]
    polygon_of_face = polygon[face_tri]
    loop_colours = np.repeat(game.colour_table(game.collision_colour, material_of_face), sizes, axis=0)
    face_start = np.searchsorted(face_tri, batch.corner_start // 3)

    out = []
    for i in range(len(batch)):
        f0, f1 = int(face_start[i]), int(face_start[i + 1])
        v0, v1 = int(vertex_start[i]), int(vertex_start[i + 1])
        l0, l1 = int(loop_start[f0]), int(loop_start[f1])
        mesh = new_mesh(batch.names[i], co_all[v0:v1], loops[l0:l1] - v0, loop_start[f0:f1] - l0)
        int_attribute(mesh, "wad_polygon", "FACE", polygon_of_face[f0:f1])
        int_attribute(mesh, "wad_material", "FACE", material_of_face[f0:f1])
        int_attribute(mesh, "wad_kind", "FACE", kind[f0:f1])
        int_attribute(mesh, "wad_group", "FACE", group[f0:f1])
        colour_attribute(mesh, loop_colours[l0:l1])
        if material is not None:
            mesh.materials.append(material)
        finish(mesh)
        out.append(mesh)
    return out


def collision_object_name(tile: int) -> str:
    """The collision object of a tile. The glTF calls its node "collision · tile 0123"; Blender
    names ending in digits cost twice as much to make unique, which 1,750 of them make felt."""
    return f"tile {tile:04} · collision"


def make_tile_collision(scene, data: bytes, collection) -> int:
    """Gives every tile object of ``scene`` without a collision object the one the importer
    would have made, from the level ``data`` (its base): the base tile's collision mesh, placed
    in the tile's frame, in ``collection``. Copies of a tile get their tile's, as export keeps
    their model's collision. Returns how many objects were made."""
    import llamawad

    # Object.children searches every object of the file: the tiles with collision in one pass.
    has_collision = {o.parent for o in scene.objects if level_scene.role(o) == "collision"}
    without = [o for o in scene.objects if level_scene.role(o) == "tile" and o not in has_collision]
    if not without:
        return 0
    info, arrays, transforms, _, _ = llamawad.wad_to_scene(data)
    hand_over = info["batches"].get("collision")
    if hand_over is None:
        return 0
    nodes = info["nodes"]
    frames = np.frombuffer(transforms, "<f4").reshape(-1, 10)
    node_of_tile = {}
    for k, (scene_index, role) in enumerate(zip(nodes["scene"], nodes["role"])):
        # A tile without collision has a collision node without a mesh: no object.
        mesh_index = nodes["mesh"][k]
        if scene_index == 0 and role == "collision" and mesh_index is not None:
            node_of_tile[int((nodes["extras"][k] or {}).get("tile", -1))] = (k, mesh_index)
    tiles = [o for o in without if level_scene.whole_number(o, "tile") in node_of_tile]
    if not tiles:
        return 0
    batch = read_batch(hand_over, arrays)
    # The material the importer gave collision, which the file loses when saved while no
    # collision mesh uses it.
    first = next((prims[0] for prims in batch.primitive_materials if prims), None)
    material = mats.level_material(info["materials"][first]) if first is not None and 0 <= first < len(info["materials"]) else None
    meshes = dict(zip(batch.meshes, build_collision_meshes(batch, material)))
    link = collection.objects.link
    for tile in tiles:
        number = level_scene.whole_number(tile, "tile")
        k, mesh = node_of_tile[number]
        obj = bpy.data.objects.new(collision_object_name(number), meshes[mesh])
        obj.parent = tile
        link(obj)
        place(obj, frames[k].tolist())
        set_properties(obj, nodes["extras"][k] or {})
    bpy.data.batch_remove([m for m in meshes.values() if m.users == 0])
    return len(tiles)
