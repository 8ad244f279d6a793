"""File menu entries and the "WAD" side panel of the 3D view."""

import bpy

from . import menus

modules = (menus,)


def register():
    for module in modules:
        module.register()


def unregister():
    for module in reversed(modules):
        module.unregister()
