"""Edits of a whole tile mesh in real Blender 5.0, with the tiles' collision never shown (issue
21): an applied scale takes the collision along, a move of the whole mesh in Edit Mode moves the
tile, a single vertex moved keeps the collision and says so, and Join (then Separate or a move)
keeps both tiles and their collision where the artist sees them. The written level is read the
way the game reads it: the floor test of note 001 (``llamawad.probe``) and its bytes."""

from types import SimpleNamespace

import addon_support
import bpy  # noqa: I001  (bmesh exists only once bpy is imported)
import bmesh
import llamawad
import numpy as np
import pytest
from addon_support import SPOT, floor_under, new_floor

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(base=small_wad_file.read_bytes(), out=tmp_path / "edited.wad")


def floor(wad: bytes, blender_point) -> dict | None:
    """The floor the game finds under a Blender point, dropped from that point."""
    x, y, z = blender_point
    (result,) = llamawad.probe(wad, [(x, z, -y)])
    return result["floor"]


def tile_objects():
    tiles = [o for o in bpy.context.scene.objects if o.get("llamawad") == "tile" and o.type == "MESH"]
    return sorted(tiles, key=lambda o: o.name)


def select_only(*objects, active=None):
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    for o in objects:
        o.select_set(True)
    bpy.context.view_layer.objects.active = active or objects[-1]


# Where on a tile its floor is sampled: this far from its origin across, Blender x and y.
OFFSET = np.array([0.2, 0.2, 0.0])


def own_floor(base: bytes, obj, raised: float = 0.0):
    """The height of the tile's own floor at OFFSET from its origin, or None when the floor test
    finds another tile's there or the floor lies less than ``raised`` above the origin."""
    point = np.array(obj.location) + OFFSET
    found = floor(base, point + (0.0, 0.0, 5.0))
    if found is None or found["tile"] != obj["tile"] or found["height"] - obj.location.z < raised:
        return None
    return found["height"]


def test_an_applied_scale_takes_the_collision_along_never_shown(level):
    # Scaled 1.5 about its origin: the floor at OFFSET moves to 1.5·OFFSET, and a floor above
    # the origin rises by half its height above it. Before issue 21 the llama stood on the old
    # floor unless collision had been shown.
    def expected(obj, h0):
        origin = np.array(obj.location)
        point = origin + 1.5 * OFFSET
        return point, origin[2] + 1.5 * (h0 - origin[2])

    candidates = []
    for obj in tile_objects():
        h0 = own_floor(level.base, obj, raised=0.1)
        if h0 is None:
            continue
        point, height = expected(obj, h0)
        # Nothing else within the floor test's reach there, so only the scaled floor can win.
        other = floor(level.base, point + (0, 0, height - point[2] + 0.1))
        if other is None or other["height"] < height - 0.01:
            candidates.append((obj, h0))
    assert candidates, "a tile with a floor above its origin"
    obj, h0 = candidates[0]
    select_only(obj)
    obj.scale = (1.5, 1.5, 1.5)
    assert bpy.ops.object.transform_apply(location=False, rotation=False, scale=True) == {"FINISHED"}
    assert not bpy.context.scene.llamawad.tile_collision_made
    wad = addon_support.export(level.out)
    point, height = expected(obj, h0)
    found = floor(wad, (point[0], point[1], height + 0.1))
    assert found is not None and found["height"] == pytest.approx(height, abs=0.002), (found, height)
    rows = [c.text for c in bpy.context.scene.llamawad.changes]
    assert any(r.startswith(f"tile {obj['tile']}:") and "collision scaled, turned or moved with its faces" in r for r in rows), rows


def edit_vertices(obj, move):
    """Moves vertices of ``obj`` in Edit Mode: ``move(bm)`` on its bmesh."""
    select_only(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(obj.data)
    move(bm)
    bmesh.update_edit_mesh(obj.data)
    bpy.ops.object.mode_set(mode="OBJECT")


def test_the_whole_mesh_moved_in_edit_mode_is_the_tile_moved(level):
    obj = next(o for o in tile_objects() if own_floor(level.base, o) is not None)
    h0 = own_floor(level.base, obj)
    index = int(obj["tile"])
    shift = (2.0, -1.0, 0.5)

    def move(bm):
        for v in bm.verts:
            v.co += type(v.co)(shift)

    edit_vertices(obj, move)
    wad = addon_support.export(level.out)
    diff = addon_support.level_diff(addon_support.level_state(level.base), addon_support.level_state(wad))
    assert diff.get("placement") == [index], diff
    assert llamawad.tile_models(wad)[index] == llamawad.tile_models(level.base)[index], "the tile keeps its model"
    found = floor(wad, np.array(obj.location) + OFFSET + shift + (0, 0, 0.1))
    assert found is not None and found["height"] == pytest.approx(h0 + shift[2], abs=0.002)


def test_a_vertex_moved_keeps_the_collision_and_says_so(level):
    obj = tile_objects()[0]
    index = int(obj["tile"])

    def move(bm):
        bm.verts.ensure_lookup_table()
        bm.verts[0].co.z += 0.3

    edit_vertices(obj, move)
    addon_support.export(level.out)
    rows = [c.text for c in bpy.context.scene.llamawad.changes]
    row = next(r for r in rows if r.startswith(f"tile {index}:"))
    assert "vertices moved one by one" in row and "its collision stays where it was" in row, row
    assert "Collision from Faces" in row


def two_tiles_with_floors(base: bytes):
    objs = [o for o in tile_objects() if own_floor(base, o) is not None]
    return objs[0], objs[len(objs) // 2]


@pytest.mark.parametrize("shown", [False, True])
def test_two_tiles_joined_come_back_as_they_were(small_wad_file, tmp_path, shown):
    assert addon_support.import_level(small_wad_file, collision=shown) == {"FINISHED"}
    base = small_wad_file.read_bytes()
    a, b = two_tiles_with_floors(base)
    select_only(a, b, active=b)
    assert bpy.ops.object.join() == {"FINISHED"}
    wad = addon_support.export(tmp_path / "joined.wad")
    assert wad == base, [c.text for c in bpy.context.scene.llamawad.changes]


def test_two_tiles_joined_and_moved_move_with_their_floors(level):
    a, b = two_tiles_with_floors(level.base)
    points = {int(o["tile"]): (np.array(o.location) + OFFSET, own_floor(level.base, o)) for o in (a, b)}
    select_only(a, b, active=b)
    assert bpy.ops.object.join() == {"FINISHED"}
    shift = np.array([1.0, -1.0, 0.25])
    b.location += type(b.location)(shift)
    wad = addon_support.export(level.out)
    diff = addon_support.level_diff(addon_support.level_state(level.base), addon_support.level_state(wad))
    assert sorted(diff.get("placement", [])) == sorted(points), diff
    for tile, (point, height) in points.items():
        found = floor(wad, point + shift + (0, 0, height - point[2] + 0.1))
        assert found is not None and found["height"] == pytest.approx(height + shift[2], abs=0.002), (tile, found)


def test_joined_then_separated_tiles_are_what_they_were(level):
    a, b = two_tiles_with_floors(level.base)
    joined_in = int(a["tile"])
    select_only(a, b, active=b)
    assert bpy.ops.object.join() == {"FINISHED"}
    # The faces that were a's, separated again: the piece has b's properties.
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="DESELECT")
    bm = bmesh.from_edit_mesh(b.data)
    tile = bm.faces.layers.int["wad_tile"]
    for face in bm.faces:
        face.select_set(face[tile] == joined_in + 1)
    bmesh.update_edit_mesh(b.data)
    assert bpy.ops.mesh.separate(type="SELECTED") == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    pieces = [o for o in bpy.context.scene.objects if o.get("tile") == b["tile"]]
    assert len(pieces) == 2
    wad = addon_support.export(level.out)
    assert wad == level.base, [c.text for c in bpy.context.scene.llamawad.changes]


def test_a_shared_models_collision_edited_is_said_once_and_true(small_wad_file, tmp_path):
    # Tiles of one model share its collision mesh: one edit changes them all, and the report
    # says so once (it said, for each of them, that it split off and the others kept the model).
    assert addon_support.import_level(small_wad_file, collision=True) == {"FINISHED"}
    collisions = [o for o in bpy.context.scene.objects if o.get("llamawad") == "collision"]
    by_mesh = {}
    for o in collisions:
        by_mesh.setdefault(o.data.name, []).append(o)
    shared = max(by_mesh.values(), key=len)
    assert len(shared) >= 2
    material = shared[0].data.attributes["wad_material"].data
    material[0].value = 16 if material[0].value != 16 else 0
    addon_support.export(tmp_path / "shared.wad")
    tiles = sorted(int(o.parent["tile"]) for o in shared)
    lines = [c.text for c in bpy.context.scene.llamawad.changes]
    model_lines = [line for line in lines if line.startswith("model ")]
    assert len(model_lines) == 1 and f"all {len(tiles)} tiles that shared it have model" in model_lines[0], lines
    for t in tiles:
        assert f"tile {t}: reshaped: collision changed" in lines, lines


def scene_state() -> dict:
    """The level's objects as comparable data: each tile, strat and object model by name with its
    numbers, placement and mesh; the Zones mesh; the scene's level document."""
    def mesh_of(obj):
        if obj.type != "MESH":
            return None
        co = np.empty(3 * len(obj.data.vertices), np.float32)
        obj.data.vertices.foreach_get("co", co)
        attrs = {a.name: tuple(v.value for v in a.data) for a in obj.data.attributes if a.name.startswith("wad_")}
        names = tuple(sorted((a.name, a.domain, a.data_type) for a in obj.data.attributes if not a.name.startswith(".")))
        return (tuple(np.round(co, 4)), len(obj.data.polygons), tuple(sorted(attrs.items())), names, tuple(m.name for m in obj.data.materials))

    out = {}
    for obj in bpy.context.scene.objects:
        role = obj.get("llamawad")
        if role in ("tile", "collision", "strat", "object_model", "zones"):
            props = {k: v for k, v in obj.items() if isinstance(v, (int, float, str))}
            out[obj.name] = (role, tuple(sorted(props.items())), tuple(np.round(obj.matrix_basis, 4).ravel()), mesh_of(obj))
    out["document"] = bpy.context.scene.llamawad.level_json
    return out


def assert_the_scene_is_a_fresh_import(base, shown: bool) -> None:
    """The scene equals what an import of ``base`` (with the tiles' collision objects when
    ``shown``) makes, object for object."""
    updated = scene_state()
    assert addon_support.import_level(base, collision=shown) == {"FINISHED"}
    imported = scene_state()
    assert sorted(updated) == sorted(imported)
    for name in imported:
        assert updated[name] == imported[name], name


@pytest.mark.parametrize("shown", [False, True])
def test_written_over_its_base_the_scene_is_what_an_import_of_the_level_makes(small_wad_file, tmp_path, shown):
    # The scene after an export over the base is remade only where the export changed it: it
    # must equal a fresh import of what was written, object for object (with the tiles'
    # collision objects when they were made).
    base = tmp_path / "base.wad"
    base.write_bytes(small_wad_file.read_bytes())
    assert addon_support.import_level(base, collision=shown) == {"FINISHED"}
    tiles = tile_objects()
    tiles[3].location.z += 0.5
    select_only(tiles[7])
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    bpy.context.view_layer.objects.active.location.x += 1.0
    select_only(tiles[9], tiles[12], active=tiles[12])
    assert bpy.ops.object.join() == {"FINISHED"}
    tiles[12].location.y -= 1.0
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert_the_scene_is_a_fresh_import(base, shown)


@pytest.mark.parametrize("shown", [False, True])
def test_written_over_its_base_moved_tiles_keep_their_objects(small_wad_file, tmp_path, shown):
    # Tiles only moved or turned keep their objects and meshes, and the Zones object its own:
    # an object made or removed costs Blender a rebuild of its dependency graph, as long as the
    # export itself on a full level (issue 21's (d)). The scene still equals a fresh import of
    # what was written.
    base = tmp_path / "base.wad"
    base.write_bytes(small_wad_file.read_bytes())
    assert addon_support.import_level(base, collision=shown) == {"FINISHED"}
    tiles = tile_objects()
    tiles[3].location.z += 0.5
    tiles[5].location.z -= 0.25
    tiles[5].rotation_euler.z += np.pi
    tiles[8].rotation_mode = "QUATERNION"
    tiles[8].location.z += 0.125
    moved = sorted(int(tiles[k]["tile"]) for k in (3, 5, 8))
    turned = int(tiles[5]["tile"])
    original = base.read_bytes()
    objects = scene_objects()
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    rows = [c.text for c in bpy.context.scene.llamawad.changes]
    assert any(r.startswith(f"tile {turned}: moved") for r in rows), rows
    assert scene_objects() == objects
    assert_kept_objects_are_the_written_level(base, original, moved)
    assert_the_scene_is_a_fresh_import(base, shown)


def scene_objects() -> dict:
    return {o.name: (o.as_pointer(), o.data.as_pointer() if o.data else None) for o in bpy.context.scene.objects}


def assert_kept_objects_are_the_written_level(base, original: bytes, moved: list[int]) -> None:
    """The level written over ``base`` changed only the placement of the ``moved`` tiles and has
    no error ``original`` has not, and the scene that kept their objects exports it again byte
    for byte."""
    written = base.read_bytes()
    addon_support.assert_no_new_errors(written, original)
    diff = addon_support.level_diff(addon_support.level_state(original), addon_support.level_state(written))
    assert diff == {"placement": moved}, diff
    assert addon_support.export(base.with_name("again.wad")) == written


def test_written_over_its_base_a_tile_without_collision_turned_by_an_odd_angle_keeps_its_object(level, tmp_path):
    # A level our generator does not make: a tile whose model has no collision (written from a
    # new mesh marked "No collision"), then turned by 37° and raised over its base. It keeps its
    # object; the game finds no floor of it, and reads its turn as written.
    plinth, height = new_floor(level.base, "plinth")
    plinth.llamawad_no_collision = True
    base = tmp_path / "base.wad"
    base.write_bytes(addon_support.export(level.out))
    assert addon_support.import_level(base) == {"FINISHED"}
    (tile,) = [o for o in addon_support.mesh_tiles() if o.get("collision_polygons") == 0]
    number = int(tile["tile"])
    tile.rotation_euler.z += np.radians(37.0)
    tile.location.z += 0.25
    original = base.read_bytes()
    objects = scene_objects()
    assert bpy.ops.export_scene.llamawad(filepath=str(base), overwrite_base=True) == {"FINISHED"}
    assert scene_objects() == objects
    assert_kept_objects_are_the_written_level(base, original, [number])
    written = base.read_bytes()
    found = floor_under(written, *SPOT, height + 1.0)
    assert found is None or found["tile"] != number, found
    before, after = (addon_support.level_state(w)["tiles"][number]["placement"][1] for w in (original, written))
    assert after != before
    assert_the_scene_is_a_fresh_import(base, False)
