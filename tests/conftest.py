"""Fixtures for every test under tests/.

Nothing here skips a test: a test that cannot run fails or errors with the reason.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The add-on's pure-Python modules (addon.common) serve the tests' glTF helpers too.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def script():
    """The command line that runs scripts/NAME: through bash, which Windows does not start by
    itself for a script (Git Bash's, found on PATH, not the WSL one Windows would find first)."""
    bash = shutil.which("bash")
    assert bash, "bash not found on PATH"
    return lambda name: [bash, REPO / "scripts" / name]


@pytest.fixture(scope="session")
def run_cli(script):
    """Runs scripts/llamawad with the given arguments; returns the CompletedProcess."""

    def run(*args, cwd=None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*script("llamawad"), *map(str, args)],
            cwd=cwd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )

    return run


@pytest.fixture(scope="session")
def small_wad_file(tmp_path_factory) -> Path:
    """The generated small level (seed 2) in a file of its own, the level the add-on's tests
    import; tests write their outputs elsewhere."""
    import llamawad

    path = tmp_path_factory.mktemp("base") / "small-2.wad"
    path.write_bytes(llamawad.generate(2, "small"))
    return path


@pytest.fixture(scope="session")
def tiny_wad() -> bytes:
    """A generated tiny level (seed 1)."""
    import llamawad

    try:
        return llamawad.generate(1, "tiny")
    # A Rust panic arrives as pyo3's PanicException, which derives from BaseException.
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001
        failure = f"{type(e).__name__}: {e}"
    # Outside the except block, so that the report is this one line rather than a chained trace.
    pytest.fail(
        f"llamawad.generate(1, 'tiny') failed: {failure}. "
        "Tests marked 'generator' need the generator in rust/core/src/generate.rs.",
        pytrace=False,
    )
