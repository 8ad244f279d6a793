"""File menu entries, the "WAD" side panel of the 3D view and the Floor probe's drawing."""

import bpy

from . import menus, overlay, panels

modules = (menus, panels, overlay)


def register():
    for module in modules:
        module.register()


def unregister():
    for module in reversed(modules):
        module.unregister()
