"""The images of the materials the written meshes use, as ``llamawad.scene_to_wad`` takes them:
RGBA bytes, rows top first, and which image each material shows. The Rust side decides what
became of them (MAPPING.md, "Images"): a page material's image that no longer shows its page is
written into the page, an image no page shows becomes new pages for its material's faces. An
unchanged page is told by comparing its pixels, not by a flag, so every page in use is handed
over."""

from __future__ import annotations

import bpy
import numpy as np

from .. import materials as mats
from ..page_files import export_notes, rgba_bytes

__all__ = ["gather", "material_image", "rgba_bytes"]


def material_image(mat: bpy.types.Material) -> bpy.types.Image | None:
    """The image a material shows: its active Image Texture node's (what Texture Paint paints
    and import makes), else the first Image Texture node with an image."""
    if mat.node_tree is None:
        return None
    nodes = [n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image is not None]
    active = mat.node_tree.nodes.active
    return active.image if active in nodes else (nodes[0].image if nodes else None)


def gather(material_names: set[str]) -> tuple[list[dict], dict[str, int], list[str]]:
    """The images of the materials named (as the written meshes name them), each once, the
    image each of them shows, and what export must say of page images whose file is not what
    Blender shows (``page_files.export_notes``). An image without pixels (its file gone) is
    handed over as missing, with why: the Rust side keeps a page's pixels and says so, and
    refuses a new texture by its material."""
    images: list[dict] = []
    index: dict[str, int] = {}
    shows: dict[str, int] = {}
    notes: list[str] = []
    for mat in bpy.data.materials:
        name = mat.get(mats.KEY) or mat.name
        if name not in material_names:
            continue
        image = material_image(mat)
        if image is None:
            continue
        if image.name_full not in index:
            index[image.name_full] = len(images)
            images.append(_handed_over(image))
            notes += export_notes(image, images[-1]["pixels"] if images[-1]["width"] else None)
        shows[name] = index[image.name_full]
    return images, shows, notes


def _handed_over(image: bpy.types.Image) -> dict:
    # Asking its size loads the image; a file that is gone gives none.
    width, height = image.size
    if width and height:
        return {"name": image.name, "width": width, "height": height, "pixels": rgba_bytes(image)}
    path = bpy.path.abspath(image.filepath) if image.filepath else "(none)"
    why = f"its file {path} is missing or cannot be read: open it again (Image › Open) or give its faces another material"
    return {"name": image.name, "width": 0, "height": 0, "pixels": np.empty(0, np.uint8), "missing": why}
