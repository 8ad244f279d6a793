"""The scene as a level in memory, the way export writes it: the arrays the add-on gathers
(scene_to_wad/level.py) given to ``llamawad.scene_to_wad`` against the base. Export writes the result; the
level check and the floor probe read it. Whether the level keeps the game's rules is the Rust
core's to say: its refusal (``llamawad.GltfToWadRefused``) comes back as a ``Refusal`` carrying every
problem it lists."""

from __future__ import annotations

import os
from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import bpy

from ..common import files
from ..common import problems as found
from ..common import source
from . import scene as level_scene
from .scene_to_wad.gathered import Gathered, Note, Unwritable
from .scene_to_wad.level import gather_level

if TYPE_CHECKING:
    from llamawad.answers import ChangeReport, CheckReport
    from llamawad.answers import Refusal as Refused

T = TypeVar("T")


class Refusal(Exception):
    """The level cannot be written. ``object`` and ``faces`` say where the first problem is (both
    may be empty); ``problems`` lists every problem of the refusal (dicts as the Rust check gives
    them), at least this one; ``notes`` what the gathering noticed (objects export leaves out)."""

    def __init__(
        self,
        message: str,
        object_name: str = "",
        faces: list[int] | None = None,
        problems: list[dict] | None = None,
        notes: list[Note] | None = None,
        sources: list | None = None,
        strat_sources: list | None = None,
    ):
        super().__init__(message)
        self.object_name = object_name
        self.faces = faces or []
        # [tile, node name] and [strat, node name] pairs: where the problems' tiles and strats
        # came from.
        self.sources = sources or []
        self.strat_sources = strat_sources or []
        if not problems:
            # The scene or the base itself is at fault: one problem, its faces already Blender's.
            only = found.problem("refused", "error", message)
            only["target"] = found.Target(object_name)
            only["faces"] = self.faces
            problems = [only]
        self.problems = problems
        self.notes = notes or []


def _refusal_problem(gathered: Gathered, refusal: Refused) -> dict:
    """One refusal as a problem of the Level panel's list, with its object and Blender faces."""
    obj, faces = gathered.culprit(refusal["node_index"], refusal["object"], list(refusal["faces"]), refusal["code"], list(refusal["source_faces"]))
    name = obj.name if obj is not None else (refusal["object"] or "")
    p = found.problem(refusal["code"], "error", found.refusal_sentence(name, faces, refusal["message"]))
    p["target"] = found.Target(obj.name if obj is not None else "")
    p["faces"] = faces
    return p


@dataclass
class Converted:
    wad: bytes
    report: ChangeReport
    gathered: Gathered


def read_base(scene, base_path: str = "", force: bool = False) -> bytes:
    """The base WAD's bytes. Unless ``force``, refused when they are not the level the scene was
    made from (its level document's ``source``), saying which file and why."""
    path = bpy.path.abspath(base_path or scene.llamawad.base_path)
    problem = level_scene.level_document_problem(scene)
    if problem is not None:
        raise Refusal(
            f"The scene's level document (Scene › llamawad › level_json) is not a level's: {problem}. Import the level again"
        )
    if not path:
        raise Refusal("No base WAD: import a level first, or give the level the scene was made from as the base")
    import llamawad

    try:
        data = files.read_file(path)
    except llamawad.WadError as e:
        raise Refusal(f"Cannot read the base WAD {e}") from None
    made_from = level_scene.level_document(scene).get("source")
    if not force and made_from and not source.same_source(made_from, data):
        raise Refusal(source.other_level_message(os.path.basename(path), made_from, data))
    return data


def convert(context, base: bytes, force: bool = False) -> Converted:
    """The scene as WAD bytes against ``base``, with the change report. Raises Refusal. Snapping
    UVs and making collision for new meshes follow the scene's export options (those of the last
    export), so that the level check and the floor probe see what export writes."""
    import llamawad

    gathered, (wad, report) = _converted(context, lambda scene, options: llamawad.scene_to_wad(base, scene, force=force, **options))
    return Converted(wad, report, gathered)


@dataclass
class Checked:
    report: ChangeReport
    check: CheckReport
    tile_models: list[int]
    gathered: Gathered


def convert_and_check(context, base: bytes) -> Checked:
    """The scene converted as ``convert`` converts it and the Rust check of the result against
    ``base``, from one conversion (``llamawad.check_scene``). Raises Refusal."""
    import llamawad

    gathered, (report, check, tile_models) = _converted(context, lambda scene, options: llamawad.check_scene(base, scene, **options))
    return Checked(report, check, tile_models, gathered)


def _converted(context, conversion: Callable[[dict, dict], T]) -> tuple[Gathered, T]:
    """The scene gathered and given to ``conversion`` (scene arrays, the scene's options as
    keyword arguments); every refusal of the gathering or of the core as a Refusal."""
    import llamawad

    from .modes import object_mode

    # Attribute data cannot be read in edit mode: leave it for the gathering.
    with object_mode(context):
        try:
            gathered = gather_level(context)
        except Unwritable as e:
            raise Refusal(found.refusal_sentence(e.object, e.faces, e.message), e.object, e.faces) from None
    props = context.scene.llamawad
    options = {
        "snap_uvs": props.snap_uvs,
        "generate_collision": props.generate_collision,
        "tile_collision_given": props.tile_collision_made,
    }
    try:
        return gathered, conversion(gathered.scene, options)
    except llamawad.GltfToWadRefused as e:
        obj, faces = gathered.culprit(e.node_index, e.object, list(e.faces), e.code, list(e.source_faces))
        name = obj.name if obj is not None else ""
        # The core's words without its triangle numbers: the object and its Blender faces are
        # named where the refusal is reported.
        message = found.refusal_sentence(name or e.object or "", faces, e.message)
        listed = [dict(p) for p in e.problems]
        if listed and name:
            # The refusal names the node of its first problem's tile (the tile whose edit made
            # it, where it names one): that tile is this object, whatever number the
            # conversion gave it.
            listed[0]["node_object"] = name
        if not listed:
            # Every refusal of the conversion (each node is tried), with its object and faces.
            listed = [_refusal_problem(gathered, r) for r in e.refusals]
            if len(listed) > 1:
                message += f" (and {len(listed) - 1} more: see the Level panel)"
        raise Refusal(message, name, faces, listed, gathered.notes, list(e.sources), list(e.strat_sources)) from None
    except llamawad.WadError as e:
        raise Refusal(str(e), notes=gathered.notes) from None
