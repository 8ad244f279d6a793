"""The add-on's reading of the Rust check (addon/common/problems.py), without Blender: the order
of the problem list, its counts, and which object and faces each problem names."""

import llamawad
import pytest
from addon.common import problems as found


def make(code="x", severity="error", pre_existing=False, **culprit):
    p = found.problem(code, severity, f"{code} {severity}")
    p["pre_existing"] = pre_existing
    p.update(culprit)
    return p


def test_new_problems_come_first_errors_before_warnings():
    listed = [
        make("a", "warning", True),
        make("b", "error", True),
        make("c", "warning"),
        make("d", "error"),
        make("e", "error"),
    ]
    assert [p["code"] for p in found.ordered(listed)] == ["d", "e", "c", "b", "a"]
    assert found.counts(listed) == {"errors": 2, "warnings": 1, "pre_existing": 2}
    assert found.summary(listed) == "2 errors, 1 warning (2 more the base level has already): d error"
    assert found.summary([make("a", "warning", True)]) == "no new problems (1 more the base level has already)"
    assert found.summary([]) == "No problems: the level can be exported"


@pytest.mark.generator
def test_problems_of_the_add_on_are_shaped_like_the_rust_checks():
    fields = {"code", "severity", "message", "pre_existing", *found.CULPRIT_FIELDS}
    assert set(found.problem("left-out", "warning", "m")) == fields
    report = llamawad.check(llamawad.generate(2, "small"))
    for p in report["problems"]:
        assert set(p) == fields and p["severity"] in ("error", "warning")


@pytest.fixture
def index():
    return found.SceneIndex(
        tiles={0: "tile 0000 · model 0", 1: "tile 0001 · model 1", 7: "tile 0001 · model 1.001", 9: "tile 0003 · model 0"},
        collision={"tile 0000 · model 0": "tile 0000 · collision", "tile 0003 · model 0": "tile 0003 · collision"},
        strats={4: "strat 4 · Llama"},
        zones="Zones",
        grid_width=10,
        coverage={9},
        tile_models=lambda: [0, 1, 5, 5, 2, 2, 2, 1, 0, 0],
    )


def test_locate_names_the_object_and_its_faces(index):
    T = found.Target
    assert found.locate(make(strat=4, tile=0), index) == T("strat 4 · Llama")
    assert found.locate(make(tile=0, polygon=3, model=0, cell=[2, 1]), index) == T("tile 0000 · collision", "wad_polygon", 3)
    assert found.locate(make(tile=1, face=12), index) == T("tile 0001 · model 1", "wad_face", 12)
    assert found.locate(make(tile=7), index) == T("tile 0001 · model 1.001")
    # A model's problem: the first tile of the scene using it.
    assert found.locate(make(model=1, face=2), index) == T("tile 0001 · model 1", "wad_face", 2)
    assert found.locate(make(model=0, polygon=5), index) == T("tile 0000 · collision", "wad_polygon", 5)
    # A coverage tile's polygons are numbered in a model of their own: only its owner is shown.
    assert found.locate(make(tile=9, polygon=1), index) == T("tile 0003 · model 0")
    # A model no tile of the scene uses, a tile without object: the cell, else nothing.
    assert found.locate(make(model=5, cell=[3, 2]), index) == T("Zones", "wad_cell", 23)
    assert found.locate(make(tile=2), index) == T()
    assert found.locate(make(), index) == T()
    # A problem an edit made on an untouched tile shows the edited tile, or, deleted, the cell
    # it emptied.
    assert found.locate(make(tile=0, polygon=0, cell=[2, 1], cause=1), index) == T("tile 0001 · model 1")
    assert found.locate(make(tile=0, polygon=0, cell=[2, 1], cause=2), index) == T("Zones", "wad_cell", 12)


def test_a_model_problem_asks_for_the_tiles_models_only_then(index):
    asked = []
    index.tile_models = lambda: asked.append(1) or [0, 1]
    found.locate(make(tile=0, polygon=1), index)
    found.locate(make(strat=4), index)
    assert asked == []
    found.locate(make(model=1), index)
    assert asked == [1]
