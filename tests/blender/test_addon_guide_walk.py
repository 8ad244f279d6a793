"""Every page of the artist's guide followed to its end in Blender, with the add-on from the
source tree (guide_walk.py: each numbered step that names an operator runs it); the same walks
with the add-on installed from the extension zip, in test_addon_extension.py."""

import addon_support
import guide_pages
import guide_walk
import pytest

pytestmark = pytest.mark.generator

# Its steps are the install itself, which test_addon_extension.py walks.
INSTALL = "install.md"


def operators() -> dict[str, str]:
    """The add-on's operators: their names in F3 search and their bpy.ops names."""
    addon_support.register_addon()
    from addon import operators

    return {cls.bl_label: cls.bl_idname for module in operators.modules for cls in module.classes}


def walked_as_written(page: str, ran: list[tuple[str, int]], ops: list[tuple[str, int, str]], names: dict[str, str]) -> None:
    """The walk ran every numbered step of the page, no other, and in each step that names
    operators of the add-on one of them (a step may name alternatives: At 3D cursor or Click in
    view)."""
    steps = guide_pages.steps(guide_pages.GUIDE / page)
    known = {(s.section, s.number) for s in steps}
    assert set(ran) <= known, f"{page}: steps the page does not have: {sorted(set(ran) - known)}"
    assert set(ran) == known, f"{page}: steps the walk does not run: {sorted(known - set(ran))}"
    for s in steps:
        named = {names[label] for label in guide_pages.named_operators(s, set(names))}
        run = {idname for section, number, idname in ops if (section, number) == (s.section, s.number)}
        assert not named or named & run, f"{page}: {s.section}, step {s.number} names {sorted(named)} but runs {sorted(run) or 'none'}"


def pages_with_steps() -> list[str]:
    return [p.name for p in guide_pages.pages() if guide_pages.steps(p)]


def test_every_page_with_steps_is_walked():
    assert sorted(pages_with_steps()) == sorted([*guide_walk.WALKS, INSTALL])


@pytest.mark.parametrize("page", sorted(guide_walk.WALKS))
def test_the_page_is_followed_to_its_end(page, small_wad_file, tmp_path):
    walk = guide_walk.Walk(page, small_wad_file.read_bytes(), tmp_path)
    addon_support.register_addon()
    guide_walk.WALKS[page](walk)
    walked_as_written(page, walk.ran, walk.ops, operators())


def test_a_walk_missing_a_step_or_its_operator_is_found():
    """The comparison can fail: a walk of the test level that skips a step, one that runs a step
    the page does not have, and one that runs no operator where the page names one."""
    section = "A test level with every object type"
    every = [(section, n) for n in (1, 2, 3)]
    made = [(section, 1, "llamawad.test_level")]
    with pytest.raises(AssertionError, match="does not run"):
        walked_as_written("testlevel.md", every[1:], made, operators())
    with pytest.raises(AssertionError, match="does not have"):
        walked_as_written("testlevel.md", [*every, (section, 9)], made, operators())
    with pytest.raises(AssertionError, match="names"):
        walked_as_written("testlevel.md", every, [(section, 1, "llamawad.check_level")], operators())
    walked_as_written("testlevel.md", every, made, operators())
