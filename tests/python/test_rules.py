"""The game's rules from Python: llamawad.probe, llamawad.floors and llamawad.check give what the
command-line tool gives (the same Rust code), and a refusal for the game's rules carries every
error as a dict."""

import json

import llamawad
import pytest


@pytest.fixture(scope="module")
def level() -> bytes:
    return llamawad.generate(2, "small")


def llama_start(data: bytes) -> tuple[float, float, float]:
    info = llamawad.parse_info(data)
    assert info["strat_types"]["Llama"] == 1
    # The Llama's position is in the glTF strats; the level's own summary does not carry it.
    gltf, _, _ = llamawad.wad_to_gltf(data)
    doc = json.loads(gltf)
    for node in doc["nodes"]:
        extras = node.get("extras", {})
        if extras.get("type_name") == "Llama":
            return tuple(v / 4096 for v in extras["position"])
    raise AssertionError("no Llama")


def test_probe_matches_the_command_line(level, tmp_path, run_cli):
    x, y, z = llama_start(level)
    probes = llamawad.probe(level, [(x, y, z), (-4.0, 3.0, -4.0)])
    assert len(probes) == 2
    start, outside = probes
    assert start["floor"] is not None and abs(start["floor"]["height"] - y) < 0.3
    assert outside["cell"] is None and outside["floor"] is None and outside["candidates"] == []

    wad = tmp_path / "level.wad"
    wad.write_bytes(level)
    out = run_cli("probe", wad, x, y, z, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == start


def test_floors_of_a_level_against_itself(level):
    c = llamawad.floors(level, level, points=300, seed=4)
    assert c["points"] == 300 and c["lost"] == 0 and c["gained"] == 0
    assert c["within_1mm"] == c["both"] > 50


def test_check_lists_problems_with_their_culprits(level, tmp_path, run_cli):
    report = llamawad.check(level)
    assert set(report) == {"problems", "errors", "warnings"}
    assert report["errors"] + report["warnings"] == len(report["problems"])
    against_itself = llamawad.check(level, level)
    assert all(p["pre_existing"] for p in against_itself["problems"])
    for p in report["problems"]:
        assert set(p) >= {"code", "severity", "message", "tile", "model", "polygon", "face", "strat", "cell"}

    wad = tmp_path / "level.wad"
    wad.write_bytes(level)
    out = run_cli("check", wad, "--json")
    assert json.loads(out.stdout) == report
    assert out.returncode == (1 if report["errors"] else 0)


def test_check_of_bytes_that_are_no_level_raises():
    with pytest.raises(llamawad.WadError):
        llamawad.check(b"not a level")
    with pytest.raises(llamawad.WadError):
        llamawad.probe(b"", [(0, 0, 0)])


def test_check_of_a_refused_level_names_the_culprit():
    data = bytearray(llamawad.generate(1, "small"))
    # TRAK model 1's vertex count, one off: every model after it reads shifted.
    trak = data.find(b"KART") + 8
    data[trak + 4 + 0x84 + 0x6C] ^= 1
    report = llamawad.check(bytes(data))
    assert report["errors"] == 1
    [problem] = report["problems"]
    assert problem["code"] == "unreadable"
    assert problem["model"] == 1 and problem["tile"] is None


def test_every_code_is_in_the_one_table():
    """Problems and refusals carry codes of llamawad.CODES (the core's one table), each with
    what it means."""
    assert all(isinstance(m, str) and m for m in llamawad.CODES.values())
    assert "floor test skips" in llamawad.CODES["player-start-material"]
    data = bytearray(llamawad.generate(1, "small"))
    data[data.find(b"KART") + 8 + 4 + 0x84 + 0x6C] ^= 1
    [problem] = llamawad.check(bytes(data))["problems"]
    assert problem["code"] in llamawad.CODES
    with pytest.raises(llamawad.GltfToWadRefused) as refused:
        llamawad.gltf_to_wad(llamawad.generate(1, "tiny"), llamawad.wad_to_glb(llamawad.generate(2, "tiny"))[0])
    assert refused.value.code == "other-level" and all(r["code"] in llamawad.CODES for r in refused.value.refusals)
