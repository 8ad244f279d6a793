"""Writing our glTF document (rust/core/src/gltf/MAPPING.md) from numpy arrays, and packing it
as a GLB. No bpy.

Every accessor is float32, tightly packed, 4-byte aligned, in one buffer: the layout the Rust
side writes and reads. Integers travel as floats (exact below 2^24), as the mapping says.
"""

from __future__ import annotations

import json
import struct

import numpy as np

COMPONENT_FLOAT = 5126
TARGET_ARRAY_BUFFER = 34962
TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4"}


class GltfBuilder:
    """Collects accessors, meshes, nodes and scenes; ``glb()`` packs the result."""

    def __init__(self, generator: str = "llamawad Blender add-on"):
        self.json: dict = {
            "asset": {"version": "2.0", "generator": generator},
            "accessors": [],
            "bufferViews": [],
            "buffers": [],
            "meshes": [],
            "nodes": [],
            "scenes": [],
        }
        self._chunks: list[bytes] = []
        self._length = 0

    def accessor(self, values: np.ndarray, bounds: bool = False) -> int:
        """A float32 accessor: shape (n,) is SCALAR, (n, k) is VECk. Positions need ``bounds``."""
        values = np.ascontiguousarray(values, dtype=np.float32)
        count = values.shape[0]
        components = 1 if values.ndim == 1 else values.shape[1]
        data = values.tobytes()
        # Every piece is a whole number of floats, so each view starts 4-byte aligned.
        view = {
            "buffer": 0,
            "byteOffset": self._length,
            "byteLength": len(data),
            "target": TARGET_ARRAY_BUFFER,
        }
        self._chunks.append(data)
        self._length += len(data)
        self.json["bufferViews"].append(view)
        accessor = {
            "bufferView": len(self.json["bufferViews"]) - 1,
            "componentType": COMPONENT_FLOAT,
            "count": count,
            "type": TYPES[components],
        }
        if bounds and count:
            flat = values.reshape(count, components)
            accessor["min"] = [float(v) for v in flat.min(axis=0)]
            accessor["max"] = [float(v) for v in flat.max(axis=0)]
        self.json["accessors"].append(accessor)
        return len(self.json["accessors"]) - 1

    def mesh(self, name: str, attributes: dict[str, np.ndarray], material: int | None = None) -> int:
        """A mesh of one unindexed triangle-list primitive. POSITION gets bounds."""
        prim = {
            "attributes": {key: self.accessor(values, bounds=key == "POSITION") for key, values in attributes.items()},
            "mode": 4,
        }
        if material is not None:
            prim["material"] = material
        self.json["meshes"].append({"name": name, "primitives": [prim]})
        return len(self.json["meshes"]) - 1

    def node(self, **fields) -> int:
        """A node; fields with the value None are left out."""
        self.json["nodes"].append({k: v for k, v in fields.items() if v is not None})
        return len(self.json["nodes"]) - 1

    def add_child(self, parent: int, child: int) -> None:
        self.json["nodes"][parent].setdefault("children", []).append(child)

    def scene(self, name: str, nodes: list[int], extras: dict | None = None) -> int:
        scene = {"name": name, "nodes": nodes}
        if extras is not None:
            scene["extras"] = extras
        self.json["scenes"].append(scene)
        if "scene" not in self.json:
            self.json["scene"] = len(self.json["scenes"]) - 1
        return len(self.json["scenes"]) - 1

    def glb(self) -> bytes:
        """The document as a binary glTF: header, JSON chunk (space-padded), BIN chunk."""
        doc = dict(self.json)
        doc["buffers"] = [{"byteLength": self._length}] if self._length else []
        if not self._length:
            doc.pop("bufferViews")
            doc.pop("accessors")
        for key in ("meshes", "nodes", "scenes"):
            if not doc[key]:
                doc.pop(key)
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        text += b" " * (-len(text) % 4)
        bin_data = b"".join(self._chunks)
        pad = -len(bin_data) % 4
        parts = [struct.pack("<I4s", len(text), b"JSON"), text]
        if bin_data:
            parts += [struct.pack("<I4s", len(bin_data) + pad, b"BIN\0"), bin_data, b"\0" * pad]
        body = b"".join(parts)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body
