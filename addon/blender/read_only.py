"""What of the level export cannot write, and the one place that says so: the object models'
places, copies and deletions (their meshes are written: scene_to_wad hands them over, and the
Rust side writes a reshaped or retextured model in place), and Blender lights of the artist's
own, which stand for nothing in the level. Strats and the level's own lights (the Lights
collection) are written (scene_to_wad/level.py hands them over).

Import remembers how it made each object model (``remember``: placement, custom properties);
``edits`` compares the scene with that and names every one moved, turned, given other custom
properties, deleted, copied or added, and every Blender light of the artist's, as not written:
the game places object models where their strats stand, and STPC holds each model once."""

from __future__ import annotations

from typing import Any

import hashlib
import json

import numpy as np

from . import scene as level_scene

# (role, collection role, collection name, what the part is called in a message).
PARTS = (("object_model", "object_models", "Object models", "object models"),)
ROLES = tuple(role for role, *_ in PARTS)
# A placement within this of the one import made is the same (Blender keeps float32).
SAME_PLACE = 1e-5


def _properties(obj) -> str:
    return hashlib.sha1(repr(obj.id_properties_ensure().to_dict()).encode()).hexdigest()


def remember(scene) -> None:
    """Keeps how import made each object model, by role and index: its name, world
    matrix (import places them without parents: their own) and custom properties."""
    made: dict[str, dict[str, Any]] = {role: {} for role, *_ in PARTS}
    for role, coll_role, *_ in PARTS:
        coll = level_scene.level_collections(scene).get(coll_role)
        for obj in coll.objects if coll is not None else ():
            if level_scene.role(obj) == role:
                made[role][str(int(obj.get(role, -1)))] = {
                    "name": obj.name,
                    "world": [v for row in obj.matrix_basis for v in row],
                    "properties": _properties(obj),
                }
    scene.llamawad.read_only_json = json.dumps(made, separators=(",", ":"))


def imported_names(scene, role: str) -> dict[int, str]:
    """The name import gave each object of ``role``, by its index."""
    made = json.loads(scene.llamawad.read_only_json or "{}").get(role, {})
    return {int(index): m["name"] for index, m in made.items()}


def _what_changed(pairs: list, world_of) -> list[list[str]]:
    """For each (object, what import made of it): what is no longer as import made it."""
    if not pairs:
        return []
    now = np.array([world_of(obj) for obj, _ in pairs], float).reshape(-1, 4, 4)
    before = np.array([made["world"] for _, made in pairs], float).reshape(-1, 4, 4)
    moved = np.abs(now[:, :3, 3] - before[:, :3, 3]).max(axis=1) > SAME_PLACE
    turned = np.abs(now[:, :3, :3] - before[:, :3, :3]).max(axis=(1, 2)) > SAME_PLACE
    out = []
    for k, (obj, made) in enumerate(pairs):
        what = [word for word, yes in (("moved", moved[k]), ("turned", turned[k])) if yes]
        if _properties(obj) != made["properties"]:
            what.append("custom properties changed")
        out.append(what)
    return out


def edits(scene, objects: list, world_of) -> list[tuple[str, str]]:
    """(object name, message) for every edit export cannot write: the object's name, or for a
    deleted one "" and its name in the message. ``objects``: the scene's objects with a role of
    ``ROLES`` and its Blender lights; ``world_of(obj)``: an object's world matrix (rows)."""
    made = json.loads(scene.llamawad.read_only_json or "{}")
    out = []

    def not_written(name: str, what: str, part: str, in_scene: bool = True) -> None:
        message = f"{name}: {what}, but {part} are placed by their strats and held once each: not written, the level keeps the base's (undo the edit to see what the game will show; reshape and retexture the model itself instead)"
        out.append((name if in_scene else "", message))

    colls = level_scene.level_collections(scene)
    by_role: dict[str, dict[str, list]] = {role: {} for role, *_ in PARTS}
    for obj in objects:
        role = level_scene.role(obj)
        if role in by_role:
            by_role[role].setdefault(str(int(obj.get(role, -1))), []).append(obj)
        elif obj.type == "LIGHT":
            # The level's own lights carry the role "light" and are written; this one is the
            # artist's, which only Bake lighting's "Blender's lights too" uses.
            out.append((obj.name, f"{obj.name}: a Blender light of your own, not one of the level's (those are in Lights): not written, the game does not see it (Bake lighting with \"Blender's lights too\" bakes it into the vertex colours)"))
    for role, coll_role, coll_name, part in PARTS:
        remembered = made.get(role)
        if remembered is None:
            continue  # imported by a version that remembered nothing
        present = by_role[role]
        pairs = []
        for index, made_of in remembered.items():
            # The object with the imported name is the one import made; others are copies.
            same = sorted(present.get(index, []), key=lambda o: (o.name != made_of["name"], o.name))
            if not same:
                not_written(made_of["name"], "deleted", part, in_scene=False)
                continue
            pairs.append((same[0], made_of))
            for copy in same[1:]:
                not_written(copy.name, f"a copy of {same[0].name}", part)
        for (obj, _), what in zip(pairs, _what_changed(pairs, world_of)):
            if what:
                not_written(obj.name, " and ".join(what), part)
        for index, same in present.items():
            if index not in remembered:
                for obj in same:
                    not_written(obj.name, f"added (import made no {role.replace('_', ' ')} {index})", part)
        coll = colls.get(coll_role)
        for obj in coll.all_objects if coll is not None else ():
            if level_scene.role(obj) is None and obj.type != "LIGHT":
                not_written(obj.name, f"added to {coll_name}", part)
    return out
