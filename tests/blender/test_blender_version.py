"""These tests run in a Blender the add-on is tested in (scripts/lib.sh names them), and, run by
`scripts/test --blender VERSION` (which passes the version on in LLAMAWAD_BLENDER), in the one
asked for: a venv that holds another bpy than its name says fails here instead of passing for
the release it is named after."""

import os
import subprocess

import bpy


def test_the_blender_is_a_known_release_and_the_one_asked_for(script):
    version = ".".join(map(str, bpy.app.version))
    done = subprocess.run(
        [*script("test"), "--blender", "0.0"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    known = done.stderr.split("the known ones are ")[-1].split()
    assert done.returncode == 2 and known, done.stderr
    assert version in known, (version, known)
    asked = os.environ.get("LLAMAWAD_BLENDER")
    if asked is not None:
        assert version == asked
