"""Edits a GLB the way another tool would: node transforms and extras in its JSON, attribute values
in its binary chunk. Enough for the files llamawad writes (one buffer, float accessors, tightly
packed views). Attributes are edited on copies: `own_mesh` gives a node a mesh of its own and
`own_attribute` a primitive an accessor of its own, so that nodes which shared them stay as
they were."""

import copy
import json
import struct

import numpy as np

# The GLB container is read by the add-on's own reader (pure Python, no Blender needed); the
# repository root is on sys.path through tests/conftest.py.
from gltf_arrays import split_glb

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
TYPES = {n: t for t, n in COMPONENTS.items()}
FLOAT = 5126


class Glb:
    def __init__(self, data: bytes):
        self.json, binary = split_glb(data)
        self.bin = bytearray(binary)

    def to_bytes(self) -> bytes:
        self.json["buffers"][0]["byteLength"] = len(self.bin)
        text = json.dumps(self.json).encode()
        text += b" " * (-len(text) % 4)
        binary = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        length = 12 + 8 + len(text) + 8 + len(binary)
        return (
            struct.pack("<4sII", b"glTF", 2, length)
            + struct.pack("<I4s", len(text), b"JSON")
            + text
            + struct.pack("<I4s", len(binary), b"BIN\0")
            + binary
        )

    # Reading and writing accessors.

    def read(self, index: int) -> np.ndarray:
        """Accessor `index` as a float array: shape (count,) for scalars, (count, n) otherwise."""
        accessor = self.json["accessors"][index]
        assert accessor["componentType"] == FLOAT
        view = self.json["bufferViews"][accessor["bufferView"]]
        n = COMPONENTS[accessor["type"]]
        offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        values = np.frombuffer(bytes(self.bin), "<f4", count=accessor["count"] * n, offset=offset).copy()
        return values if n == 1 else values.reshape(-1, n)

    def add(self, values) -> int:
        """A new float accessor holding `values` (shape (count,) or (count, n)); its index."""
        values = np.asarray(values, dtype="<f4")
        n = 1 if values.ndim == 1 else values.shape[1]
        self.bin += b"\0" * (-len(self.bin) % 4)
        offset = len(self.bin)
        self.bin += values.tobytes()
        self.json["bufferViews"].append({"buffer": 0, "byteOffset": offset, "byteLength": values.nbytes})
        accessor = {
            "bufferView": len(self.json["bufferViews"]) - 1,
            "componentType": FLOAT,
            "count": len(values),
            "type": TYPES[n],
        }
        if n == 3:
            accessor["min"] = values.min(axis=0).tolist()
            accessor["max"] = values.max(axis=0).tolist()
        self.json["accessors"].append(accessor)
        return len(self.json["accessors"]) - 1

    # Finding nodes.

    def node(self, role: str, tile: int | None = None) -> int:
        for i, n in enumerate(self.json["nodes"]):
            extras = n.get("extras", {})
            if extras.get("llamawad") == role and (tile is None or extras.get("tile") == tile):
                return i
        raise KeyError(f"no {role} node for tile {tile}")

    def name(self, node: int) -> str:
        return self.json["nodes"][node]["name"]

    # Editing meshes.

    def own_mesh(self, node: int) -> dict:
        """A copy of the node's mesh that only this node uses."""
        mesh = copy.deepcopy(self.json["meshes"][self.json["nodes"][node]["mesh"]])
        self.json["meshes"].append(mesh)
        self.json["nodes"][node]["mesh"] = len(self.json["meshes"]) - 1
        return mesh

    def own_attribute(self, primitive: dict, name: str) -> np.ndarray:
        """The primitive's attribute as an array, which `set` writes back as a new accessor."""
        return self.read(primitive["attributes"][name])

    def set(self, primitive: dict, name: str, values) -> None:
        primitive["attributes"][name] = self.add(values)
