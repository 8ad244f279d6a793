"""Whole-tile edits in real Blender on levels our writer did not make (issue 34): collision
written at note 001's "d ×4096", as its own tools write it, and both scales in one level. A turn
in place, a move into the next cell, a copy, a delete beside full cells, an applied scale and a
join are each exported, and the written level is read the way the game reads it: the check
against the base, the tiles by content (only the edited tile differs) and the floor test of
note 001 in every cell around the edited one."""

import math
from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator

SCALES = ("4096", "mixed")


@pytest.fixture(params=SCALES)
def level(request, tmp_path_factory, tmp_path):
    path = tmp_path_factory.mktemp("base") / f"small-2-{request.param}.wad"
    path.write_bytes(llamawad.generate(2, "small", collision_scale=request.param))
    assert addon_support.import_level(path) == {"FINISHED"}
    base = path.read_bytes()
    assert llamawad.parse_info(base)["collision_scale"]["verdict"] == request.param
    return SimpleNamespace(base=base, state=addon_support.level_state(base), out=tmp_path / "edited.wad")


def export(level) -> bytes:
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    written = level.out.read_bytes()
    addon_support.assert_no_new_errors(written, level.base)
    return written


def cell_of(obj) -> tuple[int, int]:
    """The grid cell (column, row) a tile object stands in: game x is Blender x, game z is −y."""
    return math.floor(obj.location.x), math.floor(-obj.location.y)


def around(cell) -> list[tuple[int, int]]:
    col, row = cell
    return [(col + dc, row + dr) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dc, dr) != (0, 0)]


def tile_among_full_cells(base: bytes):
    """A tile object with faces and collision, alone in its cell, whose eight neighbours each
    hold a tile with faces."""
    tiles = addon_support.mesh_tiles()
    with_collision = addon_support.tiles_with_collision(base)
    by_cell: dict[tuple[int, int], list] = {}
    for t in tiles:
        by_cell.setdefault(cell_of(t), []).append(t)
    for t in tiles:
        cell = cell_of(t)
        if t["tile"] in with_collision and len(by_cell[cell]) == 1 and all(c in by_cell for c in around(cell)):
            return t
    raise AssertionError("no tile among full cells")


def select_only(*objects) -> None:
    """Selects these objects alone, the last one active."""
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    for o in objects:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objects[-1]


def floors(wad: bytes, cells) -> list:
    """The floor test dropped at 6 × 6 points of each cell (game space), heights or None."""
    points = [
        (col + 0.05 + 0.9 * i / 5, 30.0, row + 0.05 + 0.9 * j / 5) for col, row in cells for i in range(6) for j in range(6)
    ]
    return [None if r["floor"] is None else r["floor"]["height"] for r in llamawad.probe(wad, points)]


def assert_same_floors(before: bytes, after: bytes, cells) -> None:
    a, b = floors(before, cells), floors(after, cells)
    lost = [k for k, (x, y) in enumerate(zip(a, b)) if x is not None and y is None]
    moved = [k for k, (x, y) in enumerate(zip(a, b)) if x is not None and y is not None and abs(x - y) > 1e-3]
    assert (lost, moved) == ([], []), (cells, lost, moved)


def test_a_tile_turned_in_place_changes_only_that_tile(level):
    obj = tile_among_full_cells(level.base)
    i, cell = obj["tile"], cell_of(obj)
    obj.rotation_euler.z += math.pi / 2
    written = export(level)
    assert addon_support.level_diff(level.state, addon_support.level_state(written)) == {"placement": [i]}
    before, after = llamawad.parse_info(level.base), llamawad.parse_info(written)
    assert (after["tiles"], after["models"]) == (before["tiles"], before["models"])
    assert_same_floors(level.base, written, around(cell))


def test_a_tile_moved_into_the_next_cell_keeps_the_floors_around(level):
    obj = tile_among_full_cells(level.base)
    i, cell = obj["tile"], cell_of(obj)
    obj.location.x += 1.0
    written = export(level)
    assert addon_support.level_diff(level.state, addon_support.level_state(written)) == {"placement": [i]}
    nxt = (cell[0] + 1, cell[1])
    others = [c for c in around(cell) + around(nxt) if c not in (cell, nxt)]
    assert_same_floors(level.base, written, sorted(set(others)))


def test_a_tile_deleted_beside_full_cells_changes_only_that_tile(level):
    obj = tile_among_full_cells(level.base)
    i, cell = obj["tile"], cell_of(obj)
    bpy.data.objects.remove(obj)
    written = export(level)
    diff = addon_support.level_diff(level.state, addon_support.level_state(written))
    assert set(diff) <= {"faces", "collision"} and all(v == [i] for v in diff.values()), diff
    assert llamawad.parse_info(written)["tiles"] == llamawad.parse_info(level.base)["tiles"]
    assert_same_floors(level.base, written, around(cell))


def test_a_tile_copied_is_one_tile_more_and_the_rest_as_it_was(level):
    obj = tile_among_full_cells(level.base)
    select_only(obj)
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.view_layer.objects.active
    copy.location.z += 2.0
    written = export(level)
    diff = addon_support.level_diff(level.state, addon_support.level_state(written))
    assert list(diff) == ["added"] and len(diff["added"]) >= 1, diff
    assert_same_floors(level.base, written, around(cell_of(obj)))


def test_a_tile_scaled_and_the_scale_applied_is_accepted(level):
    obj = tile_among_full_cells(level.base)
    i, cell = obj["tile"], cell_of(obj)
    select_only(obj)
    obj.scale = (0.9, 0.9, 1.0)
    assert bpy.ops.object.transform_apply(location=False, rotation=False, scale=True) == {"FINISHED"}
    written = export(level)
    diff = addon_support.level_diff(level.state, addon_support.level_state(written))
    assert set(diff) <= {"faces", "collision"} and all(v == [i] for v in diff.values()), diff
    # Shrunk towards its origin, it reaches no other cell: the cells around keep their floors.
    assert_same_floors(level.base, written, around(cell))


def test_two_tiles_joined_keep_what_they_were(level):
    obj = tile_among_full_cells(level.base)
    neighbour = next(t for t in addon_support.mesh_tiles() if cell_of(t) == (cell_of(obj)[0] + 1, cell_of(obj)[1]))
    select_only(neighbour, obj)
    assert bpy.ops.object.join() == {"FINISHED"}
    written = export(level)
    assert addon_support.level_diff(level.state, addon_support.level_state(written)) == {}
    assert np.array_equal(llamawad.tile_models(written), llamawad.tile_models(level.base))
