"""The extension zips, one per platform, as Blender's extension builder (--split-platforms) packed
them: each is valid for Blender's own validator; the manifest Blender reads from it names its one
platform and its one wheel; that wheel is inside, is the wheel checked before packing, and is
the platform's; the rest is the add-on as it is in addon/, with the artist's guide as HTML. The Linux zip is installed into real
Blender, which imports and exports a level through it. A plain test run packs and checks the
zip of this machine's platform from its own wheel (conftest.py)."""

import importlib.util
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from release_platforms import BUILT_BY_RELEASE, PLATFORMS, RELEASE, needs_release

from tests.blender.addon_support import install_and_use_extension

REPO = Path(__file__).resolve().parent.parent.parent


def blender_ext_path() -> Path:
    bpy_dir = Path(importlib.util.find_spec("bpy").origin).parent
    (tool,) = bpy_dir.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py")
    return tool


@pytest.fixture(scope="session")
def blender_ext():
    """Blender's extension tool as a module (it is a script; importing it does not start Blender)."""
    spec = importlib.util.spec_from_file_location("blender_ext", blender_ext_path())
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def zips(build_zips, wheels) -> dict[str, Path]:
    """The zip of each platform there is a wheel for: scripts/release's four, or this machine's."""
    with (REPO / "blender_manifest.toml").open("rb") as f:
        version = tomllib.load(f)["version"]
    expected = {p: build_zips / f"llamawad-{version}-{p.replace('-', '_')}.zip" for p in wheels}
    assert sorted(build_zips.glob("*.zip")) == sorted(expected.values())
    if RELEASE:
        assert sorted(expected) == sorted(PLATFORMS)
    return expected


@pytest.fixture(scope="session")
def zip_of(zips):
    """zip_of(platform): that platform's zip; a plain run skips for a platform it has none for."""

    def get(platform: str) -> Path:
        if platform not in zips:
            needs_release(f"the {platform} zip, packed from the {platform} wheel ({BUILT_BY_RELEASE[platform]})")
        return zips[platform]

    return get


def addon_files() -> set[str]:
    """What the extension holds of addon/: every file but the README's pictures, the guide's
    Markdown and bytecode, and the guide rendered to HTML (guide/: a page for each Markdown page,
    and the pictures)."""
    root = REPO / "addon"
    guide = root / "docs" / "guide"
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.relative_to(root).parts[0] != "docs"
    } | {f"guide/{p.stem}.html" for p in guide.glob("*.md")} | {f"guide/pictures/{p.name}" for p in (guide / "pictures").iterdir()}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_blender_validates_the_zip(zip_of, platform):
    done = subprocess.run(
        [sys.executable, blender_ext_path(), "validate", zip_of(platform)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("platform", PLATFORMS)
def test_manifest_names_the_platform_and_its_wheel(zip_of, wheels, tags, blender_ext, platform):
    archive = zip_of(platform)
    manifest = blender_ext.pkg_manifest_from_archive_and_validate(str(archive), strict=True)
    assert not isinstance(manifest, str), manifest
    assert manifest.platforms == [platform]
    wheel = wheels[platform]
    assert manifest.wheels == [f"./wheels/{wheel.name}"]
    with zipfile.ZipFile(archive) as z:
        names = set(z.namelist())
        packed = {n for n in names if n.startswith("wheels/")}
        assert packed == {f"wheels/{wheel.name}"}
        # The very wheel whose binary the wheel checks read.
        assert z.read(f"wheels/{wheel.name}") == wheel.read_bytes()
    assert names - packed == addon_files() | {"blender_manifest.toml"}
    # Blender's own reading of the wheel's tag agrees.
    assert blender_ext.blender_platforms_from_wheel_platform(tags[platform]) == [platform]


def test_blender_installs_the_linux_zip_and_imports_a_level(zip_of, tmp_path):
    install_and_use_extension(zip_of("linux-x64"), tmp_path)
