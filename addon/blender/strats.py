"""The level's strats in the scene: the types a new strat can be of (the Rust core's answer,
kept at import), a new strat made as a copy of a placed one of its type, whether a strat is
created at level start and the collection that shows it, and the floor the game's floor test
finds below strats. What the game makes of a strat object is the Rust core's to say at export
(MAPPING.md, "Strats"): a copy is a new strat with its parameters, a strat without an object is
not created at level start."""

from __future__ import annotations

import json
import math

import bpy
from mathutils import Vector

from ..common import game
from . import probe
from . import scene as level_scene

# The last types read and what they were read from: menus ask at every redraw.
_read: tuple[str, list[dict]] = ("", [])


def types(scene) -> list[dict]:
    """Every strat type of the level (``llamawad.strats``' ``types``, as import kept them):
    name, code_offset, instances, placeable, why_not, first_instance."""
    global _read
    text = scene.llamawad.strat_types_json
    if text != _read[0]:
        _read = (text, json.loads(text) if text else [])
    return _read[1]


def type_label(t: dict) -> str:
    return t["name"] or f"unnamed type at code offset {t['code_offset']}"


def strat_objects(scene) -> list[bpy.types.Object]:
    return level_scene.objects_with_role(scene, "strat")


def source_object(scene, t: dict) -> bpy.types.Object | None:
    """A strat object of type ``t`` to copy: its first instance's object if the scene has it,
    else any of its strats, those created at level start first."""
    same = [o for o in strat_objects(scene) if o.get("code_offset") == t["code_offset"]]
    same.sort(
        key=lambda o: (
            level_scene.whole_number(o, "strat") != t["first_instance"],
            game.strat_not_created_at_start(o),
            level_scene.whole_number(o, "strat"),
            o.name,
        )
    )
    return same[0] if same else None


def set_created_at_start(scene, obj: bpy.types.Object, created: bool) -> None:
    """Clears (``created``) or sets flag bit 1 of the strat's record, and shows it in Strats or
    in its "Not created at start" collection."""
    flags = obj.get("flags")
    flags = flags if isinstance(flags, int) else 0
    bit = game.STRAT_NOT_CREATED_AT_START
    obj["flags"] = flags & ~bit if created else flags | bit
    colls = level_scene.level_collections(scene)
    strats = colls.get("strats")
    if strats is None:
        return
    not_created = colls.get(level_scene.STRATS_NOT_CREATED[0])
    if not_created is None:
        not_created = bpy.data.collections.new(level_scene.STRATS_NOT_CREATED[1])
        not_created[level_scene.ROLE] = level_scene.STRATS_NOT_CREATED[0]
        strats.children.link(not_created)
    to, away = (strats, not_created) if created else (not_created, strats)
    if obj.name not in to.objects:
        to.objects.link(obj)
    if obj.name in away.objects:
        away.objects.unlink(obj)


def add_strat(context, t: dict, location) -> bpy.types.Object:
    """A new strat of type ``t`` at ``location`` (Blender space), created at level start: a copy
    of a placed strat of the type (its custom properties: record fields and parameters), which
    export writes as a new strat. Raises ValueError, saying why, for a type that cannot be
    placed or whose strats are all gone from the scene."""
    if not t["placeable"]:
        raise ValueError(f"{type_label(t)} cannot be placed in this level: {t['why_not']}")
    source = source_object(context.scene, t)
    if source is None:
        raise ValueError(
            f"{type_label(t)}: no strat of this type is left in the scene to copy its parameters from "
            "(undo the deletion, or restore one from 'Not created at start')"
        )
    obj = source.copy()
    obj.parent = None
    obj.matrix_world = source.matrix_world
    obj.location = location
    obj.name = f"{type_label(t)} · new"
    strats = level_scene.level_collections(context.scene).get("strats")
    (strats or context.scene.collection).objects.link(obj)
    set_created_at_start(context.scene, obj, True)
    return obj


def waypoint_order(scene) -> list[bpy.types.Object]:
    """The waypoint objects in the order export writes them: by number, each one's copies (to be
    inserted after it) following it by name."""
    waypoints = level_scene.objects_with_role(scene, "waypoint")
    return sorted(waypoints, key=lambda o: (level_scene.whole_number(o, "waypoint"), o.name))


def waypoint_chain(order: list, first: int) -> list[bpy.types.Object]:
    """The waypoint objects of the chain a strat names by ``first`` (its custom property
    ``waypoint``), in ``order`` (waypoint_order): from the object of that number through every
    next entry while its ``next`` is not 0, an inserted copy continuing into the one after it as
    export writes it (MAPPING.md, "Waypoints")."""
    numbers = [level_scene.whole_number(o, "waypoint") for o in order]
    if first not in numbers:
        return []
    # Whether each waypoint's chain goes on past it: its own object's (the first of its number).
    continues: dict[int, bool] = {}
    for number, o in zip(numbers, order):
        continues.setdefault(number, bool(o.get("next")))
    k = numbers.index(first)
    chain = [order[k]]
    while k + 1 < len(order) and (numbers[k + 1] == numbers[k] or continues[numbers[k]]):
        k += 1
        chain.append(order[k])
    return chain


def waypoint_lines(scene) -> list[Vector]:
    """The line segments (pairs of world positions) the viewport draws for the strats' waypoint
    chains: each strat to its first waypoint, and each step of a chain once however many strats
    run along it, in time proportional to the strats and waypoints (a chain is a range of
    ``waypoint_order``, as waypoint_chain walks it; a thousand strats on one chain of two
    thousand once took seconds a redraw)."""
    order = waypoint_order(scene)
    numbers = [level_scene.whole_number(o, "waypoint") for o in order]
    continues: dict[int, bool] = {}
    position: dict[int, int] = {}
    for k, (number, o) in enumerate(zip(numbers, order)):
        continues.setdefault(number, bool(o.get("next")))
        position.setdefault(number, k)
    # Where the chain through each place ends, found from the last place back.
    end = list(range(len(order)))
    for k in range(len(order) - 2, -1, -1):
        if numbers[k + 1] == numbers[k] or continues[numbers[k]]:
            end[k] = end[k + 1]
    where = [Vector(o.matrix_world.translation) for o in order]
    # Steps k → k + 1 that some chain takes: +1 where a chain starts, −1 where it ends.
    steps = [0] * (len(order) + 1)
    lines = []
    for strat in strat_objects(scene):
        first = strat.get("waypoint")
        at = position.get(first) if isinstance(first, int) and first >= 0 else None
        if at is None:
            continue
        lines += [Vector(strat.matrix_world.translation), where[at]]
        steps[at] += 1
        steps[end[at]] -= 1
    running = 0
    for k in range(len(order) - 1):
        running += steps[k]
        if running > 0:
            lines += [where[k], where[k + 1]]
    return lines


def floors_below(context, objects: list) -> list[float | None]:
    """Per object, the height (Blender z) of the floor the game's floor test finds below its
    origin in the scene as export would write it (its base when the conversion refuses it), or
    None where it finds none."""
    level = probe.probed_level(context)
    points = [Vector(o.matrix_world.translation) for o in objects]
    # An object at no place (a NaN location) has no floor below it; the others are probed.
    placed = [k for k, p in enumerate(points) if all(math.isfinite(v) for v in p)]
    results = probe.probe_points(level, [points[k] for k in placed]) if placed else []
    heights: list[float | None] = [None] * len(points)
    for k, r in zip(placed, results):
        heights[k] = None if r.get("floor") is None else float(r["floor"]["height"])
    return heights
