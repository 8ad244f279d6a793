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


def material_image(mat: bpy.types.Material) -> bpy.types.Image | None:
    """The image a material shows: its active Image Texture node's (what Texture Paint paints
    and import makes), else the first Image Texture node with an image."""
    if mat.node_tree is None:
        return None
    nodes = [n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image is not None]
    active = mat.node_tree.nodes.active
    return active.image if active in nodes else (nodes[0].image if nodes else None)


def rgba_bytes(image: bpy.types.Image) -> np.ndarray:
    """An image's pixels as 8-bit RGBA, rows top first (Blender keeps them bottom first, as
    floats: for an 8-bit image the stored values over 255)."""
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rows = pixels.reshape(height, width, 4)[::-1]
    return np.ascontiguousarray(np.clip(np.round(rows * 255.0), 0, 255).astype(np.uint8)).reshape(-1)


def gather(material_names: set[str]) -> tuple[list[dict], dict[str, int]]:
    """The images of the materials named (as the written meshes name them), each once, and the
    image each of them shows. An image without pixels (a missing file) is left out: its
    material's faces then keep or choose their page as without an image."""
    images: list[dict] = []
    index: dict[str, int] = {}
    shows: dict[str, int] = {}
    for mat in bpy.data.materials:
        name = mat.get(mats.KEY) or mat.name
        if name not in material_names:
            continue
        image = material_image(mat)
        if image is None:
            continue
        # Asking its size loads the image; a missing file has none.
        width, height = image.size
        if not (width and height):
            continue
        if image.name_full not in index:
            index[image.name_full] = len(images)
            images.append({"name": image.name, "width": width, "height": height, "pixels": rgba_bytes(image)})
        shows[name] = index[image.name_full]
    return images, shows

