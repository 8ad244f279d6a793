"""File › Import › Emperor's New Groove level (bpy.ops.import_scene.llamawad) in real Blender 5.0
(the bpy module, headless), the add-on registered from the source tree.

Every number is checked against the glTF document the Rust side makes of the same WAD
(llamawad.wad_to_gltf), read with the tests' own tested reader (tests/gltf_arrays.py), apart from
the Rust hand-over the importer builds from (llamawad.wad_to_scene).
"""

from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from addon.common import game, space
from gltf_arrays import Document

pytestmark = pytest.mark.generator


def level_on_disk(tmp_path_factory, seed, size):
    wad = llamawad.generate(seed, size)
    path = tmp_path_factory.mktemp("levels") / f"{size}-{seed}.wad"
    path.write_bytes(wad)
    text, bin_data, warnings = llamawad.wad_to_gltf(wad)
    return SimpleNamespace(path=path, wad=wad, doc=Document.from_json(text, bin_data), info=llamawad.parse_info(wad), warnings=warnings)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return level_on_disk(tmp_path_factory, 2, "small")


@pytest.fixture
def imported(small, capfd):
    result = addon_support.import_level(small.path)
    out = capfd.readouterr().out
    return SimpleNamespace(result=result, out=out)


def nodes_with_role(doc, role):
    return [(i, n) for i, n in enumerate(doc.json["nodes"]) if (n.get("extras") or {}).get("llamawad") == role]


def get(collection, attr, dtype, width=1):
    values = np.empty(len(collection) * width, dtype)
    collection.foreach_get(attr, values)
    return values if width == 1 else values.reshape(-1, width)


def attribute(mesh, name):
    a = mesh.attributes[name]
    return get(a.data, "value", np.int32)


def corners_of(mesh):
    """Blender's corner positions (in loop order) and each face's corner count."""
    co = get(mesh.vertices, "co", np.float32, 3)
    loops = get(mesh.loops, "vertex_index", np.int32)
    return co[loops], get(mesh.polygons, "loop_total", np.int32)


def test_collections_and_summary(small, imported):
    assert imported.result == {"FINISHED"}
    scene = bpy.context.scene
    colls = {c.get("llamawad"): c for c in scene.collection.children}
    assert {c.name for c in colls.values()} == {"Tiles", "Collision", "Zones", "Strats", "Waypoints", "Lights", "Object models"}
    assert colls["collision"].hide_render
    layer = {lc.collection.name: lc for lc in bpy.context.view_layer.layer_collection.children}
    assert layer["Object models"].exclude and not layer["Tiles"].exclude
    assert len(colls["tiles"].all_objects) == small.info["tiles"]
    # Tiles whose model has no faces wait, excluded, in a collection of their own inside Tiles.
    faceless = {node["name"] for _, node in nodes_with_role(small.doc, "tile") if "mesh" not in node}
    assert faceless and {o.name for o in bpy.data.collections["Tiles without faces"].objects} == faceless
    assert {o.name for o in colls["tiles"].objects}.isdisjoint(faceless)
    assert layer["Tiles"].children["Tiles without faces"].exclude
    assert f"{len(faceless)} tiles without faces" in imported.out
    assert len(colls["strats"].objects) == small.info["strats"]
    assert scene.llamawad.base_path == str(small.path)
    doc = addon_support_level_document(scene)
    assert doc == small.doc.scene_extras()["llamawad"]
    # The summary and the conversion's warnings reach the user.
    assert f"{small.info['tiles']} tiles" in imported.out
    assert f"{small.info['tile_faces']} triangles" in imported.out
    for warning in small.warnings:
        assert warning in imported.out


def addon_support_level_document(scene):
    from addon.blender import scene as level_scene

    return level_scene.level_document(scene)


def test_tiles_are_placed_and_carry_their_data(small, imported):
    doc = small.doc
    triangles = 0
    for index, node in nodes_with_role(doc, "tile"):
        obj = bpy.data.objects[node["name"]]
        # Custom properties are the node's extras.
        for key, value in node["extras"].items():
            got = obj[key]
            assert (got.to_dict() if hasattr(got, "to_dict") else got) == value, (obj.name, key)
        x, y, z = node.get("translation", [0, 0, 0])
        np.testing.assert_array_equal(np.float32(obj.location), np.float32([x, -z, y]))
        assert obj.rotation_euler.z == pytest.approx(node["extras"]["rotation"] / 4096 * 2 * np.pi, abs=1e-5)
        assert obj.rotation_euler.x == obj.rotation_euler.y == 0
        if "mesh" not in node:
            assert obj.type == "EMPTY"
            continue
        mesh = obj.data
        tris = doc.triangles(node["mesh"])
        corners, sizes = corners_of(mesh)
        assert (sizes == 3).all()
        np.testing.assert_array_equal(corners, space.file_to_blender(tris.attributes["POSITION"]), err_msg=obj.name)
        # One Blender vertex per model vertex.
        assert len(mesh.vertices) == len(np.unique(tris.attributes["_VERTEX"]))
        vertex = attribute(mesh, "wad_vertex")[get(mesh.loops, "vertex_index", np.int32)]
        np.testing.assert_array_equal(vertex, tris.attributes["_VERTEX"])
        for name, gltf_name in (("wad_flags", "_FLAGS"), ("wad_texture", "_TEXTURE"), ("wad_face", "_FACE")):
            assert mesh.attributes[name].domain == "FACE" and mesh.attributes[name].data_type == "INT"
            np.testing.assert_array_equal(attribute(mesh, name), tris.per_triangle(gltf_name), err_msg=f"{obj.name} {name}")
        loops = get(mesh.loops, "vertex_index", np.int32)
        k = 0
        while f"_RGB_{k}" in tris.attributes:
            np.testing.assert_array_equal(attribute(mesh, f"wad_rgb_{k}")[loops], tris.attributes[f"_RGB_{k}"])
            np.testing.assert_array_equal(attribute(mesh, f"wad_alpha_{k}")[loops], tris.attributes[f"_ALPHA_{k}"])
            k += 1
        assert k == node["extras"]["colour_frames"]
        if k:
            colours = mesh.color_attributes["Col"]
            assert (colours.domain, colours.data_type) == ("CORNER", "FLOAT_COLOR")
            np.testing.assert_array_equal(get(colours.data, "color", np.float32, 4), tris.attributes["COLOR_0"])
        if "TEXCOORD_0" in tris.attributes:
            uv = get(mesh.uv_layers["UVMap"].uv, "vector", np.float32, 2)
            expected = np.nan_to_num(tris.attributes["TEXCOORD_0"], nan=0.0)
            expected[:, 1] = 1 - expected[:, 1]
            np.testing.assert_array_equal(uv, expected)
        # Each face's material is the one the glTF gives it.
        names = [mesh.materials[i].name for i in get(mesh.polygons, "material_index", np.int32)]
        expected = [doc.json["materials"][m]["name"] for m in tris.material_of_triangle]
        for got, want in zip(names, expected):
            assert got == want or got == want + " double-sided", (obj.name, got, want)
        triangles += len(mesh.polygons)
    assert triangles == small.info["tile_faces"]


def test_tiles_of_one_model_own_their_data(small, imported):
    """Tiles of one model get copies of one mesh: a write to one tile's UVs, colours or
    attributes, through any of Blender's APIs, leaves the others as they were."""
    tiles = [o for o in bpy.data.collections["Tiles"].objects if o.type == "MESH"]
    by_model = {}
    for obj in tiles:
        by_model.setdefault(obj["model"], []).append(obj)
    a, b = next(objs for objs in by_model.values() if len(objs) > 1 and "UVMap" in objs[0].data.uv_layers)[:2]
    assert a.data != b.data
    before = {
        "uv": get(b.data.uv_layers["UVMap"].uv, "vector", np.float32, 2),
        "col": get(b.data.color_attributes["Col"].data, "color", np.float32, 4),
        "flags": attribute(b.data, "wad_flags"),
    }
    uv = a.data.uv_layers["UVMap"].uv
    uv.foreach_set("vector", np.full(len(uv) * 2, 0.25, np.float32))
    uv[0].vector = (0.75, 0.75)
    a.data.color_attributes["Col"].data[0].color = (0.0, 0.0, 0.0, 1.0)
    a.data.attributes["wad_flags"].data[0].value = 12345
    np.testing.assert_array_equal(get(b.data.uv_layers["UVMap"].uv, "vector", np.float32, 2), before["uv"])
    np.testing.assert_array_equal(get(b.data.color_attributes["Col"].data, "color", np.float32, 4), before["col"])
    np.testing.assert_array_equal(attribute(b.data, "wad_flags"), before["flags"])


def test_model_vertices_are_merged_unless_a_face_repeats_one():
    """Hand-built batch, expectations by hand: corners of one model vertex become one Blender
    vertex; a mesh with a face that repeats a vertex (the game keeps such faces), or a corner
    without a vertex, keeps a vertex per corner, as a Blender face needs three different ones."""
    from addon.blender.wad_to_scene.building import Batch
    from addon.blender.wad_to_scene.meshes import build_render_meshes

    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    # Three meshes of two triangles: a quad (vertices 0 1 2 3), one whose first face repeats
    # vertex 5, one whose last corner has no vertex.
    vertex = np.array([0, 1, 2, 2, 1, 3, 5, 5, 6, 6, 7, 8, 0, 1, 2, 2, 1, -1], np.float32)
    positions = np.array([[vertex[c], c % 3, -c] for c in range(18)], np.float32)
    positions[3], positions[4] = positions[2], positions[1]  # the quad's shared corners
    rgb = np.arange(18, dtype=np.float32) * 10
    batch = Batch(
        meshes=[0, 1, 2],
        names=["quad", "repeats", "no vertex"],
        corner_start=np.array([0, 6, 12, 18]),
        primitive_materials=[[None]] * 3,
        primitive_triangles=[[2]] * 3,
        attributes={"POSITION": positions, "_VERTEX": vertex, "_RGB_0": rgb},
        missing={"POSITION": set(), "_VERTEX": set(), "_RGB_0": set()},
        same_but_colours=[None, None, None],
    )
    quad, repeats, no_vertex = build_render_meshes(batch, [], True)

    def loops(mesh):
        return [loop.vertex_index for loop in mesh.loops]

    def points(mesh, name):
        return [d.value for d in mesh.attributes[name].data]

    assert len(quad.vertices) == 4 and loops(quad) == [0, 1, 2, 2, 1, 3]
    assert points(quad, "wad_vertex") == [0, 1, 2, 3]
    assert points(quad, "wad_rgb_0") == [0, 10, 20, 50]
    np.testing.assert_array_equal([v.co[:] for v in quad.vertices], space.file_to_blender(positions[[0, 1, 2, 5]]))
    for mesh, c0 in ((repeats, 6), (no_vertex, 12)):
        assert len(mesh.vertices) == 6 and loops(mesh) == [0, 1, 2, 3, 4, 5]
        assert points(mesh, "wad_vertex") == vertex[c0 : c0 + 6].astype(int).tolist()
        assert points(mesh, "wad_rgb_0") == rgb[c0 : c0 + 6].astype(int).tolist()
        np.testing.assert_array_equal([v.co[:] for v in mesh.vertices], space.file_to_blender(positions[c0 : c0 + 6]))


def test_placements_set_at_once():
    """Hand-built placements, expectations by hand: at the origin, moved and turned about the
    vertical (a Z angle), turned about another axis and scaled (a quaternion)."""
    from addon.blender.wad_to_scene.building import place_all

    bpy.ops.wm.read_homefile(use_empty=True)
    collection = bpy.data.collections.new("placed")
    bpy.context.scene.collection.children.link(collection)
    origin, moved, turned = (bpy.data.objects.new(name, None) for name in ("origin", "moved", "turned"))
    for obj in (origin, moved, turned):
        collection.objects.link(obj)
    h = np.sqrt(0.5)
    transforms = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 2.0, 3.0, 0.0, h, 0.0, h, 1.0, 1.0, 1.0],
        [0.0, 0.0, 0.0, h, 0.0, 0.0, h, 2.0, 3.0, 4.0],
    ]
    with pytest.raises(ValueError):
        place_all(collection.objects, transforms[:2])
    place_all(collection.objects, transforms)

    assert origin.location[:] == (0.0, 0.0, 0.0) and origin.rotation_euler[:] == (0.0, 0.0, 0.0)
    assert moved.location[:] == (1.0, -3.0, 2.0)
    assert moved.rotation_mode == "XYZ" and moved.rotation_euler[:2] == (0.0, 0.0)
    assert moved.rotation_euler.z == pytest.approx(np.pi / 2, abs=1e-6)
    assert turned.rotation_mode == "QUATERNION"
    np.testing.assert_allclose(turned.rotation_quaternion[:], [h, h, 0.0, 0.0], atol=1e-6)
    assert turned.scale[:] == (2.0, 4.0, 3.0)


def test_materials_show_the_pages(small, imported):
    pages = [i for i in bpy.data.images if i.get("llamawad") == "page"]
    assert len(pages) == len(small.doc.json["images"])
    for image in pages:
        assert image.packed_file is not None and tuple(image.size) == (256, 256)
    for m in small.doc.json["materials"]:
        name = m["name"]
        mat = bpy.data.materials[name] if name in bpy.data.materials else bpy.data.materials[name + " double-sided"]
        assert mat.use_backface_culling != m["doubleSided"]
        texture = m["pbrMetallicRoughness"].get("baseColorTexture")
        images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
        if texture is None:
            assert images == []
        else:
            source = small.doc.json["textures"][texture["index"]]["source"]
            assert [i.name for i in images] == [small.doc.json["images"][source]["name"]]
            assert all(n.interpolation == "Closest" for n in mat.node_tree.nodes if n.type == "TEX_IMAGE")
        # Unlit, texture × vertex colour: the colour attribute feeds the emission.
        assert any(n.type == "VERTEX_COLOR" and n.layer_name == "Col" for n in mat.node_tree.nodes)
        assert any(n.type == "EMISSION" for n in mat.node_tree.nodes)


def test_page_pixels_are_the_png(small, imported):
    """The packed image is the PNG the Rust side encoded, byte for byte, and Blender decodes it."""
    image = next(i for i in bpy.data.images if i.get("llamawad") == "page")
    pixels = np.empty(256 * 256 * 4, np.float32)
    image.pixels.foreach_get(pixels)
    assert pixels.std() > 0.01
    gltf_image = next(im for im in small.doc.json["images"] if im["name"] == image.name)
    assert image.packed_file.data == small.doc.view_bytes(gltf_image["bufferView"])


def test_tile_collision_is_made_when_first_shown(small, imported):
    """Import leaves the tiles' collision objects for later; Show collision makes every one, and
    a second time none."""
    scene = bpy.context.scene
    assert not scene.llamawad.tile_collision_made and not scene.llamawad.show_collision
    assert not [o for o in scene.objects if o.get("llamawad") == "collision"]
    # The summary counts the collision polygons of every tile all the same, and says so (info
    # counts each model's once).
    polygons = sum(len(p) for p in collision_polygons_per_node(small.doc))
    assert polygons != small.info["collision_polygons"]
    assert f"{polygons} collision polygons over tiles" in imported.out
    # Saved and opened again, the file has lost what nothing uses (the collision material).
    collision_material = collision_material_name(small.doc)
    bpy.data.orphans_purge(do_recursive=True)
    assert collision_material not in bpy.data.materials
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    assert scene.llamawad.tile_collision_made and scene.llamawad.show_collision
    made = [o for o in scene.objects if o.get("llamawad") == "collision"]
    assert {m.name for o in made for m in o.data.materials} == {collision_material}
    assert len(made) == len(nodes_with_role(small.doc, "collision"))
    assert sum(len(o.data.polygons) for o in made) == polygons
    assert bpy.ops.llamawad.collision_show(show=False) == {"FINISHED"}
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    assert len([o for o in scene.objects if o.get("llamawad") == "collision"]) == len(made)


def collision_material_name(doc) -> str:
    _, node = nodes_with_role(doc, "collision")[0]
    material = doc.json["materials"][doc.json["meshes"][node["mesh"]]["primitives"][0]["material"]]
    # Blender's material of a double-sided glTF material says so in its name.
    return material["name"] + (" double-sided" if material.get("doubleSided") else "")


def collision_polygons_per_node(doc) -> list[set[int]]:
    return [set(doc.triangles(n["mesh"]).per_triangle("_POLYGON").tolist()) for _, n in nodes_with_role(doc, "collision")]


def test_collision(small, imported):
    doc = small.doc
    meshes = set()
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    for index, node in nodes_with_role(doc, "collision"):
        obj = bpy.data.objects[f"tile {node['extras']['tile']:04} · collision"]
        assert obj.parent is not None and obj.parent.name == doc.json["nodes"][[i for i, n in enumerate(doc.json["nodes"]) if index in n.get("children", [])][0]]["name"]
        assert obj["llamawad"] == "collision" and obj["tile"] == node["extras"]["tile"]
        mesh = obj.data
        assert mesh.name == doc.json["meshes"][node["mesh"]]["name"]
        tris = doc.triangles(node["mesh"])
        polygon = attribute(mesh, "wad_polygon")
        expected_polygons = tris.per_triangle("_POLYGON")
        # One face per polygon, in polygon order, with the polygon's attributes.
        np.testing.assert_array_equal(polygon, np.unique(expected_polygons))
        first = np.searchsorted(expected_polygons, polygon)
        for name, gltf_name in (("wad_material", "_MATERIAL"), ("wad_kind", "_KIND"), ("wad_group", "_GROUP")):
            np.testing.assert_array_equal(attribute(mesh, name), tris.per_triangle(gltf_name)[first])
        # Each face's corners are its triangles' corners.
        corners, sizes = corners_of(mesh)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        file_corners = space.blender_to_file(corners)
        for f, p in enumerate(polygon):
            mine = {tuple(c) for c in file_corners[starts[f] : starts[f] + sizes[f]]}
            theirs = {tuple(c) for c in tris.attributes["POSITION"].reshape(-1, 3, 3)[expected_polygons == p].reshape(-1, 3)}
            assert mine == theirs
            kind = attribute(mesh, "wad_kind")[f]
            assert sizes[f] == (4 if kind & game.COLLISION_QUAD else 3)
        meshes.add(mesh)
    # Tiles of one model share its collision mesh; every model's polygons are there once.
    assert len(meshes) == len({n["mesh"] for _, n in nodes_with_role(doc, "collision")})
    assert 0 < sum(len(m.polygons) for m in meshes) <= small.info["collision_polygons"]


def test_zones_and_strats(small, imported):
    doc = small.doc
    extras = doc.scene_extras()["llamawad"]
    w, h = extras["grid"]
    zones = bpy.data.objects["Zones"]
    mesh = zones.data
    assert len(mesh.polygons) == w * h
    cells = attribute(mesh, "wad_cell")
    np.testing.assert_array_equal(np.sort(cells), np.arange(w * h))
    np.testing.assert_array_equal(attribute(mesh, "wad_zone"), np.asarray(extras["region_grid"])[cells])
    # Each cell's face covers its square of the grid.
    corners, sizes = corners_of(mesh)
    assert (sizes == 4).all()
    file_corners = space.blender_to_file(corners).reshape(-1, 4, 3)
    np.testing.assert_array_equal(file_corners[:, :, 0].min(1), cells % w)
    np.testing.assert_array_equal(file_corners[:, :, 2].min(1), cells // w)
    strats = nodes_with_role(doc, "strat")
    for index, node in strats:
        obj = bpy.data.objects[node["name"]]
        assert obj.type == "EMPTY" and obj["strat"] == node["extras"]["strat"]
        x, y, z = node["translation"]
        np.testing.assert_allclose(obj.location, [x, -z, y])
    assert len([o for o in bpy.data.objects if o.get("llamawad") == "strat"]) == len(strats)


def test_object_models(small, imported):
    models = nodes_with_role(small.doc, "object_model")
    objs = [o for o in bpy.data.objects if o.get("llamawad") == "object_model"]
    assert len(objs) == len(models)
    for o in objs:
        assert o.users_collection[0].name == "Object models"


def test_not_a_level_is_refused(tmp_path):
    path = tmp_path / "junk.wad"
    path.write_bytes(b"this is not a level" * 10)
    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    with pytest.raises(RuntimeError, match="not a level"):
        bpy.ops.import_scene.llamawad(filepath=str(path))
    assert len(bpy.data.objects) == 0
    assert not bpy.context.scene.llamawad.base_path


def test_full_size_level(tmp_path_factory):
    full = level_on_disk(tmp_path_factory, 1, "full")
    assert addon_support.import_level(full.path) == {"FINISHED"}
    tiles = [o for o in bpy.data.objects if o.get("llamawad") == "tile"]
    assert len(tiles) == full.info["tiles"]
    assert sum(len(o.data.polygons) for o in tiles if o.type == "MESH") == full.info["tile_faces"]


def test_one_level_per_scene(small):
    """A second level is not mixed into a scene that holds one: it gets a scene of its own."""
    assert addon_support.import_level(small.path) == {"FINISHED"}
    first = bpy.context.scene
    objects = set(first.objects)
    assert bpy.ops.import_scene.llamawad(filepath=str(small.path)) == {"FINISHED"}
    second = bpy.context.scene
    assert second != first and second.name == small.path.stem
    assert set(first.objects) == objects
    assert second.llamawad.base_path == str(small.path)
    assert sum(1 for o in second.objects if o.get("llamawad") == "tile") == small.info["tiles"]
