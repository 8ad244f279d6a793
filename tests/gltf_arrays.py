"""The tests' own reader of our glTF document (rust/core/src/gltf/MAPPING.md) into numpy arrays,
no bpy: what the add-on builds and exports is checked against the document read this way, apart
from the Rust code that hands the level to the add-on (llamawad.wad_to_scene).

``llamawad.wad_to_gltf`` gives the document as JSON text and one binary buffer; a ``.glb`` file
holds the same two parts. Accessors are read with ``np.frombuffer`` straight out
of the buffer, without a copy where the data allows it. The reader also takes what other tools
write: indexed primitives, interleaved views, normalized integer attributes.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field

import numpy as np

COMPONENT_DTYPES = {
    5120: np.dtype("i1"),
    5121: np.dtype("u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
# glTF's divisors for normalized integers (the spec's "float = max(c / max, -1)").
NORMALIZED_MAX = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0, 5125: 4294967295.0}
MODE_TRIANGLES = 4

GLB_MAGIC = b"glTF"
CHUNK_JSON = b"JSON"
CHUNK_BIN = b"BIN\0"


class GltfReadError(ValueError):
    """The document is not one this reader can take apart; the message says why."""


def split_glb(data: bytes) -> tuple[dict, bytes]:
    """The JSON document and the binary chunk of a GLB."""
    if len(data) < 12:
        raise GltfReadError("not a GLB: shorter than its 12-byte header")
    magic, version, length = struct.unpack_from("<4sII", data)
    if magic != GLB_MAGIC or version != 2:
        raise GltfReadError("not a GLB version 2 (wrong magic or version)")
    if length > len(data):
        raise GltfReadError(f"GLB says it is {length} bytes long, but only {len(data)} are there")
    chunks: dict[bytes, bytes] = {}
    pos = 12
    while pos + 8 <= length:
        size, kind = struct.unpack_from("<I4s", data, pos)
        chunks.setdefault(kind, data[pos + 8 : pos + 8 + size])
        pos += 8 + size
    if CHUNK_JSON not in chunks:
        raise GltfReadError("GLB without a JSON chunk")
    return json.loads(chunks[CHUNK_JSON]), chunks.get(CHUNK_BIN, b"")


@dataclass
class Triangles:
    """The triangles of one mesh, primitives one after the other, three corners per triangle.

    ``attributes`` maps each attribute name (``POSITION``, ``COLOR_0``, ``_FLAGS``...) to an array
    with one row per corner. An attribute that only some primitives have is NaN in the others,
    so that a caller sees which corners lack it (as the Rust reader does).
    """

    attributes: dict[str, np.ndarray] = field(default_factory=dict)
    # Material index (or -1) of each primitive, and the primitive of each triangle.
    primitive_materials: list[int] = field(default_factory=list)
    primitive_of_triangle: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    @property
    def corner_count(self) -> int:
        positions = self.attributes.get("POSITION")
        return 0 if positions is None else len(positions)

    @property
    def count(self) -> int:
        return self.corner_count // 3

    def per_triangle(self, name: str) -> np.ndarray | None:
        """A scalar attribute's value at each triangle's first corner, or None without it."""
        values = self.attributes.get(name)
        return None if values is None else values[0::3]

    @property
    def material_of_triangle(self) -> np.ndarray:
        if not self.primitive_materials:
            return np.zeros(0, np.int32)
        return np.asarray(self.primitive_materials, np.int32)[self.primitive_of_triangle]


class Document:
    """A glTF document (the parsed JSON) with its one binary buffer."""

    def __init__(self, gltf: dict, bin_data: bytes | bytearray | memoryview):
        self.json = gltf
        self.bin = bin_data
        buffers = gltf.get("buffers", [])
        if len(buffers) > 1:
            raise GltfReadError(f"the document has {len(buffers)} buffers; only one (the GLB's) is read")
        self._accessors = gltf.get("accessors", [])
        self._views = gltf.get("bufferViews", [])

    @classmethod
    def from_glb(cls, data: bytes) -> Document:
        gltf, bin_data = split_glb(data)
        return cls(gltf, bin_data)

    @classmethod
    def from_json(cls, text: str | bytes, bin_data: bytes) -> Document:
        return cls(json.loads(text), bin_data)

    # --- accessors

    def view_bytes(self, index: int) -> bytes:
        view = self._views[index]
        start = view.get("byteOffset", 0)
        end = start + view["byteLength"]
        if end > len(self.bin):
            raise GltfReadError(f"bufferView {index} reaches past the end of the buffer")
        return bytes(self.bin[start:end])

    def accessor(self, index: int) -> np.ndarray:
        """Accessor ``index`` as an array: shape (count,) for scalars, (count, n) otherwise. Float
        data comes as float32 without a copy; normalized integers as float32 in 0..1 (−1..1);
        other integers in their own type. The result is read-only."""
        acc = self._accessors[index]
        if "sparse" in acc:
            raise GltfReadError(f"accessor {index} is sparse, which this reader does not read")
        component_type = acc["componentType"]
        dtype = COMPONENT_DTYPES.get(component_type)
        n = COMPONENTS.get(acc["type"])
        if dtype is None or n is None:
            raise GltfReadError(f"accessor {index} has an unknown component type or type")
        count = acc["count"]
        shape = (count,) if n == 1 else (count, n)
        if acc.get("bufferView") is None:
            return np.zeros(shape, np.float32 if component_type == 5126 or acc.get("normalized") else dtype)
        view = self._views[acc["bufferView"]]
        offset = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        element = dtype.itemsize * n
        stride = view.get("byteStride", element)
        end = offset + (stride * (count - 1) + element if count else 0)
        if end > view.get("byteOffset", 0) + view["byteLength"] or end > len(self.bin):
            raise GltfReadError(f"accessor {index} reaches past the end of its bufferView")
        if stride == element:
            values = np.frombuffer(self.bin, dtype, count=count * n, offset=offset).reshape(shape)
        else:
            rows = np.ndarray((count, n), dtype, buffer=self.bin, offset=offset, strides=(stride, dtype.itemsize))
            values = np.ascontiguousarray(rows).reshape(shape)
        if acc.get("normalized") and component_type != 5126:
            values = np.maximum(values.astype(np.float32) / NORMALIZED_MAX[component_type], -1.0)
        return values

    def concat(self, accessors: list[int | None], counts: list[int], width: int, fill: float = np.nan) -> np.ndarray:
        """Several accessors one after the other as one float32 array of shape (sum(counts),
        width) (or (n,) for width 1); ``None`` stands for ``count`` rows of ``fill``. One
        numpy gather when every accessor is tightly packed float32 (what llamawad writes),
        accessor by accessor otherwise."""
        total = int(sum(counts))
        shape = (total,) if width == 1 else (total, width)
        if total == 0:
            return np.zeros(shape, np.float32)
        plain = self._plain_floats()
        starts = [plain[a] for a in accessors if a is not None]
        if any(start < 0 for start in starts):
            starts = None
        else:
            widths = {COMPONENTS[self._accessors[a]["type"]] for a in set(accessors) if a is not None}
            if widths != {width}:
                starts = None
        if starts is None:
            pieces = [
                np.full(shape[1:] and (n, width) or (n,), fill, np.float32) if a is None else self.accessor(a).astype(np.float32, copy=False)
                for a, n in zip(accessors, counts)
            ]
            return np.concatenate(pieces).reshape(shape)
        words = np.frombuffer(self.bin, np.float32, len(self.bin) // 4)
        # Views of each piece, joined by one concatenate (a memcpy each).
        pieces = []
        k = 0
        for a, n in zip(accessors, counts):
            if a is None:
                pieces.append(np.full(n * width, fill, np.float32))
            else:
                start = starts[k]
                pieces.append(words[start : start + n * width])
                k += 1
        return np.concatenate(pieces).reshape(shape)

    def _plain_floats(self) -> list[int]:
        """For each accessor: its first float's index in the buffer when it is tightly packed
        float32 data inside its view (what llamawad writes), else −1. Computed once."""
        cached = getattr(self, "_plain", None)
        if cached is not None:
            return cached
        views = self._views
        size = len(self.bin)
        view_info = []
        for v in views:
            start = v.get("byteOffset", 0)
            view_info.append((start, start + v["byteLength"], "byteStride" in v))
        out = []
        for acc in self._accessors:
            view = acc.get("bufferView")
            if view is None or acc["componentType"] != 5126 or "sparse" in acc:
                out.append(-1)
                continue
            start, end, strided = view_info[view]
            offset = start + acc.get("byteOffset", 0)
            n = COMPONENTS[acc["type"]]
            if (strided and views[view]["byteStride"] != 4 * n) or offset % 4 or offset + 4 * n * acc["count"] > min(end, size):
                out.append(-1)
            else:
                out.append(offset // 4)
        self._plain = out
        return out

    # --- meshes

    def triangles(self, mesh_index: int, fill: dict[str, float] | None = None) -> Triangles:
        """All triangles of a mesh, unindexed: indexed primitives are expanded. Where a
        primitive lacks an attribute that another has, its corners get ``fill[name]`` (NaN for
        names not in ``fill``)."""
        mesh = self.json["meshes"][mesh_index]
        parts: list[dict[str, np.ndarray]] = []
        counts: list[int] = []
        materials: list[int] = []
        for p, prim in enumerate(mesh["primitives"]):
            if prim.get("mode", MODE_TRIANGLES) != MODE_TRIANGLES:
                raise GltfReadError(f"mesh {mesh['name'] if 'name' in mesh else mesh_index}: primitive {p} is not a triangle list")
            attrs = prim["attributes"]
            if "POSITION" not in attrs:
                raise GltfReadError(f"mesh {mesh_index}: primitive {p} has no POSITION")
            arrays = {name: self.accessor(a) for name, a in attrs.items()}
            n = len(arrays["POSITION"])
            if "indices" in prim:
                indices = self.accessor(prim["indices"]).astype(np.int64)
                if len(indices) % 3 or (len(indices) and (indices.max() >= n or indices.min() < 0)):
                    raise GltfReadError(f"mesh {mesh_index}: primitive {p}: indices are not whole triangles of its vertices")
                arrays = {name: a[indices] for name, a in arrays.items()}
                n = len(indices)
            elif n % 3:
                raise GltfReadError(f"mesh {mesh_index}: primitive {p}: {n} vertices are not whole triangles")
            parts.append(arrays)
            counts.append(n)
            materials.append(prim.get("material", -1))
        out = Triangles(primitive_materials=materials)
        out.primitive_of_triangle = np.repeat(np.arange(len(counts), dtype=np.int32), np.asarray(counts, np.int64) // 3)
        names = list(dict.fromkeys(name for part in parts for name in part))
        for name in names:
            if len(parts) == 1:
                out.attributes[name] = parts[0][name]
                continue
            sample = next(part[name] for part in parts if name in part)
            pieces = []
            for part, n in zip(parts, counts):
                if name in part:
                    pieces.append(part[name].astype(np.float32, copy=False) if sample.dtype.kind == "f" else part[name])
                else:
                    value = np.nan if fill is None else fill.get(name, np.nan)
                    pieces.append(np.full((n,) + sample.shape[1:], value, np.float32))
            out.attributes[name] = np.concatenate(pieces)
        return out

    # --- nodes and scenes

    def scene_extras(self, scene: int | None = None) -> dict:
        scenes = self.json.get("scenes", [])
        index = self.json.get("scene", 0) if scene is None else scene
        if not scenes:
            return {}
        return scenes[index].get("extras", {}) or {}

    def walk(self, scene: int) -> list[tuple[int, int | None]]:
        """(node, parent) for every node of a scene, parents before children, in document
        order."""
        nodes = self.json.get("nodes", [])
        out: list[tuple[int, int | None]] = []
        stack = [(n, None) for n in reversed(self.json["scenes"][scene].get("nodes", []))]
        while stack:
            node, parent = stack.pop()
            out.append((node, parent))
            for child in reversed(nodes[node].get("children", [])):
                stack.append((child, node))
        return out


def node_trs(node: dict) -> tuple[list[float], list[float], list[float]]:
    """A node's translation, rotation (x, y, z, w) and scale; a matrix is taken apart."""
    if "matrix" in node:
        m = np.asarray(node["matrix"], np.float64).reshape(4, 4).T  # column-major in glTF
        translation = m[:3, 3]
        basis = m[:3, :3]
        scale = np.linalg.norm(basis, axis=0)
        if np.linalg.det(basis) < 0:
            scale[0] = -scale[0]
        rotation = matrix_to_quaternion(basis / np.where(scale == 0, 1, scale))
        return list(map(float, translation)), rotation, list(map(float, scale))
    return (
        list(node.get("translation", [0.0, 0.0, 0.0])),
        list(node.get("rotation", [0.0, 0.0, 0.0, 1.0])),
        list(node.get("scale", [1.0, 1.0, 1.0])),
    )


def matrix_to_quaternion(r: np.ndarray) -> list[float]:
    """A rotation matrix (3×3) as a quaternion (x, y, z, w)."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = 0.5 / np.sqrt(trace + 1.0)
        w, x, y, z = 0.25 / s, (r[2, 1] - r[1, 2]) * s, (r[0, 2] - r[2, 0]) * s, (r[1, 0] - r[0, 1]) * s
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * np.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        w, x, y, z = (r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * np.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        w, x, y, z = (r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s
    else:
        s = 2.0 * np.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        w, x, y, z = (r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s
    return [float(x), float(y), float(z), float(w)]
