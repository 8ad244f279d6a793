"""The add-on's pure-Python part (addon/common): no Blender, plain pytest.

The tests' glTF reader (tests/gltf_arrays.py) against the documents llamawad.wad_to_gltf writes
(JSON + buffer, and the same as GLB), against hand-made documents with what other tools write
(indices, interleaved views, normalized integers, matrices); the texture rule and the displayed
colours against the Rust export's own TEXCOORD_0 and COLOR_0.
"""

import json
import struct

import llamawad
import numpy as np
import pytest
from addon.common import game, space
from gltf_arrays import Document, GltfReadError, node_trs, split_glb

pytestmark = pytest.mark.generator


@pytest.fixture(scope="module")
def small():
    wad = llamawad.generate(2, "small")
    text, bin_data, warnings = llamawad.wad_to_gltf(wad)
    return Document.from_json(text, bin_data), wad


def test_json_and_glb_read_the_same(small):
    doc, wad = small
    glb, _ = llamawad.wad_to_glb(wad)
    from_glb = Document.from_glb(glb)
    assert from_glb.json == doc.json
    for i in range(len(doc.json["accessors"])):
        np.testing.assert_array_equal(from_glb.accessor(i), doc.accessor(i))


def test_accessors_are_views_of_the_buffer(small):
    doc, _ = small
    mesh = doc.json["meshes"][0]
    acc_index = mesh["primitives"][0]["attributes"]["POSITION"]
    positions = doc.accessor(acc_index)
    acc = doc.json["accessors"][acc_index]
    assert positions.shape == (acc["count"], 3) and positions.dtype == np.float32
    assert not positions.flags.writeable  # no copy: a view of the bytes object
    np.testing.assert_array_equal(positions.min(axis=0), np.float32(acc["min"]))
    np.testing.assert_array_equal(positions.max(axis=0), np.float32(acc["max"]))


def test_triangles_concatenate_primitives(small):
    doc, _ = small
    checked = 0
    for m, mesh in enumerate(doc.json["meshes"]):
        prims = mesh["primitives"]
        tris = doc.triangles(m)
        counts = [doc.json["accessors"][p["attributes"]["POSITION"]]["count"] for p in prims]
        assert tris.corner_count == sum(counts)
        assert list(np.bincount(tris.primitive_of_triangle, minlength=len(prims))) == [c // 3 for c in counts]
        assert tris.primitive_materials == [p.get("material", -1) for p in prims]
        start = 0
        for p, n in zip(prims, counts):
            for name in tris.attributes:
                got = tris.attributes[name][start : start + n]
                if name in p["attributes"]:
                    np.testing.assert_array_equal(got, doc.accessor(p["attributes"][name]))
                else:
                    assert np.isnan(got).all(), (mesh["name"], name)
            start += n
        checked += len(prims) > 1
    assert checked > 0, "no mesh with several primitives in the sample"


def test_texture_rule_equals_the_export(small):
    """addon.common.game.face_uvs gives exactly the TEXCOORD_0 that the Rust export writes."""
    doc, _ = small
    entries = doc.scene_extras()["llamawad"]["texture_entries"]
    compared = 0
    for m, mesh in enumerate(doc.json["meshes"]):
        if not mesh["name"].startswith("tile"):
            continue
        tris = doc.triangles(m)
        uv, has = game.face_uvs(entries, tris.per_triangle("_TEXTURE"), tris.per_triangle("_FLAGS"))
        expected = tris.attributes.get("TEXCOORD_0")
        if expected is None:
            assert not has.any()
            continue
        expected = expected.reshape(-1, 3, 2)
        rows = ~np.isnan(expected[:, 0, 0])
        assert (rows == has).all(), mesh["name"]
        np.testing.assert_array_equal(uv[has], expected[has], err_msg=mesh["name"])
        compared += int(has.sum())
    assert compared > 1000


def test_shown_colours_equal_the_export(small):
    doc, _ = small
    compared = 0
    for m, mesh in enumerate(doc.json["meshes"]):
        tris = doc.triangles(m)
        if "_RGB_0" not in tris.attributes:
            continue
        flags = np.repeat(tris.per_triangle("_FLAGS").astype(np.int64), 3)
        shown = game.shown_colour(tris.attributes["_RGB_0"].astype(np.int64), flags)
        np.testing.assert_allclose(shown, tris.attributes["COLOR_0"], atol=1e-6, err_msg=mesh["name"])
        compared += len(shown)
    assert compared > 1000


def test_zone_and_collision_colours_equal_the_export(small):
    doc, _ = small
    for m, mesh in enumerate(doc.json["meshes"]):
        tris = doc.triangles(m)
        if "_ZONE" in tris.attributes:
            expected = game.colour_table(game.zone_colour, tris.attributes["_ZONE"])
        elif "_MATERIAL" in tris.attributes:
            expected = game.colour_table(game.collision_colour, tris.attributes["_MATERIAL"])
        else:
            continue
        np.testing.assert_allclose(tris.attributes["COLOR_0"], expected, atol=1e-6, err_msg=mesh["name"])


def test_walk_visits_parents_first(small):
    doc, _ = small
    order = doc.walk(0)
    seen = set()
    for node, parent in order:
        assert parent is None or parent in seen
        seen.add(node)
    scene_nodes = {n for s in (0,) for n in doc.json["scenes"][s]["nodes"]}
    children = {c for n in seen for c in doc.json["nodes"][n].get("children", [])}
    assert seen == scene_nodes | children


def handmade(prim_json: dict, accessors: list, views: list, data: bytes) -> Document:
    gltf = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(data)}],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": [{"primitives": [prim_json]}],
    }
    return Document(gltf, data)


def test_indexed_interleaved_and_normalized():
    # Four vertices interleaved as (x, y, z, r, g, b, a as u8 normalized, pad), two triangles.
    vertices = [((0, 0, 0), (255, 0, 0, 255)), ((1, 0, 0), (0, 255, 0, 255)), ((0, 1, 0), (0, 0, 255, 255)), ((1, 1, 0), (0, 0, 0, 0))]
    data = b"".join(struct.pack("<3f4B", *p, *c) for p, c in vertices)
    indices = struct.pack("<6H", 0, 1, 2, 2, 1, 3)
    doc = handmade(
        {"attributes": {"POSITION": 0, "COLOR_0": 1}, "indices": 2},
        [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 0, "byteOffset": 12, "componentType": 5121, "normalized": True, "count": 4, "type": "VEC4"},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
        [{"buffer": 0, "byteOffset": 0, "byteLength": 64, "byteStride": 16}, {"buffer": 0, "byteOffset": 64, "byteLength": 12}],
        data + indices,
    )
    tris = doc.triangles(0)
    assert tris.count == 2
    np.testing.assert_array_equal(tris.attributes["POSITION"][3:], [[0, 1, 0], [1, 0, 0], [1, 1, 0]])
    np.testing.assert_array_equal(tris.attributes["COLOR_0"][:3], [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]])


def test_broken_documents_are_refused():
    with pytest.raises(GltfReadError, match="not a GLB"):
        split_glb(b"glTX" + bytes(20))
    doc = handmade(
        {"attributes": {"POSITION": 0}},
        [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"}],
        [{"buffer": 0, "byteLength": 36}],
        bytes(36),
    )
    with pytest.raises(GltfReadError, match="past the end"):
        doc.triangles(0)
    doc = handmade(
        {"attributes": {"POSITION": 0}, "mode": 1},
        [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"}],
        [{"buffer": 0, "byteLength": 24}],
        bytes(24),
    )
    with pytest.raises(GltfReadError, match="not a triangle list"):
        doc.triangles(0)


def test_space_conversions_are_exact_inverses():
    rng = np.random.default_rng(1)
    p = rng.normal(size=(100, 3)).astype(np.float32)
    np.testing.assert_array_equal(space.blender_to_file(space.file_to_blender(p)), p)
    # A Blender matrix in file space: its translation (x, y, z) is file (x, z, −y), and a turn
    # about Blender +z a turn about file +y.
    turn = np.array([[0.0, -1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0], [0.0, 0.0, 0.0, 1.0]])
    file = space.matrices_to_file(turn[None])[0].reshape(4, 4).T
    np.testing.assert_array_equal(file[:3, 3], [1.0, 3.0, -2.0])
    np.testing.assert_array_equal(file[:3, :3] @ [1.0, 0.0, 0.0], [0.0, 0.0, -1.0])
    np.testing.assert_array_equal(file[:3, 1], [0.0, 1.0, 0.0])
    # A turn about file +y is a turn about Blender +z by the same angle.
    angle = 1.2
    q = [0.0, np.sin(angle / 2), 0.0, np.cos(angle / 2)]
    w, x, y, z = space.quaternion_to_blender(q)
    assert (x, y) == (0.0, -0.0) and z == pytest.approx(np.sin(angle / 2))
    assert space.vertical_angle(q) == pytest.approx(angle)


def test_matrix_nodes_are_taken_apart():
    angle = 0.5
    c, s = np.cos(angle), np.sin(angle)
    # Column-major: rotation about y, then translation (1, 2, 3).
    matrix = [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 1, 2, 3, 1]
    t, r, sc = node_trs({"matrix": matrix})
    assert t == [1, 2, 3]
    np.testing.assert_allclose(sc, [1, 1, 1])
    np.testing.assert_allclose(r, [0, np.sin(angle / 2), 0, np.cos(angle / 2)], atol=1e-12)


def test_material_names_equal_the_export(small):
    doc, _ = small
    entries = doc.scene_extras()["llamawad"]["texture_entries"]
    names = {m["name"] for m in doc.json["materials"]}
    for m, mesh in enumerate(doc.json["meshes"]):
        if not mesh["name"].startswith("tile"):
            continue
        tris = doc.triangles(m)
        mats = tris.material_of_triangle
        for t, (tex, fl) in enumerate(zip(tris.per_triangle("_TEXTURE"), tris.per_triangle("_FLAGS"))):
            entry = entries[int(tex)] if int(tex) < len(entries) else None
            name = game.material_name(entry, bool(int(fl) & game.FACE_DOUBLE_SIDED))
            assert name == doc.json["materials"][mats[t]]["name"]
            assert name in names
