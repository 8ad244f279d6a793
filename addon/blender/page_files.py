"""The level's page images as PNG files other programs open (Save Pages as Files), and what
export must say of a page image whose file Blender does not show.

Import packs each page into the .blend without a file. Blender's Image › Reload and Image ›
Replace (or typing a path into the image's file field) then keep the packed pixels: Blender
prints "Image "" not available. Keeping packed image" and nothing else changes. Saved as files,
the pages are unpacked and linked to them, so that a page edited in GIMP or Krita and reloaded,
or replaced by another file, is what Blender shows and export writes. The PNGs are encoded and
compared by the Rust core (``llamawad.encode_png``, ``llamawad.png_matches``); which pixels a page
takes from its image is the export's to decide, as for a page painted in Blender."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import bpy
import numpy as np

# The file of a page: named as ``llamawad pages`` names it, so that the files sort in page order.
FILE_NAME = "page-{:03}.png"
# The folder beside the .blend that pages are saved into unless another is chosen.
FOLDER_SUFFIX = "-pages"

_PAGE_NAME = re.compile(r"page (\d+)(\.\d+)?$")


def rgba_bytes(image: bpy.types.Image) -> np.ndarray:
    """An image's pixels as 8-bit RGBA, rows top first (Blender keeps them bottom first, as
    floats: for an 8-bit image the stored values over 255)."""
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rows = pixels.reshape(height, width, 4)[::-1]
    return np.ascontiguousarray(np.clip(np.round(rows * 255.0), 0, 255).astype(np.uint8)).reshape(-1)


def is_page(image: bpy.types.Image) -> bool:
    return image.get("llamawad") == "page"


def page_images() -> list[bpy.types.Image]:
    """The level's page images, in page order (then by name)."""
    pages = [i for i in bpy.data.images if is_page(i)]
    return sorted(pages, key=lambda i: (page_number(i) is None, page_number(i) or 0, i.name))


def page_number(image: bpy.types.Image) -> int | None:
    """The page an image shows, by the name import gave it (``page 3``)."""
    m = _PAGE_NAME.match(image.name)
    return int(m.group(1)) if m else None


def file_name(image: bpy.types.Image) -> str:
    n = page_number(image)
    if n is not None:
        return FILE_NAME.format(n)
    return re.sub(r"[^\w.-]+", "_", image.name) + ".png"


def default_folder() -> str | None:
    """Beside the saved .blend, a folder named after it (``level.blend`` → ``level-pages``);
    None while the .blend is not saved."""
    if not bpy.data.filepath:
        return None
    stem = os.path.splitext(os.path.basename(bpy.data.filepath))[0]
    return os.path.join(os.path.dirname(bpy.data.filepath), stem + FOLDER_SUFFIX)


def linked_file(image: bpy.types.Image) -> str | None:
    """The file an image shows, as an absolute path: None while it is packed or has no file."""
    if image.packed_file is not None or not image.filepath:
        return None
    return os.path.normpath(bpy.path.abspath(image.filepath, library=image.library))


def _same_path(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


@dataclass
class Saved:
    """What Save Pages as Files did: the files written, the pages linked to a file that held
    their pixels already, and the pages left as they were, each with why."""

    written: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def save_pages(folder: str, overwrite: bool = False) -> Saved:
    """Every page image written into ``folder`` as ``page-NNN.png`` (its pixels as Blender shows
    them, painting not yet exported included) and linked to that file: unpacked, its file path
    set (relative to the .blend when it is saved), read back from the file. A file there that
    shows the image's pixels already is kept as it is; one that shows other pixels (edited
    elsewhere?) is left alone and the page with it, unless ``overwrite``. A page image linked to
    a file elsewhere is moved to the folder like the others. Raises llamawad.WadError when the
    folder or a file cannot be written (the pages written until then stay linked)."""
    import llamawad

    os.makedirs(folder, exist_ok=True)
    out = Saved()
    for image in page_images():
        width, height = image.size
        if not (width and height):
            out.left.append(f"{image.name}: its file {bpy.path.abspath(image.filepath) or '(none)'} is missing: nothing to save")
            continue
        path = os.path.join(folder, file_name(image))
        current = linked_file(image)
        if current is not None and _same_path(current, path) and not image.is_dirty:
            out.linked.append(image.name)
            continue
        rgba = rgba_bytes(image).tobytes()
        if os.path.isfile(path):
            try:
                same = llamawad.png_matches(llamawad.read_file(path), width, height, rgba)
            except llamawad.WadError:
                same = False
            if not same and not overwrite:
                if current is not None and _same_path(current, path):
                    why = f"painted in Blender, and its file {path} shows other pixels: not overwritten (tick Overwrite to write the painting, or Image › Save)"
                else:
                    why = f"{path} exists and shows other pixels: not overwritten (tick Overwrite, or open that file on the page with Image › Replace)"
                out.left.append(f"{image.name}: {why}")
                continue
            if not same:
                llamawad.write_file(path, llamawad.encode_png(width, height, rgba))
                out.written.append(path)
            else:
                out.linked.append(image.name)
        else:
            llamawad.write_file(path, llamawad.encode_png(width, height, rgba))
            out.written.append(path)
        _link(image, path)
    return out


def page_image(page: int) -> bpy.types.Image | None:
    """The image of page ``page`` (the first by name, should there be copies)."""
    return next((i for i in page_images() if page_number(i) == page), None)


def replace_pixels(image: bpy.types.Image, width: int, height: int, rgba: bytes) -> bpy.types.Image:
    """A page image replaced by one of these pixels (RGBA8, rows top first), packed into the
    .blend: a new image takes the old one's name, role and every use (its materials), and the
    old one goes. Blender's Undo keeps no pixels set on an image, but brings back an image
    replaced so. Returns the new image."""
    import llamawad

    png = llamawad.encode_png(width, height, rgba)
    new = bpy.data.images.new(image.name + " new", 1, 1)
    new.pack(data=png, data_len=len(png))
    new.source = "FILE"
    new["llamawad"] = "page"
    image.user_remap(new)
    name = image.name
    bpy.data.images.remove(image)
    new.name = name
    return new


def _link(image: bpy.types.Image, path: str) -> None:
    if image.packed_file is not None:
        # The packed copy goes; the file written holds the same pixels.
        image.unpack(method="REMOVE")
    image.source = "FILE"
    try:
        image.filepath = bpy.path.relpath(path) if bpy.data.filepath else path
    except ValueError:
        # Another drive than the .blend's (Windows): no relative path leads there.
        image.filepath = path
    image.reload()


def export_notes(image: bpy.types.Image, rgba: np.ndarray | None = None) -> list[str]:
    """What export must say of a page image whose file is not what Blender shows, so that an
    edit made to the file is never lost unsaid: a packed image whose file path names another
    file than the one packed (Image › Replace, or the path typed: Blender keeps the packed
    pixels), and an image whose file, the one Image › Reload reads, shows other pixels than
    Blender does (edited elsewhere, not reloaded). A painted image (unsaved changes) is what
    Blender shows, and export writes it. ``rgba``: the image's ``rgba_bytes``, when read
    already."""
    import llamawad

    if not is_page(image) or not image.filepath:
        return []
    path = os.path.normpath(bpy.path.abspath(image.filepath, library=image.library))
    if image.packed_file is not None:
        packed = [bpy.path.abspath(p.filepath, library=image.library) for p in image.packed_files if p.filepath]
        if not any(_same_path(p, path) for p in packed):
            return [
                f"{image.name}: its image names the file {path}, but Blender shows the pixels packed "
                "into the .blend at import (Image › Replace and Image › Reload keep them): that file "
                "is not written. Save Pages as Files (WAD › Level), then open the file again with "
                "Image › Replace"
            ]
    width, height = image.size
    if image.is_dirty or not (width and height) or not os.path.isfile(path):
        return []
    try:
        shown = rgba if rgba is not None else rgba_bytes(image)
        same = llamawad.png_matches(llamawad.read_file(path), width, height, shown.tobytes())
    except llamawad.WadError as e:
        return [f"{image.name}: its file {path} cannot be read ({e}): the page is written as Blender shows it"]
    if same:
        return []
    return [
        f"{image.name}: its file {path} shows other pixels than Blender does (changed since Blender "
        "read it): the page is written as Blender shows it; Image › Reload to write the file's"
    ]
