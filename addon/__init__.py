"""Blender add-on for the level WADs of The Emperor's New Groove (PC).

Only the add-on's entry points so far: it registers nothing yet. Its metadata is in
blender_manifest.toml; the WAD reading and writing is the llamawad package (Rust, rust/py).
"""


def register():
    pass


def unregister():
    pass
