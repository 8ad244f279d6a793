"""Undo (Ctrl Z) takes back every operator of the add-on that changes the scene: each is marked
for Undo, and after it runs, Blender's undo gives back the scene as it was before, by a
fingerprint of what the .blend holds (objects and their placement, selection and display,
meshes and their attributes, the level's state in Scene.llamawad, images and their pixels,
materials, texts, scenes). Blender's window pushes an undo step after each operator marked UNDO;
headless, the steps are pushed by hand around it (as tests/blender/test_addon_light.py does).
Files an operator writes stay written: Undo is the scene's."""

import hashlib

import addon_support
import bpy
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator

# Operators that change nothing in the scene, and why they are not marked for Undo.
CHANGES_NOTHING = {
    "llamawad.export_changes": "it shows the last export's changes",
}
# Modal, driven by clicks in a 3D view, which headless Blender has not: marked for Undo, its
# store of the probe is Probe the Floor's, whose undo is tested.
NEEDS_A_WINDOW = {"llamawad.floor_probe_click"}


def _hash(values) -> str:
    return hashlib.sha1(np.ascontiguousarray(values).tobytes()).hexdigest()


def _array(collection, attribute: str, width: int, dtype=np.float32):
    values = np.empty(len(collection) * width, dtype)
    if len(values):
        collection.foreach_get(attribute, values)
    return _hash(values)


def _rna(struct) -> dict:
    """A property group's values, its collections item by item."""
    out = {}
    for prop in struct.bl_rna.properties:
        key = prop.identifier
        if key in ("rna_type", "name") and prop.type != "COLLECTION":
            continue
        if prop.type == "COLLECTION":
            out[key] = [_rna(item) for item in getattr(struct, key)]
        elif prop.type == "POINTER":
            continue
        else:
            value = getattr(struct, key)
            out[key] = tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value
    return out


def fingerprint() -> dict:
    state = {"scene": bpy.context.scene.name, "scenes": {}}
    for scene in bpy.data.scenes:
        layer = scene.view_layers[0]
        state["scenes"][scene.name] = {
            "llamawad": _rna(scene.llamawad),
            "cursor": tuple(round(v, 5) for v in scene.cursor.location),
            "objects": {
                o.name: (
                    o.type,
                    tuple(round(v, 5) for row in o.matrix_basis for v in row),
                    o.parent.name if o.parent else None,
                    o.select_get(view_layer=layer),
                    o.hide_get(view_layer=layer),
                    o.display_type,
                    o.data.name if o.data else None,
                    tuple(sorted(o.keys())),
                    tuple(str(o[k]) for k in sorted(o.keys())),
                )
                for o in scene.objects
            },
            "active": layer.objects.active.name if layer.objects.active else None,
            "collections": {c.name: (c.exclude, c.hide_viewport) for c in layer.layer_collection.children},
        }
    state["meshes"] = {
        m.name: (
            _array(m.vertices, "co", 3),
            _array(m.polygons, "select", 1, bool),
            _array(m.polygons, "material_index", 1, np.int32),
            tuple(mat.name if mat else None for mat in m.materials),
            tuple((a.name, a.domain, a.data_type, _attribute(a)) for a in m.attributes if not a.name.startswith(".")),
        )
        for m in bpy.data.meshes
    }
    state["images"] = {
        i.name: (i.filepath, i.packed_file is not None, tuple(i.size), _pixels(i), tuple(sorted(i.keys())))
        for i in bpy.data.images
    }
    state["materials"] = {
        m.name: tuple(n.image.name if n.type == "TEX_IMAGE" and n.image else n.type for n in m.node_tree.nodes) if m.node_tree else ()
        for m in bpy.data.materials
    }
    state["texts"] = {t.name: t.as_string() for t in bpy.data.texts}
    return state


def _attribute(a) -> str:
    """An attribute's values, by its type."""
    if a.data_type in ("FLOAT_COLOR", "BYTE_COLOR"):
        return _array(a.data, "color", 4)
    if a.data_type in ("FLOAT_VECTOR", "FLOAT2"):
        return _array(a.data, "vector", 3 if a.data_type == "FLOAT_VECTOR" else 2)
    if a.data_type == "BOOLEAN":
        return _array(a.data, "value", 1, bool)
    if a.data_type in ("INT", "INT8"):
        return _array(a.data, "value", 1, np.int32)
    return _array(a.data, "value", 1)


def _pixels(image) -> str:
    w, h = image.size
    values = np.empty(w * h * image.channels, np.float32)
    if len(values):
        image.pixels.foreach_get(values)
    return _hash(values)


def undone(run) -> None:
    """``run`` changes the scene, and Undo takes the change back."""
    assert bpy.ops.ed.undo_push(message="before") == {"FINISHED"}
    before = fingerprint()
    assert run() == {"FINISHED"}
    assert bpy.ops.ed.undo_push(message="the operator") == {"FINISHED"}
    assert fingerprint() != before, "the operator changed nothing"
    assert bpy.ops.ed.undo() == {"FINISHED"}
    after = fingerprint()
    assert after == before, _difference(before, after)


def _difference(before, after, path="") -> str:
    """Where two fingerprints differ first."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if before.get(key) != after.get(key):
                return _difference(before.get(key), after.get(key), f"{path}/{key}")
    return f"{path}: {before!r} before, {after!r} after Undo"


@pytest.fixture
def level(small_wad_file, tmp_path):
    path = tmp_path / "level.wad"
    path.write_bytes(small_wad_file.read_bytes())
    assert addon_support.import_level(path) == {"FINISHED"}
    return path


def select_only(obj) -> None:
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def tile_faces():
    """A tile with faces, selected with its first faces."""
    tile = next(o for o in addon_support.mesh_tiles() if len(o.data.polygons) >= 4 and o.get("collision_polygons", 0) > 0)
    addon_support.select_faces(tile, [0, 1])
    return tile


def collision_faces():
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    shape = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "collision" and o.parent is not None and len(o.data.polygons) > 1)
    addon_support.select_faces(shape, [0])
    return shape


def zone_cells():
    zones = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "zones" and o.type == "MESH")
    addon_support.select_faces(zones, [0, 1, 2])
    return zones


def strat(name: str = "Coin"):
    obj = next(o for o in bpy.context.scene.objects if o.get("llamawad") == "strat" and o.get("type_name") == name)
    select_only(obj)
    return obj


def _select_material():
    shape = collision_faces()
    material = shape.data.attributes["wad_material"].data[1].value
    return lambda: bpy.ops.llamawad.collision_select_material(material=material)


def _strat_add():
    kind = strat().get("code_offset")
    return bpy.ops.llamawad.strat_add(strat_type=str(kind))


def _problem_select():
    addon_support.mesh_tiles()[0].scale.x = 2.0
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    index = next(k for k, p in enumerate(bpy.context.scene.llamawad.problems) if p.object)
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    return lambda: bpy.ops.llamawad.problem_select(index=index)


def _drop():
    obj = strat()
    obj.location.z += 2.0
    return bpy.ops.llamawad.strat_drop_to_floor()


def _restore(level):
    tile = addon_support.mesh_tiles()[3]
    tile.location.z += 0.5
    assert bpy.ops.export_scene.llamawad(filepath=str(level), overwrite_base=True) == {"FINISHED"}
    return bpy.ops.llamawad.restore_original


def _page_from_file(tmp_path):
    png = tmp_path / "page.png"
    png.write_bytes(llamawad.encode_png(256, 256, bytes([255, 0, 0, 255]) * 256 * 256))
    return lambda: bpy.ops.llamawad.page_from_file(filepath=str(png), page=0)


# Each operator that changes the scene: given the level's file and a folder, makes the scene ready
# (before the undo step) and returns the operator's call.
CASES = {
    "import_scene.llamawad": None,  # import_undone below
    "export_scene.llamawad": lambda level, tmp: lambda: bpy.ops.export_scene.llamawad(filepath=str(tmp / "out.wad")),
    "llamawad.face_flag_set": lambda level, tmp: (tile_faces(), lambda: bpy.ops.llamawad.face_flag_set(flag=0x400, state="ON"))[1],
    "llamawad.face_uv_half_set": lambda level, tmp: (tile_faces(), lambda: bpy.ops.llamawad.face_uv_half_set(half="SECOND"))[1],
    "llamawad.face_texture_set": lambda level, tmp: (tile_faces(), lambda: bpy.ops.llamawad.face_texture_set(entry=1))[1],
    "llamawad.face_select_texture": lambda level, tmp: (tile_faces(), lambda: bpy.ops.llamawad.face_select_texture(entry=1))[1],
    "llamawad.collision_show": lambda level, tmp: lambda: bpy.ops.llamawad.collision_show(show=True, colour_by_material=True),
    "llamawad.collision_material_set": lambda level, tmp: (collision_faces(), lambda: bpy.ops.llamawad.collision_material_set(material=30))[1],
    "llamawad.collision_select_material": lambda level, tmp: _select_material(),
    "llamawad.collision_from_faces": lambda level, tmp: (tile_faces(), lambda: bpy.ops.llamawad.collision_from_faces(material=16))[1],
    "llamawad.zone_set": lambda level, tmp: (zone_cells(), lambda: bpy.ops.llamawad.zone_set(zone=7))[1],
    "llamawad.zone_visibility_set": lambda level, tmp: lambda: bpy.ops.llamawad.zone_visibility_set(zone=0, other=9, state="ON"),
    "llamawad.zone_select_visible": lambda level, tmp: (zone_cells(), lambda: bpy.ops.llamawad.zone_select_visible(zone=0))[1],
    "llamawad.zones_show": lambda level, tmp: (zone_cells(), lambda: bpy.ops.llamawad.zones_show(colours=True))[1],
    "llamawad.strat_add": lambda level, tmp: _strat_add,
    "llamawad.strat_created_at_start": lambda level, tmp: (strat(), lambda: bpy.ops.llamawad.strat_created_at_start(created=False))[1],
    "llamawad.strat_drop_to_floor": lambda level, tmp: _drop,
    "llamawad.strat_table": lambda level, tmp: lambda: bpy.ops.llamawad.strat_table(directory=str(level.parent)),
    "llamawad.check_level": lambda level, tmp: (setattr(addon_support.mesh_tiles()[0].scale, "x", 2.0), bpy.ops.llamawad.check_level)[1],
    "llamawad.problem_select": lambda level, tmp: _problem_select(),
    "llamawad.save_pages": lambda level, tmp: lambda: bpy.ops.llamawad.save_pages(directory=str(tmp / "pages")),
    "llamawad.page_from_file": lambda level, tmp: _page_from_file(tmp),
    "llamawad.test_level": lambda level, tmp: lambda: bpy.ops.llamawad.test_level(filepath=str(tmp / "test.wad")),
    "llamawad.restore_original": lambda level, tmp: _restore(level),
    "llamawad.floor_probe": lambda level, tmp: bpy.ops.llamawad.floor_probe,
    "llamawad.floor_probe_clear": lambda level, tmp: (bpy.ops.llamawad.floor_probe(), bpy.ops.llamawad.floor_probe_clear)[1],
    "llamawad.bake_light": lambda level, tmp: lambda: bpy.ops.llamawad.bake_light(whole_level=True),
    "llamawad.fit_light": lambda level, tmp: bpy.ops.llamawad.fit_light,
}


def operators() -> list[type]:
    addon_support.register_addon()
    from addon import operators

    return [cls for module in operators.modules for cls in module.classes]


def test_every_operator_that_changes_the_scene_is_marked_for_undo_and_tried():
    idnames = {cls.bl_idname: cls for cls in operators()}
    for idname, cls in idnames.items():
        if idname in CHANGES_NOTHING:
            assert "UNDO" not in cls.bl_options, idname
        else:
            assert "UNDO" in cls.bl_options, f"{idname} changes the scene but is not marked for Undo"
    assert set(CASES) | set(CHANGES_NOTHING) | NEEDS_A_WINDOW == set(idnames)


@pytest.mark.parametrize("idname", sorted(k for k, v in CASES.items() if v is not None))
def test_undo_takes_the_operator_back(idname, level, tmp_path):
    run = CASES[idname](level, tmp_path)
    undone(run)


def test_undo_takes_an_import_back(small_wad_file):
    addon_support.register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    undone(lambda: bpy.ops.import_scene.llamawad(filepath=str(small_wad_file)))
    assert not any(o.get("llamawad") for o in bpy.context.scene.objects)


def test_the_fingerprint_sees_a_change_undo_would_miss(level):
    """The test can fail: a change made after the undo step is not taken back, and the
    fingerprint tells."""
    before = fingerprint()
    addon_support.mesh_tiles()[0].location.x += 1.0
    assert fingerprint() != before
