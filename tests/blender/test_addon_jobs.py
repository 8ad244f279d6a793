"""The command line's jobs an artist needs, in Blender: the test level (Level › Make test level…),
the strat table of a folder (Strat › Strat table of a folder…) and the pages (Level › Pages:
listed, saved as files, set from a PNG file), each against what the command line does."""

import json

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from test_addon_panels import buttons, draw, labels

pytestmark = pytest.mark.generator


@pytest.fixture
def level(small_wad_file, tmp_path):
    """The small level in a folder of its own, imported."""
    path = tmp_path / "level.wad"
    path.write_bytes(small_wad_file.read_bytes())
    assert addon_support.import_level(path) == {"FINISHED"}
    return path


# --- the test level


def test_the_test_level_is_written_beside_the_level_and_opened(level, run_cli):
    original = level.read_bytes()
    made_from = bpy.context.scene
    assert bpy.ops.llamawad.test_level(level_name="Testlevel", spacing=2) == {"FINISHED"}
    written = level.with_name("level-test.wad")
    # The command line's test level of the same level (the scene is unchanged: its bytes).
    cli = level.with_name("cli.wad")
    done = run_cli("testlevel", level, cli, "--name", "Testlevel", "--spacing", "2")
    assert done.returncode == 0, done.stderr
    assert written.read_bytes() == cli.read_bytes()
    # Opened in a scene of its own; the level's scene stays as it was.
    scene = bpy.context.scene
    assert scene != made_from and scene.name == "level-test"
    assert scene.llamawad.base_path == str(written)
    strats = {o.get("type_name") for o in scene.objects if o.get("llamawad") == "strat"}
    assert {t["name"] for t in llamawad.test_level(level.read_bytes(), spacing=2)[1]["placed"]} <= strats
    assert made_from.llamawad.base_path == str(level) and level.read_bytes() == original


def test_the_test_level_is_made_of_the_scene_as_export_writes_it(level, tmp_path):
    tile = addon_support.mesh_tiles()[5]
    tile.location.z += 0.25
    out = tmp_path / "test.wad"
    assert bpy.ops.llamawad.test_level(filepath=str(out)) == {"FINISHED"}
    exported = tmp_path / "exported.wad"
    bpy.context.window.scene = next(s for s in bpy.data.scenes if s.llamawad.base_path == str(level))
    addon_support.export(exported)
    assert out.read_bytes() == llamawad.test_level(exported.read_bytes())[0]


def test_the_test_level_is_never_written_over_the_level(level):
    original = level.read_bytes()
    with pytest.raises(RuntimeError, match="is the base level: choose another file for the test level"):
        bpy.ops.llamawad.test_level(filepath=str(level))
    assert level.read_bytes() == original
    assert len(bpy.data.scenes) == 1


def test_a_scene_export_refuses_makes_no_test_level(level):
    addon_support.mesh_tiles()[0].scale.x = 2.0
    with pytest.raises(RuntimeError, match=r"No test level: the scene cannot be written \(.*\); Check Level lists why"):
        bpy.ops.llamawad.test_level()
    assert not level.with_name("level-test.wad").exists()


def test_the_level_panel_offers_the_test_level(level):
    (button,) = buttons(draw("LLAMAWAD_PT_level"), "llamawad.test_level")
    assert button.text == "Make test level…"


# --- the strat table


def test_the_strat_table_reads_as_the_command_line_prints_it(level, tmp_path, run_cli):
    folder = tmp_path / "levels"
    folder.mkdir()
    (folder / "a.wad").write_bytes(llamawad.generate(1, "tiny"))
    (folder / "b.wad").write_bytes(level.read_bytes())
    (folder / "c.wad").write_bytes(b"garbage!")
    assert bpy.ops.llamawad.strat_table(directory=str(folder)) == {"FINISHED"}
    done = run_cli("strat-table", folder)
    assert done.returncode == 0, done.stderr
    assert bpy.data.texts["Strat table"].as_string() == done.stdout
    # A second table replaces the first.
    (folder / "c.wad").unlink()
    assert bpy.ops.llamawad.strat_table(directory=str(folder)) == {"FINISHED"}
    assert [t.name for t in bpy.data.texts] == ["Strat table"]
    assert bpy.data.texts["Strat table"].as_string() == run_cli("strat-table", folder).stdout
    with pytest.raises(RuntimeError, match="Cannot read the folder"):
        bpy.ops.llamawad.strat_table(directory=str(tmp_path / "missing"))


def test_the_strat_panel_offers_the_strat_table(level):
    (button,) = buttons(draw("LLAMAWAD_PT_strat"), "llamawad.strat_table")
    assert button.text == "Strat table of a folder…"


# --- the pages


def test_the_pages_panel_lists_every_page_as_the_command_line_does(level, tmp_path, run_cli):
    listed = llamawad.pages(level.read_bytes())
    log = draw("LLAMAWAD_PT_pages")
    rows = [t for t in labels(log) if t.startswith("page ")]
    assert len(rows) == len(listed) == llamawad.parse_info(level.read_bytes())["pages"]
    shown = {"16-bit": "16-bit", "8-bit": "8-bit, shown through the first palette", "RLE16": "RLE16, a placeholder: cannot be written"}
    for page, row in zip(listed, rows):
        assert row == f"page {page['page']}: {page['width']} × {page['height']}, {shown[page['shown']]}"
    assert [b.page for b in buttons(log, "llamawad.page_from_file")] == [p["page"] for p in listed]
    assert buttons(log, "llamawad.save_pages")
    assert labels(log).count("packed in the .blend") == len(listed)
    # Saved as files, each page names its file.
    assert bpy.ops.llamawad.save_pages(directory=str(tmp_path / "pages")) == {"FINISHED"}
    assert [t for t in labels(draw("LLAMAWAD_PT_pages")) if t.endswith(".png")] == [f"page-{p['page']:03}.png" for p in listed]


def page_image_rgba(page: int) -> np.ndarray:
    image = bpy.data.images[f"page {page}"]
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.round(pixels.reshape(h, w, 4)[::-1] * 255).astype(np.uint8)


def test_a_page_set_from_a_file_is_written_by_export_and_undone_by_undo(level, tmp_path, run_cli):
    rgba = np.zeros((256, 256, 4), np.uint8)
    rgba[..., 0], rgba[..., 3] = np.arange(256)[None, :], 255
    png = tmp_path / "ramp.png"
    png.write_bytes(llamawad.encode_png(256, 256, rgba.tobytes()))
    before = page_image_rgba(0)
    assert bpy.ops.ed.undo_push(message="before") == {"FINISHED"}
    assert bpy.ops.llamawad.page_from_file(filepath=str(png), page=0) == {"FINISHED"}
    assert bpy.ops.ed.undo_push(message="Set Page from File") == {"FINISHED"}
    assert np.array_equal(page_image_rgba(0), rgba)
    # The page's materials show the new image; export writes it as set-page does.
    shown = next(n.image for n in addon_support.page_material(0).node_tree.nodes if n.type == "TEX_IMAGE")
    assert shown.name == "page 0" and shown.get("llamawad") == "page"
    written = addon_support.export(tmp_path / "out.wad")
    cli = tmp_path / "cli.wad"
    done = run_cli("set-page", level, "0", png, cli)
    assert done.returncode == 0, done.stderr
    assert written == cli.read_bytes()
    assert bpy.ops.ed.undo() == {"FINISHED"}
    assert np.array_equal(page_image_rgba(0), before)
    assert [i.name for i in bpy.data.images if i.get("llamawad") == "page" and i.name.startswith("page 0")] == ["page 0"]
    assert addon_support.export(tmp_path / "undone.wad") == level.read_bytes()


def test_a_page_of_another_size_is_refused_unless_resized(level, tmp_path, run_cli):
    png = tmp_path / "small.png"
    png.write_bytes(llamawad.encode_png(2, 2, bytes([0, 255, 0, 255, 0, 0, 255, 255] * 2)))
    with pytest.raises(RuntimeError, match=r"small.png is 2 × 2 pixels, page 1 is 256 × 256: tick Resize"):
        bpy.ops.llamawad.page_from_file(filepath=str(png), page=1)
    assert bpy.ops.llamawad.page_from_file(filepath=str(png), page=1, resize=True) == {"FINISHED"}
    written = addon_support.export(tmp_path / "out.wad")
    cli = tmp_path / "cli.wad"
    assert run_cli("set-page", level, "1", png, cli, "--resize").returncode == 0
    assert written == cli.read_bytes()


def test_a_page_that_cannot_be_written_or_a_file_that_is_no_png_is_refused(level, tmp_path):
    listed = llamawad.pages(level.read_bytes())
    png = tmp_path / "page.png"
    png.write_bytes(llamawad.encode_png(256, 256, bytes(256 * 256 * 4)))
    with pytest.raises(RuntimeError, match=f"Page {len(listed)} does not exist: the level has pages 0 to {len(listed) - 1}"):
        bpy.ops.llamawad.page_from_file(filepath=str(png), page=len(listed))
    rle = next(p["page"] for p in listed if p["shown"] == "RLE16")
    with pytest.raises(RuntimeError, match=f"Page {rle} is RLE16-compressed, which cannot be written"):
        bpy.ops.llamawad.page_from_file(filepath=str(png), page=rle)
    (tmp_path / "text.png").write_text("no image")
    with pytest.raises(RuntimeError, match="Cannot read the image .*not a PNG"):
        bpy.ops.llamawad.page_from_file(filepath=str(tmp_path / "text.png"), page=0)
    with pytest.raises(RuntimeError, match="Cannot read the image"):
        bpy.ops.llamawad.page_from_file(filepath=str(tmp_path / "missing.png"), page=0)


def test_import_lists_the_pages(level):
    assert json.loads(bpy.context.scene.llamawad.pages_json) == llamawad.pages(level.read_bytes())
