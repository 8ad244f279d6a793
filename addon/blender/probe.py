"""The Floor probe: the Rust core's floor test (``llamawad.probe``) on the scene converted as
export would write it, at a point of the scene or under the mouse, with the outlines of the
polygons it looked at (``llamawad.polygon_outlines``). A scene the conversion refuses is probed
as its base level, and the result says so."""

from __future__ import annotations

import json
from dataclasses import dataclass

from mathutils import Vector

from ..common import space
from . import scene as level_scene
from .check import scene_index
from .convert import Refusal, convert, read_base

# How far above a ray's hit the probe starts (units): the test finds the floor just under it.
ABOVE_HIT = 0.01
# Ray hits on these are not where the llama could stand: the ray goes on through them.
SEE_THROUGH = {"zones", "strat"}


@dataclass
class ProbedLevel:
    wad: bytes
    # Tile number → scene object.
    objects: dict[int, str]
    # What was probed: the scene, or the base when the scene is refused.
    source: str


def probed_level(context) -> ProbedLevel:
    """The level the probe tests: the scene converted in memory, or its base when refused."""
    scene = context.scene
    base = read_base(scene)
    try:
        converted = convert(context, base)
    except Refusal as e:
        return ProbedLevel(base, scene_index(scene).tiles, f"the base level (the scene is refused: {e})")
    report = converted.report
    index = scene_index(scene, report.get("sources") or [], report.get("coverage_tiles") or [])
    return ProbedLevel(converted.wad, index.tiles, "the scene")


def probe_points(level: ProbedLevel, points) -> list[dict]:
    """The floor test at Blender-space points: per point the probe result with ``outlines``
    beside its candidates, ``objects`` (tile number → object) and ``source``."""
    import llamawad

    at = [space.vector_to_file(p) for p in points]
    results: list[dict] = [dict(r) for r in llamawad.probe(level.wad, [(float(x), float(y), float(z)) for x, y, z in at])]
    for r in results:
        pairs = [(c["tile"], c["polygon"]) for c in r["candidates"]]
        r["outlines"] = llamawad.polygon_outlines(level.wad, pairs) if pairs else []
        tiles = {c["tile"] for c in r["candidates"]}
        r["objects"] = {str(t): level.objects[t] for t in tiles if t in level.objects}
        r["source"] = level.source
    return results


def store(scene, result: dict) -> None:
    scene.llamawad.probe_json = json.dumps(result, separators=(",", ":"))


# The last probe's text and what it was read as: the panel and the drawing ask at every redraw,
# and it is read once for each probe.
_read: tuple[str, dict | None] = ("", None)


def stored(scene) -> dict | None:
    """The last probe, with ``objects`` keyed by tile number again (the same dict until the next
    probe: read it, don't change it)."""
    global _read
    text = scene.llamawad.probe_json
    if not text:
        return None
    if text != _read[0]:
        result = json.loads(text)
        result["objects"] = {int(t): name for t, name in result.get("objects", {}).items()}
        _read = (text, result)
    return _read[1]


def ray_hit(context, origin, direction, steps: int = 16) -> Vector | None:
    """Where a ray first meets the level's geometry (tiles, collision, new meshes), looking
    through the zone grid and strats."""
    depsgraph = context.evaluated_depsgraph_get()
    origin, direction = Vector(origin), Vector(direction).normalized()
    for _ in range(steps):
        hit, location, _, _, obj, _ = context.scene.ray_cast(depsgraph, origin, direction)
        if not hit:
            return None
        if level_scene.role(obj.original) not in SEE_THROUGH:
            return location
        origin = location + direction * 1e-4
    return None


def probe_along_ray(context, level: ProbedLevel, origin, direction) -> dict | None:
    """The floor test from just above where a ray meets the level (None: it meets nothing)."""
    hit = ray_hit(context, origin, direction)
    if hit is None:
        return None
    return probe_points(level, [hit + Vector((0.0, 0.0, ABOVE_HIT))])[0]


def redraw(context) -> None:
    """The 3D views again: the drawing and the panel show the new probe."""
    for window in context.window_manager.windows if context.window_manager else []:
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()
