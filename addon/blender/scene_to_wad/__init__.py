"""Blender → WAD (File › Export): the scene's level objects → the arrays of our glTF mapping's nodes and meshes (via
foreach_get), which llamawad.scene_to_wad turns into a WAD against the base."""
