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
    report's sources) and the Zones mesh go, and with ``level_objects`` (strats or waypoints
    written other than the base had them, or an object model edit named as not written) the
    strats, waypoints and object models, so that a copy becomes the strat or waypoint it was
    written as; the written level's
    objects for them come in their place. Every other object is the written level's already: a
    tile its number, model and mesh, a strat or object model as the base has it. A full import
    takes about as long as the export itself on a full level, and remaking the strats alone a
    third of it."""
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

    def goes(obj) -> bool:
        r = level_scene.role(obj)
        if r in ("tile", "collision"):
            tile = level_scene.whole_number(obj, "tile")
            return tile in changed or tile >= count or obj.name in sources or (obj.parent is not None and goes(obj.parent))
        # The zone grid follows the tiles' heights; strats and object models come back as the
        # level has them.
        return r == "zones" or (level_objects and r in LEVEL_OBJECTS) or obj.name in sources
    gone = [o for o in scene.objects if goes(o)] + [o for o in written_apart if o.name in scene.objects]
    meshes = {o.data for o in gone if o.type == "MESH"}
    bpy.data.batch_remove(list(set(gone)))
    bpy.data.batch_remove([m for m in meshes if m.users == 0])
    summary = import_level(context, data, path, only_tiles={t for t in changed if t < count}, level_objects=level_objects)
    if scene.llamawad.tile_collision_made:
        # The new tile objects get the collision objects the others have.
        collection = level_scene.level_collections(scene).get("collision") or scene.collection
        make_tile_collision(scene, data, collection)
    return summary