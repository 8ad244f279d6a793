"""What export leaves in the scene besides the file: the last export's changes tile by tile
(common/changes.py) with the objects they name, which the Level panel and the popup list; and,
after it wrote over its base, the scene made the level as written, so that the next export
starts from the level as it now is."""

from __future__ import annotations

import bpy

from ..common import changes as words
from . import scene as level_scene
from .check import scene_index
from .scene_to_wad.level import canonical_tile_name


def store_changes(scene, report: dict, told: words.Told, reloaded: bool) -> None:
    """The export's changes into the scene's list: one row per tile the report names (with the
    object it came from, or after a reload the tile's object), then what it did beyond single
    tiles and its warnings."""
    rows = told.rows
    objects = {} if reloaded else {r.tile: r.source for r in rows if r.source}
    if len(objects) < len(rows):
        # Walking the scene's objects costs more than the rest of an export's bookkeeping: only
        # for tiles the report names no object for.
        objects = scene_index(scene, () if reloaded else report.get("sources") or []).tiles
    props = scene.llamawad
    props.changes.clear()
    for r in rows:
        item = props.changes.add()
        item.text = r.text()
        item.tile = r.tile
        item.object = objects.get(r.tile, "")
    for line in told.details + told.warnings:
        props.changes.add().text = line
    props["change_index"] = -1


def reload(context, data: bytes, path: str, written_apart=()):
    """Replaces the scene's level with ``data`` (the level just written to ``path``, now the
    base): the objects of new meshes and copies become the tiles they were written as, each
    tile's numbers those of the written level; ``written_apart`` are the objects written from
    outside the level's collections (new meshes elsewhere, their collision), which go with them.
    Returns the import's summary."""
    from .wad_to_scene.level import import_level

    if context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    level_scene.remove_level(context.scene, written_apart)
    return import_level(context, data, path)


# The roles of the level's objects, which the import makes together.
LEVEL_OBJECTS = ("strat", "waypoint", "object_model")

# Report lists of the tiles an export placed, changed, added or emptied.
_TILE_LISTS = ("tiles_moved", "tiles_reshaped", "tiles_recoloured", "tiles_emptied", "tiles_added", "tiles_retiled", "coverage_tiles", "coverage_freed")


def update(context, data: bytes, path: str, report: dict, written_apart=(), level_objects: bool = True):
    """After an export over the base: the scene made the level as written (``data``, now the
    base at ``path``) by remaking only what the export changed. The objects of the tiles the
    report names, of the objects they came from (copies, new meshes: ``written_apart`` and the
    report's sources), and with ``level_objects`` (strats or waypoints written other than the
    base had them, or an object model edit named as not written) the strats, waypoints and
    object models go, so that a copy becomes the strat or waypoint it was written as; the
    written level's objects for them come in their place. A tile only moved or turned keeps its
    object, placed as written, and the Zones object its own, its mesh refilled: an object made or
    removed costs Blender a new dependency graph of every object. Every other object is the
    written level's already: a tile its number, model and mesh, a strat or object model as the
    base has it. A full import takes about as long as the export itself on a full level, and
    remaking the strats alone a third of it."""
    import llamawad

    from .wad_to_scene.collision import make_tile_collision
    from .wad_to_scene.level import import_level

    if context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    scene = context.scene
    count = len(llamawad.tile_models(data))
    changed = {int(t) for key in _TILE_LISTS for t in report.get(key) or []}
    # The objects the changed tiles came from (every tile's object is named there).
    sources = {str(name) for t, name in report.get("sources") or [] if int(t) in changed}
    kept = _kept_tiles(scene, report, count)
    # The zone grid follows the tiles' heights: remade in its own mesh (any other object of the
    # role goes).
    zones = next((o for o in scene.objects if level_scene.role(o) == "zones" and o.type == "MESH"), None)

    def goes(obj) -> bool:
        if obj in kept or obj == zones:
            return False
        r = level_scene.role(obj)
        if r in ("tile", "collision"):
            tile = level_scene.whole_number(obj, "tile")
            if obj.parent in kept:
                return False
            return tile in changed or tile >= count or obj.name in sources or (obj.parent is not None and goes(obj.parent))
        # Strats and object models come back as the level has them.
        return r == "zones" or (level_objects and r in LEVEL_OBJECTS) or obj.name in sources
    gone = [o for o in scene.objects if goes(o)] + [o for o in written_apart if o.name in scene.objects]
    meshes = {o.data for o in gone if o.type == "MESH"}
    # (Even with nothing to remove, batch_remove costs a new dependency graph of every object.)
    if gone:
        bpy.data.batch_remove(list(set(gone)))
    if unused := [m for m in meshes if m.users == 0]:
        bpy.data.batch_remove(unused)
    kept_tiles = {level_scene.whole_number(o, "tile"): o for o in kept}
    summary = import_level(context, data, path, only_tiles={t for t in changed if t < count} - set(kept_tiles), level_objects=level_objects, kept_tiles=kept_tiles, kept_zones=zones)
    if scene.llamawad.tile_collision_made:
        # The new tile objects get the collision objects the others have.
        collection = level_scene.level_collections(scene).get("collision") or scene.collection
        make_tile_collision(scene, data, collection)
    return summary


# Report lists of tiles whose faces or collision the export changed, besides _TILE_LISTS.
_FACES_CHANGED = ("tiles_fitted", "collision_followed", "collision_copied", "collision_kept")


def _kept_tiles(scene, report: dict, count: int) -> set:
    """The objects of tiles the export only moved or turned, which stay and are placed as
    written: each the tile's own object (its imported name) and nothing else's (no other tile
    came from it, as one joined into it does), on its own (no parent), without modifiers, of a
    tile the written level still has. Remaking an object costs Blender a rebuild of its
    dependency graph of every object, as long as the export itself on a full level."""
    tiles_from: dict[str, set[int]] = {}
    for t, name in report.get("sources") or []:
        tiles_from.setdefault(str(name), set()).add(int(t))
    other = {int(t) for key in _TILE_LISTS + _FACES_CHANGED if key != "tiles_moved" for t in report.get(key) or []}
    moved = {int(t) for t in report.get("tiles_moved") or [] if int(t) < count} - other
    if not moved:
        return set()
    objects = [o for o in scene.objects if level_scene.role(o) == "tile" and level_scene.whole_number(o, "tile") in moved]
    # A tile with a second object (a copy) is remade with it.
    claimed: dict[int, int] = {}
    for o in objects:
        t = level_scene.whole_number(o, "tile")
        claimed[t] = claimed.get(t, 0) + 1
    return {
        o
        for o in objects
        if claimed[t := level_scene.whole_number(o, "tile")] == 1
        and tiles_from.get(o.name, {t}) == {t}
        and o.parent is None
        and not o.modifiers
        and o.name == canonical_tile_name(o)
    }
