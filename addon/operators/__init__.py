"""Every operator of the add-on, one module per feature."""

import bpy

from . import collision, export_level, face, import_level, level, light, original, pages, probe, strats, testlevel, zones

modules = (import_level, export_level, face, collision, zones, strats, level, pages, testlevel, original, probe, light)


def register():
    for module in modules:
        for cls in module.classes:
            bpy.utils.register_class(cls)


def unregister():
    for module in reversed(modules):
        for cls in reversed(module.classes):
            bpy.utils.unregister_class(cls)
