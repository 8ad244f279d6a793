"""The materials the written meshes use, as ``llamawad.scene_to_wad`` takes them, by name: what
each says of its faces (its custom properties, as a glTF material's extras: a page's material
says its page, which renaming it leaves alone) and the image it shows (RGBA bytes, rows top
first). The Rust side decides what became of them (MAPPING.md, "Images"): a page material's
image that no longer shows its page is written into the page, an image no page shows becomes new
pages for its material's faces. An unchanged page is told by comparing its pixels, not by a
flag, so every page in use is handed over."""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from ..page_files import export_notes, rgba_bytes
from .gathered import json_properties


@dataclass
class Used:
    """What ``gather`` hands over: ``images``, the image each material shows by index into them,
    each material's extras, and what export must say of page images whose file is not what
    Blender shows (``page_files.export_notes``)."""

    images: list[dict] = field(default_factory=list)
    material_images: dict[str, int] = field(default_factory=dict)
    material_extras: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def material_image(mat: bpy.types.Material) -> bpy.types.Image | None:
    """The image a material shows: its active Image Texture node's (what Texture Paint paints
    and import makes), else the first Image Texture node with an image."""
    if mat.node_tree is None:
        return None
    nodes = [n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image is not None]
    active = mat.node_tree.nodes.active
    return active.image if active in nodes else (nodes[0].image if nodes else None)


def gather(names: set[str]) -> Used:
    """The materials named (as the written meshes name them): their extras, and their images,
    each image once. An image without pixels (its file gone) is handed over as missing, with
    why: the Rust side keeps a page's pixels and says so, and refuses a new texture by its
    material."""
    used = Used()
    index: dict[str, int] = {}
    # In the file's order of materials: new images are placed on new pages in the order given.
    for mat in bpy.data.materials:
        name = mat.name
        if name not in names:
            continue
        extras = json_properties(mat, "Material Properties")
        if extras:
            used.material_extras[name] = extras
        image = material_image(mat)
        if image is None:
            continue
        if image.name_full not in index:
            index[image.name_full] = len(used.images)
            used.images.append(_handed_over(image))
            used.notes += export_notes(image, used.images[-1]["pixels"] if used.images[-1]["width"] else None)
        used.material_images[name] = index[image.name_full]
    return used


def _handed_over(image: bpy.types.Image) -> dict:
    # Asking its size loads the image; a file that is gone gives none.
    width, height = image.size
    if width and height:
        return {"name": image.name, "width": width, "height": height, "pixels": rgba_bytes(image)}
    path = bpy.path.abspath(image.filepath) if image.filepath else "(none)"
    why = f"its file {path} is missing or cannot be read: open it again (Image › Open) or give its faces another material"
    return {"name": image.name, "width": 0, "height": 0, "pixels": np.empty(0, np.uint8), "missing": why}
