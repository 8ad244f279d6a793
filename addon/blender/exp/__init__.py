"""Export: the scene's level objects → our glTF document (arrays via foreach_get) → GLB, which
llamawad.gltf_to_wad turns into a WAD against the base."""
