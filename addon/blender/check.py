"""The level check: the scene converted in memory as export would write it, then the Rust check
(``llamawad.check``) over the result against the base, every problem with the object and faces it
names. A level the conversion refuses gives the refusal's problems. The add-on keeps no rule of
its own: it only finds the culprits in the scene."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import bpy
import numpy as np

from ..common import problems as found
from . import faces as face_tools
from . import scene as level_scene
from .collision import ensure_tile_collision
from .convert import Refusal, convert_and_check
from .scene_to_wad.level import canonical_tile_name


def scene_index(scene, sources=(), coverage=(), tile_models=None, strat_sources=()) -> found.SceneIndex:
    """The scene's level objects by number. ``sources`` and ``strat_sources`` ([tile, node name]
    and [strat, node name] pairs of the change report) name the tiles and strats the conversion
    placed, changed or added; other tiles and strats keep the number they were imported with
    (the object with the imported name first, before its copies)."""
    index = found.SceneIndex(coverage=set(coverage), tile_models=tile_models)
    canonical: dict[int, bool] = {}
    names = set()
    for obj in scene.objects:
        names.add(obj.name)
        role = level_scene.role(obj)
        if role == "tile":
            t = level_scene.whole_number(obj, "tile")
            is_canonical = obj.name == canonical_tile_name(obj)
            if t not in index.tiles or (is_canonical and not canonical[t]):
                index.tiles[t], canonical[t] = obj.name, is_canonical
        elif role == "collision" and obj.parent is not None:
            index.collision[obj.parent.name] = obj.name
        elif role == "strat":
            # Blender names a copy by adding a number: the first name is the original's.
            s = level_scene.whole_number(obj, "strat")
            if s not in index.strats or obj.name < index.strats[s]:
                index.strats[s] = obj.name
        elif role == "zones" and obj.type == "MESH":
            index.zones = obj.name
    for tile, name in sources:
        if name in names:
            index.tiles[int(tile)] = name
    for strat, name in strat_sources:
        if name in names:
            index.strats[int(strat)] = name
    index.grid_width = int(level_scene.level_document(scene).get("grid", [0, 0])[0])
    return index


def locate_all(problems: Sequence[Mapping[str, Any]], index: found.SceneIndex) -> list[dict]:
    """Each problem with its ``target``."""
    out = []
    for p in problems:
        p = dict(p)
        if "target" not in p:
            # The refusal's node is the tile's its first problem names: its cause, else its tile.
            named = p.get("cause") if p.get("cause") is not None else p.get("tile")
            if p.get("node_object") and named is not None:
                index.tiles[int(named)] = p["node_object"]
            p["target"] = found.locate(p, index)
        out.append(p)
    return out


def _note_problems(notes) -> list[dict]:
    out = []
    for note in notes:
        p = found.problem("left-out", "warning", note.message)
        p["target"] = found.Target(note.object)
        out.append(p)
    return out


def make_collision_for(context, problems: Sequence[Mapping[str, Any]]) -> None:
    """A problem that names a tile's collision polygon points at its faces in the tile's
    collision object: the tiles' collision objects are made for it if they are not yet. Without
    them (the base cannot be read) the problem names the tile."""
    if any(p.get("polygon") is not None for p in problems):
        try:
            ensure_tile_collision(context)
        except Refusal:
            pass


def check_level(context, base: bytes) -> list[dict]:
    """Every problem of the scene as a level, in the panel's order, each with ``target`` (a
    problems.Target) and, for a refused glTF, ``faces`` (Blender faces)."""
    scene = context.scene
    try:
        checked = convert_and_check(context, base)
    except Refusal as e:
        make_collision_for(context, e.problems)
        listed = locate_all(e.problems, scene_index(scene, e.sources, strat_sources=e.strat_sources))
        return found.ordered(listed + _note_problems(e.notes))
    problems = checked.check["problems"]
    make_collision_for(context, problems)
    report = checked.report
    index = scene_index(scene, report["sources"], report["coverage_tiles"], lambda: checked.tile_models, report["strat_sources"])
    listed = locate_all(problems, index)
    return found.ordered(listed + _note_problems(checked.gathered.notes))


def store(props, problems: list[dict]) -> None:
    """The problems into the scene's list (what the Level panel shows)."""
    props.problems.clear()
    for p in problems:
        item = props.problems.add()
        target = p["target"]
        # The list's filter searches names.
        item.name = item.message = p["message"]
        item.code = p["code"]
        item.error = p["severity"] == "error"
        item.pre_existing = bool(p.get("pre_existing"))
        item.object = target.object
        item.attribute = target.attribute
        item.value = target.value
        item.faces = " ".join(map(str, p.get("faces") or []))
    props["problem_index"] = -1
    props.check_summary = found.counts_text(problems)
    props.checked = True


def culprit_faces(obj, item) -> list[int]:
    """The faces a stored problem names: listed, or those whose attribute has its value."""
    if item.faces:
        return item.face_list()
    if not item.attribute or obj.type != "MESH":
        return []
    values = face_tools.read_face_ints(obj, item.attribute, -1)
    return np.nonzero(values == item.value)[0].tolist()


def frame_selected(context) -> bool:
    """Frames the selection in the first 3D view (nothing to frame without a UI)."""
    if context.window is None or context.screen is None:
        return False
    for area in context.screen.areas:
        if area.type != "VIEW_3D":
            continue
        region = next((r for r in area.regions if r.type == "WINDOW"), None)
        if region is None:
            continue
        with context.temp_override(area=area, region=region):
            try:
                bpy.ops.view3d.view_selected()
            except RuntimeError:
                return False
        return True
    return False


def select_problem(context, item) -> bpy.types.Object | None:
    """Selects the object and faces of a stored problem and frames them; None when the problem
    names no object of the scene."""
    obj = context.scene.objects.get(item.object) if item.object else None
    if obj is None:
        return None
    faces = culprit_faces(obj, item)
    obj = face_tools.select_culprit(context, obj.name, faces)
    if obj is not None:
        frame_selected(context)
    return obj
