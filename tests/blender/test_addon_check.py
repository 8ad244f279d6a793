"""Check level, the Floor probe and export's refusal in real Blender 5.0, driven through the
operators: the add-on keeps no rule of its own, so each result is compared with the Rust core's
(llamawad.check, llamawad.probe). The generated levels' own problems are in every list as
pre-existing; the tests look at the problems an edit makes."""

from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from addon.blender import check, probe
from addon.common import probe as words
from addon.common import problems as found
from mathutils import Vector

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(base=small_wad_file, data=small_wad_file.read_bytes(), out=tmp_path / "out.wad")


def llama():
    return next(o for o in bpy.context.scene.objects if o.get("llamawad") == "strat" and o.get("type_name") == "Llama")


def game_position(strat) -> tuple[float, float, float]:
    return tuple(v / 4096 for v in strat["position"])


def new_problems():
    return [p for p in bpy.context.scene.llamawad.problems if not p.pre_existing]


def selected_faces(obj) -> list[int]:
    """The faces selected on ``obj`` (selecting a culprit enters edit mode where there is a
    window, as bpy's has: leave it to read the mesh)."""
    if bpy.context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    selected = np.zeros(len(obj.data.polygons), bool)
    obj.data.polygons.foreach_get("select", selected)
    return np.nonzero(selected)[0].tolist()


def face_values(obj, name) -> np.ndarray:
    values = np.empty(len(obj.data.polygons), np.int32)
    obj.data.attributes[name].data.foreach_get("value", values)
    return values


def delete_the_floor_under_the_llama(data: bytes) -> list[str]:
    """Deletes every tile (and its collision) whose polygon the floor test passes at the Llama's
    start, as the Rust test of the refusal does; returns their names."""
    start = llamawad.probe(data, [game_position(llama())])[0]
    under = {c["tile"] for c in start["candidates"] if c["passed"] and not c["above"]}
    assert under
    names = []
    for t in under:
        tile = addon_support.tile_object(t)
        names.append(tile.name)
        for obj in [*tile.children, tile]:
            bpy.data.objects.remove(obj)
    return names


@pytest.mark.parametrize("made", [False, True], ids=["collision-not-made", "collision-made"])
def test_a_tile_moved_off_centre_passes_the_check(level, made):
    """With its collision object or before it is made: either way the tile's collision moves
    with it."""
    scene = bpy.context.scene
    if made:
        assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    with_collision = addon_support.tiles_with_collision(level.data)
    tile = next(o for o in addon_support.mesh_tiles() if o["tile"] in with_collision and 3 < o.location.x < 10)
    # Game (+0.3, +0.7): Blender's y is the game's −z.
    tile.location += Vector((0.3, -0.7, 0.0))
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    assert scene.llamawad.checked
    assert [p.message for p in new_problems() if p.error] == []
    # What the check saw is what export writes: the Rust check agrees on the written file.
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    # Its collision now reaches into cells it is not listed in: the conversion entered it there.
    assert len(llamawad.tile_models(level.out.read_bytes())) > len(llamawad.tile_models(level.data))
    written = llamawad.check(level.out.read_bytes(), level.data)
    assert [p for p in written["problems"] if not p["pre_existing"] and p["severity"] == "error"] == []
    assert len(scene.llamawad.problems) == len(written["problems"])
    assert sorted(p.message for p in scene.llamawad.problems) == sorted(p["message"] for p in written["problems"])


def test_a_start_without_floor_is_listed_and_clicking_selects_the_llama(level):
    scene = bpy.context.scene
    delete_the_floor_under_the_llama(level.data)
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    problems = scene.llamawad.problems
    new = new_problems()
    start = next(i for i, p in enumerate(problems) if p.code == "player-start" and p.error and not p.pre_existing)
    # New problems first, errors first among them.
    assert start < len(new) and all(p.error for p in list(problems)[:start])
    assert problems[start].object == llama().name
    # Clicking the row (the list's active index) selects the culprit; so does the button.
    scene.llamawad.problem_index = start
    assert bpy.context.view_layer.objects.active == llama()
    assert [o.name for o in bpy.context.selected_objects] == [llama().name]
    bpy.context.view_layer.objects.active = None
    assert bpy.ops.llamawad.problem_select(index=start) == {"FINISHED"}
    assert bpy.context.view_layer.objects.active == llama()


def test_a_culprit_among_the_tiles_without_faces_is_included_and_selected(level):
    """Tiles without faces start excluded from the view layer, where nothing can be selected:
    selecting one as a culprit includes their collection first, and Tiles if the artist
    excluded it too."""
    from addon.blender.faces import select_culprit

    tile = bpy.data.collections["Tiles without faces"].objects[0]
    bpy.context.view_layer.layer_collection.children["Tiles"].exclude = True
    assert bpy.context.view_layer.objects.get(tile.name) is None
    assert select_culprit(bpy.context, tile.name, []) == tile
    assert bpy.context.view_layer.objects.active == tile
    assert [o.name for o in bpy.context.selected_objects] == [tile.name]


def test_export_of_a_broken_scene_writes_nothing_and_selects_the_culprit(level):
    delete_the_floor_under_the_llama(level.data)
    with pytest.raises(RuntimeError, match="Not written") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    # Every problem of the refusal is in the Level panel's list, the first one's culprit selected.
    problems = bpy.context.scene.llamawad.problems
    assert len(problems) >= 1 and all(p.error and not p.pre_existing for p in problems)
    assert any(p.code == "player-start" and p.object == llama().name for p in problems)
    assert problems[0].object and bpy.context.view_layer.objects.active.name == problems[0].object
    assert f"(selected: {problems[0].object}" in str(error.value)
    assert problems[0].message in str(error.value)


def test_a_refused_gltf_is_listed_with_its_faces(level):
    scene = bpy.context.scene
    mesh = next(o for o in addon_support.mesh_tiles() if len(o.data.polygons) >= 3)
    textures = np.empty(len(mesh.data.polygons), np.int32)
    mesh.data.attributes["wad_texture"].data.foreach_get("value", textures)
    textures[[0, 2]] = 5000
    mesh.data.attributes["wad_texture"].data.foreach_set("value", textures)
    files = set(level.base.parent.iterdir())
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    assert set(level.base.parent.iterdir()) == files
    problems = scene.llamawad.problems
    assert len(problems) == 1 and problems[0].error and "texture entry 5000" in problems[0].message
    assert problems[0].object == mesh.name
    assert bpy.ops.llamawad.problem_select(index=0) == {"FINISHED"}
    assert bpy.context.view_layer.objects.active == mesh
    assert selected_faces(mesh) == [0, 2]


def test_a_mesh_outside_the_tiles_collection_is_checked_and_one_excluded_is_a_warning(level):
    """A mesh in the Scene Collection is part of the level like one in Tiles (here refused: it has
    no page material); in a collection excluded from the view layer it is left out, a warning."""
    scene = bpy.context.scene
    mesh = bpy.data.meshes.new("stray")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    stray = bpy.data.objects.new("stray", mesh)
    scene.collection.objects.link(stray)
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    (p,) = scene.llamawad.problems
    assert p.object == "stray" and p.error and "no material that says its page" in p.message
    aside = bpy.data.collections.new("Aside")
    scene.collection.children.link(aside)
    scene.collection.objects.unlink(stray)
    aside.objects.link(stray)
    bpy.context.view_layer.layer_collection.children["Aside"].exclude = True
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    (p,) = scene.llamawad.problems
    assert p.code == "left-out" and p.object == "stray" and not p.error and not p.pre_existing
    assert "excluded from the view layer: left out of the level" in p.message


def test_problems_of_polygons_faces_and_cells_select_those_faces(level):
    """The culprits the Rust check names (a tile's polygon, a model's face, a cell) become the
    faces of the collision object, the tile object and the Zones mesh that hold them."""
    scene = bpy.context.scene
    assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
    index = check.scene_index(scene, tile_models=lambda: llamawad.tile_models(level.data))
    tile = next(o for o in addon_support.mesh_tiles() if index.collision.get(o.name))
    collision = scene.objects[index.collision[tile.name]]
    polygons = face_values(collision, "wad_polygon")
    polygon = int(polygons[-1])
    face = int(face_values(tile, "wad_face")[1])
    width = int(addon_support.level_document()["grid"][0])
    zones = level_scene_zones()
    cell = int(face_values(zones, "wad_cell")[5])
    made = [
        {**found.problem("coverage", "error", "polygon"), "tile": tile["tile"], "model": tile["model"], "polygon": polygon},
        {**found.problem("face-plane", "warning", "face"), "model": tile["model"], "face": face},
        {**found.problem("visible-zone", "warning", "cell"), "cell": [cell % width, cell // width]},
    ]
    check.store(scene.llamawad, check.locate_all(made, index))
    assert bpy.ops.llamawad.problem_select(index=0) == {"FINISHED"}
    assert bpy.context.view_layer.objects.active == collision
    assert selected_faces(collision) == np.nonzero(polygons == polygon)[0].tolist()
    # A model's face: the first tile of the scene using that model, with that face of the model.
    assert bpy.ops.llamawad.problem_select(index=1) == {"FINISHED"}
    user = bpy.context.view_layer.objects.active
    assert user.get("llamawad") == "tile" and user["model"] == tile["model"]
    faces = selected_faces(user)
    assert faces and faces == np.nonzero(face_values(user, "wad_face") == face)[0].tolist()
    assert bpy.ops.llamawad.problem_select(index=2) == {"FINISHED"}
    assert bpy.context.view_layer.objects.active == zones
    assert selected_faces(zones) == np.nonzero(face_values(zones, "wad_cell") == cell)[0].tolist() == [5]


def test_a_problem_naming_a_collision_polygon_makes_the_tiles_collision(level):
    """Before the tiles' collision objects are made, a problem naming a tile's polygon has them
    made, so that it points at that polygon's faces rather than at the tile."""
    scene = bpy.context.scene
    assert not scene.llamawad.tile_collision_made
    tile = addon_support.tile_object(min(addon_support.tiles_with_collision(level.data)))
    problem = {**found.problem("collision-normal", "warning", "polygon"), "tile": tile["tile"], "model": tile["model"], "polygon": 0}
    assert check.locate_all([problem], check.scene_index(scene))[0]["target"].object == tile.name
    check.make_collision_for(bpy.context, [problem])
    assert scene.llamawad.tile_collision_made
    target = check.locate_all([problem], check.scene_index(scene))[0]["target"]
    collision = scene.objects[target.object]
    assert collision.parent == tile and (target.attribute, target.value) == ("wad_polygon", 0)


def level_scene_zones():
    from addon.blender import scene as level_scene

    return level_scene.zones_object(bpy.context.scene)


def test_floor_probe_at_the_llamas_start_is_the_engines(level):
    scene = bpy.context.scene
    scene.cursor.location = llama().location
    assert bpy.ops.llamawad.floor_probe() == {"FINISHED"}
    result = probe.stored(scene)
    expected = llamawad.probe(level.data, [_game(scene.cursor.location)])[0]
    assert result["floor"] == expected["floor"] and result["floor"] is not None
    assert result["candidates"] == expected["candidates"]
    assert result["source"] == "the scene"
    floor = result["floor"]
    assert result["objects"][floor["tile"]] == addon_support.tile_object(floor["tile"]).name
    rows = words.describe(result, result["objects"])
    assert rows[1].text.startswith(f"Floor: height {floor['height']:.4f}")
    # What the viewport draws: the polygon and its tolerance zone around the probe point.
    drawn = words.drawing(result)
    assert 3 <= len(drawn["floor"]) == len(drawn["zone"]) <= 4
    assert drawn["point"] == pytest.approx(tuple(scene.cursor.location), abs=1e-4)
    heights = [c[2] for c in drawn["floor"]]
    assert min(heights) - 1e-3 <= floor["height"] <= max(heights) + 1e-3
    # The same at a given location.
    assert bpy.ops.llamawad.floor_probe(at_cursor=False, location=llama().location) == {"FINISHED"}
    assert probe.stored(scene)["floor"] == expected["floor"]
    assert bpy.ops.llamawad.floor_probe_clear() == {"FINISHED"}
    assert probe.stored(scene) is None


def _game(location) -> tuple[float, float, float]:
    x, y, z = location
    return (x, z, -y)


def test_probe_under_the_mouse_stands_on_what_the_ray_meets(level):
    above = llama().location + Vector((0.0, 0.0, 40.0))
    hit = probe.ray_hit(bpy.context, above, (0.0, 0.0, -1.0))
    assert hit is not None
    result = probe.probe_along_ray(bpy.context, probe.probed_level(bpy.context), above, (0.0, 0.0, -1.0))
    expected = llamawad.probe(level.data, [_game(hit + Vector((0.0, 0.0, probe.ABOVE_HIT)))])[0]
    assert result["floor"] == expected["floor"]
    assert result["floor"] is not None and abs(result["floor"]["height"] - hit.z) < 0.05
    # A ray that meets nothing probes nothing.
    assert probe.probe_along_ray(bpy.context, probe.probed_level(bpy.context), above, (0.0, 0.0, 1.0)) is None


def test_a_refused_scene_is_probed_as_its_base(level):
    scene = bpy.context.scene
    delete_the_floor_under_the_llama(level.data)
    scene.cursor.location = llama().location
    assert bpy.ops.llamawad.floor_probe() == {"FINISHED"}
    result = probe.stored(scene)
    assert result["source"].startswith("the base level (the scene is refused")
    assert result["floor"] == llamawad.probe(level.data, [_game(llama().location)])[0]["floor"]


def test_check_level_converts_and_checks_once(level, monkeypatch):
    """Check level asks the core once (llamawad.check_scene: one conversion, one check), not a
    conversion, then the check of the written bytes, then the tiles' models of them again; and
    lists what llamawad.check says of the level export writes."""
    calls = []
    for name in ("check_scene", "scene_to_wad", "check", "tile_models"):
        real = getattr(llamawad, name)
        monkeypatch.setattr(llamawad, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    addon_support.tile_object(3).location.x += 0.25
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    assert calls == ["check_scene"]
    monkeypatch.undo()
    assert bpy.ops.export_scene.llamawad(filepath=str(level.out)) == {"FINISHED"}
    written = llamawad.check(level.out.read_bytes(), level.data)
    listed = bpy.context.scene.llamawad.problems
    assert sorted((p.code, p.pre_existing) for p in listed) == sorted((p["code"], p["pre_existing"]) for p in written["problems"])
