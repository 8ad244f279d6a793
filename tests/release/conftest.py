"""Fixtures of the release checks: scripts/release runs them on what it just built in the folder
LLAMAWAD_RELEASE (wheels/, bin/llamawad.exe, the zips). The plain test run leaves this folder out
(tests/conftest.py), since nothing here is built by it.

Nothing here skips: a missing artifact or tool fails its test, and a skip a library raises is
turned into a failure, so a release is never packed past a check that did not run."""

import os
from pathlib import Path

import pytest
from release_platforms import PLATFORMS


@pytest.fixture(scope="session")
def release() -> Path:
    folder = os.environ.get("LLAMAWAD_RELEASE")
    if not folder:
        pytest.fail("LLAMAWAD_RELEASE is not set: these checks run from scripts/release", pytrace=False)
    return Path(folder)


@pytest.fixture(scope="session")
def wheels(release) -> dict[str, Path]:
    """The wheel of each platform, by Blender platform name; fails unless there is exactly one
    for each and nothing else."""
    found = sorted((release / "wheels").glob("*.whl"))
    by_platform = {p: [w for w in found if w.stem.endswith("-" + tag)] for p, tag in PLATFORMS.items()}
    assert {p: len(ws) for p, ws in by_platform.items()} == dict.fromkeys(PLATFORMS, 1), found
    assert len(found) == len(PLATFORMS), found
    return {p: ws[0] for p, ws in by_platform.items()}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped, which a release check may not be: {report.longrepr}"
    return report
