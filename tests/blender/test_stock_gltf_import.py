"""Blender's own glTF importer opens the GLB of a full-size generated level (seed 1).

Real Blender 5.0 (the bpy module, headless), no mocks; every test starts from an empty home file
and imports the file itself. The GLB comes from llamawad.wad_to_glb, which writes the same bytes
as `llamawad wad2gltf` (tests/python/test_gltf_bindings.py); the expected values are read from
the GLB's JSON and binary chunk directly (glb_reader.py).

What Blender 5.0's importer (io_scene_gltf2/blender/imp/mesh.py) makes of the export:

- A custom vertex attribute `_NAME` becomes the mesh attribute `_NAME`: the underscore stays
  (`_FLAGS`, not `FLAGS`), on the POINT domain, FLOAT for the export's f32 scalars.
- The export's primitives have no indices, and the importer merges no vertices by default, so
  Blender vertex i is glTF vertex i of the mesh's primitives taken one after the other. Where a
  primitive lacks an attribute that another primitive of the mesh has, the value is 0.
- Positions go from y up to z up: Blender (x, y, z) = glTF (x, -z, y).
- The two glTF scenes become the collections "Level" and "Object models" in the active scene, the
  second one excluded from the view layer; node extras become custom properties of the objects.
"""

import logging
from types import SimpleNamespace

import bpy
import llamawad
import numpy as np
import pytest
from glb_reader import Glb

pytestmark = pytest.mark.generator

# Custom attributes as the glTF names them and as Blender 5.0 does: the same, underscore and all.
RENDER = {"_FLAGS", "_TEXTURE", "_FACE", "_VERTEX"}
FIRST_COLOUR_FRAME = {"_RGB_0", "_ALPHA_0"}
COLLISION = {"_POLYGON", "_MATERIAL", "_KIND", "_GROUP"}
ZONES = {"_ZONE", "_CELL"}
IMPORTER_LOGGERS = ("glTFImporter", "glTFImporter_errors")


@pytest.fixture(scope="module")
def level(tmp_path_factory):
    wad = llamawad.generate(1, "full")
    glb, _ = llamawad.wad_to_glb(wad)
    path = tmp_path_factory.mktemp("blender") / "full-01.glb"
    path.write_bytes(glb)
    return SimpleNamespace(path=path, gltf=Glb(glb), info=llamawad.parse_info(wad))


class Records(logging.Handler):
    """Keeps the importer's log records of level WARNING and above."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def imported(level):
    """An empty home file with the level imported by bpy.ops.import_scene.gltf."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0
    records = Records()
    loggers = [logging.getLogger(name) for name in IMPORTER_LOGGERS]
    for logger in loggers:
        logger.addHandler(records)
    try:
        # An error reported by the operator raises RuntimeError here.
        result = bpy.ops.import_scene.gltf(filepath=str(level.path))
    finally:
        for logger in loggers:
            logger.removeHandler(records)
    return SimpleNamespace(
        result=result,
        errors=[r.getMessage() for r in records.records if r.levelno >= logging.ERROR],
        warnings=[r.getMessage() for r in records.records if r.levelno < logging.ERROR],
    )


def tile_objects() -> list:
    return [o for o in bpy.data.objects if o.name.startswith("tile ")]


def custom_attributes(mesh) -> set[str]:
    return {a.name for a in mesh.attributes if a.name.startswith("_")}


def gltf_custom_attributes(gltf_mesh: dict) -> set[str]:
    return {name for p in gltf_mesh["primitives"] for name in p["attributes"] if name.startswith("_")}


# Blender's importer puts each glTF scene into a collection of its own (the object models'
# excluded) in 4.5 and 5.0; 4.2 puts every node into the scene's own collection. (4.3 and 4.4
# are no LTS releases and not tested.)
SCENE_COLLECTIONS = bpy.app.version >= (4, 5)


def test_the_stock_importer_opens_the_level(level, imported):
    assert imported.result == {"FINISHED"}
    assert not imported.errors, imported.errors
    if imported.warnings:
        print("importer warnings:", *imported.warnings, sep="\n  ")
    document = level.gltf.json
    # One object per node, in a collection per glTF scene.
    assert len(bpy.data.objects) == len(document["nodes"])
    assert len(bpy.data.meshes) == len(document["meshes"])
    layer = bpy.context.view_layer.layer_collection.children
    assert {c.name: c.exclude for c in layer} == ({"Level": False, "Object models": True} if SCENE_COLLECTIONS else {})

    tiles = tile_objects()
    assert len(tiles) == level.info["tiles"]
    for o in tiles:
        # Node extras arrive as custom properties.
        assert o["llamawad"] == "tile" and o.name.startswith(f"tile {o['tile']:04} ")
    tile_nodes = [n for n in document["nodes"] if n.get("extras", {}).get("llamawad") == "tile"]
    meshes = [o for o in tiles if o.type == "MESH"]
    assert len(meshes) == sum("mesh" in n for n in tile_nodes) > 0
    assert {o.type for o in tiles} <= {"MESH", "EMPTY"}

    # Every face a tile draws arrives as one triangle.
    triangles = 0
    for o in meshes:
        sizes = np.empty(len(o.data.polygons), dtype=np.int32)
        o.data.polygons.foreach_get("loop_total", sizes)
        assert (sizes == 3).all(), o.name
        triangles += len(sizes)
    assert triangles == level.info["tile_faces"]


def test_custom_attributes_become_blender_attributes(level, imported):
    assert imported.result == {"FINISHED"}
    for gltf_mesh in level.gltf.json["meshes"]:
        mesh = bpy.data.meshes[gltf_mesh["name"]]
        expected = gltf_custom_attributes(gltf_mesh)
        assert custom_attributes(mesh) == expected, mesh.name
        for name in expected:
            attribute = mesh.attributes[name]
            assert (attribute.domain, attribute.data_type) == ("POINT", "FLOAT"), (mesh.name, name)
            # Blender keeps the glTF name: no attribute without the underscore.
            assert name[1:] not in mesh.attributes, (mesh.name, name)

    render = [o.data for o in tile_objects() if o.type == "MESH"]
    collision = {o.data for o in bpy.data.objects if o.name.startswith("collision · tile ")}
    zones = bpy.data.objects["Zones"].data
    assert render and collision and zones
    for mesh in render:
        assert RENDER | FIRST_COLOUR_FRAME <= custom_attributes(mesh), mesh.name
    for mesh in collision:
        assert custom_attributes(mesh) == COLLISION, mesh.name
    assert custom_attributes(zones) == ZONES


def test_attribute_values_equal_the_gltf(level, imported):
    """For every mesh of the file: Blender's vertices are the glTF's vertices in order, with the
    same positions (turned to z up) and exactly the same custom attribute values."""
    assert imported.result == {"FINISHED"}
    gltf = level.gltf
    checked = {"meshes": 0, "values": 0}
    for gltf_mesh in gltf.json["meshes"]:
        mesh = bpy.data.meshes[gltf_mesh["name"]]
        primitives = gltf_mesh["primitives"]
        positions = np.concatenate([gltf.primitive_attribute(p, "POSITION") for p in primitives])
        assert len(mesh.vertices) == len(positions), mesh.name
        assert len(mesh.polygons) * 3 == len(positions), mesh.name

        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        x, y, z = positions.T
        np.testing.assert_array_equal(co.reshape(-1, 3), np.stack([x, -z, y], axis=1), err_msg=mesh.name)

        for name in sorted(gltf_custom_attributes(gltf_mesh)):
            expected = np.concatenate(
                [
                    gltf.primitive_attribute(p, name)
                    if name in p["attributes"]
                    else np.zeros(gltf.json["accessors"][p["attributes"]["POSITION"]]["count"], np.float32)
                    for p in primitives
                ]
            )
            values = np.empty(len(mesh.vertices), dtype=np.float32)
            mesh.attributes[name].data.foreach_get("value", values)
            np.testing.assert_array_equal(values, expected, err_msg=f"{mesh.name}: {name}")
            checked["values"] += len(values)
        checked["meshes"] += 1
    assert checked["meshes"] == len(gltf.json["meshes"])
    print(f"compared {checked['values']} attribute values of {checked['meshes']} meshes")
