"""What an export changed, in words an artist reads: the change report of
``llamawad.gltf_to_wad`` (rust/core/src/gltf/import/mod.rs, ``ChangeReport``) tile by tile, and
the conversion's overall figures. Pure Python: which tile changed how is the Rust core's to say;
this only puts it into rows."""

from __future__ import annotations

from dataclasses import dataclass, field

# Report lists of tile numbers: (key, the word for the summary's count, what it means for one
# of its tiles).
TILE_LISTS = (
    ("tiles_added", "added", "new"),
    ("tiles_moved", "moved", "moved or turned"),
    ("tiles_reshaped", "reshaped", "reshaped"),
    ("tiles_fitted", "with faces fitted", "faces given the texture entries their UVs show"),
    ("tiles_recoloured", "recoloured", "vertex colours changed"),
    ("tiles_emptied", "emptied", "emptied: nothing in the scene stands for it any more (it keeps its number, drawing nothing)"),
    ("tiles_retiled", "re-tiled", "its faces now reach beyond its cell: drawn by new tiles of the cells they lie in (it keeps its number, drawing nothing)"),
    ("collision_followed", "with collision moved along", "collision scaled, turned or moved with its faces"),
    ("collision_copied", "with collision copied", "faces copied (an Array): its collision copied with each copy"),
    (
        "collision_kept",
        "with collision kept",
        "vertices moved one by one: its collision stays where it was (to change it, Show collision and edit it, or use Collision from Faces)",
    ),
    ("coverage_tiles", "collision-only", "collision only"),
    ("coverage_freed", "collision-only freed", "collision only, no longer needed: emptied"),
)

# What changed on a reshaped tile (the report's ``tile_edits``), in words.
TILE_EDITS = {
    "vertices_moved": "vertices moved",
    "faces_added": "faces added",
    "faces_removed": "faces removed",
    "look": "textures, UVs, materials or face flags changed",
    "colours_apart": "corners of one vertex painted apart (a vertex for each colour)",
    "collision": "collision changed",
}

# Report lists of strat numbers: (key, the word for the summary's count, what it means for one
# of its strats).
STRAT_LISTS = (
    ("strats_added", "added", "new"),
    ("strats_moved", "moved", "moved or turned"),
    ("strats_tuned", "tuned", "its record's fields or parameters changed"),
    ("strats_removed", "not created at start", "not created at level start (it keeps its record and number)"),
    ("strats_restored", "created at start again", "created at level start again"),
)

# Report lists of waypoint numbers (as written), the same way.
WAYPOINT_LISTS = (
    ("waypoints_added", "inserted", "new, inserted into its chain after the waypoint it copies"),
    ("waypoints_moved", "moved", "moved or turned"),
)

# Report lists of level-light numbers, the same way.
LIGHT_LISTS = (("lights_changed", "changed", "its colour, direction, position or words changed"),)

# Report counts: (key, singular, plural, verb).
COUNTS = (
    ("models_added", "model", "models", "added"),
    ("texture_entries_appended", "texture entry", "texture entries", "added"),
    ("collision_polygons_changed", "collision polygon", "collision polygons", "changed"),
    ("cells_rezoned", "cell", "cells", "rezoned"),
    ("zone_masks_changed", "zone mask", "zone masks", "changed"),
    ("parameters_appended", "strat parameter", "strat parameters", "appended to the pool"),
)

UNCHANGED = "no changes: identical to the base"


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@dataclass
class TileChange:
    """One tile of the written level and what the export did to it. ``source`` is the glTF node
    (the Blender object) it came from, empty when the report names none."""

    tile: int
    source: str = ""
    changes: list[str] = field(default_factory=list)

    def text(self) -> str:
        return f"tile {self.tile}: " + "; ".join(self.changes)


def sources(report: dict) -> dict[int, str]:
    """Tile → the node it came from (for a collision-only tile: the node of the tile it serves)."""
    return {int(tile): str(node) for tile, node in report.get("sources") or []}


def tile_changes(report: dict) -> list[TileChange]:
    """Every tile the report names, in tile order, with what changed (for a reshaped tile, what
    of it)."""
    made_from = sources(report)
    generated = set(report.get("collision_generated") or [])
    edits = {int(tile): what for tile, what in report.get("tile_edits") or []}
    rows: dict[int, TileChange] = {}

    def row(tile: int) -> TileChange:
        if tile not in rows:
            rows[tile] = TileChange(tile, made_from.get(tile, ""))
        return rows[tile]

    for key, _, meaning in TILE_LISTS:
        for tile in report.get(key) or []:
            tile = int(tile)
            r = row(tile)
            if key == "tiles_added" and r.source:
                r.changes.append(f"new, from {r.source}")
            elif key == "coverage_tiles" and r.source:
                r.changes.append(f"collision only: enters the collision of {r.source} into its cell")
            elif key == "tiles_reshaped" and edits.get(tile):
                r.changes.append(f"{meaning}: {', '.join(TILE_EDITS.get(e, e) for e in edits[tile])}")
            else:
                r.changes.append(meaning)
    for tile, r in rows.items():
        if r.source in generated and tile in (report.get("tiles_added") or []):
            r.changes.append("collision made from its floors and walls")
    return [rows[t] for t in sorted(rows)]


def tiles_text(tiles: list[int]) -> str:
    shown = ", ".join(map(str, tiles[:8])) + (" …" if len(tiles) > 8 else "")
    return f"tile{'s' if len(tiles) != 1 else ''} {shown}"


def model_changes(report: dict, models_before: list[int], models_after: list[int]) -> list[str]:
    """What became of the base's models, once per model and what it became (``llamawad.tile_models``
    of the base and of the written level): all the tiles that shared a model on a new one, some
    of them with the others keeping it, or a tile's model of its own replaced. Tiles emptied or
    re-tiled have rows of their own."""
    elsewhere = {int(t) for key in ("tiles_emptied", "tiles_retiled", "coverage_freed") for t in report.get(key) or []}
    users: dict[int, int] = {}
    for m in models_before:
        users[m] = users.get(m, 0) + 1
    kept: dict[int, int] = {}
    moved: dict[tuple[int, int], list[int]] = {}
    for tile, (old, new) in enumerate(zip(models_before, models_after)):
        if old == new:
            kept[old] = kept.get(old, 0) + 1
        elif tile not in elsewhere:
            moved.setdefault((old, new), []).append(tile)
    out = []
    for (old, new), tiles in sorted(moved.items()):
        n = users[old]
        if n == 1:
            out.append(f"tile {tiles[0]}: model {new} instead of model {old}")
        elif len(tiles) == n:
            out.append(f"model {old}: all {n} tiles that shared it have model {new} now")
        else:
            others = kept.get(old, 0)
            out.append(
                f"model {old}: {tiles_text(tiles)} of its {n} have model {new} now"
                + (f"; {plural(others, 'tile keeps', 'tiles keep')} model {old}" if others else "")
            )
    return out


def fit_text(fit: dict) -> str:
    """The texture fitting in a sentence, or "" when no face was fitted."""
    n = int(fit.get("faces_fitted") or 0)
    if not n:
        return ""
    tolerance = float(fit.get("tolerance") or 0.0)
    # U+2044 FRACTION SLASH.
    within = f" within 1\u2044{round(1 / tolerance)} of the page" if tolerance > 0 else ""
    out = f"{plural(n, 'face', 'faces')} got the texture entry that shows {'its' if n == 1 else 'their'} UVs{within}"
    out += f" (largest error {float(fit.get('max_error') or 0.0):.5f})"
    shared, appended = int(fit.get("entries_shared") or 0), int(fit.get("entries_appended") or 0)
    out += f": {shared} on entries the level had, {plural(appended, 'entry', 'entries')} added"
    return out


def snapped_text(report: dict) -> list[str]:
    """One sentence per object whose faces' UVs were snapped to a layout the game can show."""
    per_object: dict[str, set[int]] = {}
    for name, face in report.get("uv_snapped") or []:
        per_object.setdefault(name, set()).add(int(face))
    return [
        f"{name}: UVs of {plural(len(faces), 'face', 'faces')} ({', '.join(map(str, sorted(faces)[:8]))}{'…' if len(faces) > 8 else ''}) snapped to the nearest layout the game can show"
        for name, faces in per_object.items()
    ]


def summary(report: dict) -> str:
    """The export in one line: how many tiles changed how, and the counts."""
    parts = []
    for key, word, _ in TILE_LISTS:
        n = len(report.get(key) or [])
        if n:
            parts.append(f"{plural(n, 'tile', 'tiles')} {word}")
    for lists, one, many in ((STRAT_LISTS, "strat", "strats"), (WAYPOINT_LISTS, "waypoint", "waypoints"), (LIGHT_LISTS, "light", "lights")):
        for key, word, _ in lists:
            n = len(report.get(key) or [])
            if n:
                parts.append(f"{plural(n, one, many)} {word}")
    renumbered = len(report.get("strats_renumbered") or [])
    if renumbered:
        parts.append(f"{plural(renumbered, 'strat names', 'strats name')} {'its' if renumbered == 1 else 'their'} waypoint by a new number")
    for key, one, many, verb in COUNTS:
        n = int(report.get(key) or 0)
        if n:
            parts.append(f"{plural(n, one, many)} {verb}")
    repainted = len(report.get("pages_changed") or [])
    if repainted:
        parts.append(f"{plural(repainted, 'page', 'pages')} written from {'its image' if repainted == 1 else 'their images'}")
    added = len(report.get("pages_added") or [])
    if added:
        parts.append(f"{plural(added, 'new page', 'new pages')} for new images")
    generated = report.get("collision_generated") or []
    if generated:
        parts.append(f"collision made for {plural(len(generated), 'new mesh', 'new meshes')}")
    snapped = len({(name, face) for name, face in report.get("uv_snapped") or []})
    if snapped:
        parts.append(f"UVs of {plural(snapped, 'face', 'faces')} snapped")
    return "; ".join(parts) if parts else UNCHANGED


def added_text(report: dict) -> list[str]:
    """One sentence per object (new mesh, tile copy) that became new tiles, with their numbers."""
    made_from = sources(report)
    per_object: dict[str, list[int]] = {}
    for tile in report.get("tiles_added") or []:
        name = made_from.get(int(tile))
        if name:
            per_object.setdefault(name, []).append(int(tile))
    return [f"{name}: added as new {'tile' if len(tiles) == 1 else 'tiles'} {', '.join(map(str, tiles))}" for name, tiles in per_object.items()]


def details(report: dict, models_before: list[int] | None = None, models_after: list[int] | None = None) -> list[str]:
    """What the export did beyond single tiles: the objects it added, what became of shared
    models (with the tiles' models before and after), texture fitting, snapped UVs, collision
    made for new meshes (its warnings are the report's own ``warnings``)."""
    out = added_text(report) + strat_changes(report) + waypoint_changes(report)
    out += _numbered_changes(report, LIGHT_LISTS, "light", "")
    if models_before is not None and models_after is not None:
        out += model_changes(report, models_before, models_after)
    out += page_changes(report)
    fit = fit_text(report.get("fit") or {})
    if fit:
        out.append(fit)
    out.extend(snapped_text(report))
    for name in report.get("collision_generated") or []:
        out.append(f"{name}: collision made from its floors and walls")
    return out


@dataclass
class Told:
    """An export in words, put once for the operator's reports, the Level panel's list and the
    popup: its summary, a row per tile it changed, what it did beyond single tiles, and the
    warnings (the edits it left out first, then the conversion's)."""

    summary: str
    rows: list[TileChange]
    details: list[str]
    warnings: list[str]


def told(report: dict, models_before: list[int], models_after: list[int], not_written: list[str]) -> Told:
    """The export of ``report`` in words, the tiles' models before and after and the edits it
    left out (``not_written``) given."""
    line = summary(report)
    if not_written:
        line += f"; {plural(len(not_written), 'edit', 'edits')} not written, named in the warnings"
    return Told(line, tile_changes(report), details(report, models_before, models_after), not_written + list(report.get("warnings") or []))


def page_changes(report: dict) -> list[str]:
    """One sentence per texture page the export wrote from an image, one for the pages it added,
    and the pages' size against the base's when it changed."""
    out = []
    for p in report.get("pages_changed") or []:
        moved = f", {plural(p['pixels_moved'], 'pixel', 'pixels')} more than a 5-bit step from the nearest palette colour" if p["pixels_moved"] else ""
        out.append(f"page {p['page']}: {plural(p['pixels_changed'], 'pixel', 'pixels')} written from its image{moved}")
    added = report.get("pages_added") or []
    if added:
        out.append(f"new {'pages' if len(added) > 1 else 'page'} {', '.join(map(str, added))} for new images")
    before, after = report.get("page_bytes_before"), report.get("page_bytes_after")
    if before is not None and after is not None and before != after:
        out.append(f"texture pages: {after:,} bytes (the base's {before:,})")
    return out


def level_objects_changed(report: dict) -> bool:
    """Whether the export wrote any strat or waypoint other than the base has it."""
    return any(report.get(key) for key, _, _ in STRAT_LISTS + WAYPOINT_LISTS) or bool(report.get("waypoint_sources"))


def _numbered_changes(report: dict, lists, what: str, sources_key: str) -> list[str]:
    made_from = {int(k): str(node) for k, node in report.get(sources_key) or []}
    changes: dict[int, list[str]] = {}
    for key, _, meaning in lists:
        for k in report.get(key) or []:
            changes.setdefault(int(k), []).append(meaning)
    return [f"{what} {k}{f' ({made_from[k]})' if k in made_from else ''}: {'; '.join(changes[k])}" for k in sorted(changes)]


def strat_changes(report: dict) -> list[str]:
    """One sentence per strat the export wrote other than the base has it, in strat order, with
    the object it came from (a removed strat has none: its object is gone)."""
    return _numbered_changes(report, STRAT_LISTS, "strat", "strat_sources")


def waypoint_changes(report: dict) -> list[str]:
    """One sentence per waypoint the export moved or inserted (numbered as written), with the
    object it came from."""
    return _numbered_changes(report, WAYPOINT_LISTS, "waypoint", "waypoint_sources")
