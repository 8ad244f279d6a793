"""Fixtures of the release checks. They run in two ways:

- from scripts/release, on what it has just built in the folder LLAMAWAD_RELEASE (wheels/ with a
  wheel for every platform, bin/llamawad.exe, the zips). Nothing skips then: a missing artifact
  or tool fails its test, and a skip (a library's too) is turned into a failure, so a release is
  never packed past a check that did not run;
- in every test run (scripts/test), on what this machine builds itself: its own wheel (the one
  scripts/test has just built into target/wheels) and the extension zip of its platform packed
  from it, and the command-line checks on its own build of the tool. What only scripts/release
  makes (the other platforms' wheels, the wheels as it links them, llamawad.exe and Wine to run
  it) is skipped, each skip naming what it needs.
"""

import shutil
import subprocess
from pathlib import Path

import pytest
from release_platforms import BUILT_BY_RELEASE, PLATFORMS, RELEASE, needs_release

REPO = Path(__file__).resolve().parent.parent.parent


def platform_of_tag(tag: str) -> str | None:
    """The Blender platform a wheel's platform tag is for (None: none the release has)."""
    if tag == "win_amd64":
        return "windows-x64"
    if tag.endswith("_x86_64") and (tag.startswith("manylinux") or tag == "linux_x86_64"):
        return "linux-x64"
    if tag.startswith("macosx_") and tag.endswith("_arm64"):
        return "macos-arm64"
    if tag.startswith("macosx_") and tag.endswith("_x86_64"):
        return "macos-x64"
    return None


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Path:
    """The folder of what is checked: scripts/release's, or in a plain test run one holding this
    machine's own wheel (wheels/)."""
    if RELEASE:
        return Path(RELEASE)
    found = sorted((REPO / "target" / "wheels").glob("llamawad-*.whl"))
    if len(found) != 1:
        pytest.fail(
            f"expected this machine's one wheel in target/wheels, found {found}: scripts/test builds it",
            pytrace=False,
        )
    folder = tmp_path_factory.mktemp("release")
    (folder / "wheels").mkdir()
    shutil.copy(found[0], folder / "wheels")
    return folder


def wheel_tag(wheel: Path) -> str:
    return wheel.stem.split("-")[-1]


@pytest.fixture(scope="session")
def wheels(release) -> dict[str, Path]:
    """The wheel of each platform there is one for, by Blender platform name. scripts/release's
    must be exactly one for each platform and nothing else; a plain run has this machine's."""
    found = sorted((release / "wheels").glob("*.whl"))
    if RELEASE:
        by_platform = {p: [w for w in found if w.stem.endswith("-" + tag)] for p, tag in PLATFORMS.items()}
        assert {p: len(ws) for p, ws in by_platform.items()} == dict.fromkeys(PLATFORMS, 1), found
        assert len(found) == len(PLATFORMS), found
        return {p: ws[0] for p, ws in by_platform.items()}
    (wheel,) = found
    platform = platform_of_tag(wheel_tag(wheel))
    assert platform, f"{wheel.name} is for no platform the release has"
    return {platform: wheel}


@pytest.fixture(scope="session")
def tags(wheels) -> dict[str, str]:
    """The platform tag each wheel must carry: the release's (release_platforms.py), or the one
    this machine's build gave its own wheel."""
    if RELEASE:
        return dict(PLATFORMS)
    return {p: wheel_tag(w) for p, w in wheels.items()}


@pytest.fixture(scope="session")
def wheel_of(wheels):
    """wheel_of(platform): that platform's wheel; a plain run skips for a platform it has none
    for."""

    def get(platform: str) -> Path:
        if platform not in wheels:
            needs_release(f"the {platform} wheel ({BUILT_BY_RELEASE[platform]})")
        return wheels[platform]

    return get


@pytest.fixture(scope="session")
def as_released():
    """as_released(platform): skips, in a plain run, a check of how scripts/release links a
    platform's wheel, which this machine's own build of it does not show (on Windows, say, it
    is linked by MSVC, with its runtime DLL)."""

    def check(platform: str) -> None:
        if not RELEASE:
            needs_release(f"the {platform} wheel as the release links it ({BUILT_BY_RELEASE[platform]})")

    return check


@pytest.fixture(scope="session")
def build_zips(release, wheels, tmp_path_factory, script):
    """A plain run's extension zip of this machine's platform, packed from its wheel as
    scripts/release packs each (Blender's builder, --split-platforms); scripts/release's zips are
    already in its folder."""
    if RELEASE:
        return release
    out = tmp_path_factory.mktemp("zips")
    wheel_args = [a for w in wheels.values() for a in ("--wheel", w)]
    done = subprocess.run(
        [*script("build-extension"), "--no-build", "--only-given", "--split-platforms", "--output", out, *wheel_args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return out


if RELEASE:

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(item, call):
        report = yield
        if report.skipped:
            report.outcome = "failed"
            report.longrepr = f"skipped, which a release check may not be: {report.longrepr}"
        return report
