"""The Floor probe's result put into words and into lines to draw. The floor test itself is the
Rust core's (``llamawad.probe``): this module only reads what it reports, per candidate polygon
its edge values against the tolerance, whether it lies above the feet, its height, and which
one the test chose. No bpy.

A result is one point of ``llamawad.probe`` (game space: x east, y up, z the grid row), with
``outlines`` beside its ``candidates`` (``llamawad.polygon_outlines``: corners and tolerance zone
of each, game space) and ``objects`` naming the scene object of each tile number."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass

from . import game, space

# Edge values and the tolerance are 20.12 fixed point.
ONE = 4096.0


def material_text(material: int) -> str:
    name = next((name for m, name, _ in game.COLLISION_PRESETS if m == material), None)
    return f"material {material}" + (f" ({name.lower()})" if name else "")


def _same(a: dict | None, b: dict) -> bool:
    return a is not None and (a["tile"], a["polygon"]) == (b["tile"], b["polygon"])


def chosen(result: dict) -> dict | None:
    """The surface the test chose: the floor, or the no-floor surface (water, death plane)."""
    return result.get("floor") or result.get("no_floor")


def chosen_index(result: dict) -> int | None:
    """Index of the chosen surface among the candidates."""
    c = chosen(result)
    return next((i for i, cand in enumerate(result.get("candidates", [])) if _same(c, cand)), None)


def surface_text(surface: dict, objects: dict[int, str]) -> str:
    where = f"tile {surface['tile']} polygon {surface['polygon']}"
    obj = objects.get(surface["tile"])
    return where + (f" ({obj})" if obj else "")


def why_not(candidate: dict, result: dict) -> str:
    """Why the test did not choose this candidate (or that it did)."""
    best = chosen(result)
    if _same(best, candidate):
        if result.get("no_floor"):
            return "chosen, but its material means no floor: the llama falls (water, death plane)"
        return "chosen: the nearest surface under the feet"
    if candidate["above"]:
        return f"above the feet by {candidate['height'] - result['y']:.3f}: a surface above, never the floor"
    if not candidate["passed"]:
        tolerance = candidate["tolerance"]
        failed = [(k, e) for k, e in enumerate(candidate["edges"]) if e < tolerance]
        k, e = min(failed, key=lambda ke: ke[1])
        text = f"outside edge {k + 1} by {-e / ONE:.3f} (the tolerance lets {-tolerance / ONE:.3f} pass)"
        if len(failed) > 1:
            text += f", and outside {len(failed) - 1} more edge{'s' if len(failed) > 2 else ''}"
        return text
    i = chosen_index(result)
    if i is None:
        return "passed"
    winner = result["candidates"][i]
    if candidate["dist"] == winner["dist"]:
        return "as near as the chosen surface, which the test found first"
    return f"lower: {winner['height'] - candidate['height']:.3f} below the chosen surface"


@dataclass
class Row:
    text: str
    detail: str
    won: bool


def describe(result: dict, objects: dict[int, str]) -> list[Row]:
    """The probe as the panel shows it: the point, what the llama stands on, then every
    candidate with why it lost."""
    rows = [Row(f"At {result['x']:.3f}, {result['y']:.3f}, {result['z']:.3f} (game x, y, z)", _cell_text(result), False)]
    floor, dead = result.get("floor"), result.get("no_floor")
    if floor:
        rows.append(Row(f"Floor: height {floor['height']:.4f}, {material_text(floor['material'])}", surface_text(floor, objects), True))
    elif dead:
        rows.append(Row(f"No floor: {material_text(dead['material'])} at {dead['height']:.4f}", surface_text(dead, objects), True))
    else:
        rows.append(Row("No floor: no polygon passes; the llama falls", "", False))
    above = result.get("surface_above")
    if above:
        rows.append(Row(f"Surface above at {above['height']:.4f}", surface_text(above, objects), False))
    for cand in result.get("candidates", []):
        if _same(chosen(result), cand):
            continue
        head = f"{surface_text(cand, objects)}, height {cand['height']:.4f}"
        rows.append(Row(head, why_not(cand, result), False))
    return rows


def _cell_text(result: dict) -> str:
    cell = result.get("cell")
    if not cell:
        return "outside the grid: no tiles, no floor"
    n = len(result.get("candidates", []))
    return f"cell {cell['col']}, {cell['row']}: {n} polygon{'s' if n != 1 else ''} facing up"


def drawing(result: dict) -> dict:
    """What the viewport draws, in Blender space: the probe point, the chosen polygon and its
    tolerance zone, and the outlines of the candidates that lost (each a list of corners)."""
    outlines = result.get("outlines") or []
    won = chosen_index(result)
    out: dict[str, Any] = {"point": space.vector_to_blender((result["x"], result["y"], result["z"])), "floor": [], "zone": [], "others": []}
    for i, outline in enumerate(outlines):
        if not outline:
            continue
        corners = [space.vector_to_blender(c) for c in outline["corners"]]
        if i == won:
            out["floor"] = corners
            out["zone"] = [space.vector_to_blender(c) for c in outline["zone"]]
        else:
            out["others"].append(corners)
    return out
