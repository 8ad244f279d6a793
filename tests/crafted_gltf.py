"""Crafted glTFs from strangers (tests/crafted.py assembles them into cases): the base level's
glTF, as llamawad.wad_to_gltf writes it, edited like another tool would, one maker per defect
class. Each maker gets a fresh copy of the base glTF and yields the edited document (or GLB
bytes), the words its error must contain and, for a refusal, the node and faces."""

import base64
import copy
import json
import os
import struct

import numpy as np

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125


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
