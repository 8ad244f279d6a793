"""The native module's wheels, one per platform, read as the platform's loader would read them:
the Windows DLL's exports and imports (pefile), the macOS bundles' CPU and load commands
(macholib), the Linux library's symbol versions (auditwheel), and every wheel's own metadata.
The Linux wheel is also installed into a fresh venv and used. A plain test run has only this
machine's own wheel: its metadata is checked, and on Linux it is installed and used; how the
release links each wheel is checked only on the release's (conftest.py)."""

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from release_platforms import PLATFORMS, WINDOWS_SYSTEM_DLLS

REPO = Path(__file__).resolve().parent.parent.parent
MODULE = "_native"

def binaries(names: list[str]) -> list[str]:
    """The native module's binaries among a wheel's files (its type stubs, _native.pyi, are none)."""
    return [n for n in names if n.startswith(f"llamawad/{MODULE}.") and not n.endswith(".pyi")]


def native_binary(wheel: Path, out: Path) -> Path:
    """Extracts the wheel's one native module into out and returns its path."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = binaries(z.namelist())
        path = out / Path(name).name
        path.write_bytes(z.read(name))
    return path


@pytest.mark.parametrize("platform", PLATFORMS)
def test_wheel_metadata_and_records(wheel_of, tags, platform):
    wheel = wheel_of(platform)
    name, version, python, abi, tag = wheel.stem.split("-")
    assert (name, python, abi, tag) == ("llamawad", "cp311", "abi3", tags[platform])
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"llamawad-{version}.dist-info"
        fields = z.read(f"{info}/WHEEL").decode().splitlines()
        metadata = z.read(f"{info}/METADATA").decode()
        record = z.read(f"{info}/RECORD").decode().splitlines()
        # Every file is in RECORD with the hash of its bytes (what pip checks at install).
        for line in record:
            path, digest, _size = line.rsplit(",", 2)
            if path == f"{info}/RECORD":
                continue
            algorithm, value = digest.split("=", 1)
            raw = hashlib.new(algorithm, z.read(path)).digest()
            assert base64.urlsafe_b64encode(raw).rstrip(b"=").decode() == value, path
        assert sorted(l.rsplit(",", 2)[0] for l in record) == sorted(names)
    assert f"Tag: cp311-abi3-{tags[platform]}" in fields
    assert "Root-Is-Purelib: false" in fields
    assert "Requires-Python: >=3.11" in metadata
    # The package and its types (stubs of the native module, the answers, the py.typed marker).
    assert {"llamawad/__init__.py", "llamawad/answers.py", f"llamawad/{MODULE}.pyi", "llamawad/py.typed"} <= set(names)
    suffix = ".pyd" if platform.startswith("windows") else ".abi3.so"
    assert binaries(names) == [f"llamawad/{MODULE}{suffix}"]


def pefile_module():
    return pytest.importorskip("pefile", reason="needs pefile (scripts/release installs it into .venv)")


def test_windows_pyd_is_an_x64_dll_linked_only_to_python3_and_the_system(wheel_of, as_released, tmp_path):
    wheel = wheel_of("windows-x64")
    as_released("windows-x64")
    pefile = pefile_module()
    pe = pefile.PE(str(native_binary(wheel, tmp_path)))
    assert pe.FILE_HEADER.Machine == pefile.MACHINE_TYPE["IMAGE_FILE_MACHINE_AMD64"]
    assert pe.OPTIONAL_HEADER.Magic == pefile.OPTIONAL_HEADER_MAGIC_PE_PLUS
    assert pe.FILE_HEADER.Characteristics & pefile.IMAGE_CHARACTERISTICS["IMAGE_FILE_DLL"]
    exports = {s.name.decode() for s in pe.DIRECTORY_ENTRY_EXPORT.symbols if s.name}
    assert f"PyInit_{MODULE}" in exports, exports
    imports = {entry.dll.decode().lower(): [i.name for i in entry.imports] for entry in pe.DIRECTORY_ENTRY_IMPORT}
    # The stable ABI's python3.dll, not a versioned python3XY.dll; no MinGW runtime DLL
    # (libgcc_s, libwinpthread, libstdc++): it is linked in statically.
    assert "python3.dll" in imports, imports
    foreign = sorted(d for d in imports if d != "python3.dll" and not WINDOWS_SYSTEM_DLLS.fullmatch(d))
    assert foreign == [], foreign
    assert any(name and name.startswith(b"Py") for name in imports["python3.dll"])


@pytest.mark.parametrize(("platform", "cpu"), [("macos-arm64", "ARM64"), ("macos-x64", "x86_64")])
def test_macos_module_has_the_cpu_and_no_libpython(wheel_of, as_released, tmp_path, platform, cpu):
    wheel = wheel_of(platform)
    as_released(platform)
    pytest.importorskip("macholib", reason="needs macholib (scripts/release installs it into .venv)")
    from macholib import mach_o
    from macholib.MachO import MachO
    from macholib.SymbolTable import SymbolTable

    path = native_binary(wheel, tmp_path)
    macho = MachO(str(path))
    assert len(macho.headers) == 1, "one architecture, not a fat binary"
    header = macho.headers[0]
    assert mach_o.CPU_TYPE_NAMES.get(header.header.cputype) == cpu
    assert header.header.filetype in (mach_o.MH_BUNDLE, mach_o.MH_DYLIB)
    loads = [
        data.rstrip(b"\0").decode()
        for lc, _cmd, data in header.commands
        if lc.cmd in (mach_o.LC_LOAD_DYLIB, mach_o.LC_LOAD_WEAK_DYLIB, mach_o.LC_REEXPORT_DYLIB)
    ]
    assert loads, "links the system library"
    assert all(l.startswith(("/usr/lib/", "/System/Library/")) for l in loads), loads
    assert not any("python" in l.lower() for l in loads), loads
    # The oldest macOS it runs on is no newer than the wheel's tag says.
    minimum = [cmd.minos for lc, cmd, _ in header.commands if lc.cmd == mach_o.LC_BUILD_VERSION]
    minimum += [cmd.version for lc, cmd, _ in header.commands if lc.cmd == mach_o.LC_VERSION_MIN_MACOSX]
    assert len(minimum) == 1
    major, minor = int(minimum[0]) >> 16, (int(minimum[0]) >> 8) & 0xFF
    tag_major, tag_minor = map(int, PLATFORMS[platform].split("_")[1:3])
    assert (major, minor) <= (tag_major, tag_minor)
    # Apple silicon loads only signed code: the linker's ad-hoc signature must be there.
    if cpu == "ARM64":
        assert any(lc.cmd == mach_o.LC_CODE_SIGNATURE for lc, _, _ in header.commands)
    # The module's entry point is exported; Python's own symbols are left undefined and bound by
    # flat lookup, i.e. found at load time in the Python that loads the module.
    symbols = SymbolTable(macho, header)
    assert f"_PyInit_{MODULE}" in {name.decode() for _, name in symbols.extdefsyms}
    python_undefined = {name for _, name in symbols.undefsyms if name.startswith(b"_Py")}
    assert python_undefined, "no Python symbol left undefined"
    (info,) = [cmd for lc, cmd, _ in header.commands if lc.cmd in (mach_o.LC_DYLD_INFO, mach_o.LC_DYLD_INFO_ONLY)]
    data = path.read_bytes()
    bound = dyld_binds(data[info.bind_off : info.bind_off + info.bind_size])
    bound += dyld_binds(data[info.lazy_bind_off : info.lazy_bind_off + info.lazy_bind_size])
    python_bound = {name: ordinal for name, ordinal in bound if name.startswith(b"_Py")}
    assert set(python_bound) == python_undefined
    flat_lookup = -2
    assert {n: o for n, o in python_bound.items() if o != flat_lookup} == {}


def dyld_binds(opcodes: bytes) -> list[tuple[bytes, int]]:
    """(symbol, library ordinal) of every bind in a dyld bind-opcode stream (mach-o/loader.h):
    ordinals count the LC_LOAD_DYLIB commands from 1; 0 is the image itself, -1 the main
    program, -2 flat lookup in everything loaded."""
    binds, i, symbol, ordinal = [], 0, None, None

    def uleb() -> int:
        nonlocal i
        value = shift = 0
        while True:
            byte = opcodes[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while i < len(opcodes):
        opcode, immediate = opcodes[i] & 0xF0, opcodes[i] & 0x0F
        i += 1
        if opcode == 0x10:  # SET_DYLIB_ORDINAL_IMM
            ordinal = immediate
        elif opcode == 0x20:  # SET_DYLIB_ORDINAL_ULEB
            ordinal = uleb()
        elif opcode == 0x30:  # SET_DYLIB_SPECIAL_IMM: 0, or a negative number in four bits
            ordinal = immediate - 16 if immediate else 0
        elif opcode == 0x40:  # SET_SYMBOL_TRAILING_FLAGS_IMM
            end = opcodes.index(0, i)
            symbol, i = opcodes[i:end], end + 1
        elif opcode in (0x60,):  # SET_ADDEND_SLEB
            while opcodes[i] & 0x80:
                i += 1
            i += 1
        elif opcode in (0x70, 0x80):  # SET_SEGMENT_AND_OFFSET_ULEB, ADD_ADDR_ULEB
            uleb()
        elif opcode in (0x90, 0xA0, 0xB0, 0xC0):  # DO_BIND and its variants
            binds.append((symbol, ordinal))
            if opcode == 0xA0:
                uleb()
            elif opcode == 0xC0:
                uleb()
                uleb()
    return binds


def test_linux_wheel_is_consistent_with_its_manylinux_tag(wheel_of, as_released):
    wheel = wheel_of("linux-x64")
    as_released("linux-x64")
    auditwheel = Path(sys.executable).parent / "auditwheel"
    if not auditwheel.is_file():
        pytest.skip("needs auditwheel (scripts/release installs it into .venv)")
    done = subprocess.run(
        [auditwheel, "show", wheel],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    tag = PLATFORMS["linux-x64"]
    assert f'is consistent with the following platform tag: "{tag}"' in text, text
    # Nothing to graft in: it needs only libraries every manylinux system has.
    assert "system-provided shared libraries" in text, text
    assert "libpython" not in text, text


def test_linux_wheel_installs_and_reads_a_level(wheel_of, tmp_path):
    wheel = wheel_of("linux-x64")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index",
         wheel],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    fixture = REPO / "tests" / "fixtures" / "tiny-1.wad"
    use = subprocess.run(
        [python, "-c", "import llamawad, sys; d = open(sys.argv[1], 'rb').read(); "
         "print(llamawad._native.__file__); print(llamawad.roundtrip(d) == d)", fixture],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert use.returncode == 0, use.stderr
    native, same = use.stdout.split()
    assert native.startswith(str(venv)) and same == "True", use.stdout
