"""The bpy side: ``wad_to_scene`` builds Blender data from the level as llamawad hands it over,
``scene_to_wad`` gathers the scene back into the arrays llamawad.scene_to_wad writes; ``scene``
finds the level's objects by role, ``materials`` the pages and materials both directions use."""
