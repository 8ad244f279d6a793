"""What export leaves in the scene besides the file: the last export's changes tile by tile
(common/changes.py) with the objects they name, which the Level panel and the popup list; and,
after it wrote over its base, the scene made the level as written, so that the next export
starts from the level as it now is."""

from __future__ import annotations

import bpy

from ..common import changes as words
from . import scene as level_scene
from .check import scene_index


def store_changes(scene, report: dict, models_before: list[int], models_after: list[int], notes: list[str], reloaded: bool) -> list[words.TileChange]:
    """The export's changes into the scene's list: one row per tile the report names (with the
    object it came from, or after a reload the tile's object), then the export's figures and
    ``notes`` (warnings). Returns the tile rows."""
    rows = words.tile_changes(report)
    objects = scene_index(scene, () if reloaded else report.get("sources") or []).tiles
    props = scene.llamawad
    props.changes.clear()
    for r in rows:
        item = props.changes.add()
        item.text = r.text()
        item.tile = r.tile
        item.object = objects.get(r.tile, "")
    for line in words.details(report, models_before, models_after) + notes:
        props.changes.add().text = line
    props["change_index"] = -1
    return rows


def reload(context, data: bytes, path: str, written_apart=()):
    """Replaces the scene's level with ``data`` (the level just written to ``path``, now the
    base): the objects of new meshes and copies become the tiles they were written as, each
    tile's numbers those of the written level; ``written_apart`` are the objects written from
    outside the level's collections (new meshes elsewhere, their collision), which go with them.
    Returns the import's summary."""
    from .imp.level import import_level

    if context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    level_scene.remove_level(context.scene, written_apart)
    return import_level(context, data, path)
