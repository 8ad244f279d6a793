"""The installable extension: scripts/build-extension packs the add-on with the native module as a
wheel; real Blender 5.0 (the bpy module, headless) installs the .zip through its own extension
machinery into a user resource directory of its own (BLENDER_USER_RESOURCES, so ~ is not
touched), enables it, and imports and exports a level through the installed add-on, whose
llamawad comes from the bundled wheel (the development copy in .venv is hidden)."""

import json
import os
import subprocess
import sys
import zipfile

import llamawad
import pytest

pytestmark = pytest.mark.generator

IN_BLENDER = r'''
import importlib.abc, importlib.machinery, json, sys

# The add-on must find llamawad in the wheel Blender installed, not in the test venv.
venv_site = [p for p in sys.path if p.endswith("site-packages")]
class HideVenvLlamawad(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "llamawad":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [p for p in sys.path if p not in venv_site])
sys.meta_path.insert(0, HideVenvLlamawad())

import bpy

zip_path, wad, out = sys.argv[1:4]
result = {"extensions": bpy.utils.user_resource("EXTENSIONS")}
bpy.ops.wm.read_homefile(use_empty=True)
result["install"] = sorted(bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True))
result["enabled"] = sorted(m for m in bpy.context.preferences.addons.keys() if "llamawad" in m)
# A fresh file keeps installed extensions enabled (read_factory_settings would not).
bpy.ops.wm.read_homefile(use_empty=True)
result["import"] = sorted(bpy.ops.import_scene.llamawad(filepath=wad))
result["tiles"] = sum(1 for o in bpy.data.objects if o.get("llamawad") == "tile")
result["export"] = sorted(bpy.ops.export_scene.llamawad(filepath=out))
import llamawad
result["llamawad"] = llamawad.__file__
print("RESULT " + json.dumps(result))
'''


@pytest.fixture(scope="module")
def extension_zip(repo, tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    have_wheel = any((repo / "target" / "wheels").glob("llamawad-*.whl"))
    done = subprocess.run(
        [repo / "scripts" / "build-extension", "--output", out] + (["--no-build"] if have_wheel else []),
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
    assert {"blender_manifest.toml", "__init__.py", "common/gltf_arrays.py", "operators/export_level.py"} <= names
    wheels = sorted(n for n in names if n.startswith("wheels/") and n.endswith(".whl"))
    assert wheels, names
    for wheel in wheels:
        assert f'"./{wheel}"' in manifest
    assert 'platforms = ["linux-x64"' in manifest
    assert not any("__pycache__" in n for n in names)


def test_blender_installs_the_zip_and_imports_a_level(extension_zip, tmp_path):
    wad = tmp_path / "small.wad"
    wad.write_bytes(llamawad.generate(2, "small"))
    out = tmp_path / "out.wad"
    resources = tmp_path / "blender-user"
    resources.mkdir()
    script = tmp_path / "in_blender.py"
    script.write_text(IN_BLENDER)
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(resources))
    done = subprocess.run(
        [sys.executable, script, extension_zip, wad, out],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout + done.stderr
    result = json.loads(lines[-1][len("RESULT ") :])
    assert result["extensions"].startswith(str(resources))
    assert result["install"] == ["FINISHED"]
    assert result["enabled"] == ["bl_ext.user_default.llamawad"]
    assert result["import"] == ["FINISHED"] and result["export"] == ["FINISHED"]
    assert result["tiles"] == llamawad.parse_info(wad.read_bytes())["tiles"]
    # The native module is the wheel Blender installed for the extension.
    assert result["llamawad"].startswith(str(resources))
    assert out.read_bytes() == wad.read_bytes()
