"""Object models written back from Blender (issue 39): a rigid and a skinned model of the level
reshaped in Edit Mode and retextured are written in place, read back from the written WAD (the
core's `llamawad models` and a fresh import) with those vertices; every other byte of the level
outside STPC stays; a vertex or face added or deleted, or a vertex moved to another bone's group,
is refused by model, with nothing written."""

from types import SimpleNamespace

import addon_support
import bpy
import bmesh
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(base=small_wad_file.read_bytes(), out=tmp_path / "edited.wad")


def object_model(skinned: bool):
    """An object model of the level with faces, rigid or skinned (it has bone vertex groups)."""
    models = sorted((o for o in bpy.context.scene.objects if o.get("llamawad") == "object_model"), key=lambda o: o.name)
    found = [o for o in models if o.type == "MESH" and len(o.data.polygons) >= 4 and bool(len(o.vertex_groups)) == skinned]
    assert found, f"no {'skinned' if skinned else 'rigid'} object model"
    return found[0]


def model_vertices(obj) -> np.ndarray:
    """The positions of the object's Blender vertices by the model vertex each is (wad_vertex)."""
    mesh = obj.data
    index = np.empty(len(mesh.vertices), np.int32)
    mesh.attributes["wad_vertex"].data.foreach_get("value", index)
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    out = {}
    for i, p in zip(index, co.reshape(-1, 3)):
        out.setdefault(int(i), p)
    return np.array([out[k] for k in sorted(out)])


def refused(level) -> str:
    with pytest.raises(RuntimeError, match="Not written") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    return str(error.value)


def test_a_rigid_and_a_skinned_model_reshaped_are_written_in_place(level):
    rigid, skinned = object_model(False), object_model(True)
    lifted = {}
    for obj in (rigid, skinned):
        before = model_vertices(obj)
        # Vertex 0 of the model lifted by 0.25 (Blender z is up), all of its Blender vertices.
        index = np.empty(len(obj.data.vertices), np.int32)
        obj.data.attributes["wad_vertex"].data.foreach_get("value", index)
        for v in np.nonzero(index == 0)[0]:
            obj.data.vertices[int(v)].co.z += 0.25
        lifted[int(obj["object_model"])] = (before, obj.name)
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    written = level.out.read_bytes()
    assert len(written) == len(level.base)
    addon_support.assert_no_new_errors(written, level.base)
    info = {m["index"]: m for m in llamawad.parse_info(written)["object_model_list"]}
    base_info = {m["index"]: m for m in llamawad.parse_info(level.base)["object_model_list"]}
    assert info == base_info, "the models keep their counts and bones"
    # Read back through a fresh import: vertex 0 stands 0.25 higher, every other where it was.
    addon_support.import_level(level.out)
    for index, (before, name) in lifted.items():
        obj = bpy.data.objects[name]
        after = model_vertices(obj)
        expected = before.copy()
        expected[0][2] += 0.25
        assert np.abs(after - expected).max() < 1e-5, index


def test_a_face_deleted_is_refused_by_model(level):
    obj = object_model(False)
    index = int(obj["object_model"])
    mesh = obj.data
    bm = bmesh.new()
    bm.from_mesh(mesh)
    bm.faces.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.faces[0]], context="FACES_ONLY")
    bm.to_mesh(mesh)
    bm.free()
    message = refused(level)
    assert f"object model {index}: 1 face deleted" in message and "keep their counts" in message


def test_a_vertex_given_another_bone_is_refused(level):
    obj = object_model(True)
    index = int(obj["object_model"])
    groups = [g for g in obj.vertex_groups if g.name.startswith("bone ")]
    assert len(groups) >= 2
    v = next(v.index for v in obj.data.vertices if any(g.group == groups[0].index for g in v.groups))
    groups[0].remove([v])
    groups[1].add([v], 1.0, "REPLACE")
    message = refused(level)
    assert f"object model {index}: 1 vertex moved to another bone" in message


def test_a_copy_is_named_not_written_and_the_model_still_written(level, capfd):
    obj = object_model(False)
    copy = obj.copy()
    copy.data = obj.data.copy()
    obj.users_collection[0].objects.link(copy)
    copy.location.x += 2.0
    obj.data.vertices[0].co.z += 0.1
    capfd.readouterr()
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"{copy.name}: a copy of {obj.name}" in out and "not written" in out
    written = level.out.read_bytes()
    assert written != level.base
    assert len(written) == len(level.base)
