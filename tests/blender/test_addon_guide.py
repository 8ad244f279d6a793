"""The artist's guide (addon/docs/guide/) against the add-on as Blender registers it: every
operator and panel is named in the guide, every panel's header draws a "?" that opens its page
(and every problem of the check one that opens its code's section), scripts/guide-pictures
runs, and each picture's script runs the numbered steps of its page that the picture shows.
(Links, pictures and codes: tests/python/test_guide.py; each page followed step by step:
test_addon_guide_walk.py.)"""

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import addon_support
import bpy
import guide_pages
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


def pictures_script():
    sys.path.insert(0, str(REPO / "scripts"))
    import guide_pictures

    return guide_pictures


def test_each_picture_shows_the_steps_its_page_numbers_above_it():
    """A picture shown after a section's numbered steps is made by those steps: its script
    (scripts/guide_pictures.py) names the page and section and runs each of the steps above the
    picture there, no other; a "Before" picture shows none."""
    guide_pictures = pictures_script()
    shown = [s for page in guide_pages.pages() for s in guide_pages.shown(page)]
    for s in shown:
        declared = guide_pictures.PICTURES[s.picture]
        if s.steps_before and not s.caption.startswith("*Before"):
            assert (declared.page, declared.section) == (s.page, s.section), f"{s.picture}.jpg after the steps of {s.page}, {s.section}"
    with tempfile.TemporaryDirectory() as work:
        for name, declared in guide_pictures.PICTURES.items():
            if declared.page is None:
                continue
            (place,) = [s for s in shown if (s.page, s.section, s.picture) == (declared.page, declared.section, name)]
            ran = guide_pictures.steps_run(name, Path(work))["steps"]
            assert ran == list(place.steps_before), f"{name}: runs steps {ran}, {place.page} shows it after {list(place.steps_before)}"
