"""The glTF export against the Khronos glTF validator.

Every generated level (sizes tiny, small and full, seeds 1 to 10) is written with the command-line
tool, `llamawad generate` then `llamawad wad2gltf`, as .glb; one level of each size also as .gltf
with its .bin beside it, which the validator must load. All files go through the validator in one
Node process (gltf_validate.cjs). Every file must have 0 errors; warnings, infos and hints are
allowed but summarised: printed (visible with `pytest -s`) and written to
build/validator-report.txt.
"""

import json
import shutil
import struct
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest

pytestmark = pytest.mark.generator

SIZES = ("tiny", "small", "full")
SEEDS = range(1, 11)
# The levels also written as .gltf + .bin: one of each size.
AS_GLTF = (("tiny", 1), ("small", 2), ("full", 3))
SEVERITY = {0: "error", 1: "warning", 2: "info", 3: "hint"}
HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "gltf_validate.cjs"


def level_name(size: str, seed: int) -> str:
    return f"{size}-{seed:02}"


def glb_name(size: str, seed: int) -> str:
    return level_name(size, seed) + ".glb"


def gltf_name(size: str, seed: int) -> str:
    return level_name(size, seed) + ".gltf"


ALL_FILES = [glb_name(size, seed) for size in SIZES for seed in SEEDS] + [gltf_name(*level) for level in AS_GLTF]


def validator_dir(repo: Path) -> Path:
    path = repo / ".venv" / "validator" / "node_modules" / "gltf-validator"
    if not (path / "package.json").is_file():
        pytest.fail(f"the Khronos glTF validator is not installed at {path}: run scripts/setup", pytrace=False)
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: the glTF validator runs in Node.js (scripts/setup needs it too)", pytrace=False)
    return path


def validate(repo: Path, files: list[Path]) -> dict[str, dict]:
    """Reports of the validator by file name, from one Node process."""
    done = subprocess.run(
        ["node", SCRIPT, validator_dir(repo), *files],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert done.returncode == 0, f"gltf_validate.cjs failed (exit {done.returncode}):\n{done.stderr}"
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [Path(r["file"]).name for r in reports] == [f.name for f in files], done.stdout[-2000:]
    return {Path(r["file"]).name: r for r in reports}


def messages(report: dict, severity: int) -> list[dict]:
    return [m for m in report.get("messages", []) if m["severity"] == severity]


def describe(message: dict) -> str:
    return f"{message['code']} at {message.get('pointer') or '-'}: {message['message']}"


def summary(reports: dict[str, dict], sizes: dict[str, int], seconds: dict[str, float]) -> str:
    version = next((r["validatorVersion"] for r in reports.values() if "validatorVersion" in r), "?")
    totals = {name: sum(r.get(f"num{name.title()}s", 0) for r in reports.values()) for name in SEVERITY.values()}
    lines = [
        f"Khronos glTF validator {version}: {len(reports)} files, "
        + ", ".join(f"{totals[s]} {s}s" for s in SEVERITY.values()),
        f"(levels and conversions by the CLI: {seconds['convert']:.1f} s; validation in one Node process: "
        f"{seconds['validate']:.1f} s)",
        "",
        f"{'file':<16} {'bytes':>10} {'errors':>7} {'warnings':>9} {'infos':>6} {'hints':>6}",
    ]
    for name, r in reports.items():
        if "failure" in r:
            lines.append(f"{name:<16} {sizes[name]:>10} not validated: {r['failure']}")
            continue
        lines.append(
            f"{name:<16} {sizes[name]:>10} {r['numErrors']:>7} {r['numWarnings']:>9} "
            f"{r['numInfos']:>6} {r['numHints']:>6}"
        )
    by_code: dict[tuple[int, str], list] = defaultdict(list)
    for name, r in reports.items():
        for m in r.get("messages", []):
            by_code[(m["severity"], m["code"])].append((name, m))
    lines += ["", "Messages by severity and code:" if by_code else "No messages of any severity."]
    for (severity, code), found in sorted(by_code.items()):
        files = sorted({name for name, _ in found})
        lines.append(f"  {SEVERITY[severity]:<7} {code}: {len(found)} in {len(files)} files")
        lines.append(f"          e.g. {found[0][0]}: {describe(found[0][1])}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def validated(repo, run_cli, tmp_path_factory):
    """Generates and converts every level with the CLI, validates every file in one Node process,
    writes and prints the summary. Returns (reports by file name, folder of the files)."""
    folder = tmp_path_factory.mktemp("gltf-validator")
    start = time.perf_counter()
    for size in SIZES:
        for seed in SEEDS:
            wad = folder / f"{level_name(size, seed)}.wad"
            outputs = [glb_name(size, seed)] + ([gltf_name(size, seed)] if (size, seed) in AS_GLTF else [])
            for args in (
                ["generate", "--seed", seed, "--size", size, wad],
                *(["wad2gltf", wad, folder / out] for out in outputs),
            ):
                done = run_cli(*args)
                assert done.returncode == 0, f"llamawad {' '.join(map(str, args))}:\n{done.stderr}"
    converted = time.perf_counter()
    files = [folder / name for name in ALL_FILES]
    reports = validate(repo, files)
    validated_at = time.perf_counter()

    sizes = {f.name: f.stat().st_size for f in files}
    text = summary(reports, sizes, {"convert": converted - start, "validate": validated_at - converted})
    report_file = repo / "build" / "validator-report.txt"
    report_file.parent.mkdir(parents=True, exist_ok=True)
    report_file.write_text(text)
    print(f"\n{text}(written to {report_file})")
    return reports, folder


@pytest.mark.parametrize("name", ALL_FILES)
def test_validator_reports_no_errors(validated, name):
    reports, _ = validated
    report = reports[name]
    assert "failure" not in report, f"{name}: the validator could not read it: {report['failure']}"
    assert not report["truncated"]
    errors = messages(report, 0)
    assert report["numErrors"] == 0 and not errors, (
        f"{name}: {report['numErrors']} validator errors:\n" + "\n".join(describe(m) for m in errors[:40])
    )


@pytest.mark.parametrize("size, seed", AS_GLTF, ids=[gltf_name(*level) for level in AS_GLTF])
def test_validator_loaded_the_external_bin(validated, size, seed):
    reports, folder = validated
    bin_file = folder / f"{level_name(size, seed)}.bin"
    gltf = json.loads((folder / gltf_name(size, seed)).read_text())
    assert gltf["buffers"] == [{"byteLength": bin_file.stat().st_size, "uri": bin_file.name}]
    (buffer,) = [r for r in reports[gltf_name(size, seed)]["resources"] if r["pointer"] == "/buffers/0"]
    assert buffer["storage"] == "external" and buffer["uri"] == bin_file.name
    assert buffer["byteLength"] == bin_file.stat().st_size


def test_the_harness_reports_broken_files(repo, run_cli, tmp_path):
    """The validator run above would see errors: a .gltf whose .bin is missing, and a GLB whose
    first position is NaN, are each reported with errors."""
    wad, gltf, glb = tmp_path / "tiny.wad", tmp_path / "no-bin.gltf", tmp_path / "nan.glb"
    for args in (["generate", "--seed", 1, "--size", "tiny", wad], ["wad2gltf", wad, gltf], ["wad2gltf", wad, glb]):
        done = run_cli(*args)
        assert done.returncode == 0, done.stderr
    (tmp_path / "no-bin.bin").unlink()

    data = bytearray(glb.read_bytes())
    json_length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20 : 20 + json_length])
    bin_start = 20 + json_length + 8
    position = next(
        p["attributes"]["POSITION"] for m in document["meshes"] for p in m["primitives"] if "POSITION" in p["attributes"]
    )
    accessor = document["accessors"][position]
    view = document["bufferViews"][accessor["bufferView"]]
    struct.pack_into("<f", data, bin_start + view.get("byteOffset", 0) + accessor.get("byteOffset", 0), float("nan"))
    glb.write_bytes(data)

    reports = validate(repo, [gltf, glb])
    assert "IO_ERROR" in {m["code"] for m in messages(reports["no-bin.gltf"], 0)}, reports["no-bin.gltf"]
    assert "ACCESSOR_INVALID_FLOAT" in {m["code"] for m in messages(reports["nan.glb"], 0)}, reports["nan.glb"]


# ---------------------------------------------------------------------------------------------
# Levels not made by the generator (tests/held_out.py): a level made from nothing byte by byte,
# the fixture with another LGHT chunk (read by the notes' word counts, kept as bytes, none), and
# the fixture damaged where the game reads floats and counts (NaN positions, boxes and normals
# once made the glTF's bounds null). Each written by the CLI as .glb, validated in one process.


@pytest.fixture(scope="module")
def held_out_validated(repo, run_cli, tmp_path_factory):
    import held_out

    folder = tmp_path_factory.mktemp("held-out")
    levels = held_out.levels()
    files = []
    for level in levels:
        wad = folder / f"{level.name}.wad"
        wad.write_bytes(level.data)
        glb = folder / f"{level.name}.glb"
        done = run_cli("wad2gltf", wad, glb)
        assert done.returncode == 0, f"{level.name}: {done.stderr}"
        files.append(glb)
    return {level.name: level for level in levels}, validate(repo, files), folder


def held_out_names() -> list[str]:
    import held_out

    return [level.name for level in held_out.levels()]


@pytest.mark.parametrize("name", held_out_names())
def test_held_out_levels_validate_with_no_errors(held_out_validated, name):
    levels, reports, folder = held_out_validated
    report = reports[f"{name}.glb"]
    assert "failure" not in report, f"{name}: the validator could not read it: {report['failure']}"
    errors = messages(report, 0)
    assert report["numErrors"] == 0 and not errors, (
        f"{name}: {report['numErrors']} validator errors:\n" + "\n".join(describe(m) for m in errors[:40])
    )
    # The Lights group holds a node per light read, and no children list without lights.
    data = (folder / f"{name}.glb").read_bytes()
    json_length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20 : 20 + json_length])
    (group,) = [n for n in document["nodes"] if (n.get("extras") or {}).get("llamawad") == "lights"]
    assert len(group.get("children", [])) == (levels[name].lights or 0)
    assert group.get("children") != []
