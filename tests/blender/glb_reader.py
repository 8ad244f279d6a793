"""Reads a GLB with the standard library and numpy: its JSON, its binary chunk, and accessors as
arrays. Enough for the files llamawad writes: one buffer (the GLB's), tightly packed views, no
sparse accessors."""

import numpy as np

import addon_support  # noqa: F401  (puts the repository root on sys.path)
from gltf_arrays import split_glb

COMPONENT_TYPES = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


class Glb:
    def __init__(self, data: bytes):
        self.json, self.bin = split_glb(data)

    def accessor(self, index: int) -> np.ndarray:
        """Accessor `index` as an array: shape (count,) for scalars, (count, n) otherwise."""
        accessor = self.json["accessors"][index]
        assert "sparse" not in accessor and accessor.get("bufferView") is not None
        view = self.json["bufferViews"][accessor["bufferView"]]
        assert view["buffer"] == 0
        dtype = np.dtype(COMPONENT_TYPES[accessor["componentType"]])
        n = COMPONENTS[accessor["type"]]
        assert view.get("byteStride", dtype.itemsize * n) == dtype.itemsize * n, "interleaved views are not read"
        offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        values = np.frombuffer(self.bin, dtype, count=accessor["count"] * n, offset=offset)
        return values if n == 1 else values.reshape(-1, n)

    def primitive_attribute(self, primitive: dict, name: str) -> np.ndarray:
        return self.accessor(primitive["attributes"][name])
