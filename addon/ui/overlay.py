"""Drawn in the 3D view with the ``gpu`` module: the Floor probe (the polygon the llama stands on,
filled, the zone the floor test's edge tolerance lets pass around it, the polygons that lost,
and the probe point: common/probe.py ``drawing``), and each strat's waypoint chain as a line
from the strat through its waypoints (blender/strats.py ``waypoint_lines``, worked out when the
scene changes, not at each redraw). Without a UI
(``bpy.app.background``) nothing is registered."""

from __future__ import annotations

import bpy

from ..blender import probe, strats
from ..common import probe as words

FLOOR = (0.1, 0.95, 0.3, 1.0)
FLOOR_FILL = (0.1, 0.95, 0.3, 0.25)
ZONE = (1.0, 0.85, 0.1, 1.0)
LOST = (1.0, 0.25, 0.2, 0.8)
POINT = (1.0, 1.0, 1.0, 1.0)
POINT_SIZE = 0.15

_handle = None
# The last probe text and what it draws, so that a redraw does not work it out again.
_cache: tuple[str, dict | None] = ("", None)


def _drawing(scene) -> dict | None:
    global _cache
    text = scene.llamawad.probe_json
    if text != _cache[0]:
        result = probe.stored(scene)
        _cache = (text, words.drawing(result) if result else None)
    return _cache[1]


def _loop_lines(corners) -> list:
    return [p for k in range(len(corners)) for p in (corners[k], corners[(k + 1) % len(corners)])]


WAYPOINTS = (0.3, 0.85, 1.0, 0.9)


# The waypoint lines, worked out again only after the scene changed (a depsgraph update or a
# file loaded), never at a redraw: (the change they were worked out after, the lines).
_changes = 0
_waypoint_cache: tuple[int, list] = (-1, [])


def changed(*_args) -> None:
    """Marks the scene changed: the next redraw works the waypoint lines out again."""
    global _changes
    _changes += 1


def waypoint_lines(scene) -> list:
    global _waypoint_cache
    if _waypoint_cache[0] != _changes:
        _waypoint_cache = (_changes, strats.waypoint_lines(scene))
    return _waypoint_cache[1]


def _draw_waypoints(scene) -> None:
    import gpu
    from gpu_extras.batch import batch_for_shader

    lines = waypoint_lines(scene)
    if not lines:
        return
    line = gpu.shader.from_builtin("POLYLINE_UNIFORM_COLOR")
    line.uniform_float("viewportSize", gpu.state.viewport_get()[2:])
    line.uniform_float("lineWidth", 2.0)
    line.uniform_float("color", WAYPOINTS)
    gpu.state.blend_set("ALPHA")
    batch_for_shader(line, "LINES", {"pos": lines}).draw(line)
    gpu.state.blend_set("NONE")


def _draw():
    import gpu
    from gpu_extras.batch import batch_for_shader

    scene = bpy.context.scene
    if scene is None or not hasattr(scene, "llamawad"):
        return
    _draw_waypoints(scene)
    if not scene.llamawad.probe_show:
        return
    data = _drawing(scene)
    if data is None:
        return
    # Drawn over the level (no depth test, the default here): the floor polygon lies in its
    # render faces.
    gpu.state.blend_set("ALPHA")
    if len(data["floor"]) >= 3:
        fill = gpu.shader.from_builtin("UNIFORM_COLOR")
        corners = data["floor"]
        triangles = [(0, k, k + 1) for k in range(1, len(corners) - 1)]
        batch = batch_for_shader(fill, "TRIS", {"pos": corners}, indices=triangles)
        fill.uniform_float("color", FLOOR_FILL)
        batch.draw(fill)
    line = gpu.shader.from_builtin("POLYLINE_UNIFORM_COLOR")
    line.uniform_float("viewportSize", gpu.state.viewport_get()[2:])
    x, y, z = data["point"]
    marker = [(x - POINT_SIZE, y, z), (x + POINT_SIZE, y, z), (x, y - POINT_SIZE, z), (x, y + POINT_SIZE, z), (x, y, z - POINT_SIZE), (x, y, z + POINT_SIZE)]
    for lines, colour, width in (
        ([p for c in data["others"] for p in _loop_lines(c)], LOST, 1.5),
        (_loop_lines(data["zone"]), ZONE, 1.5),
        (_loop_lines(data["floor"]), FLOOR, 3.0),
        (marker, POINT, 2.0),
    ):
        if not lines:
            continue
        line.uniform_float("lineWidth", width)
        line.uniform_float("color", colour)
        batch_for_shader(line, "LINES", {"pos": lines}).draw(line)
    gpu.state.blend_set("NONE")


def register():
    global _handle
    if bpy.app.background or _handle is not None:
        return
    _handle = bpy.types.SpaceView3D.draw_handler_add(_draw, (), "WINDOW", "POST_VIEW")
    bpy.app.handlers.depsgraph_update_post.append(changed)
    bpy.app.handlers.load_post.append(changed)


def unregister():
    global _handle, _cache, _waypoint_cache
    if _handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handle, "WINDOW")
        _handle = None
        bpy.app.handlers.depsgraph_update_post.remove(changed)
        bpy.app.handlers.load_post.remove(changed)
    _cache = ("", None)
    _waypoint_cache = (-1, [])
