"""Levels not made by the generator (tests/held_out.py), as a new user meets them (issue 35):
`check` names each damage with its culprit; `info` says what the LGHT chunk holds or why it is
kept as bytes; the unchanged level goes to glTF and back byte for byte, through the Python
module and the command line (gltf2wad takes wad2gltf's own output)."""

import held_out
import llamawad
import pytest

LEVELS = held_out.levels()


@pytest.mark.parametrize("level", LEVELS, ids=[level.name for level in LEVELS])
def test_check_names_each_damage_with_its_culprit(level):
    report = llamawad.check(level.data)
    for code, severity, field, value in level.problems:
        found = [p for p in report["problems"] if p["code"] == code and p["severity"] == severity]
        assert found, f"{level.name}: no {severity} {code}: {report['problems']}"
        if field is not None:
            assert any(p[field] == value for p in found), f"{level.name}: {field} {value}: {found}"
    if not level.problems:
        assert report["errors"] == 0, report["problems"]


@pytest.mark.parametrize("level", LEVELS, ids=[level.name for level in LEVELS])
def test_info_says_what_the_light_chunk_holds(level):
    info = llamawad.parse_info(level.data)
    chunk = info["light_chunk"]
    if level.name.endswith("no-lights") or level.name == "nothing-at-all":
        assert chunk is None and info["lights"] is None
        return
    assert chunk is not None
    assert info["lights"] == level.lights
    if level.lights is None:
        assert "no reading explains" in chunk["kept_as_bytes"] or "neither" in chunk["kept_as_bytes"]
        assert chunk["reading"] is None
    else:
        assert chunk["kept_as_bytes"] is None and chunk["reading"]["by"] in ("notes", "equal_size", "by_type")
        assert chunk["z"]["z"] in ("negated", "game_space")
    if level.name.endswith("lights-of-the-notes"):
        assert chunk["reading"]["by"] == "notes"
        assert [(t["kind"], t["count"], t["words"]) for t in chunk["types"]] == [(0, 1, 0), (1, 1, 3), (2, 1, 3)]
        # The point stands at z 1.5, stored positive: over the grid as note 002 has it.
        assert chunk["z"] == {"z": "game_space", "why": "only_this_inside"}


@pytest.mark.parametrize("level", LEVELS, ids=[level.name for level in LEVELS])
def test_the_unchanged_level_goes_to_gltf_and_back_byte_for_byte(level, run_cli, tmp_path):
    glb, _ = llamawad.wad_to_glb(level.data)
    written, report = llamawad.gltf_to_wad(level.data, glb)
    assert written == level.data
    assert not report["tiles_moved"] and not report["tiles_reshaped"] and not report["lights_changed"]
    wad, out, back = tmp_path / "level.wad", tmp_path / "level.glb", tmp_path / "back.wad"
    wad.write_bytes(level.data)
    assert run_cli("wad2gltf", wad, out).returncode == 0
    done = run_cli("gltf2wad", "--base", wad, out, back)
    assert done.returncode == 0, done.stderr
    assert back.read_bytes() == level.data
