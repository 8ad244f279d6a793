"""File menu entries and the "WAD" side panel of the 3D view."""

import bpy

from . import menus, panels

modules = (menus, panels)


def register():
    for module in modules:
        module.register()


def unregister():
    for module in reversed(modules):
        module.unregister()
