"""The Python bindings (the installed llamawad wheel) and the command-line tool.

Tests that need a real level use the generator (marked `generator`); the error paths use small
WADs built here by hand, so they run whatever the generator does.
"""

import json
import re
import struct

import llamawad
import pytest
from wad_bytes import make_wad, shorten_chunk, split_wad

WFPC_FLAGS = 0x1F
MINIMAL = make_wad([(b"WFPC", struct.pack("<I", WFPC_FLAGS))])


def expect_wad_error(data: bytes) -> str:
    with pytest.raises(llamawad.WadError) as caught:
        llamawad.parse_info(data)
    # Exactly the one exception class of bytes that are no level, not some other ValueError.
    assert type(caught.value) is llamawad.WadParseError
    return str(caught.value)


# --- Bindings, hand-built bytes


def test_wad_error_is_a_value_error():
    assert issubclass(llamawad.WadError, ValueError)
    assert llamawad.WadError.__module__ == "llamawad"


def test_minimal_wad_roundtrips_identically():
    assert llamawad.roundtrip(MINIMAL) == MINIMAL
    assert llamawad.roundtrip(bytearray(MINIMAL)) == MINIMAL


def test_parse_info_of_minimal_wad():
    info = llamawad.parse_info(MINIMAL)
    assert info["file_size"] == len(MINIMAL)
    assert info["wfpc"] == WFPC_FLAGS
    assert info["chunks"] == [{"tag": "WFPC", "size": 4, "kept_as": "typed"}]
    assert info["tiles"] == 0 and info["strat_types"] == {}


def test_info_file_reads_a_path(tmp_path):
    path = tmp_path / "minimal.wad"
    path.write_bytes(MINIMAL)
    assert llamawad.info_file(path) == llamawad.parse_info(MINIMAL)
    assert llamawad.info_file(str(path)) == llamawad.parse_info(MINIMAL)


def test_truncated_chunk_names_chunk_and_offset():
    message = expect_wad_error(shorten_chunk(MINIMAL, b"WFPC", 2))
    # The WFPC payload starts after the length field and the chunk header: byte 12.
    assert "WFPC chunk, byte 0xc" in message, message


def test_truncated_file_says_so():
    message = expect_wad_error(MINIMAL[:-1])
    assert "truncated" in message, message


@pytest.mark.parametrize(
    "data",
    [b"", b"\x01", b"hello, this is not a WAD", bytes(range(256)) * 4],
    ids=["empty", "one byte", "text", "noise"],
)
def test_non_wad_raises_wad_error(data):
    assert expect_wad_error(data)
    with pytest.raises(llamawad.WadError):
        llamawad.roundtrip(data)


def test_missing_file_raises_wad_error_naming_it(tmp_path):
    with pytest.raises(llamawad.WadError, match="absent.wad"):
        llamawad.info_file(tmp_path / "absent.wad")


def test_unknown_size_is_a_plain_value_error():
    with pytest.raises(ValueError, match="tiny, small or full") as caught:
        llamawad.generate(1, "huge")
    assert not isinstance(caught.value, llamawad.WadError)


# --- Command-line tool, hand-built bytes


@pytest.fixture
def minimal_file(tmp_path):
    path = tmp_path / "in.wad"
    path.write_bytes(MINIMAL)
    return path


def test_cli_info_json_is_the_info(run_cli, minimal_file):
    done = run_cli("info", "--json", minimal_file)
    assert done.returncode == 0, done.stderr
    # The same data: pairs such as the grid are tuples in Python, arrays in JSON.
    info = llamawad.parse_info(MINIMAL)
    assert info["grid"] == (0, 0)
    assert json.loads(done.stdout) == json.loads(json.dumps(info))


def test_cli_info_text(run_cli, minimal_file):
    done = run_cli("info", minimal_file)
    assert done.returncode == 0, done.stderr
    assert "WFPC flags  0x0000001f" in done.stdout
    assert "warnings (0)" in done.stdout
    # Counted per model, as the label says (the add-on's import counts them over the tiles).
    assert re.search(r"^  model collision polygons +\d+$", done.stdout, re.M), done.stdout


def test_cli_roundtrip_writes_identical_bytes(run_cli, minimal_file, tmp_path):
    out = tmp_path / "out.wad"
    done = run_cli("roundtrip", minimal_file, out)
    assert done.returncode == 0, done.stderr
    assert "byte-identical" in done.stdout
    assert out.read_bytes() == MINIMAL


@pytest.mark.parametrize("spelling", ["same", "dotted", "relative", "symlink"])
def test_cli_roundtrip_refuses_to_overwrite_its_input(run_cli, minimal_file, tmp_path, spelling):
    out = {
        "same": minimal_file,
        "dotted": tmp_path / "." / "in.wad",
        "relative": "in.wad",
        "symlink": tmp_path / "link.wad",
    }[spelling]
    if spelling == "symlink":
        out.symlink_to(minimal_file)
    before = minimal_file.stat()
    done = run_cli("roundtrip", minimal_file, out, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and "input" in done.stderr, done.stderr
    assert minimal_file.read_bytes() == MINIMAL
    assert minimal_file.stat().st_mtime_ns == before.st_mtime_ns


@pytest.mark.parametrize("data", [b"not a wad at all", b""], ids=["text", "empty"])
def test_cli_reports_bad_input_without_panicking(run_cli, tmp_path, data):
    path = tmp_path / "bad.wad"
    path.write_bytes(data)
    for args in (["info", path], ["info", "--json", path], ["roundtrip", path, tmp_path / "out.wad"]):
        done = run_cli(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.startswith(f"error: {path}: the file is not a level WAD"), done.stderr
        assert "panicked" not in done.stderr
    assert not (tmp_path / "out.wad").exists()


def test_cli_missing_file(run_cli, tmp_path):
    done = run_cli("info", tmp_path / "absent.wad")
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and "absent.wad" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["info"],
        ["roundtrip", "a.wad"],
        ["generate", "--seed", "1", "--size", "huge", "x.wad"],
        ["frobnicate"],
    ],
)
def test_cli_usage_errors_exit_2(run_cli, args):
    assert run_cli(*args).returncode == 2


# --- Generated levels


@pytest.mark.generator
class TestGenerated:
    def test_generation_is_deterministic(self, tiny_wad):
        assert llamawad.generate(1, "tiny") == tiny_wad

    def test_roundtrip_is_identical(self, tiny_wad):
        assert llamawad.roundtrip(tiny_wad) == tiny_wad

    def test_info(self, tiny_wad):
        info = llamawad.parse_info(tiny_wad)
        assert info["file_size"] == len(tiny_wad)
        assert info["tiles"] > 0
        assert info["strat_types"].get("Llama") == 1, info["strat_types"]

    def test_truncated_trak_names_chunk_and_offset(self, tiny_wad):
        trak = dict(split_wad(tiny_wad))[b"TRAK"]
        message = expect_wad_error(shorten_chunk(tiny_wad, b"TRAK", len(trak) // 2))
        assert "TRAK chunk, byte 0x" in message, message

    def test_cli_generate_info_roundtrip(self, run_cli, tiny_wad, tmp_path):
        wad, out = tmp_path / "tiny.wad", tmp_path / "out.wad"
        done = run_cli("generate", "--seed", "1", "--size", "tiny", wad)
        assert done.returncode == 0, done.stderr
        assert wad.read_bytes() == tiny_wad

        done = run_cli("info", "--json", wad)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == json.loads(json.dumps(llamawad.parse_info(tiny_wad)))

        done = run_cli("roundtrip", wad, out)
        assert done.returncode == 0, done.stderr
        assert "byte-identical" in done.stdout
        assert out.read_bytes() == tiny_wad


def test_strats_is_what_the_cli_prints(run_cli, tiny_wad, tmp_path):
    """``llamawad.strats`` answers what ``llamawad strats --all --json`` prints: every placed
    strat and every type, with whether it can be placed."""
    path = tmp_path / "tiny.wad"
    path.write_bytes(tiny_wad)
    done = run_cli("strats", "--all", "--json", path)
    assert done.returncode == 0, done.stderr
    strats = llamawad.strats(tiny_wad)
    assert json.loads(done.stdout) == json.loads(json.dumps(strats))
    assert strats["types"] and any(not t["placeable"] and t["why_not"] for t in strats["types"])


def test_strats_of_a_level_without_map_is_a_wad_error():
    with pytest.raises(llamawad.WadError, match="MAP"):
        llamawad.strats(MINIMAL)


def test_test_level_is_what_the_cli_writes(run_cli, tiny_wad, tmp_path):
    """``llamawad.test_level`` gives the bytes ``llamawad testlevel`` writes and the report its
    ``--json`` prints; a refusal is a WadError with the command line's reason."""
    path, out = tmp_path / "tiny.wad", tmp_path / "test.wad"
    path.write_bytes(tiny_wad)
    done = run_cli("testlevel", path, out, "--name", "Testlevel", "--spacing", "2", "--json")
    assert done.returncode == 0, done.stderr
    made, report = llamawad.test_level(tiny_wad, "Testlevel", 2)
    assert made == out.read_bytes()
    assert json.loads(done.stdout) == json.loads(json.dumps(report))
    assert llamawad.parse_info(made)["name"] == "Testlevel" and report["placed"]
    assert llamawad.test_level(tiny_wad)[0] == llamawad.test_level(tiny_wad, None, 3)[0]
    with pytest.raises(llamawad.WadError, match="spacing 0: give 1 to 16 cells"):
        llamawad.test_level(tiny_wad, spacing=0)
    with pytest.raises(llamawad.WadError, match="MAP chunk is needed"):
        llamawad.test_level(MINIMAL)


def test_strat_table_is_what_the_cli_prints(run_cli, tiny_wad, tmp_path):
    (tmp_path / "a.wad").write_bytes(tiny_wad)
    (tmp_path / "b.WAD").write_bytes(llamawad.generate(2, "tiny"))
    (tmp_path / "c.wad").write_bytes(b"garbage!")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.wad").write_bytes(tiny_wad)
    done = run_cli("strat-table", tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    table = llamawad.strat_table(tmp_path)
    assert json.loads(done.stdout) == json.loads(json.dumps(table))
    assert table["levels"] == ["a.wad", "b.WAD"] and [s["file"] for s in table["skipped"]] == ["c.wad"]
    with pytest.raises(llamawad.WadError, match="missing"):
        llamawad.strat_table(tmp_path / "missing")


def test_pages_are_what_the_cli_lists(run_cli, tiny_wad, tmp_path):
    path = tmp_path / "tiny.wad"
    path.write_bytes(tiny_wad)
    done = run_cli("pages", path, tmp_path / "pages")
    assert done.returncode == 0, done.stderr
    listed = llamawad.pages(tiny_wad)
    lines = [line.split() for line in done.stdout.splitlines()[1:]]
    assert len(listed) == len(lines) == llamawad.parse_info(tiny_wad)["pages"]
    for page, line in zip(listed, lines):
        assert line[0] == f"page-{page['page']:03}.png" and line[1] == f"{page['width']}×{page['height']}"
        assert line[3] == f"{page['flags']:#x}" and line[4].rstrip(",") == page["shown"]
    assert llamawad.pages(MINIMAL) == []


def test_decode_png_reads_what_encode_png_writes_and_resamples_as_set_page(run_cli, tiny_wad, tmp_path):
    rgba = bytes(range(256)) * 4
    png = llamawad.encode_png(16, 16, rgba)
    assert llamawad.decode_png(png) == (16, 16, rgba)
    width, height, resampled = llamawad.decode_png(png, 256, 256)
    assert (width, height, len(resampled)) == (256, 256, 256 * 256 * 4)
    # set-page --resize writes the page from the same resampled pixels.
    level, image, out = tmp_path / "tiny.wad", tmp_path / "small.png", tmp_path / "out.wad"
    level.write_bytes(tiny_wad)
    image.write_bytes(png)
    done = run_cli("set-page", level, "0", image, out, "--resize")
    assert done.returncode == 0, done.stderr
    page_file = tmp_path / "pages" / "page-000.png"
    assert run_cli("pages", out, tmp_path / "pages").returncode == 0
    assert llamawad.png_matches(page_file.read_bytes(), 256, 256, resampled)
    with pytest.raises(llamawad.WadError, match="not a PNG"):
        llamawad.decode_png(b"no png")
    with pytest.raises(ValueError, match="at least 1 pixel"):
        llamawad.decode_png(png, 0, 4)
