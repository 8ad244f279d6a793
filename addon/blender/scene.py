"""The level's collections and objects in a Blender scene, found by role: every collection and
object the importer makes carries the custom property ``llamawad`` with the role the glTF
mapping gives it (``tile``, ``collision``, ``zones``, ``strat``...; collections ``tiles``,
``tiles_without_faces`` (inside ``tiles``), ``collision``, ``zones``, ``strats``,
``strats_not_created`` (inside ``strats``), ``waypoints``, ``lights``, ``object_models``)."""

from __future__ import annotations

import json

import bpy

from .materials import KEY as MATERIAL_KEY

ROLE = "llamawad"
# The FACE attribute that says which tile a face is (the tile + 1; 0, Blender's value for faces
# that come without it, is none): faces of tiles joined into one mesh stay their tiles'.
TILE_ATTRIBUTE = "wad_tile"
# The vertex group of bone k of a skinned object model is named BONE_GROUP + k.
BONE_GROUP = "bone "
COLLECTIONS = (
    ("tiles", "Tiles"),
    ("collision", "Collision"),
    ("zones", "Zones"),
    ("strats", "Strats"),
    ("waypoints", "Waypoints"),
    ("lights", "Lights"),
    ("object_models", "Object models"),
)


# Tiles whose model has no faces (collision only): a collection inside Tiles, excluded from the
# view layer after import. The game shows nothing of them, and 471 empties on a full level cost a
# quarter of the view layer's update; ticking it in the Outliner shows them.
TILES_WITHOUT_FACES = ("tiles_without_faces", "Tiles without faces")

# Strats the game does not create at level start (flag bit 1: removed ones, and those the level
# spawns itself): a collection inside Strats, hidden after import; its eye in the Outliner shows
# them.
STRATS_NOT_CREATED = ("strats_not_created", "Not created at start")


def role(idblock) -> str | None:
    value = idblock.get(ROLE)
    return value if isinstance(value, str) else None


def level_collections(scene: bpy.types.Scene) -> dict[str, bpy.types.Collection]:
    out = {}
    for coll in scene.collection.children_recursive:
        r = role(coll)
        if r and r not in out:
            out[r] = coll
    return out


def has_level(scene: bpy.types.Scene) -> bool:
    return bool(scene.llamawad.level_json)


# The fields of the level document the add-on reads itself, and what each must be.
_DOCUMENT_FIELDS = {"source": dict, "grid": list, "texture_entries": list, "regions": list}


def level_document_problem(scene: bpy.types.Scene) -> str | None:
    """What makes the scene's level document no level's (a damaged or hostile .blend), or None."""
    try:
        doc = json.loads(scene.llamawad.level_json or "{}")
    except (ValueError, RecursionError) as e:
        # RecursionError: nested deeper than Python reads (no level's document is).
        return f"it is not JSON ({e})"
    if not isinstance(doc, dict):
        return "it is not a JSON object"
    for key, kind in _DOCUMENT_FIELDS.items():
        if key in doc and not isinstance(doc[key], kind):
            return f"its {key} is not a JSON {'object' if kind is dict else 'list'}"
    grid = doc.get("grid", [0, 0])
    if len(grid) != 2 or not all(isinstance(n, int) for n in grid):
        return "its grid is not two whole numbers"
    return None


def level_document(scene: bpy.types.Scene) -> dict:
    """The glTF scene extras ``llamawad`` of the imported level (grid, texture entries, regions,
    source...); empty when it is no level's (``level_document_problem`` says why, and reading
    the base refuses it)."""
    if level_document_problem(scene) is not None:
        return {}
    text = scene.llamawad.level_json
    return json.loads(text) if text else {}


def whole_number(obj, key: str) -> int:
    """A custom property that numbers a tile or strat (``tile``, ``strat``) as an integer; -1 when
    it is no whole number of 0 or more (text, NaN, a list...: the conversion refuses such a tile
    by name)."""
    value = obj.get(key)
    if isinstance(value, bool):
        return -1
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else -1


def store_level_document(scene: bpy.types.Scene, doc: dict) -> None:
    scene.llamawad.level_json = json.dumps(doc, separators=(",", ":"))


def objects_with_role(scene: bpy.types.Scene, wanted: str) -> list[bpy.types.Object]:
    return [o for o in scene.objects if role(o) == wanted]


def zones_object(scene: bpy.types.Scene) -> bpy.types.Object | None:
    return next((o for o in scene.objects if role(o) == "zones" and o.type == "MESH"), None)


def collision_of(tile: bpy.types.Object) -> bpy.types.Object | None:
    return next((c for c in tile.children if role(c) == "collision"), None)


# Collections of the level's objects (strats, waypoints, lights, object models): a mesh added
# there is no new geometry.
OBJECT_COLLECTIONS = ("strats", "waypoints", "lights", "object_models")


def in_collections(obj: bpy.types.Object, collections) -> bool:
    """Whether ``obj`` is in one of ``collections`` or in a collection inside one."""
    inside = {c for coll in collections for c in (coll, *coll.children_recursive)}
    return any(c in inside for c in obj.users_collection)


def object_collections(scene: bpy.types.Scene) -> list[bpy.types.Collection]:
    colls = level_collections(scene)
    return [colls[r] for r in OBJECT_COLLECTIONS if r in colls]


def in_view_layer(view_layer, obj: bpy.types.Object) -> bool:
    """Whether ``obj`` is in a collection of ``view_layer`` that is not excluded (hidden or not)."""
    return view_layer.objects.get(obj.name) is not None


def excluded_collection(view_layer, obj: bpy.types.Object) -> bpy.types.Collection | None:
    """An excluded collection of ``view_layer`` that holds ``obj``."""
    return next((lc.collection for lc in _layer_collections(view_layer) if lc.exclude and obj.name in lc.collection.all_objects), None)


def is_given_collision(obj: bpy.types.Object) -> bool:
    """A mesh named "collision…" without a role whose parent is a mesh without one: the collision
    of new geometry, which export writes as its child."""
    return (
        obj.type == "MESH"
        and role(obj) is None
        and obj.name.lower().startswith("collision")
        and obj.parent is not None
        and role(obj.parent) is None
    )


def is_new_mesh(context, obj: bpy.types.Object, objects=None) -> bool:
    """A mesh without a role in the view layer, wherever it is (Tiles, the Scene Collection, a
    collection of the artist's), but a new mesh's collision and the collections of the level's
    objects (``objects``, found when not given): new geometry, which export cuts into new tiles.
    A mesh only in collections excluded from the view layer is left out."""
    return (
        obj.type == "MESH"
        and role(obj) is None
        and not is_given_collision(obj)
        and in_view_layer(context.view_layer, obj)
        and not in_collections(obj, object_collections(context.scene) if objects is None else objects)
    )


def given_collision_of(obj: bpy.types.Object) -> bpy.types.Object | None:
    """The collision child of a new mesh."""
    return next((c for c in obj.children if is_given_collision(c)), None)


def _layer_collections(view_layer):
    """Every layer collection of ``view_layer``, parents before their children."""
    stack = [view_layer.layer_collection]
    while stack:
        lc = stack.pop()
        yield lc
        stack.extend(lc.children)


def layer_collection(view_layer, coll) -> bpy.types.LayerCollection | None:
    return next((lc for lc in _layer_collections(view_layer) if lc.collection == coll), None)


def include_in_view_layer(view_layer, obj: bpy.types.Object) -> bool:
    """Includes in ``view_layer`` every excluded collection that holds ``obj`` (Tiles without
    faces, or one the artist excluded), so that it can be selected and made active. Returns
    whether it is in the view layer now."""
    if view_layer.objects.get(obj.name) is None:
        for lc in _layer_collections(view_layer):
            if lc.exclude and obj.name in lc.collection.all_objects:
                lc.exclude = False
    return view_layer.objects.get(obj.name) is not None


def set_collision_visible(context, visible: bool) -> None:
    """Enables or disables the Collision collection in viewports. Disabled, its objects are left
    out of the depsgraph: 1,750 collision objects cost nothing while hidden."""
    coll = level_collections(context.scene).get("collision")
    if coll is None:
        return
    coll.hide_viewport = not visible
    lc = layer_collection(context.view_layer, coll)
    if lc is not None:
        lc.hide_viewport = False


def remove_level(scene: bpy.types.Scene, also=()) -> None:
    """Removes the level from the scene: its collections with every object in them (new meshes
    in the Tiles collection too) and the objects ``also``, and the meshes, level materials and
    page images nothing else uses any more. Other objects of the scene stay."""
    collections = [c for c in scene.collection.children_recursive if role(c)]
    objects = {o for c in collections for o in c.all_objects} | set(also)
    meshes = {o.data for o in objects if o.type == "MESH"}
    bpy.data.batch_remove(list(objects) + collections)
    bpy.data.batch_remove([m for m in meshes if m.users == 0])
    bpy.data.batch_remove([m for m in bpy.data.materials if m.get(MATERIAL_KEY) and m.users == 0])
    bpy.data.batch_remove([i for i in bpy.data.images if role(i) == "page" and i.users == 0])
