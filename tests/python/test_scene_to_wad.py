"""The scene handed over as arrays (llamawad.scene_to_wad, what the add-on's export uses): a
level's glTF taken apart into the arrays gives the level's very bytes, edits arrive as through the
glTF, and arrays that are wrong raise GltfToWadRefused naming the node, or WadError when the dict is
not shaped as the function says. No Blender."""

import llamawad
import numpy as np
import pytest
from gltf_arrays import Document, node_trs

pytestmark = pytest.mark.generator


def trs_matrix(translation, rotation, scale) -> np.ndarray:
    """A glTF node's TRS as a matrix (rows)."""
    x, y, z, w = rotation
    r = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m = np.eye(4)
    m[:3, :3] = r * np.asarray(scale)
    m[:3, 3] = translation
    return m


def scene_of(glb: bytes) -> dict:
    """A glTF of ours as the arrays scene_to_wad takes, nodes renumbered parents first."""
    doc = Document.from_glb(glb)
    walked = doc.walk(doc.json.get("scene", 0))
    number = {node: k for k, (node, _) in enumerate(walked)}
    material_names = [m.get("name") for m in doc.json.get("materials", [])]
    nodes = {"name": [], "parent": [], "matrix": [], "mesh": [], "extras": []}
    meshes, mesh_number = [], {}
    for node, parent in walked:
        n = doc.json["nodes"][node]
        nodes["name"].append(n.get("name"))
        nodes["parent"].append(-1 if parent is None else number[parent])
        nodes["matrix"].append(trs_matrix(*node_trs(n)).T.ravel())
        nodes["extras"].append(n.get("extras"))
        if "mesh" in n and n["mesh"] not in mesh_number:
            tris = doc.triangles(n["mesh"])
            mesh_number[n["mesh"]] = len(meshes)
            meshes.append(
                {
                    "attributes": {k: v.astype(np.float32) for k, v in tris.attributes.items()},
                    "materials": [material_names[m] if m >= 0 else None for m in tris.primitive_materials],
                    "triangle_materials": tris.primitive_of_triangle.astype(np.uint32),
                }
            )
        nodes["mesh"].append(mesh_number[n["mesh"]] if "mesh" in n else -1)
    nodes["parent"] = np.array(nodes["parent"], np.int32)
    nodes["mesh"] = np.array(nodes["mesh"], np.int32)
    nodes["matrix"] = np.array(nodes["matrix"], np.float32)
    return {"extras": doc.scene_extras()["llamawad"], "nodes": nodes, "meshes": meshes}


@pytest.fixture(scope="module")
def small():
    wad = llamawad.generate(2, "small")
    glb, _ = llamawad.wad_to_glb(wad)
    return wad, glb


def tile_node(scene: dict) -> int:
    return next(k for k, e in enumerate(scene["nodes"]["extras"]) if e and "tile" in e and scene["nodes"]["mesh"][k] >= 0)


def test_unchanged_arrays_give_the_base(small):
    wad, glb = small
    written, report = llamawad.scene_to_wad(wad, scene_of(glb))
    assert written == wad
    assert report == llamawad.gltf_to_wad(wad, glb)[1]


def test_a_moved_tile_arrives_as_through_the_glb(small):
    wad, glb = small
    scene = scene_of(glb)
    k = tile_node(scene)
    scene["nodes"]["matrix"][k, 13] += 0.5  # column-major: translation y
    written, report = llamawad.scene_to_wad(wad, scene)
    assert written != wad
    assert report["tiles_moved"] == [scene["nodes"]["extras"][k]["tile"]]


def test_values_per_point_and_face_give_the_base(small):
    """As the add-on hands a Blender mesh over: positions once per point (shared by the corners
    that have them), the face flags once per triangle."""
    wad, glb = small
    scene = scene_of(glb)
    for mesh in scene["meshes"]:
        attributes = mesh["attributes"]
        points, corner_points = np.unique(attributes.pop("POSITION"), axis=0, return_inverse=True)
        mesh["point_attributes"] = {"POSITION": points}
        mesh["corner_points"] = corner_points.astype(np.uint32).ravel()
        if "_FLAGS" in attributes:
            mesh["face_attributes"] = {"_FLAGS": np.ascontiguousarray(attributes.pop("_FLAGS")[::3])}
            mesh["triangle_faces"] = np.arange(len(mesh["corner_points"]) // 3, dtype=np.uint32)
    written, _ = llamawad.scene_to_wad(wad, scene)
    assert written == wad

    mesh = scene["meshes"][scene["nodes"]["mesh"][tile_node(scene)]]
    mesh["corner_points"][0] = len(mesh["point_attributes"]["POSITION"])
    with pytest.raises(llamawad.GltfToWadRefused, match="points the corners name"):
        llamawad.scene_to_wad(wad, scene)


def test_wrong_arrays_are_refused_naming_the_node(small):
    wad, glb = small
    scene = scene_of(glb)
    k = tile_node(scene)
    name = scene["nodes"]["name"][k]
    scene["nodes"]["matrix"][k, 0] = np.nan
    with pytest.raises(llamawad.GltfToWadRefused) as e:
        llamawad.scene_to_wad(wad, scene)
    assert (e.value.code, e.value.object) == ("unreadable", name)
    assert "finite" in e.value.message

    scene = scene_of(glb)
    mesh = scene["meshes"][scene["nodes"]["mesh"][k]]
    mesh["attributes"]["TEXCOORD_0"][4] = np.inf
    with pytest.raises(llamawad.GltfToWadRefused) as e:
        llamawad.scene_to_wad(wad, scene)
    assert (e.value.code, e.value.object, e.value.faces) == ("unreadable", name, [1])
    # _SOURCE_FACE is absent from our own glTF: no Blender faces to name.
    assert e.value.source_faces == []


@pytest.mark.parametrize("name", ["scaled copy", None])
def test_a_refusal_names_the_node_by_its_number_in_the_arrays(small, name):
    """A tool looks the culprit up by ``node_index``, the node's index among the nodes it handed
    over, with ``object`` its name as given (None without one). A scaled copy of a tile given last,
    as the tile's sibling: walked before the groups after the tiles', still named by its index."""
    wad, glb = small
    scene = scene_of(glb)
    nodes, k = scene["nodes"], tile_node(scene)
    last = len(nodes["name"])
    copy = nodes["matrix"][k].copy()
    copy[0] *= 1.5  # column-major: x scaled
    nodes["name"].append(name)
    nodes["parent"] = np.append(nodes["parent"], nodes["parent"][k]).astype(np.int32)
    nodes["matrix"] = np.vstack([nodes["matrix"], copy])
    nodes["mesh"] = np.append(nodes["mesh"], nodes["mesh"][k]).astype(np.int32)
    nodes["extras"].append(nodes["extras"][k])
    assert any(p < 0 for p in nodes["parent"][k + 1 :]), "groups follow the tiles'"
    with pytest.raises(llamawad.GltfToWadRefused) as e:
        llamawad.scene_to_wad(wad, scene)
    assert (e.value.code, e.value.node_index, e.value.object) == ("tile-scaled", last, name)
    assert [(r["node_index"], r["object"]) for r in e.value.refusals] == [(last, name)]
    assert str(e.value).startswith(f"node '{name}': " if name else f"node {last}: ")


@pytest.mark.parametrize(
    "spoil, words",
    [
        (lambda s: s["nodes"].__setitem__("parent", s["nodes"]["parent"][:-1]), "node columns disagree"),
        (lambda s: s["nodes"].__setitem__("matrix", s["nodes"]["matrix"].astype(np.float64)), "scene"),
        (lambda s: s["nodes"].pop("extras"), "extras"),
        (lambda s: s["nodes"]["extras"].__setitem__(1, {"tile": object()}), "node 1's extras are not what JSON can hold"),
        (lambda s: s.__setitem__("extras", {"grid": b"bytes"}), "the scene's extras are not what JSON can hold"),
        (lambda s: s["meshes"][0].__setitem__("triangle_materials", [0]), "triangle_materials"),
        (lambda s: s["nodes"]["parent"].__setitem__(1, -2), "node 1: parent -2"),
        (lambda s: s["nodes"]["mesh"].__setitem__(0, -7), "node 0: mesh -7"),
    ],
)
def test_a_dict_not_shaped_as_said_raises_wad_error(small, spoil, words):
    wad, glb = small
    scene = scene_of(glb)
    spoil(scene)
    with pytest.raises(llamawad.WadError, match=words) as e:
        llamawad.scene_to_wad(wad, scene)
    assert not isinstance(e.value, llamawad.GltfToWadRefused)


def test_arrays_need_not_be_contiguous(small):
    wad, glb = small
    scene = scene_of(glb)
    # Every other row of a wider array: a strided buffer, read as its values.
    for mesh in scene["meshes"]:
        for name, values in mesh["attributes"].items():
            wide = np.repeat(values, 2, axis=0)
            mesh["attributes"][name] = wide[::2]
            assert not mesh["attributes"][name].flags.c_contiguous or values.size == 0
    assert llamawad.scene_to_wad(wad, scene)[0] == wad


def test_a_new_image_arrives_as_a_new_page(small):
    """A material showing an image no page shows: its image is placed on a new page, and the
    faces using it get texture entries within the image's rectangle."""
    wad, glb = small
    scene = scene_of(glb)
    corners = np.array([[2, 1, 2], [2, 1, 3], [3, 1, 2], [3, 1, 2], [2, 1, 3], [3, 1, 3]], np.float32)
    uvs = np.array([[0, 0], [0, 1], [1, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    scene["meshes"].append(
        {
            "attributes": {"POSITION": corners.ravel(), "TEXCOORD_0": uvs.ravel()},
            "materials": ["painted"],
            "triangle_materials": np.zeros(0, np.uint32),
        }
    )
    nodes = scene["nodes"]
    nodes["name"].append("platform")
    nodes["extras"].append(None)
    nodes["parent"] = np.append(nodes["parent"], np.int32(-1))
    nodes["mesh"] = np.append(nodes["mesh"], np.int32(len(scene["meshes"]) - 1))
    nodes["matrix"] = np.concatenate([nodes["matrix"], np.eye(4, dtype=np.float32).ravel()[None]])
    pixels = np.zeros((64, 64, 4), np.uint8)
    pixels[..., 0] = np.arange(64, dtype=np.uint8)[None, :] * 4
    pixels[..., 3] = 255
    scene["images"] = [{"name": "painted.png", "width": 64, "height": 64, "pixels": pixels.ravel()}]
    scene["material_images"] = {"painted": 0}
    written, report = llamawad.scene_to_wad(wad, scene)
    assert len(report["pages_added"]) == 1
    assert report["pages_changed"] == []
    # A new page: its 12-byte header (flags, width, height) and 256 × 256 16-bit pixels.
    assert report["page_bytes_after"] == report["page_bytes_before"] + 12 + 256 * 256 * 2
    assert report["fit"]["faces_fitted"] == 2
    assert llamawad.parse_info(written)["page_bytes"] == report["page_bytes_after"]
