"""The level check's problems as the Rust check reports them (``llamawad.check``, and the
``problems`` of a refusal): the order the Level panel lists them in, and the part of the scene
each one names. No bpy: the scene is described by the plain data of ``SceneIndex``, which
blender/check.py builds.

A problem is a dict with ``code``, ``severity`` ("error" or "warning"), ``message``,
``pre_existing`` and its culprit in the game's terms: ``tile``, ``model``, ``polygon``, ``face``,
``strat``, ``cell`` ([column, row]), None where they do not apply; a refusal's problem may name
in ``cause`` the tile whose edit made it (a neighbour's floor left over a cell a deleted or moved
tile emptied), which is the one shown. Tile numbers are those of the
level the scene converts to: a tile the conversion placed, changed or added is named by the
report's ``sources`` (glTF node = Blender object), any other keeps its imported number."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

CULPRIT_FIELDS = ("tile", "model", "polygon", "face", "strat", "cell", "cause")


def problem(code: str, severity: str, message: str) -> dict:
    """A problem of the add-on's own making (a refused glTF, an object export leaves out), shaped
    like the Rust check's."""
    return {"code": code, "severity": severity, "message": message, "pre_existing": False, **dict.fromkeys(CULPRIT_FIELDS)}


def faces_text(faces: list[int]) -> str:
    """Blender's face numbers, as the artist finds them (the spreadsheet, Edit Mode statistics)."""
    if not faces:
        return ""
    shown = ", ".join(map(str, faces[:8])) + (" …" if len(faces) > 8 else "")
    return f"Blender face{'s' if len(faces) != 1 else ''} {shown}"


def refusal_sentence(object_name: str, faces: list[int], message: str) -> str:
    """A refusal with its subject: the object, and its faces where the refusal names some."""
    subject = ", ".join(part for part in (object_name, faces_text(faces)) if part)
    return f"{subject}: {message}" if subject else message


def ordered(problems: list[dict]) -> list[dict]:
    """New problems first, then those the base level already has; errors before warnings in
    each; otherwise as given."""
    return sorted(problems, key=lambda p: (bool(p.get("pre_existing")), p.get("severity") != "error"))


def counts(problems: list[dict]) -> dict[str, int]:
    out = {"errors": 0, "warnings": 0, "pre_existing": 0}
    for p in problems:
        if p.get("pre_existing"):
            out["pre_existing"] += 1
        elif p.get("severity") == "error":
            out["errors"] += 1
        else:
            out["warnings"] += 1
    return out


def counts_text(problems: list[dict]) -> str:
    n = counts(problems)
    return f"New: {n['errors']} error{'s' if n['errors'] != 1 else ''}, {n['warnings']} warning{'s' if n['warnings'] != 1 else ''}; in the base already: {n['pre_existing']}"


def summary(problems: list[dict]) -> str:
    """One line for the operator's report: what is new, what the base had already."""
    if not problems:
        return "No problems: the level can be exported"
    n = counts(problems)
    parts = []
    if n["errors"]:
        parts.append(f"{n['errors']} error{'s' if n['errors'] != 1 else ''}")
    if n["warnings"]:
        parts.append(f"{n['warnings']} warning{'s' if n['warnings'] != 1 else ''}")
    new = ", ".join(parts) if parts else "no new problems"
    if n["pre_existing"]:
        new += f" ({n['pre_existing']} more the base level has already)"
    first = ordered(problems)[0]
    return f"{new}: {first['message']}" if parts else new


@dataclass(frozen=True)
class Target:
    """Where a problem points in the scene: an object (empty: the level as a whole) and, when
    ``attribute`` is set, its faces whose FACE attribute of that name equals ``value``."""

    object: str = ""
    attribute: str = ""
    value: int = -1


@dataclass
class SceneIndex:
    """The scene's level objects by the numbers the check uses."""

    # Tile number in the converted level → tile object.
    tiles: dict[int, str] = field(default_factory=dict)
    # Tile object → its collision object.
    collision: dict[str, str] = field(default_factory=dict)
    strats: dict[int, str] = field(default_factory=dict)
    zones: str = ""
    grid_width: int = 0
    # Collision-only tiles this conversion made: their polygons are copies, numbered in a model
    # of their own, so only the tile they serve can be shown.
    coverage: set[int] = field(default_factory=set)
    # The model of each tile of the converted level (asked only for a problem of a model).
    tile_models: Callable[[], list[int]] | None = None

    def tile_of_model(self, model: int) -> int | None:
        if self.tile_models is None:
            return None
        return next((t for t, m in enumerate(self.tile_models()) if m == model and t in self.tiles), None)


def locate(p: dict, index: SceneIndex) -> Target:
    """The object (and faces) a problem names: a strat by its number; a tile's polygon as the
    faces of its collision object; a model's face as the faces of a tile object using that
    model; a cell as the Zones mesh's face of that cell."""
    if p.get("strat") is not None:
        return Target(index.strats.get(p["strat"], ""))
    if p.get("cause") is not None:
        # The tile the artist edited; a deleted one has no object left: the cell it emptied.
        edited = index.tiles.get(p["cause"])
        if edited is not None:
            return Target(edited)
        return _cell_target(p, index)
    tile = p.get("tile")
    if tile is None and p.get("model") is not None:
        tile = index.tile_of_model(p["model"])
    obj = index.tiles.get(tile) if tile is not None else None
    if obj is not None:
        if p.get("polygon") is not None and tile not in index.coverage and obj in index.collision:
            return Target(index.collision[obj], "wad_polygon", int(p["polygon"]))
        if p.get("face") is not None:
            return Target(obj, "wad_face", int(p["face"]))
        return Target(obj)
    return _cell_target(p, index)


def _cell_target(p: dict, index: SceneIndex) -> Target:
    """A problem's cell as the Zones mesh's face of that cell (nothing without either)."""
    if p.get("cell") is not None and index.zones:
        col, row = p["cell"]
        return Target(index.zones, "wad_cell", int(col) + int(row) * index.grid_width)
    return Target()
