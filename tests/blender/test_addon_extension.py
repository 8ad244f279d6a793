"""The installable extension: scripts/build-extension packs the add-on with the native module as a
wheel; real Blender 5.0 (the bpy module, headless) installs the .zip through its own extension
machinery into a user resource directory of its own (BLENDER_USER_RESOURCES, so ~ is not
touched), enables it, and imports and exports a level through the installed add-on, whose
llamawad comes from the bundled wheel (the development copy in .venv is hidden)."""

import os
import subprocess
import zipfile

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


def test_blender_installs_the_zip_and_imports_a_level(extension_zip, tmp_path):
    install_and_use_extension(extension_zip, tmp_path)
