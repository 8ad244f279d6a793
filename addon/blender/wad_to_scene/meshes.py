"""The level's meshes from the hand-over's batches (every mesh of a role at once, numpy slices
per mesh, foreach_set): tile and object model meshes, one triangle per game face with the
attributes export reads back (blender/wad_to_scene/level.py says which), and the Zones mesh, one
face per cell."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...common import game, space
from .. import scene as level_scene
from .building import Batch, colour_attribute, creation_order, finish, int_attribute, new_mesh, per_triangle_ints

UV_NAME = "UVMap"


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


@dataclass
class _Vertices:
    """The Blender vertices of a whole batch, mesh after mesh: per vertex the corner it is made
    from (``first``), per corner its vertex (``inverse``), where each mesh's vertices start and
    each vertex's model vertex (−1: none), so that every mesh takes slices."""

    first: np.ndarray
    inverse: np.ndarray
    start: np.ndarray
    model_vertex: np.ndarray


def _vertices(batch: Batch, mesh_of_corner: np.ndarray) -> _Vertices:
    """Corners merged by ``_VERTEX``: a model vertex is one Blender vertex, unless its corners
    stand apart (another tool's edit) or a face repeats one (a Blender face needs three different
    vertices): then its mesh keeps a vertex per corner."""
    positions = batch.attributes["POSITION"]
    n = len(positions)
    vertex = batch.attributes.get("_VERTEX")
    if vertex is None or n == 0:
        return _Vertices(np.arange(n), np.arange(n), np.asarray(batch.corner_start), np.full(n, -1, np.int32))
    v = np.rint(vertex).astype(np.int64)
    separate = np.zeros(len(batch), bool)
    separate[np.unique(mesh_of_corner[v < 0])] = True
    key = (mesh_of_corner << 32) | (v & 0xFFFFFFFF)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
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
    start = np.searchsorted(mesh_of_corner[first], np.arange(len(batch) + 1))
    return _Vertices(first, inverse, start, v.astype(np.int32)[first])


@dataclass
class _Looks:
    """What the batch's faces and corners show, for every mesh at once: each face's flags,
    texture entry and model face, each vertex's raw colours of every colour frame (RGB, alpha),
    and each corner's colour and UV (None where the batch has none)."""

    flags: np.ndarray
    textures: np.ndarray
    faces: np.ndarray
    raw: list[tuple[np.ndarray, np.ndarray]]
    colours: np.ndarray | None
    uv: np.ndarray | None


def _looks(batch: Batch, first: np.ndarray, with_colours: bool) -> _Looks:
    A = batch.attributes
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
        colours = np.concatenate([colours, np.ones((len(colours), 1), np.float32)], 1)
    uv = A.get("TEXCOORD_0")
    return _Looks(
        per_triangle_ints(batch, "_FLAGS", 0),
        per_triangle_ints(batch, "_TEXTURE", 0),
        per_triangle_ints(batch, "_FACE", -1),
        raw,
        colours,
        space.uv_to_blender(uv) if uv is not None else None,
    )


def build_render_meshes(batch: Batch, materials: list, with_colours: bool, tiles: list[int] | None = None, wanted=None) -> list:
    """Tile (or object model) meshes: one triangle per face, in the glTF's order, vertices
    merged by _VERTEX (a model vertex is one Blender vertex). ``tiles``: the tile of each mesh
    of the batch, for its faces' ``wad_tile``; ``wanted(i)``: whether mesh i is made (None for
    the meshes left out)."""
    counts = np.diff(batch.corner_start)
    mesh_of_corner = np.repeat(np.arange(len(batch), dtype=np.int64), counts)
    vertices = _vertices(batch, mesh_of_corner)
    co = space.file_to_blender(batch.attributes["POSITION"][vertices.first])
    loops = (vertices.inverse - vertices.start[mesh_of_corner]).astype(np.int32)
    face_starts = np.arange(0, int(counts.max(initial=0)), 3, dtype=np.int32)
    looks = _looks(batch, vertices.first, with_colours)

    out: list = [None] * len(batch)
    corner_start, vertex_start = batch.corner_start.tolist(), vertices.start.tolist()
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
            int_attribute(mesh, "wad_flags", "FACE", looks.flags[t0:t1])
            int_attribute(mesh, "wad_texture", "FACE", looks.textures[t0:t1])
            int_attribute(mesh, "wad_face", "FACE", looks.faces[t0:t1])
            int_attribute(mesh, "wad_vertex", "POINT", vertices.model_vertex[v0:v1])
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
        for k, (rgb, alpha) in enumerate(looks.raw):
            if not batch.has(i, f"_RGB_{k}"):
                break
            int_attribute(mesh, f"wad_rgb_{k}", "POINT", rgb[v0:v1], same is None)
            int_attribute(mesh, f"wad_alpha_{k}", "POINT", alpha[v0:v1], same is None)
        if looks.colours is not None and batch.has(i, "COLOR_0"):
            colour_attribute(mesh, looks.colours[c0:c1], same is None)
        uv = looks.uv[c0:c1] if looks.uv is not None and batch.has(i, "TEXCOORD_0") else None
        if same is None:
            _first_of_its_model(mesh, batch, i, materials, uv)
        elif uv is not None:
            # A copy shares its arrays with the mesh it copies until either is written through
            # the attribute API; Blender 5.0's uv_layers[...].uv writes into the shared array,
            # which would change every tile of the model at once. Written once here, the copy
            # owns its UVs.
            mesh.attributes[UV_NAME].data.foreach_set("vector", uv.ravel())
        out[i] = mesh
    return out


def _first_of_its_model(mesh, batch: Batch, i: int, materials: list, uv: np.ndarray | None) -> None:
    """What a mesh copied by the other tiles of its model has besides: its UVs, materials and
    finishing."""
    if uv is not None:
        mesh.uv_layers.new(name=UV_NAME).uv.foreach_set("vector", uv.ravel())
    slots, slot_index = _material_slots(materials, batch.primitive_materials[i], batch.primitive_triangles[i])
    for mat in slots:
        mesh.materials.append(mat)
    if slot_index is not None:
        mesh.polygons.foreach_set("material_index", slot_index)
    finish(mesh)


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
