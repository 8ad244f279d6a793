"""Bake lighting and Fit lighting: the level's light in its tiles' vertex colours. The Rust core
shades (``llamawad.bake_points``: sun, sky and ambient occlusion against the faces of the scene
converted as export writes it) and fits (``llamawad.fit_light``); this module hands it the
meshes' vertices in game space and writes the colours it answers into the attributes export
reads: the raw colour (``wad_rgb_k``) where a tile has it, and the colour the game shows
(``Col``) on every mesh, so that the viewport shows the bake at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, TypeVar

import bpy
import numpy as np

from ..common import game, space
from . import materials as mats
from . import scene as level_scene
from .probe import ProbedLevel, probed_level

if TYPE_CHECKING:
    from llamawad.answers import Lamp

T = TypeVar("T")


# Blender gives a Point light's power in watts; the irradiance it makes at distance d is
# P / (4π² d²) (Cycles' convention), which is taken as its colour in the game's shown scale.
POINT_POWER_SCALE = 1.0 / (4.0 * np.pi**2)


@dataclass
class Baked:
    """What a bake did: the objects lit, what it left out and why (objects left as they were,
    lights not baked), and the level the light was cast against."""

    objects: list[str] = field(default_factory=list)
    vertices: int = 0
    notes: list[str] = field(default_factory=list)
    source: str = ""


def lighting(props) -> dict[str, Any]:
    """The panel's light as ``llamawad.bake_points`` takes it (game space; colours 1.0 = raw
    0x80)."""
    return {
        "sun_direction": tuple(props.light_sun_direction),
        "sun_colour": tuple(props.light_sun_colour),
        "sky_colour": tuple(props.light_sky_colour),
        "occlusion": props.light_occlusion,
    }


def lamps(context) -> tuple[list[Lamp], list[str]]:
    """The scene's visible Sun and Point lights as ``llamawad.bake_points`` takes them (game
    space, colours scaled by their strength), and a note for each other light left out."""
    found: list[Lamp] = []
    notes: list[str] = []
    for obj in context.scene.objects:
        if obj.type != "LIGHT" or not obj.visible_get():
            continue
        light = obj.data
        r, g, b = (float(c) * light.energy for c in light.color)
        m = np.array(obj.matrix_world, np.float64)
        if light.type == "SUN":
            # A Sun shines along its local −Z.
            x, y, z = (float(v) for v in space.blender_to_file(-m[:3, 2][None])[0])
            found.append({"kind": "sun", "direction": (x, y, z), "colour": (r, g, b)})
        elif light.type == "POINT":
            x, y, z = (float(v) for v in space.blender_to_file(m[:3, 3][None])[0])
            cutoff = light.cutoff_distance if getattr(light, "use_custom_distance", False) else float("inf")
            k = POINT_POWER_SCALE
            found.append({"kind": "point", "position": (x, y, z), "colour": (r * k, g * k, b * k), "cutoff": cutoff})
        else:
            notes.append(f"{obj.name}: a {light.type.lower()} light, not baked (Sun and Point lights are)")
    return found, notes


def targets(context, whole_level: bool) -> list[bpy.types.Object]:
    """The meshes a bake lights: tiles and new meshes, of the selection or of the whole scene."""
    pool = context.scene.objects if whole_level else context.selected_objects
    objects = level_scene.object_collections(context.scene)
    return [o for o in pool if o.type == "MESH" and (level_scene.role(o) == "tile" or level_scene.is_new_mesh(context, o, objects))]


def _frames(mesh) -> int:
    """How many colour sets a tile's mesh has (``wad_rgb_0`` …); 0 for a mesh without one."""
    k = 0
    while f"wad_rgb_{k}" in mesh.attributes:
        k += 1
    return k


def _points(obj) -> tuple[np.ndarray, np.ndarray]:
    """The object's vertices and their normals in world game space (file space)."""
    mesh = obj.data
    n = len(mesh.vertices)
    co = np.empty(n * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    normals = np.empty(n * 3, np.float32)
    mesh.vertex_normals.foreach_get("vector", normals)
    m = np.array(obj.matrix_world, np.float64)
    world = co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
    # Normals go with the inverse transpose (a scaled object keeps them at right angles).
    turned = normals.reshape(-1, 3) @ np.linalg.inv(m[:3, :3])
    return space.blender_to_file(world), space.blender_to_file(turned)


# Points lit by one call of ``llamawad.bake_points``: between two calls the add-on reports its
# progress and hears Esc (each call casts the rays of this many points; a full level's bake is a
# few dozen such steps).
BAKE_STEP = 4096


def bake(context, objects: list[bpy.types.Object], animated: bool = False) -> Baked:
    """Lights ``objects`` with the scene's light, against the scene as export writes it (its
    base level where the conversion refuses it, as the Floor probe does)."""
    return run(baking(context, objects, animated))


def run(steps: Generator[tuple[int, int], None, T]) -> T:
    """What a stepped job (``baking``, ``fitting``) returns, its steps taken in one go."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def baking(context, objects: list[bpy.types.Object], animated: bool = False) -> Generator[tuple[int, int], None, Baked]:
    """``bake`` a step at a time: yields (points lit, points in all) after each step and returns
    the Baked. Nothing in the scene changes until the last step is done, so a bake stopped
    between steps (the generator closed) leaves the scene as it was."""
    import llamawad

    props = context.scene.llamawad
    level: ProbedLevel = probed_level(context)
    out = Baked(source=level.source)
    extra: list[Lamp] = []
    if props.light_blender_lights:
        extra, out.notes = lamps(context)
    chosen, done = [], set()
    for obj in objects:
        frames = _frames(obj.data)
        if frames > 1 and not animated:
            out.notes.append(f"{obj.name}: animated colours ({frames} sets) kept; tick 'Animated colours too' to bake them")
        elif obj.data.name_full in done:
            out.notes.append(f"{obj.name}: shares its mesh with an object baked already, which lights both (Object › Relations › Make Single User lights each)")
        elif len(obj.data.vertices):
            chosen.append(obj)
            done.add(obj.data.name_full)
    if not chosen:
        return out
    points = [_points(o) for o in chosen]
    positions = np.ascontiguousarray(np.concatenate([p for p, _ in points]), np.float32)
    normals = np.ascontiguousarray(np.concatenate([n for _, n in points]), np.float32)
    parts = []
    for start in range(0, len(positions), BAKE_STEP):
        part = slice(start, start + BAKE_STEP)
        lit = llamawad.bake_points(level.wad, positions[part], normals[part], **lighting(props), lamps=extra, rays=props.light_rays)
        parts.append(np.frombuffer(lit, np.uint8))
        yield min(start + BAKE_STEP, len(positions)), len(positions)
    colours = np.concatenate(parts).reshape(-1, 3)
    raw = colours[:, 0].astype(np.int32) | colours[:, 1].astype(np.int32) << 8 | colours[:, 2].astype(np.int32) << 16
    start = 0
    for obj in chosen:
        n = len(obj.data.vertices)
        _write(obj.data, raw[start : start + n])
        start += n
        out.objects.append(obj.name)
    out.vertices = start
    return out


def _write(mesh, raw: np.ndarray) -> None:
    """A mesh's raw colours (one a vertex, R + G·256 + B·65536) into every colour set it has and
    what the game shows of them into ``Col`` (made where the mesh has none)."""
    for k in range(_frames(mesh)):
        mesh.attributes[f"wad_rgb_{k}"].data.foreach_set("value", raw)
    corner_points = np.empty(len(mesh.loops), np.int32)
    mesh.attributes[".corner_vert"].data.foreach_get("value", corner_points)
    flags = np.zeros(len(mesh.polygons), np.int32)
    if "wad_flags" in mesh.attributes and mesh.attributes["wad_flags"].domain == "FACE":
        mesh.attributes["wad_flags"].data.foreach_get("value", flags)
    loop_total = np.empty(len(mesh.polygons), np.int32)
    mesh.polygons.foreach_get("loop_total", loop_total)
    corner_flags = np.repeat(flags, loop_total)
    shown = game.shown_colour(raw[corner_points], corner_flags)
    attr = mesh.color_attributes.get(mats.COLOUR_ATTRIBUTE)
    if attr is None or attr.domain != "CORNER" or attr.data_type != "FLOAT_COLOR":
        if attr is not None:
            mesh.color_attributes.remove(attr)
        attr = mesh.color_attributes.new(mats.COLOUR_ATTRIBUTE, "FLOAT_COLOR", "CORNER")
        mesh.color_attributes.active_color = attr
        mesh.color_attributes.render_color_index = mesh.color_attributes.active_color_index
    attr.data.foreach_set("color", np.ascontiguousarray(shown, np.float32).ravel())
    mesh.update()


def fit(context) -> dict[str, Any]:
    """The light that explains the colours of the scene's level best (``llamawad.fit_light``),
    with ``source`` saying which level that was; the scene's light set to it."""
    return run(fitting(context))


def fitting(context) -> Generator[tuple[int, int], None, dict[str, Any]]:
    """``fit`` a step at a time (``llamawad.LightFitting``): yields (rays cast, rays in all)
    after each step and returns what ``fit`` does. The scene's light is set after the last step
    only, so a fit stopped between steps (the generator closed) leaves it as it was."""
    import llamawad

    props = context.scene.llamawad
    level = probed_level(context)
    steps = llamawad.LightFitting(level.wad, rays=props.light_rays)
    while (progress := steps.step()) is not None:
        yield progress
    fitted = steps.result
    assert fitted is not None  # step() returns None only once the result is there
    light = fitted["lighting"]
    props.light_sun_direction = light["sun_direction"]
    props.light_sun_colour = [min(max(v, 0.0), 2.0) for v in light["sun_colour"]]
    props.light_sky_colour = [min(max(v, 0.0), 2.0) for v in light["sky_colour"]]
    props.light_occlusion = min(max(light["occlusion"], 0.0), 1.0)
    return {"error": fitted["error"], "vertices": fitted["vertices"], "source": level.source}
