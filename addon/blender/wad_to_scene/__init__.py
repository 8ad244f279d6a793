"""WAD → Blender (File › Import): the level as llamawad.wad_to_scene hands it over (its glTF taken apart in Rust) →
collections, objects, meshes, materials and images, with foreach_set from numpy arrays."""
