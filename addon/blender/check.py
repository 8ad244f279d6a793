"""The level check: every export rule over the scene, without writing a file. The add-on's own
rules (common/rules.py) find all problems of their kind at once; then the real conversion runs
in memory (llamawad.gltf_to_wad), whose refusal and warnings are the final word."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..common import rules, space
from . import scene as level_scene
from .exp.level import world_matrix


@dataclass
class Problem:
    object: str
    faces: list[int]
    message: str


@dataclass
class CheckResult:
    problems: list[Problem] = field(default_factory=list)
    report: dict | None = None


def _get(collection, attr, dtype, width=1):
    values = np.empty(len(collection) * width, dtype)
    if len(values):
        collection.foreach_get(attr, values)
    return values if width == 1 else values.reshape(-1, width)


def _face_ints(mesh, name):
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != "FACE":
        return None
    return _get(attr.data, "value", np.int32)


def _faces_text(faces) -> str:
    faces = list(faces)
    if len(faces) == 1:
        return f"face {faces[0]}"
    if len(faces) <= 8:
        return "faces " + ", ".join(map(str, faces))
    return f"{len(faces)} faces (first {faces[0]})"


def addon_rules(scene) -> list[Problem]:
    doc = level_scene.level_document(scene)
    entries = doc.get("texture_entries", [])
    grid = doc.get("grid", [0, 0])
    out: list[Problem] = []
    tiles_collection = level_scene.level_collections(scene).get("tiles")
    for obj in scene.objects:
        role = level_scene.role(obj)
        in_tiles = tiles_collection is not None and any(
            c == tiles_collection or c in tiles_collection.children_recursive for c in obj.users_collection
        )
        if role == "tile" or (role is None and obj.type == "MESH" and in_tiles and not obj.name.lower().startswith("collision")):
            loc, rot, scale = world_matrix(obj).decompose()
            if role == "tile":
                problem = rules.placement_problem(
                    space.vector_to_file(loc), space.quaternion_to_file(rot), (scale[0], scale[2], scale[1]), grid
                )
                if problem:
                    out.append(Problem(obj.name, [], f"{obj.name} {problem}"))
            if obj.type != "MESH":
                continue
            mesh = obj.data
            if len(mesh.vertices) > rules.MAX_MODEL_VERTICES:
                out.append(Problem(obj.name, [], f"{obj.name} has {len(mesh.vertices)} vertices; a tile model can have at most {rules.MAX_MODEL_VERTICES}: split it"))
            textures = _face_ints(mesh, "wad_texture")
            if textures is None:
                if role == "tile" and len(mesh.polygons):
                    out.append(Problem(obj.name, list(range(len(mesh.polygons))), f"{obj.name}: no texture entries (attribute wad_texture): pick one in the Face panel"))
            else:
                bad = np.nonzero((textures < 0) | (textures >= len(entries)))[0]
                if len(bad):
                    out.append(
                        Problem(
                            obj.name,
                            bad.tolist(),
                            f"{obj.name}: {_faces_text(bad)}: texture entry {int(textures[bad[0]])} does not exist (the level has 0 to {len(entries) - 1})",
                        )
                    )
        elif role == "collision" and obj.type == "MESH":
            mesh = obj.data
            co = space.blender_to_file(_get(mesh.vertices, "co", np.float32, 3))
            local = obj.matrix_parent_inverse @ obj.matrix_basis
            if obj.parent is None or level_scene.role(obj.parent) != "tile":
                local = None
            if local is not None:
                m = np.array(space.matrix_to_file(local), np.float64).reshape(4, 4).T
                co = co @ m[:3, :3].T + m[:3, 3]
            loops = _get(mesh.loops, "vertex_index", np.int64)
            start = _get(mesh.polygons, "loop_start", np.int64)
            total = _get(mesh.polygons, "loop_total", np.int64)
            material = _face_ints(mesh, "wad_material")
            by_message: dict[str, list[int]] = {}
            for f in range(len(mesh.polygons)):
                message = rules.collision_polygon_problem(co[loops[start[f] : start[f] + total[f]]])
                if message is None and material is not None and not 0 <= material[f] <= 255:
                    message = f"collision material {int(material[f])} is not 0 to 255"
                if message:
                    by_message.setdefault(message, []).append(f)
            for message, faces in by_message.items():
                out.append(Problem(obj.name, faces, f"{obj.name}: {_faces_text(faces)}: {message}"))
        elif role == "zones" and obj.type == "MESH":
            zone = _face_ints(obj.data, "wad_zone")
            if zone is not None:
                bad = np.nonzero((zone < 0) | (zone > 31))[0]
                if len(bad):
                    out.append(Problem(obj.name, bad.tolist(), f"{obj.name}: {_faces_text(bad)}: zone {int(zone[bad[0]])} is not 0 to 31"))
        elif role is None and obj.type == "MESH" and not in_tiles and level_scene.role(obj.users_collection[0]) != "object_models":
            out.append(Problem(obj.name, [], f"{obj.name} is not in the Tiles collection, so export leaves it out: move it there to add it to the level"))
    return out


def check_level(context, base: bytes | None) -> CheckResult:
    from ..operators.export_level import Refusal, convert

    from ..operators._edit import object_mode

    with object_mode(context):
        result = CheckResult(addon_rules(context.scene))
    if base is None:
        return result
    try:
        _, report, notes = convert(context, base)
    except Refusal as e:
        known = any(p.object == e.object_name and sorted(p.faces) == sorted(e.faces) for p in result.problems)
        if not known:
            result.problems.append(Problem(e.object_name, list(e.faces), str(e)))
        return result
    result.report = report
    for warning in report.get("warnings") or []:
        result.problems.append(Problem("", [], warning))
    return result
