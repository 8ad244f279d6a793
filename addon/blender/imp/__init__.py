"""Import: the level's glTF (from llamawad.wad_to_gltf) → collections, objects, meshes,
materials and images, with foreach_set from numpy arrays."""
