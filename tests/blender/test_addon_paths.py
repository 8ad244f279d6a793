"""The add-on in real Blender with file names as artists give them: a folder with an umlaut and a
level name with a space (`Königreich/level 1.wad`) are imported, remembered as the base and
exported to another such name, byte for byte."""

import shutil
from pathlib import Path

import addon_support
import bpy

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tiny-2.wad"


def test_import_and_export_with_spaces_and_umlauts(tmp_path):
    folder = tmp_path / "Königreich"
    folder.mkdir()
    level = folder / "level 1.wad"
    shutil.copy(FIXTURE, level)
    assert addon_support.import_level(level) == {"FINISHED"}
    assert Path(bpy.context.scene.llamawad.base_path) == level
    out = folder / "level 1 – bearbeitet.wad"
    assert bpy.ops.export_scene.llamawad(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == FIXTURE.read_bytes()
    # Nothing else was left in the folder (no temporary file).
    assert sorted(p.name for p in folder.iterdir()) == ["level 1 – bearbeitet.wad", "level 1.wad"]
