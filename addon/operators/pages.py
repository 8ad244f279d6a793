"""Level › Pages: the level's texture pages saved as PNG files other programs open, and a page
set from a PNG file (``llamawad set-page``'s job: export writes it into the page)."""

from __future__ import annotations

import os

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from ..blender import page_files, previews
from ..blender import scene as level_scene
from ..common import game


class LLAMAWAD_OT_save_pages(bpy.types.Operator):
    """Save the level's texture pages as PNG files (page-000.png, …) and link the page images to
    them instead of the copies packed into the .blend: a page then edited in another program
    (GIMP, Krita) and reloaded (Image › Reload), or replaced by another file (Image › Replace),
    is what Blender shows and export writes. Into a folder beside the .blend named after it, or
    the one chosen"""

    bl_idname = "llamawad.save_pages"
    bl_label = "Save Pages as Files"
    bl_options = {"REGISTER", "UNDO"}

    directory: StringProperty(
        name="Folder",
        description="Where the pages are saved (empty: beside the .blend, in a folder named after it)",
        subtype="DIR_PATH",
    )
    overwrite: BoolProperty(
        name="Overwrite",
        description="Write over files in the folder that show other pixels than the page images (off: such a file "
        "is left as it is, and its page with it, and both are named)",
        default=False,
    )

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene) and any(page_files.is_page(i) for i in bpy.data.images)

    def invoke(self, context, event):
        # A dialog rather than the file browser: the folder beside the .blend need not exist
        # yet, and the field's own button browses for another.
        if not self.directory and page_files.default_folder():
            self.directory = bpy.path.relpath(page_files.default_folder()) + os.sep
        return context.window_manager.invoke_props_dialog(self, width=500)

    def execute(self, context):
        import llamawad

        folder = bpy.path.abspath(self.directory) if self.directory else page_files.default_folder()
        if not folder:
            self.report({"ERROR"}, "Save the .blend first, or choose a folder: pages are saved beside the .blend unless a folder is chosen")
            return {"CANCELLED"}
        try:
            saved = page_files.save_pages(folder, self.overwrite)
        except (llamawad.WadError, OSError) as e:
            self.report({"ERROR"}, f"Cannot save the pages in {folder}: {e}")
            return {"CANCELLED"}
        for why in saved.left:
            self.report({"WARNING"}, why)
        linked = len(saved.written) + len(saved.linked)
        message = f"{linked} page images linked to their files in {os.path.normpath(folder)} ({len(saved.written)} written)"
        if saved.left:
            message += f"; {len(saved.left)} left as they were, named in the warnings"
        self.report({"WARNING"} if saved.left else {"INFO"}, message)
        return {"FINISHED"}


class LLAMAWAD_OT_page_from_file(bpy.types.Operator, ImportHelper):
    """Show a PNG file on a texture page: the page image takes the file's pixels (packed into the
    .blend), and export writes them into the page. An image of another size than the page is
    refused unless Resize is ticked"""

    bl_idname = "llamawad.page_from_file"
    bl_label = "Set Page from File"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".png"
    filter_glob: StringProperty(default="*.png;*.PNG", options={"HIDDEN"})
    page: IntProperty(name="Page", description="The texture page the file is shown on", min=0)
    resize: BoolProperty(
        name="Resize",
        description="Resample an image of another size to the page's (triangle filter, as llamawad set-page --resize); "
        "off: such an image is refused",
        default=False,
    )

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def execute(self, context):
        import llamawad

        listed = game.pages(context.scene.llamawad.pages_json)
        if not 0 <= self.page < len(listed):
            self.report({"ERROR"}, f"Page {self.page} does not exist: the level has pages 0 to {len(listed) - 1}")
            return {"CANCELLED"}
        item = listed[self.page]
        if item["shown"] == "RLE16":
            self.report({"ERROR"}, f"Page {self.page} is RLE16-compressed, which cannot be written (the compression is not documented)")
            return {"CANCELLED"}
        image = page_files.page_image(self.page)
        if image is None:
            self.report({"ERROR"}, f"Page {self.page} has no image in the scene: import the level again")
            return {"CANCELLED"}
        path = os.path.abspath(bpy.path.abspath(self.filepath))
        try:
            png = llamawad.read_file(path)
            width, height, rgba = llamawad.decode_png(png)
        except llamawad.WadError as e:
            self.report({"ERROR"}, f"Cannot read the image {e}")
            return {"CANCELLED"}
        size, page_size = (width, height), (item["width"], item["height"])
        resampled = ""
        if size != page_size:
            if not self.resize:
                self.report(
                    {"ERROR"},
                    f"{os.path.basename(path)} is {width} × {height} pixels, page {self.page} is {page_size[0]} × {page_size[1]}: "
                    "tick Resize to resample it, or scale it to the page's size",
                )
                return {"CANCELLED"}
            width, height, rgba = llamawad.decode_png(png, *page_size)
            resampled = f", resampled from {size[0]} × {size[1]} to the page's {width} × {height}"
        page_files.replace_pixels(image, width, height, rgba)
        # The texture entries' thumbnails show the new pixels.
        previews.clear()
        palette = "; an 8-bit page: export takes the nearest colours of its palette" if item["shown"] == "8-bit" else ""
        self.report({"INFO"}, f"Page {self.page} shows {path}{resampled} (packed into the .blend); export writes it into the page{palette}")
        return {"FINISHED"}


classes = (LLAMAWAD_OT_save_pages, LLAMAWAD_OT_page_from_file)
