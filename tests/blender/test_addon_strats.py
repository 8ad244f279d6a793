"""The level's objects edited in Blender arrive in the WAD (issue 22), in real Blender through the
add-on's operators: a strat moved, turned, copied, deleted and restored, its parameters tuned, a
new one added at the 3D cursor, dropped to the floor. Each written level is read back by the Rust
core (its strat records, parameter pool, waypoints and poolExtra, ``llamawad.strats``) and
checked against its base (no new error). Expected positions are the record's own 20.12 numbers
plus the move, and the floor is the floor test's on the base, not the add-on's."""

from types import SimpleNamespace

import addon_support
import bpy
import llamawad
import pytest

pytestmark = pytest.mark.generator

ONE = 4096
NOT_CREATED_AT_START = 0x2


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    base = small_wad_file.read_bytes()
    return SimpleNamespace(path=small_wad_file, base=base, strats=llamawad.strats(base), out=tmp_path / "edited.wad", tmp=tmp_path)


def strat_object(index: int):
    """The object import made for strat ``index``."""
    (obj,) = [o for o in bpy.context.scene.objects if o.get("llamawad") == "strat" and o.get("strat") == index and "." not in o.name]
    return obj


def of_type(level, name: str) -> list[dict]:
    return [s for s in level.strats["strats"] if s["type_name"] == name]


def select_only(obj):
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def the_same_but(before: dict, after: dict, *indices: int) -> None:
    """Every strat record but ``indices`` is as it was."""
    for a, b in zip(before["strats"], after["strats"]):
        if a["index"] not in indices:
            assert a == b


def test_an_unchanged_level_is_byte_identical(level):
    assert addon_support.export(level.out) == level.base


def test_the_llama_moved_and_turned(level):
    """The Llama moved where a coin stands (a floor: the check refuses a start without one) and
    given a quarter turn about the vertical."""
    llama = of_type(level, "Llama")[0]
    coin = of_type(level, "Coin")[3]
    obj = strat_object(llama["index"])
    obj.location = strat_object(coin["index"]).location
    obj.rotation_euler.z += 3.14159265358979 / 2
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    moved = after["strats"][llama["index"]]
    assert moved["position_fixed"] == coin["position_fixed"]
    assert moved["rotation"] == (llama["rotation"][0], (llama["rotation"][1] + 1024) % 4096, llama["rotation"][2])
    the_same_but(level.strats, after, llama["index"])
    assert (after["pool_extra"], after["parameter_pool"], after["waypoints"]) == (level.strats["pool_extra"], level.strats["parameter_pool"], level.strats["waypoints"])
    addon_support.assert_no_new_errors(wad, level.base)
    assert any(c.text.startswith(f"strat {llama['index']} (") and "moved or turned" in c.text for c in bpy.context.scene.llamawad.changes)


def test_a_strat_tilted_is_refused_by_name(level):
    obj = strat_object(of_type(level, "Coin")[0]["index"])
    obj.rotation_euler.x += 0.3
    with pytest.raises(RuntimeError, match=f"Not written: {obj.name}: strat {obj['strat']} is turned about x or z"):
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    problems = bpy.context.scene.llamawad.problems
    assert problems[0].object == obj.name and "turned about x or z" in problems[0].message


def test_a_coin_copied_is_a_new_strat_of_its_own(level):
    """Shift D: a new record of the copy's type, its type fields the type's, its parameters in
    entries of its own, poolExtra one more; no strat changes its index."""
    coin5 = of_type(level, "Coin5")[1]
    select_only(strat_object(coin5["index"]))
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.active_object
    copy.location = (2.0, -3.0, 0.25)
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    n = len(level.strats["strats"])
    assert len(after["strats"]) == n + 1
    the_same_but(level.strats, after)
    new = after["strats"][n]
    assert new["type_name"] == "Coin5" and new["code_offset"] == coin5["code_offset"]
    assert new["type_fields"] == coin5["type_fields"]
    assert new["position_fixed"] == (2 * ONE, ONE // 4, 3 * ONE)
    assert new["parameters"] == coin5["parameters"] and new["parameter_index"] == level.strats["parameter_pool"]
    assert after["parameter_pool"] == level.strats["parameter_pool"] + len(coin5["parameters"])
    assert after["pool_extra"] == level.strats["pool_extra"] + 1
    assert new["waypoint"] == coin5["waypoint"] and not new["not_created_at_start"]
    addon_support.assert_no_new_errors(wad, level.base)


def test_a_deleted_coin_is_not_created_at_start_and_comes_back(level):
    """X: the record stays, flag bit 1 set; imported again it is shown in 'Not created at
    start', and restored it is the base's byte for byte."""
    coin = of_type(level, "Coin")[4]
    bpy.data.objects.remove(strat_object(coin["index"]))
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    assert len(after["strats"]) == len(level.strats["strats"])
    removed = after["strats"][coin["index"]]
    assert removed["not_created_at_start"] and removed["flags"] == coin["flags"] | NOT_CREATED_AT_START
    the_same_but(level.strats, after, coin["index"])
    addon_support.assert_no_new_errors(wad, level.base)

    assert addon_support.import_level(level.out) == {"FINISHED"}
    obj = strat_object(coin["index"])
    (coll,) = obj.users_collection
    assert coll.get("llamawad") == "strats_not_created" and coll.name == "Not created at start"
    # Shown (its eye in the Outliner), selected and restored.
    bpy.context.view_layer.layer_collection.children["Strats"].children["Not created at start"].hide_viewport = False
    select_only(obj)
    assert bpy.ops.llamawad.strat_created_at_start(created=True) == {"FINISHED"}
    assert [c.get("llamawad") for c in obj.users_collection] == ["strats"]
    assert addon_support.export(level.tmp / "restored.wad") == level.base


def test_parameters_tuned_in_the_panel_arrive_in_the_pool(level):
    """CameraSide's parameters are its own pool entries: a new value is written in place."""
    camera = of_type(level, "CameraSide")[1]
    obj = strat_object(camera["index"])
    values = list(obj["parameters"])
    assert values == camera["parameters"]
    obj["parameters"][1] = -3 * ONE  # a negative 20.12 distance, written as its two's complement
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    tuned = after["strats"][camera["index"]]
    assert tuned["parameters"] == [values[0], (1 << 32) - 3 * ONE, *values[2:]]
    assert tuned["parameter_index"] == camera["parameter_index"]
    assert after["parameter_pool"] == level.strats["parameter_pool"]
    the_same_but(level.strats, after, camera["index"])
    addon_support.assert_no_new_errors(wad, level.base)


def test_add_strat_places_a_coin_at_the_cursor(level):
    coin = next(t for t in llamawad.strats(level.base)["types"] if t["name"] == "Coin")
    bpy.context.scene.cursor.location = (5.5, -4.5, 0.25)
    assert bpy.ops.llamawad.strat_add(strat_type=str(coin["code_offset"])) == {"FINISHED"}
    assert bpy.context.active_object.get("llamawad") == "strat"
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    new = after["strats"][-1]
    assert len(after["strats"]) == len(level.strats["strats"]) + 1
    assert new["type_name"] == "Coin" and new["position_fixed"] == (round(5.5 * ONE), ONE // 4, round(4.5 * ONE))
    assert new["type_fields"] == coin["type_fields"]
    addon_support.assert_no_new_errors(wad, level.base)


def test_a_type_never_placed_cannot_be_added_and_says_why(level):
    never = next(t for t in llamawad.strats(level.base)["types"] if not t["placeable"])
    with pytest.raises(RuntimeError, match=f"{never['name']} cannot be placed in this level: never placed in this level"):
        bpy.ops.llamawad.strat_add(strat_type=str(never["code_offset"]))
    assert len([o for o in bpy.context.scene.objects if o.get("llamawad") == "strat"]) == len(level.strats["strats"])


def test_drop_to_floor_stands_the_llama_where_the_floor_test_finds_floor(level):
    llama = of_type(level, "Llama")[0]
    obj = strat_object(llama["index"])
    x, y, z = llama["position"]
    obj.location.z = y + 3.0
    select_only(obj)
    assert bpy.ops.llamawad.strat_drop_to_floor() == {"FINISHED"}
    (probe,) = llamawad.probe(level.base, [(x, y + 3.0, z)])
    assert probe["floor"] is not None
    assert obj.location.z == pytest.approx(probe["floor"]["height"], abs=1e-6)
    wad = addon_support.export(level.out)
    dropped = llamawad.strats(wad)["strats"][llama["index"]]
    assert dropped["position_fixed"][1] == round(probe["floor"]["height"] * ONE)


def copied_over_the_base(level, obj, dx: float) -> bytes:
    """``obj`` copied (Shift D), the copy moved ``dx`` along x, and the scene exported over a
    copy of the base it was imported from; the bytes written."""
    base = level.tmp / "base.wad"
    base.write_bytes(level.base)
    bpy.context.scene.llamawad.base_path = str(base)
    select_only(obj)
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    bpy.context.active_object.location.x += dx
    return addon_support.export(base, overwrite_base=True)


def test_written_over_the_base_a_copy_is_the_strat_it_became(level):
    """After an export over the base the scene is the level as written: the copy is the new
    strat, and the next export adds nothing more."""
    written = copied_over_the_base(level, strat_object(of_type(level, "Coin")[0]["index"]), 1.0)
    n = len(level.strats["strats"])
    assert len(llamawad.strats(written)["strats"]) == n + 1
    assert len([o for o in bpy.context.scene.objects if o.get("llamawad") == "strat"]) == n + 1
    assert addon_support.export(level.out) == written


def test_the_level_check_passes_after_strat_edits(level):
    strat_object(of_type(level, "Health")[0]["index"]).location.x += 0.5
    bpy.data.objects.remove(strat_object(of_type(level, "Coin")[2]["index"]))
    assert bpy.ops.llamawad.check_level() == {"FINISHED"}
    assert not [p.message for p in bpy.context.scene.llamawad.problems if p.error and not p.pre_existing]


def test_a_copy_the_check_refuses_is_the_one_selected(level):
    """A copy of the Llama put where the floor test finds no floor: the check's error is the new
    strat's, and the object named and selected is the copy, not the Llama it came from."""
    llama = strat_object(of_type(level, "Llama")[0]["index"])
    select_only(llama)
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.active_object
    copy.location = (-40.0, 40.0, 0.25)
    with pytest.raises(RuntimeError, match="where the floor test finds no floor"):
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    problem = bpy.context.scene.llamawad.problems[0]
    assert problem.error and f"strat {len(level.strats['strats'])} (Llama)" in problem.message
    assert problem.object == copy.name != llama.name
    assert bpy.context.view_layer.objects.active == copy


def waypoint_positions(wad: bytes) -> list[tuple[int, int, int]]:
    """Every waypoint's 20.12 position, as the written level's records hold them."""
    nodes = llamawad.wad_to_scene(wad)[0]["nodes"]
    found = {e["waypoint"]: tuple(e["position"]) for role, e in zip(nodes["role"], nodes["extras"]) if role == "waypoint"}
    return [found[k] for k in range(len(found))]


def waypoint_object(index: int):
    (obj,) = [o for o in bpy.context.scene.objects if o.get("llamawad") == "waypoint" and o.get("waypoint") == index]
    return obj


def test_a_waypoint_moved_arrives_and_the_chain_is_drawn_through_it(level):
    from addon.blender import strats

    camera = of_type(level, "CameraSide")[0]
    chain = camera["waypoint_chain"]
    lines = strats.waypoint_lines(bpy.context.scene)
    # A segment from each strat to its first waypoint, and each step of a chain once.
    on_chains = [s["waypoint_chain"] for s in level.strats["strats"] if s["waypoint"] >= 0]
    steps = {step for c in on_chains for step in zip(c, c[1:])}
    assert len(lines) == 2 * (len(on_chains) + len(steps)) and steps
    before = waypoint_positions(level.base)
    point = waypoint_object(chain[1])
    point.location.x += 0.5
    point.location.y += 1.0  # game z shrinks
    wad = addon_support.export(level.out)
    after = waypoint_positions(wad)
    x, y, z = before[chain[1]]
    assert after[chain[1]] == (x + ONE // 2, y, z - ONE)
    assert [p for k, p in enumerate(after) if k != chain[1]] == [p for k, p in enumerate(before) if k != chain[1]]
    assert llamawad.strats(wad)["strats"] == level.strats["strats"]
    addon_support.assert_no_new_errors(wad, level.base)


def test_a_waypoint_copied_is_inserted_into_its_chain(level):
    """Shift D on a camera's second waypoint: a new waypoint after it, its chain one longer, the
    later waypoints and the strats naming them renumbered."""
    camera = of_type(level, "CameraSide")[0]
    chain = camera["waypoint_chain"]
    select_only(waypoint_object(chain[1]))
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.active_object
    copy.location.x += 0.25
    from addon.blender import strats

    # The chain drawn runs through the copy as export writes it.
    drawn = strats.waypoint_chain(strats.waypoint_order(bpy.context.scene), chain[0])
    names = [f"waypoint {w:03}" for w in chain]
    assert [o.name for o in drawn] == names[:2] + [copy.name] + names[2:]
    wad = addon_support.export(level.out)
    after = llamawad.strats(wad)
    assert after["waypoints"] == level.strats["waypoints"] + 1
    assert after["strats"][camera["index"]]["waypoint_chain"] == chain + [chain[-1] + 1]
    for before_s, after_s in zip(level.strats["strats"], after["strats"]):
        w = before_s["waypoint"]
        assert after_s["waypoint"] == (w + 1 if w > chain[1] else w)
    positions = waypoint_positions(wad)
    base_positions = waypoint_positions(level.base)
    x, y, z = base_positions[chain[1]]
    assert positions[chain[1] + 1] == (x + ONE // 4, y, z)
    assert positions[chain[1] + 2 :] == base_positions[chain[1] + 1 :]
    addon_support.assert_no_new_errors(wad, level.base)
    assert any(c.text.startswith(f"waypoint {chain[1] + 1} ({copy.name}): new, inserted") for c in bpy.context.scene.llamawad.changes)


def test_written_over_the_base_an_inserted_waypoint_is_the_one_it_became(level):
    written = copied_over_the_base(level, waypoint_object(of_type(level, "Wompy")[0]["waypoint"]), 0.5)
    assert len([o for o in bpy.context.scene.objects if o.get("llamawad") == "waypoint"]) == level.strats["waypoints"] + 1
    assert addon_support.export(level.out) == written


def test_a_test_level_opens_in_blender_and_comes_back_unchanged(run_cli, small_wad_file, tmp_path):
    """`llamawad testlevel` (note 003's test-level builder): the level it writes imports with one
    strat object per strat it placed, and exported unchanged it is byte for byte the same."""
    out = tmp_path / "test.wad"
    done = run_cli("testlevel", small_wad_file, out)
    assert done.returncode == 0, done.stderr
    assert addon_support.import_level(out) == {"FINISHED"}
    placed = llamawad.strats(out.read_bytes())
    objects = [o for o in bpy.context.scene.objects if o.get("llamawad") == "strat"]
    assert len(objects) == len(placed["strats"]) > len(llamawad.strats(small_wad_file.read_bytes())["strats"])
    assert addon_support.export(tmp_path / "again.wad") == out.read_bytes()
