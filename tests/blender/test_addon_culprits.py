"""Every culprit of a refusal, not the first (issue 21), in real Blender 5.0 through the add-on's
operators: export and Check level try every object, list each refusal in the Level panel with
its object and Blender faces, in a sentence with a subject, and write nothing."""

import addon_support
import bpy  # noqa: I001  (bmesh exists only once bpy is imported)
import bmesh
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture
def out(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return tmp_path / "edited.wad"


def problems():
    return [(p.message, p.object) for p in bpy.context.scene.llamawad.problems]


def scaled_tiles(n: int) -> list:
    tiles = addon_support.mesh_tiles()[:n]
    for obj in tiles:
        obj.scale = (1.5, 1.5, 1.5)
    return tiles


def test_export_names_every_scaled_tile(out):
    tiles = scaled_tiles(3)
    with pytest.raises(RuntimeError, match="Not written") as error:
        bpy.ops.export_scene.llamawad(filepath=str(out))
    assert not out.exists()
    assert "and 2 more" in str(error.value)
    listed = problems()
    assert sorted(obj for _, obj in listed) == sorted(o.name for o in tiles), listed
    for message, obj in listed:
        assert message.startswith(f"{obj}: ") and "is scaled by" in message, message


def test_check_level_names_every_scaled_tile(out):
    tiles = scaled_tiles(3)
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    listed = problems()
    assert sorted(obj for _, obj in listed) == sorted(o.name for o in tiles), listed


def test_a_new_mesh_without_a_material_names_its_faces_with_a_subject(out):
    mesh = bpy.data.meshes.new("new slab")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=0.5)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("new slab", mesh)
    obj.location = (4.5, -5.5, 3.0)
    tiles = next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "tiles")
    tiles.objects.link(obj)
    with pytest.raises(RuntimeError, match="Not written"):
        bpy.ops.export_scene.llamawad(filepath=str(out))
    assert not out.exists()
    ((message, culprit),) = problems()
    assert culprit == "new slab"
    assert message.startswith("new slab, Blender faces 0, 1, 2, 3, 4, 5: no texture entry"), message


@pytest.mark.parametrize("damage", ["uv", "corner colour", "point colour"])
def test_values_that_are_not_numbers_name_the_object_and_its_faces(out, damage):
    """A UV or a vertex colour that is NaN (a script's damage: Blender's own tools
    make none) refuses the object, naming the Blender faces that use it, whichever domain holds
    it."""
    obj = addon_support.mesh_tiles()[0]
    mesh = obj.data
    corner = 4
    using = {p.index for p in mesh.polygons if corner in p.loop_indices}
    if damage == "uv":
        mesh.uv_layers.active.uv[corner].vector = (float("nan"), 0.5)
    elif damage == "corner colour":
        mesh.color_attributes["Col"].data[corner].color = (float("nan"), 0.0, 0.0, 1.0)
    else:
        mesh.color_attributes.remove(mesh.color_attributes["Col"])
        point = mesh.loops[corner].vertex_index
        mesh.color_attributes.new("Col", "FLOAT_COLOR", "POINT").data[point].color = (0.0, float("nan"), 0.0, 1.0)
        using = {p.index for p in mesh.polygons if point in p.vertices}
    with pytest.raises(RuntimeError, match="Not written"):
        bpy.ops.export_scene.llamawad(filepath=str(out))
    assert not out.exists()
    ((message, culprit),) = problems()
    assert culprit == obj.name
    faces = ", ".join(map(str, sorted(using)))
    assert message.startswith(f"{obj.name}, Blender face{'s' if len(using) > 1 else ''} {faces}: "), message
    assert "not numbers" in message, message
