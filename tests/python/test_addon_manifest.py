"""The add-on's blender_manifest.toml: valid for Blender, and in step with the Rust workspace."""

import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

MAX_TAGLINE = 64


def load(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def test_manifest_fields(repo):
    manifest = load(repo / "blender_manifest.toml")
    assert manifest["id"] == "llamawad"
    assert manifest["type"] == "add-on"
    tagline = manifest["tagline"]
    assert len(tagline) < MAX_TAGLINE and not tagline.endswith(".")
    # One version for the crates, the wheel and the add-on.
    assert manifest["version"] == load(repo / "Cargo.toml")["workspace"]["package"]["version"]


def test_blender_accepts_the_manifest(repo, tmp_path):
    # Blender's own extension tool, shipped inside the bpy wheel; run as a script, so bpy itself
    # is not imported.
    bpy_dir = Path(importlib.util.find_spec("bpy").origin).parent
    (tool,) = bpy_dir.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py")
    shutil.copy(repo / "blender_manifest.toml", tmp_path)
    shutil.copy(repo / "addon" / "__init__.py", tmp_path)
    done = subprocess.run(
        [sys.executable, tool, "validate", tmp_path], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
