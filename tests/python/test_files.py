"""Files as artists name and keep them: names with spaces and non-ASCII characters
(`Königreich/level 1.wad`) through the command-line tool and the Python module; an existing
output replaced, a read-only one refused (Windows' rule, kept on every system); and the add-on's
code, read as source: it builds paths with os.path or pathlib only, and starts no shell or other
process."""

import ast
import json
import shutil
import stat
from pathlib import Path

import llamawad
import pytest

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tiny-1.wad"
FOLDER = "Königreich"
LEVEL = "level 1.wad"


@pytest.fixture
def level(tmp_path) -> Path:
    path = tmp_path / FOLDER / LEVEL
    path.parent.mkdir()
    shutil.copy(FIXTURE, path)
    return path


def test_cli_info_and_roundtrip(run_cli, level):
    done = run_cli("info", "--json", level)
    assert done.returncode == 0, done.stderr
    info = json.loads(json.dumps(llamawad.parse_info(FIXTURE.read_bytes())))  # tuples as lists
    assert json.loads(done.stdout) == info
    # Relative to the folder above, as typed in a shell.
    out = Path(FOLDER) / "level 1 copy.wad"
    done = run_cli("roundtrip", Path(FOLDER) / LEVEL, out, cwd=level.parent.parent)
    assert done.returncode == 0, done.stderr
    assert f"{Path(FOLDER) / LEVEL} -> {out}: byte-identical" in done.stdout
    assert (level.parent.parent / out).read_bytes() == FIXTURE.read_bytes()


def test_cli_generate_into_a_new_name(run_cli, level):
    out = level.with_name("neu ä ö ü ß.wad")
    done = run_cli("generate", "--seed", "1", "--size", "tiny", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == llamawad.generate(1, "tiny")


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_cli_wad2gltf_and_back(run_cli, level, suffix):
    gltf = level.with_suffix(suffix)
    done = run_cli("wad2gltf", level, gltf)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in level.parent.iterdir())
    assert names == sorted([LEVEL, "level 1" + suffix] + (["level 1.bin"] if suffix == ".gltf" else []))
    if suffix == ".gltf":
        # The buffer's URI is the file name percent-encoded (RFC 3986), as glTF asks.
        assert json.loads(gltf.read_text())["buffers"][0]["uri"] == "level%201.bin"
    back = level.with_name("level 1 back.wad")
    done = run_cli("gltf2wad", "--base", level, gltf, back)
    assert done.returncode == 0, done.stderr
    assert back.read_bytes() == FIXTURE.read_bytes()


def test_cli_error_names_the_file(run_cli, tmp_path):
    missing = tmp_path / FOLDER / "fehlt ganz.wad"
    done = run_cli("info", missing)
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and str(missing) in done.stderr, done.stderr


def test_cli_replaces_an_existing_output(run_cli, level):
    out = level.with_name("level 1 copy.wad")
    out.write_bytes(b"an older file")
    done = run_cli("roundtrip", level, out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == FIXTURE.read_bytes()
    assert sorted(p.name for p in level.parent.iterdir()) == sorted([LEVEL, out.name])


@pytest.mark.parametrize("command", ["roundtrip", "generate", "wad2gltf"])
def test_cli_refuses_a_read_only_output(run_cli, level, command):
    out = level.with_name("geschützt.glb" if command == "wad2gltf" else "geschützt.wad")
    out.write_bytes(b"keep me")
    out.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        args = {
            "roundtrip": ["roundtrip", level, out],
            "generate": ["generate", "--seed", "1", "--size", "tiny", out],
            "wad2gltf": ["wad2gltf", level, out],
        }[command]
        done = run_cli(*args)
        assert done.returncode == 1
        assert done.stderr == f"error: {out}: the file is read-only: not replaced\n"
        assert out.read_bytes() == b"keep me"
        assert sorted(p.name for p in level.parent.iterdir()) == sorted([LEVEL, out.name])
    finally:
        out.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_module_reads_a_file_and_a_gltf_in_such_a_folder(level):
    assert llamawad.info_file(str(level)) == llamawad.parse_info(FIXTURE.read_bytes())
    assert llamawad.info_file(level) == llamawad.parse_info(FIXTURE.read_bytes())
    base = level.read_bytes()
    json_text, bin_bytes, _warnings = llamawad.wad_to_gltf(base)
    document = json.loads(json_text)
    document["buffers"][0]["uri"] = "level%201.bin"
    (level.parent / "level 1.bin").write_bytes(bin_bytes)
    written, _report = llamawad.gltf_to_wad(base, json.dumps(document).encode(), directory=str(level.parent))
    assert written == base


def test_module_error_names_the_file(tmp_path):
    missing = tmp_path / FOLDER / "fehlt ganz.wad"
    with pytest.raises(llamawad.WadError, match="fehlt ganz.wad"):
        llamawad.info_file(str(missing))


# --- The add-on's source

ADDON = Path(__file__).resolve().parent.parent.parent / "addon"
# Modules and os functions that start processes or a shell.
PROCESS_MODULES = {"subprocess", "shlex", "pty", "multiprocessing", "asyncio"}
PROCESS_FUNCTIONS = {"system", "popen", "startfile", "posix_spawn", "posix_spawnp", "fork", "forkpty"}


def addon_sources():
    return sorted(p for p in ADDON.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("source", addon_sources(), ids=lambda p: p.relative_to(ADDON).as_posix())
def test_addon_starts_no_process_and_joins_no_path_by_hand(source):
    tree = ast.parse(source.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [f"imports {a.name}" for a in node.names if a.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROCESS_MODULES:
            problems.append(f"imports from {node.module}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr in PROCESS_FUNCTIONS or node.attr.startswith(("exec", "spawn")):
                problems.append(f"calls os.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            # A path separator at the edge of a string piece, or alone: a path joined by hand.
            text = node.value
            if text in ("/", "\\") or text.startswith(("/", "\\")) or text.endswith(("/", "\\")):
                problems.append(f"line {node.lineno}: {text!r}")
    assert problems == []
