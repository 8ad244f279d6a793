"""File › Import and File › Export entries."""

import bpy

from ..operators import export_level, import_level


def register():
    bpy.types.TOPBAR_MT_file_import.append(import_level.menu_import)
    bpy.types.TOPBAR_MT_file_export.append(export_level.menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(export_level.menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(import_level.menu_import)
