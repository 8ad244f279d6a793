"""The llamawad module's type stubs (rust/py/python/llamawad/_native.pyi and answers.py) against
the module as built (mypy's stubtest: every name, argument and default), and the add-on checked
against them with mypy: addon/common and addon/blender, the parts that ask llamawad. The
operators, panels and properties are left out: their Blender properties are annotations mypy
cannot read (``name: BoolProperty(...)``)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / "rust" / "py" / "python"


def mypy(*args: str, module: str = "mypy") -> subprocess.CompletedProcess:
    env = {**os.environ, "MYPYPATH": str(STUBS)}
    cache = ROOT / "build" / "mypy-cache"
    return subprocess.run(
        [sys.executable, "-m", module, *args, *(["--cache-dir", str(cache)] if module == "mypy" else [])],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def addon_check(*extra: str) -> subprocess.CompletedProcess:
    return mypy("--ignore-missing-imports", "--check-untyped-defs", "--follow-imports=silent", *extra)


def test_the_stubs_are_the_module():
    for module in ("llamawad", "llamawad._native", "llamawad.answers"):
        done = mypy(module, module="mypy.stubtest")
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_addon_type_checks_against_the_stubs():
    done = addon_check("-p", "addon.common", "-p", "addon.blender")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "wrong, said",
    [
        ('llamawad.check(b"")["problem"]', 'TypedDict "CheckReport" has no key "problem"'),
        ('llamawad.probe(b"", [(1.0, 2.0)])', 'expected "tuple[float, float, float]"'),
        ('llamawad.check(b"")["problems"][0]["cell"] + [1]', '"__add__" of "tuple"'),
    ],
)
def test_a_wrong_call_is_found(tmp_path, wrong, said):
    """The check can fail: a key the answer does not have, a point of two numbers, a pair taken
    for a list."""
    (tmp_path / "wrong.py").write_text(f"import llamawad\n\n\ndef f() -> None:\n    {wrong}\n")
    done = addon_check(str(tmp_path / "wrong.py"))
    assert done.returncode == 1 and said in done.stdout, done.stdout + done.stderr
