"""The installable extension: scripts/build-extension packs the add-on with the native module as a
wheel and the artist's guide as HTML; real Blender (the bpy module, headless) installs the .zip
through its own extension machinery into a user resource directory of its own
(BLENDER_USER_RESOURCES, so ~ is not touched), enables it, and imports and exports a level
through the installed add-on, whose llamawad comes from the bundled wheel (the development copy
in .venv is hidden); every "?" of the installed add-on opens a page of the guide inside it, and
every page of the guide can be followed to its end with it (in_extension.py)."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from addon_support import install_and_use_extension

pytestmark = pytest.mark.generator

@pytest.fixture(scope="module")
def extension_zip(repo, script, tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    have_wheel = any((repo / "target" / "wheels").glob("llamawad-*.whl"))
    done = subprocess.run(
        [*script("build-extension"), "--output", out] + (["--no-build"] if have_wheel else []),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    path = done.stdout.strip().splitlines()[-1]
    assert path.endswith(".zip") and os.path.exists(path), done.stdout
    return path


def test_zip_layout(extension_zip):
    with zipfile.ZipFile(extension_zip) as z:
        names = set(z.namelist())
        manifest = z.read("blender_manifest.toml").decode()
    assert {"blender_manifest.toml", "__init__.py", "common/game.py", "operators/export_level.py"} <= names
    wheels = sorted(n for n in names if n.startswith("wheels/") and n.endswith(".whl"))
    assert wheels, names
    for wheel in wheels:
        assert f'"./{wheel}"' in manifest
    assert 'platforms = ["linux-x64"' in manifest
    assert not any("__pycache__" in n for n in names)
    # The guide as HTML with its pictures, not its Markdown.
    assert {"guide/README.html", "guide/textures.html", "guide/pictures/new-image.jpg"} <= names
    assert not any(n.startswith("docs/") for n in names)


def test_blender_installs_the_zip_and_imports_a_level(extension_zip, tmp_path):
    install_and_use_extension(extension_zip, tmp_path)


def test_a_new_user_with_the_zip_opens_the_guide_and_follows_every_page(extension_zip, small_wad_file, tmp_path):
    """Only the extension installed: every "?" opens a page of the guide inside the installed
    extension (a file there, at the section named), and every page of the guide can be followed
    to its end (guide_walk.py, as test_addon_guide_walk.py checks it from the source tree)."""
    from test_addon_guide_walk import operators, walked_as_written

    resources = tmp_path / "blender-user"
    resources.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, Path(__file__).with_name("in_extension.py"), extension_zip, small_wad_file, work],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
        env=dict(os.environ, BLENDER_USER_RESOURCES=str(resources)),
        cwd=tmp_path,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(lines[-1][len("RESULT ") :])
    installed = Path(result["extensions"]) / "user_default" / "llamawad"
    assert result["install"] == ["FINISHED"] and result["enabled"] == ["bl_ext.user_default.llamawad"]
    assert result["menus"] == [True, True]
    assert result["llamawad"].startswith(str(resources)) and result["llamawad_after"] == result["llamawad"]

    from addon.common import guide

    panels = {name for name in result["targets"] if name.startswith("LLAMAWAD_PT_")}
    assert panels == set(guide.PANEL_PAGES)
    for name, target in result["targets"].items():
        assert target["url"].startswith("file://"), (name, target)
        assert target["found"] and target["section_found"], (name, target)
        assert Path(target["file"]).is_relative_to(installed / "guide"), (name, target)
        assert target["file"].endswith(".html"), (name, target)
    for name, page in guide.PANEL_PAGES.items():
        assert Path(result["targets"][name]["file"]).name == page.replace(".md", ".html")

    names = operators()
    import guide_walk

    assert sorted(result["walks"]) == sorted(guide_walk.WALKS)
    for page, walked in result["walks"].items():
        assert "error" not in walked, f"{page}:\n{walked.get('error')}"
        walked_as_written(page, [tuple(r) for r in walked["ran"]], [tuple(o) for o in walked["ops"]], names)
