"""Every operator of the add-on in real Blender 5.0, driven the way a script (or the panel) drives
it; each edit is exported and the written WAD compared with the base by content
(addon_support.level_state): exactly the intended change, nothing else."""

from collections import Counter
from types import SimpleNamespace

import addon_support
import bpy  # noqa: I001  (bmesh exists only once bpy is imported)
import bmesh
import numpy as np
import pytest
from addon.common import game

pytestmark = pytest.mark.generator


@pytest.fixture(scope="module")
def base(small_wad_file):
    return SimpleNamespace(path=small_wad_file, state=addon_support.level_state(small_wad_file.read_bytes()))


@pytest.fixture
def level(base, tmp_path):
    assert addon_support.import_level(base.path) == {"FINISHED"}
    out = tmp_path / "edited.wad"

    def export():
        assert bpy.ops.export_scene.llamawad(filepath=str(out)) == {"FINISHED"}
        return addon_support.level_state(out.read_bytes())

    return SimpleNamespace(base=base, out=out, export=export)


def ints(mesh, name):
    values = np.empty(len(mesh.polygons), np.int32)
    mesh.attributes[name].data.foreach_get("value", values)
    return values


def faces_by_corners(state, tile):
    """Render faces of a tile keyed by their corners: (flags, entry)."""
    return {f[2]: (f[0], f[1]) for f in state["tiles"][tile]["faces"]}


def a_tile_with(pred):
    return next(o for o in addon_support.mesh_tiles() if pred(o))


# --- collision


def collision_tile():
    """A tile whose collision mesh has at least three polygons and is shared with another tile;
    the collision shown (it starts hidden), as an artist would before editing it."""
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    for tile in addon_support.mesh_tiles():
        col = next((c for c in tile.children if c.get("llamawad") == "collision"), None)
        if col is not None and len(col.data.polygons) >= 3 and col.data.users > 1:
            return tile, col
    raise AssertionError("no tile with shared collision in the sample")


def test_collision_material(level):
    tile, col = collision_tile()
    old = ints(col.data, "wad_material")
    faces = [0, 2]
    new = 30 if old[0] != 30 else 16
    addon_support.select_faces(col, faces)
    assert bpy.ops.llamawad.collision_material_set(material=new) == {"FINISHED"}
    # This tile only: its collision became its own; the shared mesh is unchanged.
    assert col.data.users == 1
    got = ints(col.data, "wad_material")
    assert list(got[faces]) == [new, new] and (got[[1]] == old[[1]]).all()
    colour = np.empty(len(col.data.loops) * 4, np.float32)
    col.data.color_attributes["Col"].data.foreach_get("color", colour)
    loop = col.data.polygons[0].loop_start
    np.testing.assert_allclose(colour.reshape(-1, 4)[loop, :3], game.collision_colour(new))

    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"collision": [i]}
    before_polys = Counter(level.base.state["tiles"][i]["collision"])
    after_polys = Counter(after["tiles"][i]["collision"])
    removed, added = before_polys - after_polys, after_polys - before_polys
    assert sum(removed.values()) == sum(added.values()) == 2
    # The same polygons (shape, kind, group), only the material changed.
    assert Counter(p[1:] for p in removed.elements()) == Counter(p[1:] for p in added.elements())
    assert {p[0] for p in added} == {new}


def test_collision_material_whole_model(level):
    tile, col = collision_tile()
    users = [o for o in bpy.context.scene.objects if o.get("llamawad") == "collision" and o.data == col.data]
    addon_support.select_faces(col, [1])
    assert bpy.ops.llamawad.collision_material_set(material=17, whole_model=True) == {"FINISHED"}
    after = level.export()
    assert addon_support.level_diff(level.base.state, after) == {"collision": sorted(o["tile"] for o in users)}


def test_collision_select_and_show(level):
    coll = next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "collision")
    # After import the collision is hidden in the viewport and never renders.
    assert coll.hide_viewport and coll.hide_render and not bpy.context.scene.llamawad.show_collision
    tile, col = collision_tile()
    material = ints(col.data, "wad_material")
    addon_support.select_faces(col, [])
    assert bpy.ops.llamawad.collision_select_material(material=int(material[0])) == {"FINISHED"}
    sel = np.zeros(len(col.data.polygons), bool)
    col.data.polygons.foreach_get("select", sel)
    np.testing.assert_array_equal(sel, material == material[0])

    assert bpy.ops.llamawad.collision_show(show=True, colour_by_material=True) == {"FINISHED"}
    assert not coll.hide_viewport and coll.hide_render
    assert bpy.context.scene.llamawad.show_collision
    assert bpy.ops.llamawad.collision_show(show=False) == {"FINISHED"}
    assert coll.hide_viewport


def test_collision_from_faces(level):
    """On a tile whose collision import left for later: the model's polygons are kept, the new
    ones added."""
    with_collision = addon_support.tiles_with_collision(level.base.path.read_bytes())
    tile = a_tile_with(lambda o: len(o.data.polygons) >= 4 and o["tile"] in with_collision)
    assert not bpy.context.scene.llamawad.tile_collision_made
    assert not [c for c in tile.children if c.get("llamawad") == "collision"]
    before = len(level.base.state["tiles"][tile["tile"]]["collision"])
    # Two upward render faces of the tile.
    normals = np.array([p.normal for p in tile.data.polygons])
    up = list(np.nonzero(normals[:, 2] > 0.9)[0][:2])
    assert len(up) == 2
    addon_support.select_faces(tile, up)
    corners = {tuple(round(float(v), 3) for v in (c.x, c.z, -c.y)) for f in up for c in (tile.data.vertices[v].co for v in tile.data.polygons[f].vertices)}
    assert bpy.ops.llamawad.collision_from_faces(material=16) == {"FINISHED"}
    col = next(c for c in tile.children if c.get("llamawad") == "collision")
    assert len(col.data.polygons) == before + 2
    assert list(ints(col.data, "wad_polygon")[-2:]) == [-1, -1]
    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"collision": [i]}
    assert Counter(level.base.state["tiles"][i]["collision"]) - Counter(after["tiles"][i]["collision"]) == Counter()
    added = Counter(after["tiles"][i]["collision"]) - Counter(level.base.state["tiles"][i]["collision"])
    # The two triangles arrive as collision of material 16 over the same corners (two triangles,
    # or one quad where they make a flat convex one).
    assert {p[0] for p in added} == {16} and 1 <= sum(added.values()) <= 2
    assert {c for p in added for c in p[3]} == corners


def test_show_collision_without_the_base_says_so_and_makes_nothing(base, tmp_path):
    """The tiles' collision objects come from the base WAD: gone, Show collision says which
    file, makes nothing and leaves the collision hidden."""
    copy = tmp_path / "gone.wad"
    copy.write_bytes(base.path.read_bytes())
    assert addon_support.import_level(copy) == {"FINISHED"}
    copy.unlink()
    with pytest.raises(RuntimeError, match="Collision not shown.*gone.wad"):
        bpy.ops.llamawad.collision_show(show=True)
    scene = bpy.context.scene
    # Set as a property (what the panel's checkbox does), it falls back to hidden.
    scene.llamawad.show_collision = True
    assert not scene.llamawad.tile_collision_made and not scene.llamawad.show_collision
    assert not [o for o in scene.objects if o.get("llamawad") == "collision"]
    coll = next(c for c in scene.collection.children if c.get("llamawad") == "collision")
    assert coll.hide_viewport


# --- faces


def test_face_flag(level):
    tile = a_tile_with(lambda o: len(o.data.polygons) >= 3 and not (ints(o.data, "wad_flags")[:2] & game.FACE_DOUBLE_SIDED).any())
    addon_support.select_faces(tile, [0, 1])
    assert bpy.ops.llamawad.face_flag_set(flag=game.FACE_DOUBLE_SIDED, state="ON") == {"FINISHED"}
    flags = ints(tile.data, "wad_flags")
    assert (flags[:2] & game.FACE_DOUBLE_SIDED).all()
    # The faces' material follows: the double-sided one of their page.
    for f in (0, 1):
        mat = tile.data.materials[tile.data.polygons[f].material_index]
        assert mat.name.endswith("double-sided") and not mat.use_backface_culling
    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"faces": [i]}
    before, now = faces_by_corners(level.base.state, i), faces_by_corners(after, i)
    assert before.keys() == now.keys()
    changed = {k for k in before if before[k] != now[k]}
    assert len(changed) == 2
    for k in changed:
        assert now[k] == (before[k][0] | game.FACE_DOUBLE_SIDED, before[k][1])


def test_face_flag_in_edit_mode_and_colours(level):
    tile = a_tile_with(lambda o: "wad_rgb_0" in o.data.attributes and len(o.data.polygons) >= 2)
    addon_support.select_faces(tile, [])
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(tile.data)
    bm.faces.ensure_lookup_table()
    for f in bm.faces:
        f.select_set(f.index == 1)
    bmesh.update_edit_mesh(tile.data)
    assert bpy.ops.llamawad.face_flag_set(flag=game.FACE_IGNORE_COLOURS, state="ON") == {"FINISHED"}
    assert tile.mode == "EDIT"
    bpy.ops.object.mode_set(mode="OBJECT")
    flags = ints(tile.data, "wad_flags")
    assert flags[1] & game.FACE_IGNORE_COLOURS and not flags[0] & game.FACE_IGNORE_COLOURS
    # The game draws the face white: so does Blender.
    colour = np.empty(len(tile.data.loops) * 4, np.float32)
    tile.data.color_attributes["Col"].data.foreach_get("color", colour)
    start = tile.data.polygons[1].loop_start
    np.testing.assert_array_equal(colour.reshape(-1, 4)[start : start + 3], 1.0)
    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"faces": [i]}
    # Clearing the flag again gives back the base.
    addon_support.select_faces(tile, [1])
    assert bpy.ops.llamawad.face_flag_set(flag=game.FACE_IGNORE_COLOURS, state="OFF") == {"FINISHED"}
    assert addon_support.level_diff(level.base.state, level.export()) == {}
    assert level.out.read_bytes() == level.base.path.read_bytes()


def test_face_texture_and_half(level):
    entries = addon_support.level_document()["texture_entries"]
    tile = a_tile_with(lambda o: len(o.data.polygons) >= 2)
    textures = ints(tile.data, "wad_texture")
    page = next(k for k, e in enumerate(entries) if not game.is_flat_colour(e) and k != textures[0])
    addon_support.select_faces(tile, [0])
    assert bpy.ops.llamawad.face_texture_set(entry=page) == {"FINISHED"}
    assert bpy.ops.llamawad.face_uv_half_set(half="SECOND") == {"FINISHED"}
    flags = ints(tile.data, "wad_flags")
    assert ints(tile.data, "wad_texture")[0] == page
    assert flags[0] & (game.FACE_QUAD_HALF | game.FACE_SECOND_HALF) == game.FACE_QUAD_HALF | game.FACE_SECOND_HALF
    # The UVs show the rule's half of the new rectangle right away.
    uv = np.empty(len(tile.data.loops) * 2, np.float32)
    tile.data.uv_layers["UVMap"].uv.foreach_get("vector", uv)
    expected, _ = game.face_uvs(entries, [page], [flags[0]])
    expected[..., 1] = 1 - expected[..., 1]
    np.testing.assert_allclose(uv.reshape(-1, 2)[:3], expected[0], atol=1e-6)
    mat = tile.data.materials[tile.data.polygons[0].material_index]
    assert mat.get("llamawad_material") == game.blender_material_name(entries[page], bool(flags[0] & game.FACE_DOUBLE_SIDED))

    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"faces": [i]}
    before, now = faces_by_corners(level.base.state, i), faces_by_corners(after, i)
    changed = {k for k in before if before[k] != now.get(k)}
    assert len(changed) == 1
    (k,) = changed
    assert now[k][1] == page and now[k][0] & game.FACE_SECOND_HALF


def test_face_select_texture(level):
    tile = a_tile_with(lambda o: len(o.data.polygons) >= 2)
    textures = ints(tile.data, "wad_texture")
    addon_support.select_faces(tile, [])
    assert bpy.ops.llamawad.face_select_texture(entry=int(textures[0])) == {"FINISHED"}
    sel = np.zeros(len(tile.data.polygons), bool)
    tile.data.polygons.foreach_get("select", sel)
    np.testing.assert_array_equal(sel, textures == textures[0])


def test_unknown_entry_is_refused(level):
    tile = a_tile_with(lambda o: len(o.data.polygons) >= 1)
    addon_support.select_faces(tile, [0])
    with pytest.raises(RuntimeError, match="does not exist"):
        bpy.ops.llamawad.face_texture_set(entry=100000)


# --- zones


def test_zone_of_cells(level):
    zones = bpy.data.objects["Zones"]
    cells = ints(zones.data, "wad_cell")
    zone = ints(zones.data, "wad_zone")
    faces = [0, 1, 5]
    new = next(z for z in range(32) if z not in zone[faces])
    addon_support.select_faces(zones, faces)
    assert bpy.ops.llamawad.zone_set(zone=new) == {"FINISHED"}
    after = level.export()
    assert addon_support.level_diff(level.base.state, after) == {"cells": sorted(cells[faces].tolist())}
    assert all(after["region_grid"][c] == new for c in cells[faces])


def test_zone_visibility(level):
    regions = addon_support.level_document()["regions"]
    a, z = 2, 9
    was = game.sees(regions, a, z)
    assert bpy.ops.llamawad.zone_visibility_set(zone=a, other=z, state="TOGGLE") == {"FINISHED"}
    assert game.sees(addon_support.level_document()["regions"], a, z) != was
    after = level.export()
    assert addon_support.level_diff(level.base.state, after) == {"regions": [a]}
    assert after["regions"][a][0] == level.base.state["regions"][a][0] ^ (1 << z)


def test_zone_colours_shown(level):
    zones = bpy.data.objects["Zones"]
    assert zones.display_type == "WIRE"
    assert bpy.ops.llamawad.zones_show(colours=True) == {"FINISHED"}
    assert zones.display_type == "SOLID"
    assert bpy.ops.llamawad.zones_show(colours=False) == {"FINISHED"}
    assert zones.display_type == "WIRE"


def test_cells_visible_from_here(level):
    zones = bpy.data.objects["Zones"]
    zone = ints(zones.data, "wad_zone")
    regions = addon_support.level_document()["regions"]
    addon_support.select_faces(zones, [0])
    assert bpy.ops.llamawad.zone_select_visible() == {"FINISHED"}
    sel = np.zeros(len(zones.data.polygons), bool)
    zones.data.polygons.foreach_get("select", sel)
    seen = [z for z in range(32) if game.sees(regions, int(zone[0]), z)]
    np.testing.assert_array_equal(sel, np.isin(zone, seen))


# --- tiles


def test_moved_tile(level):
    tile = addon_support.mesh_tiles()[3]
    tile.location.x += 1.0
    tile.rotation_euler.z += np.pi / 2
    after = level.export()
    i = tile["tile"]
    assert addon_support.level_diff(level.base.state, after) == {"placement": [i]}
    (x, y, z), rotation = after["tiles"][i]["placement"]
    (x0, y0, z0), rotation0 = level.base.state["tiles"][i]["placement"]
    assert (x, y, z) == pytest.approx((x0 + 1, y0, z0))
    assert rotation == (rotation0 + 1024) % 4096


def test_new_mesh(level):
    """A new mesh in the Tiles collection, UV-mapped on a page material, becomes new tiles."""
    page_material = next(m for m in bpy.data.materials if m.get("llamawad_material", "").startswith("page ") and "double" not in m.name)
    mesh = bpy.data.meshes.new("ramp")
    bm = bmesh.new()
    corners = [bm.verts.new(c) for c in ((0, 0, 0), (0.8, 0, 0), (0.8, 0.8, 0.3), (0, 0.8, 0.3))]
    face = bm.faces.new(corners)
    uv = bm.loops.layers.uv.new("UVMap")
    for loop, (u, v) in zip(face.loops, ((0.0, 0.75), (0.25, 0.75), (0.25, 1.0), (0.0, 1.0))):
        loop[uv].uv = (u, v)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(page_material)
    obj = bpy.data.objects.new("ramp", mesh)
    obj.location = (2.1, -3.1, 0.0)  # cell (2, 3) of the grid
    tiles = next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "tiles")
    tiles.objects.link(obj)
    after = level.export()
    diff = addon_support.level_diff(level.base.state, after)
    assert list(diff) == ["added"]
    new_faces = [f for t in diff["added"] for f in after["tiles"][t]["faces"]]
    assert len(new_faces) == 2
    assert all(0 <= f[1] < 1000 for f in new_faces)


def test_duplicated_tile_is_a_new_tile(level):
    tile = addon_support.mesh_tiles()[2]
    copy = tile.copy()
    copy.data = tile.data.copy()
    tile.users_collection[0].objects.link(copy)
    copy.location.x += 1.0
    after = level.export()
    diff = addon_support.level_diff(level.base.state, after)
    assert diff == {"added": [len(level.base.state["tiles"])]}
    assert after["tiles"][diff["added"][0]]["faces"] == level.base.state["tiles"][tile["tile"]]["faces"]


# --- every operator


def operator_names() -> list[str]:
    """Every operator of the add-on, by its bpy.ops name."""
    addon_support.register_addon()
    from addon import operators

    return sorted(cls.bl_idname for module in operators.modules for cls in module.classes)


OPERATORS = operator_names()
# It only shows the last export's changes: no undo step (every other operator changes the scene
# and is one: test_addon_undo.py undoes each).
LOOKING = {"llamawad.export_changes"}


@pytest.mark.parametrize("name", OPERATORS)
def test_operators_are_undoable_and_explained(name):
    addon_support.register_addon()
    module, op = name.split(".")
    cls = getattr(bpy.types, f"{module.upper()}_OT_{op}")
    tooltip = getattr(getattr(bpy.ops, module), op).get_rna_type().description
    assert len(tooltip) > 40, tooltip
    assert ("UNDO" in cls.bl_options) == (name not in LOOKING)
    assert "REGISTER" in cls.bl_options and "INTERNAL" not in cls.bl_options  # found with F3
