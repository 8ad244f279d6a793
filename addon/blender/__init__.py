"""The bpy side: ``imp`` builds Blender data from the level's glTF arrays, ``exp`` gathers them
back into our glTF; ``scene`` finds the level's objects by role."""
