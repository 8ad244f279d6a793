"""llamawad.exe, the command-line tool cross-built for Windows, run under Wine: it reads and writes
levels as the Linux build does, exits with the documented statuses, takes Windows paths (drive
letters, backslashes, spaces, non-ASCII names), and replaces files the way Windows allows.

Each check but the binary's own also runs on this machine's build of the tool (`native`), in
every test run: what the checks expect of the tool (its outputs, its refusals) stays what it
says. What the tool writes of every fixture and of the generated levels is byte for byte what
the Linux build writes (the digests tests/python/test_digests.py holds the Python module to).
Refusals are matched by a phrase the tool keeps in them ("never overwritten", "read-only"), not
by their whole wording. The Windows runs need llamawad.exe and Wine: scripts/release builds the
one and installs the other, and scripts/test builds llamawad.exe wherever the cross tools are
installed (LLAMAWAD_WINDOWS_EXE names it); a test run without them skips them and says so."""

import os
import shutil
import stat
import subprocess
from pathlib import Path, PureWindowsPath

import pytest
from digests import (
    LEVELS,
    SKY_COLOUR,
    SUN_COLOUR,
    SUN_DIRECTION,
    differences,
    glb_chunks,
    level_name,
    sha256,
    stored_digests,
)
from release_platforms import RELEASE, WINDOWS_EXE, WINDOWS_SYSTEM_DLLS, needs_release

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("*.wad"))
SHIM = Path(__file__).resolve().parent / "wine" / "processprng.c"


def windows_path(path: Path) -> str:
    """The path as a Windows program under Wine names it: drive Z: is the Unix root."""
    return str(PureWindowsPath("Z:\\", *path.resolve().parts[1:]))


def wine_binary() -> str:
    # Debian's wine64 package keeps the loader out of PATH.
    for candidate in (shutil.which("wine64"), shutil.which("wine"), "/usr/lib/wine/wine64"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("Wine not found (scripts/release installs Debian's wine64)", pytrace=False)


# What the tool keeps in its refusals whatever their wording around it: an output that is one of
# its inputs, and a read-only output (Windows' rule, kept on every system).
NEVER_OVERWRITTEN = "never overwritten"
READ_ONLY = "read-only"
NEEDS_WINE = (
    "llamawad.exe, cross-built for Windows with MinGW-w64, and Wine to run it "
    "(scripts/release builds the one and installs the other; scripts/test builds llamawad.exe "
    "where the Rust target x86_64-pc-windows-gnu, MinGW-w64 and Wine are installed)"
)


class Native:
    """This machine's build of the tool (scripts/llamawad), run as the checks run llamawad.exe."""

    sep = os.sep

    def __init__(self, command: list):
        self.command = command

    def path(self, path: Path) -> str:
        return str(path)

    def same_file_spelled_otherwise(self, folder: Path, name: str) -> str:
        """A spelling of folder/name that names the same file: a "." in between."""
        return os.path.join(str(folder), ".", name)

    def run(self, *args, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*self.command, *map(str, args)], cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=300
        )


class Wine:
    sep = "\\"

    def __init__(self, prefix: Path, exe: Path):
        self.exe = exe
        self.loader = wine_binary()
        self.env = dict(
            os.environ,
            WINEPREFIX=str(prefix),
            WINEDEBUG="-all",
            # No Mono or Gecko installers at the prefix's first start; a UTF-8 locale so that
            # non-ASCII arguments reach the program as the characters they are.
            WINEDLLOVERRIDES="mscoree,mshtml=",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
        )
        self.env.pop("DISPLAY", None)

    def path(self, path: Path) -> str:
        return windows_path(path)

    def same_file_spelled_otherwise(self, folder: Path, name: str) -> str:
        """Another case and forward slashes, which Windows takes for the same file."""
        return windows_path(folder).replace("\\", "/") + "/" + name.upper()

    def run(self, *args, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.loader, self.exe, *map(str, args)],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
        )


@pytest.fixture(scope="session")
def exe(request) -> Path:
    """scripts/release's llamawad.exe, or the one scripts/test built (LLAMAWAD_WINDOWS_EXE)."""
    if RELEASE:
        exe = request.getfixturevalue("release") / "bin" / "llamawad.exe"
    elif WINDOWS_EXE:
        exe = Path(WINDOWS_EXE)
    else:
        needs_release(NEEDS_WINE)
    assert exe.is_file(), f"{exe} was not built"
    return exe


@pytest.fixture(scope="session")
def wine(exe, tmp_path_factory) -> Wine:
    prefix = tmp_path_factory.mktemp("wine-prefix")
    wine = Wine(prefix, exe)
    boot = subprocess.run(
        [wine.loader, "wineboot", "--init"], env=wine.env, capture_output=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert boot.returncode == 0, boot.stderr.decode(errors="replace")
    # Wine names a DLL it cannot load only with its module channel on.
    probe = subprocess.run(
        [wine.loader, exe, "--version"], env=dict(wine.env, WINEDEBUG="err+module"), capture_output=True,
        timeout=300, stdin=subprocess.DEVNULL,
    )
    if probe.returncode != 0 and b"bcryptprimitives.dll" in probe.stderr.lower():
        install_processprng_shim(prefix)
    return wine


def install_processprng_shim(prefix: Path) -> None:
    """Wine before 9.x has no bcryptprimitives.dll, which Rust's standard library imports for
    ProcessPrng; a few lines of C built with MinGW-w64 stand in for it in the prefix."""
    system32 = prefix / "drive_c" / "windows" / "system32"
    built = subprocess.run(
        ["x86_64-w64-mingw32-gcc", "-O2", "-shared", "-s", "-o", system32 / "bcryptprimitives.dll",
         SHIM, "-ladvapi32"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr


@pytest.fixture(params=["native", "windows"])
def tool(request, script):
    """The tool each check runs: this machine's build, then llamawad.exe under Wine."""
    if request.param == "native":
        return Native(script("llamawad"))
    return request.getfixturevalue("wine")


def test_exe_is_an_x64_console_program_needing_only_windows(exe):
    # scripts/release installs pefile; scripts/test's run on its own llamawad.exe may lack it.
    pefile = pytest.importorskip("pefile", reason="needs pefile (scripts/release installs it into .venv)")

    pe = pefile.PE(str(exe))
    assert pe.FILE_HEADER.Machine == pefile.MACHINE_TYPE["IMAGE_FILE_MACHINE_AMD64"]
    assert pe.OPTIONAL_HEADER.Magic == pefile.OPTIONAL_HEADER_MAGIC_PE_PLUS
    assert not pe.FILE_HEADER.Characteristics & pefile.IMAGE_CHARACTERISTICS["IMAGE_FILE_DLL"]
    assert pe.OPTIONAL_HEADER.Subsystem == pefile.SUBSYSTEM_TYPE["IMAGE_SUBSYSTEM_WINDOWS_CUI"]
    # Nothing to ship beside it: no MinGW runtime DLL, only what Windows has.
    dlls = sorted(entry.dll.decode().lower() for entry in pe.DIRECTORY_ENTRY_IMPORT)
    assert [d for d in dlls if not WINDOWS_SYSTEM_DLLS.fullmatch(d)] == [], dlls


def test_version(tool, tmp_path, repo):
    done = tool.run("--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    version = (repo / "Cargo.toml").read_text().split('version = "', 1)[1].split('"', 1)[0]
    assert done.stdout.decode().split() == ["llamawad", version]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_roundtrip_fixture(tool, tmp_path, fixture):
    out = tmp_path / "out.wad"
    done = tool.run("roundtrip", tool.path(fixture), tool.path(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"byte-identical" in done.stdout
    assert out.read_bytes() == fixture.read_bytes()


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_wad2gltf_then_gltf2wad_gives_the_fixture(tool, tmp_path, fixture, run_cli):
    glb = tmp_path / "level.glb"
    done = tool.run("wad2gltf", tool.path(fixture), tool.path(glb), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # The same GLB as the Linux build writes.
    linux_glb = tmp_path / "linux.glb"
    linux = run_cli("wad2gltf", fixture, linux_glb)
    assert linux.returncode == 0, linux.stderr
    assert glb.read_bytes() == linux_glb.read_bytes()
    back = tmp_path / "back.wad"
    done = tool.run("gltf2wad", "--base", tool.path(fixture), tool.path(glb), tool.path(back), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert back.read_bytes() == fixture.read_bytes()


@pytest.mark.parametrize("level", LEVELS, ids=level_name)
def test_generated_levels_and_their_gltf_have_the_stored_digests(tool, tmp_path, level):
    """What the tool writes of a generated level has the digests the Python module's outputs are
    held to: the level (generate), its GLB and the GLB's JSON and buffer (wad2gltf), and the level
    baked with the same light (bake)."""
    size, seed = level
    wad, glb, baked = tmp_path / "level.wad", tmp_path / "level.glb", tmp_path / "baked.wad"
    light = [
        f"--{option}=" + ",".join(map(str, values))
        for option, values in (("sun", SUN_DIRECTION), ("sun-colour", SUN_COLOUR), ("sky", SKY_COLOUR))
    ]
    for args in (
        ["generate", "--seed", seed, "--size", size, tool.path(wad)],
        ["wad2gltf", tool.path(wad), tool.path(glb)],
        ["bake", tool.path(wad), tool.path(baked), *light],
    ):
        done = tool.run(*args, cwd=tmp_path)
        assert done.returncode == 0, error_of(done)
    text, buffer = glb_chunks(glb.read_bytes())
    made = {"wad": wad.read_bytes(), "glb": glb.read_bytes(), "gltf": text, "bin": buffer, "baked": baked.read_bytes()}
    name = level_name(level)
    computed = {name: {kind: sha256(data) for kind, data in made.items()}}
    assert differences({name: stored_digests()[name]}, computed) == []


def test_names_with_spaces_and_umlauts_in_relative_paths(tool, tmp_path):
    """The artist's own file names: a folder with an umlaut, a level name with a space, given as
    relative paths (with backslashes on Windows); .gltf with its .bin beside it."""
    folder = tmp_path / "Königreich"
    folder.mkdir()
    shutil.copy(FIXTURES[0], folder / "level 1.wad")

    def rel(name: str) -> str:
        return "Königreich" + tool.sep + name

    done = tool.run("info", rel("level 1.wad"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert rel("level 1.wad") in done.stdout.decode("utf-8")
    done = tool.run("wad2gltf", rel("level 1.wad"), rel("level 1.gltf"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["level 1.bin", "level 1.gltf", "level 1.wad"]
    done = tool.run("gltf2wad", "--base", rel("level 1.wad"), rel("level 1.gltf"), rel("level 1 back.wad"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (folder / "level 1 back.wad").read_bytes() == FIXTURES[0].read_bytes()


def error_of(done: subprocess.CompletedProcess) -> str:
    return done.stderr.decode("utf-8", errors="replace")


def test_errors_exit_with_the_documented_status(tool, tmp_path):
    # 1: a failure, reported as `error: ...`.
    missing = tool.run("info", "missing.wad", cwd=tmp_path)
    assert missing.returncode == 1 and error_of(missing).startswith("error: "), error_of(missing)
    (tmp_path / "garbage.wad").write_bytes(b"not a level" * 10)
    garbage = tool.run("roundtrip", "garbage.wad", "out.wad", cwd=tmp_path)
    assert garbage.returncode == 1 and error_of(garbage).startswith("error: "), error_of(garbage)
    assert not (tmp_path / "out.wad").exists()
    # 2: a wrong command line.
    usage = tool.run("roundtrip", "only-one-path.wad", cwd=tmp_path)
    assert usage.returncode == 2, error_of(usage)
    unknown = tool.run("no-such-command", cwd=tmp_path)
    assert unknown.returncode == 2, error_of(unknown)


def test_input_never_overwritten_even_spelled_otherwise(tool, tmp_path):
    level = tmp_path / "level.wad"
    shutil.copy(FIXTURES[0], level)
    # The same file through a different spelling (on Windows: another case and forward slashes).
    other = tool.same_file_spelled_otherwise(tmp_path, "level.wad")
    done = tool.run("roundtrip", tool.path(level), other, cwd=tmp_path)
    assert done.returncode == 1 and error_of(done).startswith("error: "), error_of(done)
    assert NEVER_OVERWRITTEN in error_of(done), error_of(done)
    assert level.read_bytes() == FIXTURES[0].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.wad"]


def test_an_existing_output_is_replaced(tool, tmp_path):
    out = tmp_path / "out.wad"
    out.write_bytes(b"an older file")
    done = tool.run("roundtrip", tool.path(FIXTURES[1]), "out.wad", cwd=tmp_path)
    assert done.returncode == 0, error_of(done)
    assert out.read_bytes() == FIXTURES[1].read_bytes()
    # No temporary file is left beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.wad"]


def test_a_read_only_output_is_refused_cleanly(tool, tmp_path):
    """Windows does not replace a read-only file (Wine shows a file without write permission as
    read-only): the tool says so, leaves the file as it was and no temporary file behind."""
    out = tmp_path / "out.wad"
    out.write_bytes(b"keep me")
    out.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        done = tool.run("roundtrip", tool.path(FIXTURES[1]), "out.wad", cwd=tmp_path)
        assert done.returncode == 1, error_of(done)
        assert error_of(done).startswith("error: out.wad: ") and READ_ONLY in error_of(done), error_of(done)
        assert out.read_bytes() == b"keep me"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.wad"]
    finally:
        out.chmod(stat.S_IRUSR | stat.S_IWUSR)
