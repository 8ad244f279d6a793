"""glTF → WAD from Python and the command line: llamawad.gltf_to_wad and `llamawad gltf2wad`.

The unchanged glTF gives the base's bytes; a glTF the conversion refuses raises
llamawad.GltfToWadRefused naming the node and faces at fault, and the command line names them too
and writes no file."""

import json
import math

import llamawad
import numpy as np
import pytest
from gltf_edit import Glb

pytestmark = pytest.mark.generator


@pytest.fixture(scope="module")
def small():
    wad = llamawad.generate(2, "small")
    glb, _ = llamawad.wad_to_glb(wad)
    return wad, glb


def test_the_unchanged_glb_gives_the_base_bytes():
    for size, seed in [("tiny", 1), ("tiny", 2), ("small", 3)]:
        wad = llamawad.generate(seed, size)
        glb, _ = llamawad.wad_to_glb(wad)
        written, report = llamawad.gltf_to_wad(wad, glb)
        assert written == wad, (size, seed)
        assert report["tiles_moved"] == [] and report["models_added"] == 0 and report["warnings"] == []
        # Any bytes-like object.
        assert llamawad.gltf_to_wad(bytearray(wad), memoryview(glb))[0] == wad


def test_a_gltf_with_its_buffer_beside_it(small, tmp_path):
    wad, _ = small
    text, buffer, _ = llamawad.wad_to_gltf(wad)
    document = json.loads(text)
    document["buffers"][0]["uri"] = "level.bin"
    (tmp_path / "level.bin").write_bytes(buffer)
    gltf = json.dumps(document).encode()
    assert llamawad.gltf_to_wad(wad, gltf, directory=tmp_path)[0] == wad
    assert llamawad.gltf_to_wad(wad, gltf, directory=str(tmp_path))[0] == wad
    # Without the directory the buffer is not found: an error, not a refusal.
    with pytest.raises(llamawad.WadError) as e:
        llamawad.gltf_to_wad(wad, gltf)
    assert not isinstance(e.value, llamawad.GltfToWadRefused)
    assert "buffer" in str(e.value)


def test_an_edit_comes_back_with_its_report(small):
    wad, glb = small
    g = Glb(glb)
    node = g.node("tile", 5)
    x, y, z = g.json["nodes"][node]["translation"]
    g.json["nodes"][node]["translation"] = [x, y + 0.5, z]
    written, report = llamawad.gltf_to_wad(wad, g.to_bytes())
    assert written != wad
    assert report["tiles_moved"] == [5]
    assert llamawad.parse_info(written)["tiles"] == llamawad.parse_info(wad)["tiles"]


def test_unreadable_input_is_a_wad_error(small):
    wad, glb = small
    with pytest.raises(llamawad.WadError, match="glTF"):
        llamawad.gltf_to_wad(wad, b"not a gltf")
    with pytest.raises(llamawad.WadError, match="base"):
        llamawad.gltf_to_wad(b"not a wad", glb)
    assert issubclass(llamawad.GltfToWadRefused, llamawad.WadError)


# Refusals. Each builds an edited GLB and returns it with the culprit it expects: the node's name,
# its faces (None: not checked) and words the message must contain.


def tile_with_quad(g: Glb) -> int:
    """A tile whose collision has a quad (two triangles with the same _POLYGON) and polygon 1."""
    for node in g.json["nodes"]:
        extras = node.get("extras", {})
        if extras.get("llamawad") != "tile" or "children" not in node or "mesh" not in node:
            continue
        collision = g.json["meshes"][g.json["nodes"][node["children"][0]]["mesh"]]
        polygons = g.read(collision["primitives"][0]["attributes"]["_POLYGON"]).astype(int)
        kinds = g.read(collision["primitives"][0]["attributes"]["_KIND"]).astype(int)
        if polygons.max() >= 1 and ((kinds & 1) == 1).any():
            return extras["tile"]
    raise AssertionError("no tile with a collision quad")


def too_many_vertices(g: Glb, entries: int):
    tile = tile_with_quad(g)
    node = g.node("tile", tile)
    mesh = g.own_mesh(node)
    # 2,700 triangles, every corner a vertex of its own: 8,100 vertices.
    k = np.arange(2700)
    x, z = (k % 60) / 100 - 0.3, (k // 60) / 100 - 0.3
    corners = np.stack(
        [np.stack([x, np.full_like(x, 3.0), z], 1), np.stack([x, np.full_like(x, 3.0), z + 0.005], 1),
         np.stack([x + 0.005, np.full_like(x, 3.0), z], 1)], 1
    ).reshape(-1, 3)
    primitive = {"attributes": {}, "material": mesh["primitives"][0].get("material", 0)}
    g.set(primitive, "POSITION", corners)
    g.set(primitive, "_FLAGS", np.full(len(corners), 0x800))
    g.set(primitive, "_TEXTURE", np.zeros(len(corners)))
    mesh["primitives"].append(primitive)
    return g.name(node), None, ["vertices", "at most 8000"]


def too_many_faces(g: Glb, entries: int):
    # Within 8,000 vertices: one triangle 66,000 times over.
    tile = tile_with_quad(g)
    node = g.node("tile", tile)
    mesh = g.own_mesh(node)
    triangle = np.array([[-0.4, 2.0, -0.4], [-0.4, 2.0, 0.4], [0.4, 2.0, 0.0]])
    corners = np.tile(triangle, (66_000, 1))
    primitive = {"attributes": {}, "material": mesh["primitives"][0].get("material", 0)}
    g.set(primitive, "POSITION", corners)
    g.set(primitive, "_FLAGS", np.full(len(corners), 0x800))
    g.set(primitive, "_TEXTURE", np.zeros(len(corners)))
    mesh["primitives"].append(primitive)
    return g.name(node), [], ["faces", "at most 65,535"]


def far_collision(g: Glb, entries: int):
    tile = tile_with_quad(g)
    node = g.node("collision", tile)
    primitive = g.own_mesh(node)["primitives"][0]
    positions = g.own_attribute(primitive, "POSITION")
    polygon = g.read(primitive["attributes"]["_POLYGON"]).astype(int)
    positions[polygon == 1, 1] += 9.0
    g.set(primitive, "POSITION", positions)
    faces = sorted({int(c) // 3 for c in np.flatnonzero(polygon == 1)})
    return g.name(g.node("tile", tile)), faces, ["collision polygon 1", "8 units"]


def outside_the_grid(g: Glb, entries: int):
    node = g.node("tile", 3)
    x, y, z = g.json["nodes"][node]["translation"]
    g.json["nodes"][node]["translation"] = [-3.0, y, z]
    return g.name(node), [], ["outside", "grid"]


def turned_about_x(g: Glb, entries: int):
    node = g.node("tile", 3)
    g.json["nodes"][node]["rotation"] = [math.sin(0.15), 0.0, 0.0, math.cos(0.15)]
    return g.name(node), [], ["turned about x or z"]


def turned_about_z(g: Glb, entries: int):
    node = g.node("tile", 4)
    g.json["nodes"][node]["rotation"] = [0.0, 0.0, math.sin(0.2), math.cos(0.2)]
    return g.name(node), [], ["turned about x or z"]


def texture_out_of_range(g: Glb, entries: int):
    tile = tile_with_quad(g)
    node = g.node("tile", tile)
    primitive = g.own_mesh(node)["primitives"][0]
    textures = g.own_attribute(primitive, "_TEXTURE")
    textures[3:6] = entries
    g.set(primitive, "_TEXTURE", textures)
    return g.name(node), [1], [f"texture entry {entries} does not exist", f"0 to {entries - 1}"]


def quad_edit(g: Glb, edit):
    """Edits the first quad of a tile's collision: `edit(positions, corners of the quad, lonely,
    shared)` with the quad's corner indices and its positions each triangle has alone or shares."""
    tile = tile_with_quad(g)
    primitive = g.own_mesh(g.node("collision", tile))["primitives"][0]
    positions = g.own_attribute(primitive, "POSITION")
    polygon = g.read(primitive["attributes"]["_POLYGON"]).astype(int)
    kinds = g.read(primitive["attributes"]["_KIND"]).astype(int)
    quad = int(polygon[(kinds & 1) == 1][0])
    corners = np.flatnonzero(polygon == quad)
    unique, counts = np.unique(positions[corners], axis=0, return_counts=True)
    edit(positions, corners, unique[counts == 1], unique[counts == 2])
    g.set(primitive, "POSITION", positions)
    faces = sorted({int(c) // 3 for c in corners})
    return g.name(g.node("tile", tile)), faces, quad


def non_planar_collision(g: Glb, entries: int):
    def lift(positions, corners, lonely, shared):
        for c in corners:
            if np.allclose(positions[c], lonely[0]):
                positions[c, 1] += 0.1

    name, faces, quad = quad_edit(g, lift)
    return name, faces, [f"collision polygon {quad}", "do not lie in one plane"]


def degenerate_collision(g: Glb, entries: int):
    def flatten(positions, corners, lonely, shared):
        a, b = shared
        for c in corners:
            for k, l in enumerate(lonely):
                if np.allclose(positions[c], l):
                    positions[c] = a + (b - a) * (0.25 + 0.5 * k)

    name, faces, quad = quad_edit(g, flatten)
    return name, faces, [f"collision polygon {quad}", "do not enclose an area"]


# The refusal's code, which tools read instead of its message.
CODES = {
    "too_many_vertices": "vertex-limit",
    "too_many_faces": "face-limit",
    "far_collision": "collision-polygon",
    "outside_the_grid": "tile-outside-grid",
    "turned_about_x": "tile-tilted",
    "turned_about_z": "tile-tilted",
    "texture_out_of_range": "texture-entry",
    "non_planar_collision": "collision-polygon",
    "degenerate_collision": "collision-polygon",
}

REFUSALS = [
    too_many_vertices,
    too_many_faces,
    far_collision,
    outside_the_grid,
    turned_about_x,
    turned_about_z,
    texture_out_of_range,
    non_planar_collision,
    degenerate_collision,
]


@pytest.mark.parametrize("refusal", REFUSALS, ids=lambda f: f.__name__)
def test_a_refusal_names_its_culprit_and_writes_nothing(refusal, small, run_cli, tmp_path):
    wad, glb = small
    g = Glb(glb)
    entries = llamawad.parse_info(wad)["texture_entries"]
    node, faces, words = refusal(g, entries)
    edited = g.to_bytes()

    with pytest.raises(llamawad.GltfToWadRefused) as refused:
        llamawad.gltf_to_wad(wad, edited)
    e = refused.value
    # The node by its index among the glTF's nodes and by its name, as the message names it.
    index = [n.get("name") for n in g.json["nodes"]].index(node)
    assert (e.node_index, e.object, e.code) == (index, node, CODES[refusal.__name__]), str(e)
    assert (e.refusals[0]["node_index"], e.refusals[0]["object"]) == (index, node)
    assert str(e).startswith(f"node '{node}': "), str(e)
    assert e.problems == [] and e.tile is None
    if faces is not None:
        assert e.faces == faces, str(e)
    assert isinstance(e.faces, list) and all(isinstance(f, int) for f in e.faces)
    for w in words:
        assert w in str(e)

    (tmp_path / "base.wad").write_bytes(wad)
    (tmp_path / "edited.glb").write_bytes(edited)
    out = tmp_path / "out.wad"
    result = run_cli("gltf2wad", "--base", tmp_path / "base.wad", tmp_path / "edited.glb", out)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and node in result.stderr, result.stderr
    for w in words:
        assert w in result.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.wad", "edited.glb"], "no file left behind"


def test_a_gltf_of_another_level_is_refused_unless_forced(small, run_cli, tmp_path):
    wad, glb = small
    # Another level: the same one with a zone mask changed (through the way back itself).
    g = Glb(glb)
    scene = g.json["scenes"][g.json.get("scene", 0)]
    scene["extras"]["llamawad"]["regions"][3]["mask"] |= 0x80000000
    other, report = llamawad.gltf_to_wad(wad, g.to_bytes())
    assert report["zone_masks_changed"] == 1 and other != wad

    with pytest.raises(llamawad.GltfToWadRefused, match="another level") as refused:
        llamawad.gltf_to_wad(other, glb)
    assert refused.value.node_index is None and refused.value.faces == []
    assert (refused.value.code, refused.value.object) == ("other-level", None)
    written, report = llamawad.gltf_to_wad(other, glb, force=True)
    assert written == wad, "the glTF's zone table wins"
    assert any("forced" in w for w in report["warnings"])

    base, gltf, out = tmp_path / "other.wad", tmp_path / "level.glb", tmp_path / "out.wad"
    base.write_bytes(other)
    gltf.write_bytes(glb)
    result = run_cli("gltf2wad", "--base", base, gltf, out)
    assert result.returncode == 1 and "another level" in result.stderr and "force" in result.stderr
    assert not out.exists()
    result = run_cli("gltf2wad", "--base", base, gltf, out, "--force")
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == wad
    assert "forced" in result.stdout
