"""Crafted files from strangers: one per defect class of a damaged or hostile input, each with the
error it must give. Made deterministically from the committed fixture tests/fixtures/tiny-1.wad
(and its glTF, as llamawad.wad_to_gltf writes it), so the corpus costs nothing on disk.

    python tests/crafted.py FOLDER     # writes the corpus into FOLDER and lists it

Each case is a folder: a glTF case holds `base.wad` and `in.glb` or `in/level.gltf` (with whatever
sits beside it: buffers, links, a pipe); a WAD case `in.wad`; an overwrite case the files of a
command whose output is one of its inputs; an output case a command whose output is a device, a
pipe or a folder. `Case.cli` is the command, `Case.python` the call of the
Python module (None where the module writes nothing), and the expectations: the CLI's exit status
and words of its message, the Python exception class, and for a refused glTF the node and faces.
"""

import base64
import copy
import json
import os
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "tests" / "fixtures" / "tiny-1.wad"
FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125


@dataclass
class Case:
    name: str
    folder: Path
    # Arguments of scripts/llamawad, relative to `folder` (run there); OUT is what must not appear.
    cli: list[str]
    out: str
    # What the Python module is given: ("gltf_to_wad", data, directory[, base]), ("wad_to_glb", data),
    # ("probe", level, points), ("floors", level, points), ("check", level), ("strats", level), ("bake", level) or ("fit_light", level).
    python: tuple | None
    words: list[str]
    exit_status: int = 1
    exception: str = "WadError"
    # For a refusal (GltfToWadRefused): the index of the node named among the glTF's nodes, and
    # the faces when the fault is in faces.
    node: int | None = None
    faces: list[int] | None = None
    # Files of the case that must be exactly as they were afterwards (inputs never overwritten).
    inputs: list[str] = field(default_factory=list)
    # The verdict is a `check` report (stdout, and the Python module's dict) holding an error that
    # says `words`, not a refusal to read.
    report: bool = False


class Gltf:
    """The base level's glTF as JSON and one binary buffer, edited like another tool would."""

    def __init__(self, document: dict, binary: bytes):
        self.json = document
        self.bin = bytearray(binary)

    def copy(self) -> "Gltf":
        return Gltf(copy.deepcopy(self.json), bytes(self.bin))

    def add(self, values, component=FLOAT, type_=None, count=None, **fields) -> int:
        """A new accessor over `values` (a numpy array), in a view of its own; its index."""
        values = np.ascontiguousarray(values)
        self.bin += b"\0" * (-len(self.bin) % 4)
        view = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": values.nbytes}
        self.bin += values.tobytes()
        self.json["bufferViews"].append(view)
        n = 1 if values.ndim == 1 else values.shape[1]
        accessor = {
            "bufferView": len(self.json["bufferViews"]) - 1,
            "componentType": component,
            "count": len(values) if count is None else count,
            "type": type_ or {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4"}[n],
            **fields,
        }
        self.json["accessors"].append(accessor)
        return len(self.json["accessors"]) - 1

    def read(self, index: int) -> np.ndarray:
        accessor = self.json["accessors"][index]
        view = self.json["bufferViews"][accessor["bufferView"]]
        n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[accessor["type"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        values = np.frombuffer(bytes(self.bin), "<f4", accessor["count"] * n, start).copy()
        return values if n == 1 else values.reshape(-1, n)

    def tile(self) -> int:
        """The first tile node with a mesh."""
        return next(
            i
            for i, n in enumerate(self.json["nodes"])
            if (n.get("extras") or {}).get("llamawad") == "tile" and "mesh" in n
        )

    def primitive(self, node: int) -> dict:
        """Primitive 0 of a mesh only `node` uses (a copy of its mesh)."""
        mesh = copy.deepcopy(self.json["meshes"][self.json["nodes"][node]["mesh"]])
        self.json["meshes"].append(mesh)
        self.json["nodes"][node]["mesh"] = len(self.json["meshes"]) - 1
        return mesh["primitives"][0]

    def label(self, node: int) -> str:
        return f"node '{self.json['nodes'][node]['name']}'"

    def json_bytes(self) -> bytes:
        self.json["buffers"][0]["byteLength"] = len(self.bin)
        return json.dumps(self.json).encode()

    def glb(self) -> bytes:
        text = self.json_bytes()
        text += b" " * (-len(text) % 4)
        binary = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        return glb_bytes([(b"JSON", text), (b"BIN\0", binary)])


def glb_bytes(chunks, length=None) -> bytes:
    body = b"".join(struct.pack("<I4s", len(data), kind) + data for kind, data in chunks)
    total = 12 + len(body) if length is None else length
    return struct.pack("<4sII", b"glTF", 2, total) + body


def base_gltf(wad: bytes) -> Gltf:
    import llamawad

    text, binary, _ = llamawad.wad_to_gltf(wad)
    return Gltf(json.loads(text), binary)


# ---------------------------------------------------------------------------------------------
# The cases. Each maker gets a fresh copy of the base glTF and returns the edited document (or
# GLB bytes), the words its error must contain and, for a refusal, the node and faces.


def glb_cases(g: Gltf):
    """GLB containers that lie about their lengths."""
    good = g.glb()
    yield "glb-header-length-short", good[:8] + struct.pack("<I", len(good) - 4) + good[12:], ["header says"]
    yield "glb-header-length-long", good[:8] + struct.pack("<I", len(good) + 100) + good[12:], ["header says"]
    json_len = struct.unpack_from("<I", good, 12)[0]
    past = good[:12] + struct.pack("<I", json_len + 10_000_000) + good[16:]
    yield "glb-chunk-past-end", past, ["chunk at byte 12 says", "only"]
    yield "glb-version-1", good[:4] + struct.pack("<I", 1) + good[8:], ["version 1"]
    yield "glb-bin-chunk-first", glb_bytes([(b"BIN\0", b"\0" * 8), (b"JSON", b"{}  ")]), ["first chunk is not JSON"]
    yield "glb-header-cut-short", b"glTF\x02\x00\x00", ["header is cut short"]


def index_cases(g: Gltf):
    """Indices that point at nothing: refused before anything follows them."""
    t = g.tile()

    def edit(f):
        c = g.copy()
        f(c)
        return c

    yield "position-accessor-9999", edit(lambda c: c.primitive(t)["attributes"].update(POSITION=9999)), [
        "POSITION names accessor 9999"
    ]
    yield "child-index-9999", edit(lambda c: c.json["nodes"][t].setdefault("children", []).append(9999)), [
        "not a valid glTF",
        "children",
    ]
    yield "scene-node-9999", edit(lambda c: c.json["scenes"][0]["nodes"].append(9999)), ["not a valid glTF", "scenes"]
    yield "mesh-index-9999", edit(lambda c: c.json["nodes"][t].update(mesh=9999)), ["not a valid glTF", "mesh"]
    yield "view-index-9999", edit(lambda c: c.json["accessors"][0].update(bufferView=9999)), [
        "not a valid glTF",
        "bufferView",
    ]
    yield "buffer-index-9999", edit(lambda c: c.json["bufferViews"][0].update(buffer=9999)), ["not a valid glTF", "buffer"]
    yield "material-index-9999", edit(lambda c: c.primitive(t).update(material=9999)), ["not a valid glTF", "material"]
    yield "image-index-9999", edit(lambda c: c.json["textures"][0].update(source=9999)), ["not a valid glTF", "source"]
    yield "indices-index-9999", edit(lambda c: c.primitive(t).update(indices=9999)), ["not a valid glTF", "indices"]

    def without_view(c):
        # An accessor without data is zeros; 10^12 of them were once allocated.
        p = c.primitive(t)
        p["indices"] = c.add(np.array([0, 1, 2], "u1"), component=UBYTE)
        p["attributes"]["POSITION"] = c.add(np.zeros((1, 3), "<f4"), count=10**12, min=[0, 0, 0], max=[0, 0, 0])
        del c.json["accessors"][-1]["bufferView"]

    yield "position-without-view-10^12", edit(without_view), ["bufferView: Missing data"]
    big = {"byteLength": 2**31, "uri": "data:application/octet-stream;base64,AAAA"}
    yield "buffers-over-2-gib", edit(lambda c: c.json["buffers"].append(big)), ["more than 268435456 bytes in all"]


def node_graph_cases(g: Gltf):
    """Node graphs that are not a forest, too deep, or with transforms that are not numbers."""
    t = g.tile()
    parent = next(i for i, n in enumerate(g.json["nodes"]) if t in n.get("children", []))
    c = g.copy()
    c.json["nodes"][t].setdefault("children", []).append(parent)
    yield "node-cycle", c, ["its own ancestor"]
    c = g.copy()
    c.json["nodes"][t].setdefault("children", []).append(t)
    yield "node-own-child", c, ["is its own child"]
    c = g.copy()
    other = g.tile() + 2
    c.json["nodes"][other].setdefault("children", []).append(t)
    yield "node-two-parents", c, ["is a child of both", g.label(t)]
    c = g.copy()
    c.json["nodes"][parent]["children"].append(t)
    yield "node-listed-twice", c, ["listed twice among the children"]
    c = g.copy()
    chain = len(c.json["nodes"])
    c.json["nodes"] += [{"name": f"link {k}", "children": [chain + k + 1]} for k in range(99)] + [{"name": "link 99"}]
    c.json["scenes"][0]["nodes"].append(chain)
    yield "node-chain-100-deep", c, ["nested 65 nodes deep", "at most 64"]
    c = g.copy()
    c.json["scenes"][0]["nodes"].append(t)
    yield "scene-root-is-a-child", c, ["is a root of scene 0 but a child of"]
    c = g.copy()
    c.json["nodes"][t]["translation"] = [1e39, 0, 0]
    yield "transform-infinite", c, [g.label(t), "not made of finite numbers"]
    c = g.copy()
    c.json["nodes"][parent]["scale"] = [1e30, 1e30, 1e30]
    c.json["nodes"][t]["scale"] = [1e30, 1e30, 1e30]
    yield "transform-overflows", c, ["not made of finite numbers"]


def accessor_cases(g: Gltf):
    """Accessors whose ranges lie, and attributes of types the mapping does not use."""
    t = g.tile()
    mesh = g.json["meshes"][g.json["nodes"][t]["mesh"]]
    attributes = mesh["primitives"][0]["attributes"]
    position = attributes["POSITION"]

    c = g.copy()
    # Fewer than a tile model's 65,535 faces, which a tile's mesh is refused past by its counts.
    c.json["accessors"][position]["count"] = 2**16
    yield "accessor-count-2^16", c, ["reaches past the end"]
    c = g.copy()
    c.json["accessors"][position]["byteOffset"] = 2**64 - 4
    yield "accessor-offset-2^64", c, ["reaches past the end"]
    c = g.copy()
    c.json["bufferViews"][c.json["accessors"][position]["bufferView"]]["byteLength"] = 2**40
    yield "view-past-buffer", c, ["reaches past the end"]
    c = g.copy()
    c.json["bufferViews"][c.json["accessors"][position]["bufferView"]]["byteStride"] = 4
    yield "stride-overlaps", c, ["overlap"]
    c = g.copy()
    c.json["accessors"][position]["sparse"] = {
        "count": 1,
        "indices": {"bufferView": 0, "componentType": UBYTE},
        "values": {"bufferView": 0},
    }
    yield "accessor-sparse", c, ["sparse"]
    c = g.copy()
    p = c.primitive(t)
    p["indices"] = c.add(np.zeros(3, "<u4"), component=UINT, count=3 * 2**20 + 3)
    del c.json["nodes"][t]["extras"]  # new geometry: a tile's mesh is refused past 65,535 faces
    yield "mesh-over-2^20-triangles", c, ["more than 1048576 triangles"]
    c = g.copy()
    p = c.primitive(t)
    # 20,000 primitives of one triangle each over the same 4,000 vertices: 80 million elements.
    p["attributes"] = {"POSITION": c.add(np.zeros((4000, 3), "<f4"), min=[0, 0, 0], max=[0, 0, 0])}
    p["indices"] = c.add(np.array([0, 1, 2], "u1"), component=UBYTE)
    c.json["meshes"][c.json["nodes"][t]["mesh"]]["primitives"] = [p] * 20_000
    yield "accessor-elements-read-80-million", c, ["more than 67108864 elements read"]

    def retyped(name, values, **kw):
        c = g.copy()
        p = c.primitive(t)
        p["attributes"][name] = c.add(values, **kw)
        return c

    n = g.json["accessors"][position]["count"]
    yield "position-vec2", retyped("POSITION", np.zeros((n, 2), "<f4"), min=[0, 0, 0], max=[0, 0, 0]), [
        "POSITION",
        "is VEC2 FLOAT; it must be VEC3 FLOAT",
    ]
    yield "position-unsigned-short", retyped(
        "POSITION", np.zeros((n, 3), "<u2"), component=USHORT, min=[0, 0, 0], max=[0, 0, 0]
    ), ["is VEC3 UNSIGNED_SHORT"]
    yield "colour-scalar", retyped("COLOR_0", np.ones(n, "<f4")), ["COLOR_0", "is SCALAR FLOAT"]
    yield "uv-vec3", retyped("TEXCOORD_0", np.zeros((n, 3), "<f4")), ["TEXCOORD_0", "is VEC3 FLOAT"]
    yield "flags-vec2", retyped("_FLAGS", np.zeros((n, 2), "<f4")), ["_FLAGS", "is VEC2 FLOAT"]
    yield "normal-ubyte", retyped("NORMAL", np.zeros((n, 3), "u1"), component=UBYTE), ["NORMAL", "UNSIGNED_BYTE"]
    yield "colour-fewer-elements", retyped("COLOR_0", np.ones((n - 3, 4), "<f4")), ["COLOR_0 has", "POSITION"]
    c = g.copy()
    p = c.primitive(t)
    p["indices"] = c.add(np.arange(n, dtype="<f4"))
    yield "indices-float", c, ["indices", "is SCALAR FLOAT"]
    c = g.copy()
    p = c.primitive(t)
    p["indices"] = c.add(np.array([0, 1, n + 5], "<u2"), component=USHORT)
    yield "index-past-vertices", c, ["not whole triangles"]


def value_cases(g: Gltf):
    """Values that are no numbers or lie out of reach: refused naming the node and the faces."""
    t = g.tile()
    attributes = g.json["meshes"][g.json["nodes"][t]["mesh"]]["primitives"][0]["attributes"]

    def changed(name, vertex, value, words, faces=(0,)):
        c = g.copy()
        p = c.primitive(t)
        values = c.read(attributes[name])
        values[vertex] = value
        old = c.json["accessors"][attributes[name]]
        bounds = {k: old[k] for k in ("min", "max") if k in old}
        p["attributes"][name] = c.add(values, **bounds)
        return c, words, t, list(faces)

    yield ("position-nan", *changed("POSITION", 4, [np.nan, 0, 0], ["POSITION", "not finite"], [1]))
    yield ("position-infinite", *changed("POSITION", 0, [np.inf, 0, 0], ["POSITION", "not finite"]))
    yield ("position-1e30", *changed("POSITION", 0, [1e30, 0, 0], ["beyond the level"]))
    yield ("position-far-below", *changed("POSITION", 7, [0, -5000, 0], ["beyond the level"], [2]))
    yield ("colour-infinite", *changed("COLOR_0", 0, [np.inf, 1, 1, 1], ["COLOR_0", "not finite"]))
    yield ("uv-nan", *changed("TEXCOORD_0", 3, [np.nan, 0], ["TEXCOORD_0", "not finite"], [1]))
    yield ("normal-nan", *changed("NORMAL", 0, [np.nan, 1, 0], ["NORMAL", "not finite"]))
    yield ("flags-70000", *changed("_FLAGS", 0, 70000, ["_FLAGS 70000 is not a 16-bit integer"]))


def uri_cases(g: Gltf):
    """Buffer URIs of a .gltf that leave its folder or name something no buffer can be. Each yields
    the URI, the words, and what to put around the folder (`in/`): files, links, a pipe."""
    n = len(g.bin)

    def outside(case):
        (case / "outside.bin").write_bytes(bytes(n))

    def fifo(case):
        os.mkfifo(case / "in" / "level.bin")

    def link_out(case):
        outside(case)
        os.symlink("../outside.bin", case / "in" / "level.bin")

    def folder(case):
        (case / "in" / "sub").mkdir()

    def short(case):
        (case / "in" / "level.bin").write_bytes(bytes(16))

    yield "uri-parent", "../outside.bin", ["leaves the .gltf's folder"], outside
    yield "uri-percent-parent", "%2E%2E/outside.bin", ["leaves the .gltf's folder"], outside
    yield "uri-absolute", "/etc/passwd", ["absolute path"], None
    yield "uri-dev-zero", "/dev/zero", ["absolute path"], None
    yield "uri-file-scheme", "file:///etc/passwd", ["scheme"], None
    yield "uri-backslash", "..\\outside.bin", ["backslash"], outside
    yield "uri-percent-ff", "%FF.bin", ["not UTF-8"], None
    yield "uri-fifo", "level.bin", ["not a regular file"], fifo
    yield "uri-symlink-out", "level.bin", ["through a symbolic link"], link_out
    yield "uri-folder", "sub", ["not a regular file"], folder
    yield "uri-file-too-short", "level.bin", ["has 16 bytes, fewer than"], short
    short_data = "data:application/octet-stream;base64," + base64.b64encode(bytes(12)).decode()
    yield "uri-data-too-short", short_data, ["fewer than"], None


def wad_cases(wad: bytes):
    """Level WADs whose counts lie: refused by the parser before anything is allocated."""
    import llamawad

    chunks, at = [], 4
    while at + 8 <= len(wad):
        size = struct.unpack_from("<I", wad, at + 4)[0]
        chunks.append((wad[at : at + 4][::-1].decode(), at, size))
        at += 8 + size
    last_tag, last_at, _ = chunks[-1]
    past = bytearray(wad)
    struct.pack_into("<I", past, last_at + 4, len(wad))
    yield "wad-chunk-past-end", bytes(past), [f"{last_tag.strip()} chunk", "payload needs"]

    info = llamawad.parse_info(wad)
    assert info, "the base parses"
    text_at = next(a for t, a, _ in chunks if t == "TEXT") + 8
    # TEXT: palettes (u32 header, u32 n, n u16, n u8 each), then pages {flags, w, h, data}.
    pos = text_at
    palettes = struct.unpack_from("<I", wad, pos)[0]
    pos += 4
    for _ in range(palettes):
        n = struct.unpack_from("<I", wad, pos + 4)[0]
        pos += 8 + 3 * n
    pages_at = pos + 4

    # Page 0 (16-bit, w·h·2 bytes of pixels) becomes an RLE16 page of 100000×100000 with 16
    # compressed bytes: a page the parser read, whose placeholder image was once that size.
    flags, w, h = struct.unpack_from("<III", wad, pages_at)
    assert flags != 0 and not flags & 0x80, "page 0 is a 16-bit page"
    rle_page = struct.pack("<IIII", 0x80, 100_000, 100_000, 16) + bytes(16)
    def with_page_0(page: bytes) -> bytes:
        out = bytearray(wad[:pages_at] + page + wad[pages_at + 12 + 2 * w * h :])
        text_size = struct.unpack_from("<I", wad, text_at - 4)[0]
        struct.pack_into("<I", out, text_at - 4, text_size + len(out) - len(wad))
        struct.pack_into("<I", out, 0, len(out))
        return bytes(out)

    yield "wad-rle16-page-100000-wide", with_page_0(rle_page), ["page 0: width", "1 to 4096"]
    # A 16-bit page of 0×256 pixels, which holds no bytes: its image once failed to encode.
    empty = struct.pack("<III", flags, 0, 256)
    yield "wad-page-width-0", with_page_0(empty), ["page 0: width", "found 0"]


# ---------------------------------------------------------------------------------------------
# Levels edited chunk by chunk: the base's chunks (it is in the convention this project writes
# for new levels: no padding, `total` the file size), a model added to TRAK, tiles added to MAP.

ZERO_BOX = bytes(4 * 27)  # the box's centre and 8 corners: only the check looks at them


def split_chunks(wad: bytes) -> list[tuple[str, bytes]]:
    chunks, at = [], 4
    while at < len(wad):
        size = struct.unpack_from("<I", wad, at + 4)[0]
        chunks.append((wad[at : at + 4][::-1].decode(), wad[at + 8 : at + 8 + size]))
        at += 8 + size
    assert join_chunks(chunks) == wad, "the base is in the default convention"
    return chunks


def join_chunks(chunks, after=b"") -> bytes:
    body = b"".join(tag.encode()[::-1] + struct.pack("<I", len(p)) + p + after for tag, p in chunks)
    return struct.pack("<I", 4 + len(body)) + body


def replaced(chunks, tag: str, payload: bytes) -> list[tuple[str, bytes]]:
    return [(t, payload if t == tag else p) for t, p in chunks]


def payload_of(chunks, tag: str) -> bytes:
    return next(p for t, p in chunks if t == tag)


def with_model(trak: bytes, vertices: int, faces: bytes, face_count: int, polygons: bytes) -> tuple[bytes, int]:
    """TRAK with one more model (header after the others', data at the end), and its index."""
    n = struct.unpack_from("<I", trak)[0]
    header = ZERO_BOX + struct.pack("<HHII4HI", vertices, face_count, 0, 0, len(polygons) // 32, 0, 0, 0, 0)
    vertex_bytes = b"".join(struct.pack("<6f", k % 2, 0, k // 2, 0, 1, 0) for k in range(vertices))
    headers_end = 4 + 0x84 * n
    out = struct.pack("<I", n + 1) + trak[4:headers_end] + header + trak[headers_end:] + vertex_bytes + faces + polygons
    return out, n


def map_offsets(payload: bytes, wfpc: int) -> dict:
    """Where MAP's blocks start (FORMAT.md §6), up to the vertex colours."""
    n, width, height = struct.unpack_from("<3I", payload)
    at = 12 + 24 * n
    for size in (4, 90, 34):  # parameters, zone records, waypoints: u32 n, n records
        at += 4 + size * struct.unpack_from("<I", payload, at)[0]
    regions = at
    grid = regions + 256
    fixed = grid + 4 * width * height
    models = fixed + 24 * n
    colours = models + 4 * n
    if wfpc & 0x10000:
        colours += 4 + 20 * struct.unpack_from("<I", payload, colours)[0]
    return {"n": n, "width": width, "height": height, "regions": regions, "grid": grid, "fixed": fixed, "models": models, "colours": colours}


def with_tiles(payload: bytes, wfpc: int, model: int, places, colours: bytes) -> bytes:
    """MAP with tiles of `model` at `places` (game-space x, y, z; exact in f32) put before the
    others (no index of a tile with a swap entry changes order), each with `colours`."""
    o = map_offsets(payload, wfpc)
    floats = b"".join(struct.pack("<3f3I", x, y, -z, 0, model, 0) for x, y, z in places)
    fixed = b"".join(struct.pack("<6i", 0, 0, 0, round(x * 4096), round(y * 4096), round(z * 4096)) for x, y, z in places)
    models = struct.pack(f"<{len(places)}I", *[model] * len(places))
    header = struct.pack("<3I", o["n"] + len(places), o["width"], o["height"])
    return b"".join(
        [
            header,
            floats,
            payload[12 : o["fixed"]],
            fixed,
            payload[o["fixed"] : o["models"]],
            models,
            payload[o["models"] : o["colours"]],
            colours * len(places),
            payload[o["colours"] :],
        ]
    )


def floor_triangle(corners, y: float) -> bytes:
    """A collision triangle facing up at height `y` through tile-relative corners (x, z),
    encoded as FORMAT.md §4 says (normals ×127, the plane at d/4064)."""
    cx, cz = (sum(c[0] for c in corners) / 3, sum(c[1] for c in corners) / 3)
    planes = [struct.pack("<3bBh", 0, 127, 0, 0, round(4064 * y))]
    for (px, pz), (qx, qz) in zip(corners, corners[1:] + corners[:1]):
        nx, nz = qz - pz, px - qx
        if nx * (cx - px) + nz * (cz - pz) < 0:  # edge normals point inwards
            nx, nz = -nx, -nz
        length = (nx * nx + nz * nz) ** 0.5
        nx, nz = round(127 * nx / length), round(127 * nz / length)
        planes.append(struct.pack("<3bBh", nx, 0, nz, 0, round(32 * (nx * px + nz * pz))))
    return struct.pack("<BB", 0, 0) + b"".join(planes) + bytes(6)


def limit_wad_cases(wad: bytes):
    """Levels whose glTF would be far bigger than they are: refused before it is built."""
    chunks = split_chunks(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    # A model of 65,535 faces over 3 vertices, used by 1,000 tiles of 64 bytes each: 65 million
    # faces drawn, once 37 s, 9 GB and a 4.7 GB GLB whose lengths wrapped around 2³².
    face = struct.pack("<4H2H4f", 8, 0, 1, 2, 0, 0, 0, 1, 0, 0)
    trak, model = with_model(payload_of(chunks, "TRAK"), 3, face * 65535, 65535, b"")
    places = [(0.5 + k % 8, 0.0, 0.5 + k // 8 % 8) for k in range(1000)]
    level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, struct.pack("<3I", *[0x808080] * 3)))
    yield "wad-faces-drawn-65535-by-1000", join_chunks(level), ["faces drawn over the level's tiles", "at most 1048576"]
    # A grid of 4 × 1,000,000 cells: 16 MB of zone numbers, once 1.9 GB.
    payload = payload_of(chunks, "MAP ")
    o = map_offsets(payload, wfpc)
    cells = 4 * 1_000_000
    grid = payload[:4] + struct.pack("<2I", 4, 1_000_000) + payload[12 : o["grid"]] + bytes(4 * cells) + payload[o["fixed"] :]
    yield "wad-grid-4-by-1000000", join_chunks(replaced(chunks, "MAP ", grid)), ["4×1000000 grid", "at most 262144 cells"]


def with_strats(wad: bytes, pool: int, strats, waypoints: int = 0, chained: bool = True) -> bytes:
    """The base with `pool` parameters and `waypoints` waypoints appended (one chain when
    `chained`), and strats appended as copies of its first, each `(parameter_count, index,
    waypoint)` (an index of None: the first new parameter; a waypoint of None: the first new
    one), poolExtra raised to their count. Every strat's parameters and chain are ranges of the
    pool and waypoints, so a level of a few hundred kilobytes names billions."""
    import llamawad

    chunks = split_chunks(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    assert not wfpc & 0x200000, "no paths block after the strats"
    payload = payload_of(chunks, "MAP ")
    n = struct.unpack_from("<I", payload)[0]
    at = 12 + 24 * n
    old_pool = struct.unpack_from("<I", payload, at)[0]
    zones = at + 4 + 4 * old_pool
    wp_at = zones + 4 + 90 * struct.unpack_from("<I", payload, zones)[0]
    old_waypoints = struct.unpack_from("<I", payload, wp_at)[0]
    after_waypoints = wp_at + 4 + 34 * old_waypoints
    count = len(llamawad.strats(wad)["strats"])
    # Block 12 is the last but the view distance (u32, WFPC 0x10) and the final u16.
    end = len(payload) - 2 - (4 if wfpc & 0x10 else 0)
    block = end - 8 - 58 * count
    assert struct.unpack_from("<I", payload, block)[0] == count
    first = payload[block + 8 : block + 66]
    records = []
    for parameter_count, index, waypoint in strats:
        r = bytearray(first)
        index = old_pool if index is None else index
        waypoint = old_waypoints if waypoint is None else waypoint
        struct.pack_into("<Ii", r, 22, parameter_count, index)
        struct.pack_into("<i", r, 46, waypoint)
        records.append(bytes(r))
    total = count + len(records)
    waypoint = lambda k: struct.pack("<II3H3i2I", 1 if chained and k + 1 < waypoints else 0, 0, 0, 0, 0, 4096 * (k % 64), 0, 4096 * (k // 64 % 64), 0, 0)  # noqa: E731
    out = b"".join(
        [
            payload[:at],
            struct.pack("<I", old_pool + pool),
            payload[at + 4 : zones],
            struct.pack(f"<{pool}I", *range(pool)),
            payload[zones:wp_at],
            struct.pack("<I", old_waypoints + waypoints),
            payload[wp_at + 4 : after_waypoints],
            b"".join(waypoint(k) for k in range(waypoints)),
            payload[after_waypoints:block],
            struct.pack("<II", total, max(total, struct.unpack_from("<I", payload, block + 4)[0])),
            payload[block + 8 : end],
            b"".join(records),
            payload[end:],
        ]
    )
    return join_chunks(replaced(chunks, "MAP ", out))


def strat_cases(wad: bytes):
    """Levels whose strats name a range of the pool or a waypoint chain many times over: every
    answer that copies each strat's is refused from the counts before it is built."""
    many = [(50_000, None, -1)] * 5_000
    yield "strats-5000-naming-50000-parameters", with_strats(wad, 50_000, many), ["parameters", "at most 1048576"]
    on_chain = [(0, None, None)] * 5_000
    yield "strats-5000-on-a-50000-waypoint-chain", with_strats(wad, 0, on_chain, waypoints=50_000), ["waypoints", "at most 1048576"]


def light_cases(wad: bytes):
    """Levels whose bake or fit would cast rays for minutes, or build triangles by gigabytes:
    refused from the counts before the first ray."""
    chunks = split_chunks(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]

    def tiles_of(trak, model, count, colours):
        places = [(0.5 + k % 4, 0.0, 0.5 + k // 4 % 3) for k in range(count)]
        level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, colours))
        return join_chunks(level)

    # 16 tiles of a model of 65,535 faces over 3 vertices: once a bake past 60 s (a BVH of a
    # million alike triangles), with 2,000 tiles a 6 GB allocation.
    face = struct.pack("<4H2H4f", 8, 0, 1, 2, 0, 0, 0, 1, 0, 0)
    trak, model = with_model(payload_of(chunks, "TRAK"), 3, face * 65535, 65535, b"")
    grey = struct.pack("<3I", *[0x606060] * 3)
    for count in (16, 2000):
        yield f"light-{count}-tiles-of-65535-faces", tiles_of(trak, model, count, grey), ["faces drawn", "at most 1048576"], True
    # 16 tiles of a model of 8,000 vertices (a strip of 15,998 faces): 128,232 vertices to bake,
    # 65 rays each, once 18 s without a word.
    vertices = 8000
    faces = b"".join(struct.pack("<4H2H4f", 8, k, k + 1, k + 2, 0, 0, 0, 1, 0, 0) for k in range(vertices - 2))
    trak, model = with_model(payload_of(chunks, "TRAK"), vertices, faces, vertices - 2, b"")
    grey = struct.pack(f"<{vertices}I", *[0x606060] * vertices)
    yield "light-16-tiles-of-8000-vertices", tiles_of(trak, model, 16, grey), ["128232 vertices × 65 rays", "at most 4194304"], False


def check_cases(wad: bytes, full: bytes):
    """Files no game can load: `check` names the chunk missing or twice, or that there are too many.
    And a level whose collision once took `check` minutes."""
    chunks = split_chunks(wad)
    yield "check-name-chunk-only", join_chunks([("NAME", struct.pack("<I", 0))]), ["no WFPC chunk", "no MAP chunk"]
    yield "check-4-zero-bytes-after-each-chunk", join_chunks(chunks, after=bytes(4)), ["no TRAK chunk"]
    yield "check-million-empty-chunks", join_chunks([("JUNK", b"")] * 1_000_000), ["found 1000000", "at most 1024"]
    # A second MAP with a tile at x NaN, which the check once never read.
    payload = bytearray(payload_of(chunks, "MAP "))
    struct.pack_into("<f", payload, 12, float("nan"))
    yield "check-second-map", join_chunks(chunks + [("MAP ", bytes(payload))]), ["2 MAP chunks"]
    yield "check-second-trak", join_chunks(chunks + [("TRAK", payload_of(chunks, "TRAK"))]), ["2 TRAK chunks"]

    # A full level and 200 tiles of one model of 300 floor triangles reaching about 8 units
    # out: coverage compared every polygon reaching a cell with every polygon of every tile
    # there, minutes for what is now a second.
    chunks = split_chunks(full)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    width, height = struct.unpack_from("<2I", payload_of(chunks, "MAP "), 4)
    polygons = []
    for k in range(300):
        angle, radius = k * 2.399963, 7.5 * ((k + 1) / 300) ** 0.5
        x, z = radius * np.cos(angle), radius * np.sin(angle)
        polygons.append(floor_triangle([(x, z), (x + 0.3, z + 0.1), (x, z + 0.3)], 1.0 + (k % 7) / 8))
    trak, model = with_model(payload_of(chunks, "TRAK"), 0, b"", 0, b"".join(polygons))
    places = [(9.5 + k % 20, 0.0, 12.5 + k // 20) for k in range(200)]
    assert width >= 38 and height >= 30, "the tiles and their reach fit in the grid"
    level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, b""))
    yield "check-collision-heavy", join_chunks(level), ["collision polygon", "reaches into cell"]


def size_cases(g: Gltf):
    """glTFs whose level would be far bigger than any the game holds, or that make the reader
    gather far more than it can use: refused from the counts, before the work."""
    t = g.tile()
    c = g.copy()
    # 100,000 copies of one tile: once a 165 MB WAD of 100,012 tiles that `check` passed.
    node = c.json["nodes"][t]
    first = len(c.json["nodes"])
    c.json["nodes"] += [
        {"name": f"copy {k}", "mesh": node["mesh"], "translation": [0.5 + k % 7, 0, 0.5 + k // 7 % 7], "extras": node["extras"]}
        for k in range(100_000)
    ]
    c.json["scenes"][0]["nodes"] += list(range(first, first + 100_000))
    yield "level-100000-tile-copies", c, ["100000 copies", "at most 65536 tiles"], None
    # A tile's mesh of 2^20 triangles over 3 vertices: once 960 MB gathered before the refusal.
    c = g.copy()
    p = c.primitive(t)
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1]], "<f4")
    p["attributes"] = {"POSITION": c.add(positions, min=[0, 0, 0], max=[1, 0, 1])}
    p["indices"] = c.add(np.tile(np.array([0, 1, 2], "u1"), 2**20), component=UBYTE)
    yield "tile-mesh-1048576-triangles", c, ["has 1048576 triangles", "at most 65,535"], t


def reader_cap_cases(g: Gltf):
    """What the reader refuses before it reads it: an image the gltf crate would unwrap a
    missing field of (found by the fuzz target: a panic inside the crate), more nodes than any
    level's glTF has, and scene extras far larger than a level's."""
    c = g.copy()
    del c.json["images"][0]["mimeType"]
    yield "image-in-view-without-mime-type", c, ["image 0 is in a buffer view but has no mimeType"]
    c = g.copy()
    del c.json["images"][0]["bufferView"]
    yield "image-without-view-or-uri", c, ["image 0 has neither a buffer view nor a URI"]
    c = g.copy()
    c.json["nodes"] += [{}] * 1_000_000
    yield "nodes-1000000-empty", c, [f"{len(c.json['nodes'])} nodes", "at most 262144"]
    c = g.copy()
    c.json["scenes"][0]["extras"]["padding"] = "x" * 2**24
    yield "scene-extras-16-mib", c, ["scene 0's extras take", "at most 16777216"]


def zone_mask_cases(g: Gltf):
    """Zone masks and values of the scene's extras that a u32 and an i32 cannot hold, and more
    zones than the table has: refused, where they were once clamped or ignored."""

    def regions(edit):
        c = g.copy()
        edit(c.json["scenes"][0]["extras"]["llamawad"]["regions"])
        return c

    yield "zone-mask-2^64", regions(lambda r: r[0].update(mask=2**64)), ["zone 0", "mask 1.8446744073709552e+19", "0 to 4294967295"]
    yield "zone-mask-fraction", regions(lambda r: r[3].update(mask=1.9)), ["zone 3", "mask 1.9"]
    yield "zone-value-nan", regions(lambda r: r[1].update(value="nan")), ["zone 1", 'value "nan"']
    yield "zone-regions-100000", regions(lambda r: r.extend([{"mask": 0, "value": 0}] * 99_968)), [
        "100000 zones",
        "at most 32",
    ]


def command_cases(root: Path, wad: bytes) -> list[Case]:
    """The floor probe and comparison given inputs without a limit: refused before the work."""
    out = []

    def case(name, cli, python, words, setup=None):
        path = root / name
        path.mkdir(parents=True)
        (path / "base.wad").write_bytes(wad)
        if setup:
            setup(path)
        out.append(Case(name, path, cli, None, python, words, inputs=["base.wad"]))

    # Read whole, /dev/zero once grew until the machine ran out of memory; a pipe waited forever.
    for name, make in (("zero", lambda p: os.symlink("/dev/zero", p / "points.txt")), ("fifo", lambda p: os.mkfifo(p / "points.txt"))):
        case(f"probe-points-{name}", ["probe", "base.wad", "--points", "points.txt", "--json"], None, ["points.txt", "not a regular file"], make)
    nan = float("nan")
    case("probe-nan", ["probe", "base.wad", "NaN", "0", "0"], ("probe", wad, [(nan, nan, nan)]), ["not three finite numbers"])
    case("probe-infinite", ["probe", "base.wad", "1", "inf", "1"], ("probe", wad, [(1.0, 2.0, 3.0), (1.0, float("inf"), 1.0)]), ["(1, inf, 1)", "not three finite numbers"])
    # A points file of one line of 40 MB: once echoed whole in the refusal.
    case("probe-points-line-40-mb", ["probe", "base.wad", "--points", "points.txt"], None, ["points.txt line 1", "`0 0 0 0 0", "…`"], lambda p: (p / "points.txt").write_text("0 " * 20_000_000))
    many = [(1.5, 1.0, 1.5)] * 65_537
    case("probe-points-65537", ["probe", "base.wad", "--points", "points.txt"], ("probe", wad, many), ["65537", "at most 65536"], lambda p: (p / "points.txt").write_text("1.5 1 1.5\n" * 65_537))
    case("polygon-outlines-65537", ["probe", "base.wad", "--points", "points.txt"], ("polygon_outlines", wad, [(0, 0)] * 65_537), ["65537", "at most 65536"], lambda p: (p / "points.txt").write_text("1.5 1 1.5\n" * 65_537))
    for count in (10**12, 2**64 - 1):
        case(
            f"floors-points-{count}",
            ["floors", "base.wad", "--compare", "base.wad", "--points", str(count)],
            ("floors", wad, count),
            [f"{count} points asked for", "at most 1000000"],
        )
    return out


def build(root: Path) -> list[Case]:
    """Writes every case into a folder of its own under `root`; the cases, in a fixed order."""
    import llamawad

    wad = BASE.read_bytes()
    g = base_gltf(wad)
    cases: list[Case] = []

    def folder(name: str) -> Path:
        path = root / name
        path.mkdir(parents=True)
        (path / "base.wad").write_bytes(wad)
        return path

    def glb_case(name, data, words, node=None, faces=None, refused=False):
        path = folder(name)
        (path / "in.glb").write_bytes(data)
        refused = refused or node is not None
        cases.append(
            Case(
                name,
                path,
                ["gltf2wad", "--base", "base.wad", "in.glb", "out.wad"],
                "out.wad",
                ("gltf_to_wad", data, None),
                # The message names the node as "node 'NAME'".
                words + ([g.label(node)] if node is not None else []),
                exception="GltfToWadRefused" if refused else "WadError",
                node=node,
                faces=faces,
                inputs=["base.wad", "in.glb"],
            )
        )

    for name, data, words in glb_cases(g.copy()):
        glb_case(name, data, words)
    for maker in (index_cases, node_graph_cases, accessor_cases):
        for name, edited, words in maker(g):
            # Faults inside one mesh's data are refusals of its node; the rest, unreadable files.
            node = g.tile() if maker is accessor_cases else None
            glb_case(name, edited.glb(), words, node=node)
    for name, edited, words, node, faces in value_cases(g):
        glb_case(name, edited.glb(), words, node=node, faces=faces)
    for name, edited, words, node in size_cases(g):
        glb_case(name, edited.glb(), words, node=node, refused=True)
    for name, edited, words in reader_cap_cases(g):
        glb_case(name, edited.glb(), words)
    for name, edited, words in zone_mask_cases(g):
        glb_case(name, edited.glb(), words, refused=True)

    for name, uri, words, around in uri_cases(g):
        path = folder(name)
        (path / "in").mkdir()
        c = g.copy()
        c.json["buffers"][0]["uri"] = uri
        text = c.json_bytes()
        (path / "in" / "level.gltf").write_bytes(text)
        if around is not None:
            around(path)
        cases.append(
            Case(
                name,
                path,
                ["gltf2wad", "--base", "base.wad", "in/level.gltf", "out.wad"],
                "out.wad",
                ("gltf_to_wad", text, path / "in"),
                ["buffer 0"] + words,
                inputs=["base.wad", "in/level.gltf"],
            )
        )

    # The same file named by 2,000 buffers: once read 2,000 times, 750 MB.
    path = folder("buffers-2000-naming-one-file")
    (path / "in").mkdir()
    c = g.copy()
    c.json["buffers"] = [{"byteLength": len(c.bin), "uri": "level.bin"}] * 2000
    text = json.dumps(c.json).encode()
    (path / "in" / "level.gltf").write_bytes(text)
    (path / "in" / "level.bin").write_bytes(bytes(c.bin))
    cases.append(
        Case(
            path.name,
            path,
            ["gltf2wad", "--base", "base.wad", "in/level.gltf", "out.wad"],
            "out.wad",
            ("gltf_to_wad", text, path / "in"),
            ["more than 268435456 bytes in all"],
            inputs=["base.wad", "in/level.gltf", "in/level.bin"],
        )
    )

    # Bytes that are no level, which the parser refuses; levels past a cap.
    for cases_of, exception in [(wad_cases, "WadParseError"), (limit_wad_cases, "WadError")]:
        for name, data, words in cases_of(wad):
            path = root / name
            path.mkdir(parents=True)
            (path / "in.wad").write_bytes(data)
            cli = ["wad2gltf", "in.wad", "out.glb"]
            cases.append(
                Case(name, path, cli, "out.glb", ("wad_to_glb", data), words, exception=exception, inputs=["in.wad"])
            )

    for name, data, words in strat_cases(wad):
        path = root / name
        path.mkdir(parents=True)
        (path / "in.wad").write_bytes(data)
        cases.append(Case(f"{name}-listed", path, ["strats", "in.wad", "--json"], None, ("strats", data), words, inputs=["in.wad"]))
        cases.append(Case(f"{name}-tested", path, ["testlevel", "in.wad", "out.wad"], "out.wad", None, words, inputs=["in.wad"]))
        if "parameters" in name:
            cases.append(Case(name, path, ["wad2gltf", "in.wad", "out.glb"], "out.glb", ("wad_to_glb", data), words, inputs=["in.wad"]))

    for name, data, words, fit_too in light_cases(wad):
        path = root / name
        path.mkdir(parents=True)
        (path / "in.wad").write_bytes(data)
        light = ["--sun", "0,-1,0", "--sun-colour", "1,1,1", "--sky", "0.5,0.5,0.5"]
        cases.append(Case(f"{name}-baked", path, ["bake", "in.wad", "out.wad", *light], "out.wad", ("bake", data), words, inputs=["in.wad"]))
        if fit_too:
            cases.append(Case(f"{name}-fitted", path, ["fit-light", "in.wad"], None, ("fit_light", data), words, inputs=["in.wad"]))

    # A base whose one new strat names a million parameters, and a glTF of 500 copies of its
    # node (extras without the list: the copies take the base's): once a 2 GB allocation.
    name = "strat-copies-500-of-1000000-parameters"
    path = root / name
    path.mkdir(parents=True)
    big = with_strats(wad, 1_000_000, [(1_000_000, None, -1)])
    (path / "base.wad").write_bytes(big)
    c = base_gltf(big)
    strat = next(i for i, n in enumerate(c.json["nodes"]) if (n.get("extras") or {}).get("strat") == len(llamawad.strats(wad)["strats"]))
    copy_of = {k: v for k, v in c.json["nodes"][strat].items() if k != "extras"}
    copy_of["extras"] = {k: v for k, v in c.json["nodes"][strat]["extras"].items() if k != "parameters"}
    first = len(c.json["nodes"])
    c.json["nodes"] += [dict(copy_of, name=f"copy {k}") for k in range(500)]
    group = next(n for n in c.json["nodes"] if strat in n.get("children", []))
    group["children"] += list(range(first, first + 500))
    (path / "in.glb").write_bytes(c.glb())
    cases.append(
        Case(
            name,
            path,
            ["gltf2wad", "--base", "base.wad", "in.glb", "out.wad"],
            "out.wad",
            ("gltf_to_wad", c.glb(), None, big),
            ["append", "parameters", "at most 1048576"],
            exception="GltfToWadRefused",
            inputs=["base.wad", "in.glb"],
        )
    )

    import llamawad

    for name, data, words in check_cases(wad, llamawad.generate(1, "full")):
        path = root / name
        path.mkdir(parents=True)
        (path / "in.wad").write_bytes(data)
        cases.append(Case(name, path, ["check", "in.wad"], None, ("check", data), words, inputs=["in.wad"], report=True))

    cases += command_cases(root, wad)

    cases += overwrite_cases(root, wad, g)
    cases += output_cases(root, wad, g)
    return cases


def overwrite_cases(root: Path, wad: bytes, g: Gltf) -> list[Case]:
    """Commands whose output is one of their inputs, by another name or a link: refused before
    anything is written (the input keeps its bytes)."""
    out = []

    def case(name, cli, target, inputs, words, setup):
        path = root / name
        path.mkdir(parents=True)
        (path / "level.wad").write_bytes(wad)
        setup(path)
        out.append(Case(name, path, cli, target, None, words, inputs=inputs))

    def gltf_beside(path):
        c = g.copy()
        c.json["buffers"][0]["uri"] = "level.bin"
        (path / "level.gltf").write_bytes(c.json_bytes())
        (path / "level.bin").write_bytes(bytes(c.bin))
        (path / "level.glb").write_bytes(g.glb())

    nothing = lambda path: None  # noqa: E731
    case("overwrite-roundtrip-same-name", ["roundtrip", "level.wad", "./level.wad"], None, ["level.wad"], ["is the input file"], nothing)
    case(
        "overwrite-roundtrip-hard-link",
        ["roundtrip", "level.wad", "other.wad"],
        None,
        ["level.wad"],
        ["is the input file"],
        lambda p: os.link(p / "level.wad", p / "other.wad"),
    )
    case(
        "overwrite-wad2gltf-glb-link",
        ["wad2gltf", "level.wad", "out.glb"],
        None,
        ["level.wad"],
        ["is the input level"],
        lambda p: os.symlink("level.wad", p / "out.glb"),
    )
    case(
        "overwrite-wad2gltf-same-name",
        ["wad2gltf", "level.glb", "level.glb"],
        None,
        ["level.glb"],
        ["is the input level"],
        lambda p: (p / "level.glb").write_bytes(wad),
    )
    case(
        "overwrite-wad2gltf-bin",
        ["wad2gltf", "level.bin", "level.gltf"],
        "level.gltf",
        ["level.bin"],
        ["level.bin is the input level"],
        lambda p: (p / "level.bin").write_bytes(wad),
    )
    case("overwrite-gltf2wad-base", ["gltf2wad", "--base", "level.wad", "level.glb", "level.wad"], None, ["level.wad", "level.glb"], ["is the base level"], gltf_beside)
    case("overwrite-gltf2wad-input", ["gltf2wad", "--base", "level.wad", "level.glb", "level.glb"], None, ["level.wad", "level.glb"], ["is the input glTF"], gltf_beside)
    case(
        "overwrite-gltf2wad-buffer",
        ["gltf2wad", "--base", "level.wad", "level.gltf", "level.bin"],
        None,
        ["level.wad", "level.gltf", "level.bin"],
        ["is a buffer of the input glTF"],
        gltf_beside,
    )
    return out


def output_cases(root: Path, wad: bytes, g: Gltf) -> list[Case]:
    """Outputs that are no regular file: refused before anything is written, the device, pipe or
    folder left as it is (a rename would have put a file in its place)."""
    out = []

    def case(name, cli, inputs, setup):
        path = root / name
        path.mkdir(parents=True)
        (path / "level.wad").write_bytes(wad)
        setup(path)
        out.append(Case(name, path, cli, None, None, ["not a regular file"], inputs=inputs))

    def old_gltf(path):
        (path / "out.gltf").write_bytes(b"the old .gltf")
        os.mkfifo(path / "out.bin")

    def folder(path):
        (path / "out.wad").mkdir()
        (path / "out.wad" / "keep").write_bytes(b"kept")

    roundtrip = ["roundtrip", "level.wad", "out.wad"]
    case("output-device-link", roundtrip, ["level.wad"], lambda p: os.symlink("/dev/null", p / "out.wad"))
    case("output-fifo", roundtrip, ["level.wad"], lambda p: os.mkfifo(p / "out.wad"))
    case("output-folder", roundtrip, ["level.wad", "out.wad/keep"], folder)
    case("output-generate-fifo", ["generate", "--seed", "1", "--size", "tiny", "out.wad"], [], lambda p: os.mkfifo(p / "out.wad"))
    case("output-glb-device-link", ["wad2gltf", "level.wad", "out.glb"], ["level.wad"], lambda p: os.symlink("/dev/null", p / "out.glb"))
    case("output-bin-fifo", ["wad2gltf", "level.wad", "out.gltf"], ["level.wad", "out.gltf"], old_gltf)

    def glb_and_fifo(path):
        (path / "level.glb").write_bytes(g.glb())
        os.mkfifo(path / "out.wad")

    case("output-gltf2wad-fifo", ["gltf2wad", "--base", "level.wad", "level.glb", "out.wad"], ["level.wad", "level.glb"], glb_and_fifo)
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    target = Path(sys.argv[1])
    for c in build(target):
        print(f"{c.name}: llamawad {' '.join(c.cli)} -> exit {c.exit_status}, {c.exception}: {c.words}")


def with_lights(wad: bytes, count: int) -> bytes:
    """The base with `count` lights in LGHT, suns and points by turns in colours of their own, as
    the base's two lights are stored (a type byte, a colour, four words)."""
    chunks = split_chunks(wad)
    lights = []
    for k in range(count):
        colour = (k % 251, k // 251 % 251, 128)
        if k % 2:
            lights.append(struct.pack("<4B4i", 2, *colour, 4096 * (k % 4), 7168, -4096 * (k // 4 % 3), 0x50d5))
        else:
            lights.append(struct.pack("<4B4i", 1, *colour, -1475, 3277, -1966, 0))
    return join_chunks(replaced(chunks, "LGHT", struct.pack("<I", count) + b"".join(lights)))
