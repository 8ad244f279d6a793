"""File › Import and File › Export entries."""

import bpy

from ..operators import import_level


def register():
    bpy.types.TOPBAR_MT_file_import.append(import_level.menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(import_level.menu_import)
