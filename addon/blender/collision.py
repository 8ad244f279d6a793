"""The tiles' collision objects, made from the base level when collision is first shown or
edited: the importer leaves them out (blender/wad_to_scene/collision.py), and until they are made the
scene leaves tile collision out of what export writes, so each tile keeps its model's."""

from __future__ import annotations

from . import scene as level_scene
from .convert import read_base
from .wad_to_scene.collision import make_tile_collision


def ensure_tile_collision(context) -> int:
    """Makes the tiles' collision objects unless they are made. Returns how many were made.
    Raises convert.Refusal when the base level cannot be read (nothing is made then)."""
    scene = context.scene
    props = scene.llamawad
    if props.tile_collision_made or not level_scene.has_level(scene):
        return 0
    collection = level_scene.level_collections(scene).get("collision") or scene.collection
    made = make_tile_collision(scene, read_base(scene), collection)
    props.tile_collision_made = True
    return made


def show_collision(context, visible: bool) -> None:
    """Shows (making them first) or hides the collision objects. Raises convert.Refusal as
    ensure_tile_collision does."""
    if visible:
        ensure_tile_collision(context)
    level_scene.set_collision_visible(context, visible)
