"""Thumbnails of texture entries (the page rectangle, or the flat colour) for the texture picker
and the Face panel, made from the packed page images with numpy."""

from __future__ import annotations

import bpy
import numpy as np

from . import scene as level_scene
from ..common import game

_collection = None
# Pixels of each page image, read once per image (Blender stores rows bottom-up).
_pages: dict[str, np.ndarray] = {}
THUMB = 32


def _previews():
    global _collection
    if _collection is None:
        import bpy.utils.previews

        _collection = bpy.utils.previews.new()
    return _collection


def clear():
    global _collection
    if _collection is not None:
        import bpy.utils.previews

        bpy.utils.previews.remove(_collection)
        _collection = None
    _pages.clear()


def _page_pixels(page: int) -> np.ndarray | None:
    image = next(
        (i for i in bpy.data.images if i.get("llamawad") == "page" and i.name.split(".")[0] == f"page {page}"),
        None,
    )
    if image is None:
        return None
    key = image.name_full
    if key not in _pages:
        w, h = image.size
        if not w or not h:
            return None
        pixels = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(pixels)
        _pages[key] = pixels.reshape(h, w, 4)[::-1]  # row 0 = top, as the texture entries count
    return _pages[key]


def entry_pixels(entry: dict) -> np.ndarray:
    """The entry's rectangle (rows top-down, RGBA floats), or a square of its flat colour."""
    if game.is_flat_colour(entry):
        rgb = game.srgb_to_linear(np.array([entry["u0"], entry["u1"], entry["v0"]]) / 255.0)
        out = np.ones((THUMB, THUMB, 4), np.float32)
        out[..., :3] = rgb
        return out
    page = _page_pixels(entry["page"])
    if page is None:
        return np.zeros((THUMB, THUMB, 4), np.float32)
    u0, u1 = sorted((entry["u0"], entry["u1"]))
    v0, v1 = sorted((entry["v0"], entry["v1"]))
    return page[v0 : v1 + 1, u0 : u1 + 1]


def entry_icon(context, index: int) -> int:
    """Icon id of texture entry ``index`` of the scene's level (0 when there is none)."""
    entries = level_scene.level_document(context.scene).get("texture_entries", [])
    if not 0 <= index < len(entries):
        return 0
    previews = _previews()
    key = f"{context.scene.name_full}:{index}:{entries[index]}"
    if key in previews:
        return previews[key].icon_id
    pixels = entry_pixels(entries[index])
    h, w = pixels.shape[:2]
    # Nearest-pixel scaling to a square thumbnail.
    rows = (np.arange(THUMB) * h // THUMB).clip(0, max(h - 1, 0))
    cols = (np.arange(THUMB) * w // THUMB).clip(0, max(w - 1, 0))
    thumb = pixels[rows][:, cols] if h and w else np.zeros((THUMB, THUMB, 4), np.float32)
    preview = previews.new(key)
    preview.image_size = (THUMB, THUMB)
    preview.image_pixels_float.foreach_set(np.ascontiguousarray(thumb[::-1]).ravel())
    return preview.icon_id
