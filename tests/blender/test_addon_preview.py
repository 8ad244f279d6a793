"""The headless-Blender jobs behind scripts/render-preview and the main job of scripts/setup, on a
tiny generated level (each runs in its own Blender process, as setup runs it)."""

import json
import subprocess
import sys

import llamawad
import pytest

pytestmark = pytest.mark.generator

PNG = b"\x89PNG\r\n\x1a\n"


def run(repo, *args, timeout=600):
    return subprocess.run([*map(str, args)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout, cwd=repo)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("level") / "tiny-4.wad"
    path.write_bytes(llamawad.generate(4, "tiny"))
    return path


@pytest.mark.parametrize("view", ["level", "collision"])
def test_render_preview(repo, script, tiny, tmp_path, view):
    out = tmp_path / f"{view}.png"
    done = run(repo, *script("render-preview"), tiny, out, "--view", view, "--size", "320x180")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == str(out)
    data = out.read_bytes()
    assert data.startswith(PNG)
    # 320 × 180, as asked (IHDR width and height).
    assert int.from_bytes(data[16:20], "big") == 320 and int.from_bytes(data[20:24], "big") == 180


def test_main_job(repo, tiny, tmp_path):
    done = run(repo, sys.executable, repo / "scripts" / "blender_job.py", "main", tiny, tmp_path, "--size", "320x180")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    stats = json.loads(next(l for l in lines if l.startswith("{")))
    assert stats["byte_identical"] is True
    assert (tmp_path / "blender-export.wad").read_bytes() == tiny.read_bytes()
    assert f"Preview render: {tmp_path / 'preview.png'}" in lines
    assert (tmp_path / "preview.png").read_bytes().startswith(PNG)
    assert (tmp_path / "preview-collision.png").read_bytes().startswith(PNG)
