"""The artist's guide (addon/docs/guide/) against the add-on as Blender registers it: every
operator and panel is named in the guide, every panel's header draws a "?" that opens its page
(and every problem of the check one that opens its code's section), and scripts/guide-pictures
runs. (Links, pictures and codes: tests/python/test_guide.py.)"""

import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import addon_support
import bpy
import pytest
from test_addon_panels import Layout, buttons

REPO = addon_support.REPO
GUIDE = REPO / "addon" / "docs" / "guide"
# The test that the script runs renders this few, this small.
PICTURES_TRIED = ("closeup", "floor-probe")
PICTURES_SECONDS = 60.0


def guide_text() -> str:
    return "\n".join(p.read_text() for p in sorted(GUIDE.glob("*.md")))


def addon_classes() -> list[type]:
    """The add-on's operators and panels, as its register() registers them."""
    addon = addon_support.register_addon()
    from addon import operators
    from addon.ui import panels

    classes = [cls for module in operators.modules for cls in module.classes]
    classes += [cls for cls in panels.classes if issubclass(cls, bpy.types.Panel)]
    for cls in classes:
        assert cls.is_registered, cls.__name__
    assert addon
    return classes


def test_every_operator_and_panel_is_named_in_the_guide():
    text = guide_text()
    missing = []
    for cls in addon_classes():
        # Operators by the name F3 search shows, panels by their header.
        if cls.bl_label not in text:
            missing.append(f"{cls.__name__} ({cls.bl_label})")
    assert not missing, f"not named in the guide: {missing}"


def test_the_guide_names_no_button_the_panels_do_not_have():
    # The guide's tables of buttons and of the command line's jobs name operators by their F3
    # names in quotes: each is one.
    labels = {cls.bl_label for cls in addon_classes()}
    for page in ("find-your-way.md", "command-line.md"):
        rows = [line.split(" | ") for line in (GUIDE / page).read_text().splitlines() if line.startswith("| ")]
        named = {name for row in rows for name in re.findall(r'"([^"]+)"', row[2])}
        assert named and named <= labels, (page, named - labels)


def opened(url: str) -> Path:
    """The file a file:// address names."""
    parsed = urlparse(url)
    assert parsed.scheme == "file", url
    return Path(url2pathname(unquote(parsed.path)))


@pytest.fixture
def level(small_wad_file):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}


def test_every_panel_draws_a_question_mark_that_opens_its_page(level):
    from addon.common import guide

    panels = [cls for cls in addon_classes() if issubclass(cls, bpy.types.Panel)]
    assert {cls.bl_idname for cls in panels} == set(guide.PANEL_PAGES)
    for cls in panels:
        log = []
        cls.draw_header(SimpleNamespace(layout=Layout(log), bl_idname=cls.bl_idname), bpy.context)
        (button,) = buttons(log, "wm.url_open")
        assert button.url == guide.page_url(guide.PANEL_PAGES[cls.bl_idname])
        # In the source tree, the Markdown page (the installed extension's HTML page:
        # test_addon_extension.py).
        assert opened(button.url) == GUIDE / guide.PANEL_PAGES[cls.bl_idname]
        # The page teaches the panel: its header's name is on it.
        assert cls.bl_label in (GUIDE / guide.PANEL_PAGES[cls.bl_idname]).read_text(), cls.bl_label


def test_every_problem_opens_its_codes_section(level):
    from addon.common import guide

    item = SimpleNamespace(message="m", pre_existing=False, error=True, object="", code="coverage")
    log = []
    bpy.types.LLAMAWAD_UL_problems.draw_item(None, bpy.context, Layout(log), None, item, 0, None, "", 0)
    (button,) = buttons(log, "wm.url_open")
    assert button.url == guide.code_url("coverage")
    assert opened(button.url) == GUIDE / "when-blender-says-no.md" and button.url.endswith("#coverage")


def test_the_pictures_script_runs_and_knows_every_picture(tmp_path):
    script = REPO / "scripts" / "guide_pictures.py"
    listed = subprocess.run([sys.executable, str(script), "--list"], capture_output=True, text=True, check=True).stdout.split()
    assert sorted(listed) == sorted(p.stem for p in (GUIDE / "pictures").glob("*.jpg"))
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path), "--size", "160x90", "--only", *PICTURES_TRIED],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-2000:]
    for name in PICTURES_TRIED:
        assert (tmp_path / f"{name}.jpg").stat().st_size > 0
    assert seconds < PICTURES_SECONDS

