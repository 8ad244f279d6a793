"""How the command line writes its outputs (rust/core/src/output.rs): writers of one output at the
same time, names near the system's limit, the permissions of the file replaced, and a `.gltf`
that cannot be replaced after its `.bin` was. Real processes of the built tool throughout."""

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import crafted
import llamawad
import pytest

pytestmark = pytest.mark.generator

WRITERS = 40


@pytest.fixture(scope="module")
def binary(run_cli, repo) -> Path:
    assert run_cli("--version").returncode == 0
    return repo / "target" / "release" / "llamawad"


@pytest.fixture
def levels(tmp_path) -> tuple[Path, Path]:
    """Two different levels: the crafted files' base and a generated one."""
    a, b = tmp_path / "a.wad", tmp_path / "b.wad"
    a.write_bytes(crafted.BASE.read_bytes())
    b.write_bytes(llamawad.generate(2, "tiny"))
    return a, b


def left_behind(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".llamawad" in p.name)


def expected(binary, command, level: Path, folder: Path, name: str) -> dict[str, bytes]:
    """What one writer alone writes: the files by name."""
    folder.mkdir()
    args = {"roundtrip": ["roundtrip", level, name], "wad2gltf": ["wad2gltf", level, name]}[command]
    subprocess.run([binary, *args], cwd=folder, check=True, capture_output=True)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("command, name", [("roundtrip", "out.wad"), ("wad2gltf", "out.glb"), ("wad2gltf", "out.gltf")])
def test_two_levels_written_by_40_writers_each_to_one_output(binary, levels, tmp_path, command, name):
    """80 processes at once, half writing level A and half level B to the same output: every one
    succeeds, and what is left is all of one level (a .gltf with its own .bin), nothing else."""
    outcomes = [expected(binary, command, level, tmp_path / f"alone-{level.stem}", name) for level in levels]
    folder = tmp_path / "shared"
    folder.mkdir()
    writers = [
        subprocess.Popen([binary, command, level, name], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(WRITERS)
        for level in levels
    ]
    failed = [err for w in writers if (err := w.communicate(timeout=300)[1]) or w.returncode != 0]
    assert not failed, f"{len(failed)} of {len(writers)} writers failed: {failed[:3]}"
    left = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert left in outcomes, f"left {sorted(left)}: not one level's files"


def test_a_name_near_the_limit_is_written(binary, levels, tmp_path):
    """A 255-byte name (the most Linux, macOS and Windows allow) is written: its temporaries keep
    only the beginning of it."""
    level = levels[0]
    for stem, suffix in (("w" * 251, ".wad"), ("ü" * 120 + "g" * 10, ".gltf"), ("a" * 236, ".glb")):
        name = stem + suffix
        assert len(name.encode()) <= 255
        command = "roundtrip" if suffix == ".wad" else "wad2gltf"
        done = subprocess.run([binary, command, level, name], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / name).is_file()
        assert left_behind(tmp_path) == []


def umask(value: int):
    return lambda: os.umask(value)


def test_the_mode_of_the_file_replaced_is_kept_and_a_new_file_gets_the_umasks(binary, levels, tmp_path):
    level = levels[0]
    kept = tmp_path / "kept.wad"
    kept.write_bytes(b"old")
    kept.chmod(0o600)
    shared = tmp_path / "shared.gltf"
    shared.write_bytes(b"old")
    shared.chmod(0o664)
    (tmp_path / "shared.bin").write_bytes(b"old")
    (tmp_path / "shared.bin").chmod(0o640)
    for args in (["roundtrip", level, kept], ["wad2gltf", level, shared]):
        done = subprocess.run([binary, *args], capture_output=True, text=True, preexec_fn=umask(0o022))
        assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664
    assert stat.S_IMODE((tmp_path / "shared.bin").stat().st_mode) == 0o640
    for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
        new = tmp_path / f"new-{mask:o}.wad"
        done = subprocess.run([binary, "roundtrip", level, new], capture_output=True, text=True, preexec_fn=umask(mask))
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(new.stat().st_mode) == mode, (oct(mask), oct(new.stat().st_mode))


def as_nobody() -> list[str]:
    """The command prefix that runs a program as the user nobody (root, or sudo without a
    password, as on CI runners)."""
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to run the tool as another user"
    prefix = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    return prefix if os.geteuid() == 0 else ["sudo", "-n", *prefix]


def test_a_gltf_that_cannot_be_replaced_leaves_its_old_bin(binary, levels):
    """A shared folder (sticky, like /tmp) where the .gltf belongs to another user: renaming over
    it is refused after the .bin was renamed into place. The .bin is put back: both old files
    stay, and the error says so."""
    shared = Path(tempfile.mkdtemp(prefix="llamawad-shared-"))
    try:
        shared.chmod(0o1777)
        tool = shared / "llamawad"
        shutil.copy(binary, tool)
        for level in levels:
            shutil.copy(level, shared / level.name)
            (shared / level.name).chmod(0o644)
        # Written by nobody first, then the .gltf replaced by one of this user's.
        done = subprocess.run([*as_nobody(), tool, "wad2gltf", "a.wad", "out.gltf"], cwd=shared, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        (shared / "out.gltf").unlink()
        (shared / "out.gltf").write_bytes(b"this user's .gltf")
        old_bin = (shared / "out.bin").read_bytes()
        done = subprocess.run([*as_nobody(), tool, "wad2gltf", "b.wad", "out.gltf"], cwd=shared, capture_output=True, text=True)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("error: out.gltf: ") and "nothing changed (out.bin put back as it was)" in done.stderr, done.stderr
        assert (shared / "out.gltf").read_bytes() == b"this user's .gltf"
        assert (shared / "out.bin").read_bytes() == old_bin
        assert left_behind(shared) == []
    finally:
        shutil.rmtree(shared)
