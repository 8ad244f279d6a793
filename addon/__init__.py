"""Blender add-on for the level WADs of The Emperor's New Groove (PC): File › Import and
File › Export of levels, and a "WAD" side panel in the 3D view.

This file only registers. The metadata is in blender_manifest.toml; what each folder holds is in
README.md beside this file; the WAD reading and writing is the llamawad package (Rust, rust/py),
bundled with the extension as a wheel.

Nothing here imports bpy at module level, so that ``common`` (pure Python) can be imported and
tested without Blender.
"""

_modules = []


def register():
    from . import operators, properties, ui

    _modules[:] = [properties, operators, ui]
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
    _modules.clear()
