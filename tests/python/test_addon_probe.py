"""The Floor probe's words and drawing (addon/common/probe.py) and the bindings the add-on asks
instead of keeping rules of its own: polygon_outlines, tile_models, face_uvs, shown_colours."""

import json

import llamawad
import numpy as np
import pytest
from addon.common import game
from addon.common import probe as words


@pytest.fixture(scope="module")
def level() -> bytes:
    return llamawad.generate(2, "small")


def llama_start(data: bytes) -> tuple[float, float, float]:
    gltf, _, _ = llamawad.wad_to_gltf(data)
    for node in json.loads(gltf)["nodes"]:
        extras = node.get("extras", {})
        if extras.get("type_name") == "Llama":
            return tuple(v / 4096 for v in extras["position"])
    raise AssertionError("no Llama")


def inside(point, corners, margin=0.0) -> bool:
    """(x, z) of ``point`` inside the convex outline (x, z of ``corners``), by ``margin`` at least."""
    p = np.array([point[0], point[2]])
    c = np.array([[q[0], q[2]] for q in corners])
    edges = np.roll(c, -1, axis=0) - c
    cross = edges[:, 0] * (p - c)[:, 1] - edges[:, 1] * (p - c)[:, 0]
    lengths = np.linalg.norm(edges, axis=1)
    side = np.sign(cross.sum())
    return bool((side * cross / lengths >= margin).all())


@pytest.mark.generator
def test_outlines_of_the_floor_and_of_the_polygons_that_lost(level):
    x, y, z = llama_start(level)
    result = llamawad.probe(level, [(x, y, z)])[0]
    candidates = result["candidates"]
    outlines = llamawad.polygon_outlines(level, [(c["tile"], c["polygon"]) for c in candidates])
    assert len(outlines) == len(candidates)
    won = words.chosen_index(result)
    assert won is not None
    for c, outline in zip(candidates, outlines):
        assert len(outline["corners"]) == len(outline["zone"]) == len(c["edges"])
        assert outline["tolerance"] == pytest.approx(-c["tolerance"] / 4096)
        # The zone is the polygon grown by the tolerance on every side.
        assert all(inside(q, outline["zone"], 0.5 * outline["tolerance"]) for q in outline["corners"])
        worst = min(c["edges"]) / 4096 + outline["tolerance"]
        if c["passed"]:
            assert inside((x, y, z), outline["zone"], -2e-3)
        elif worst < -2e-3:
            assert not inside((x, y, z), outline["zone"])
    floor = outlines[won]
    assert min(q[1] for q in floor["corners"]) - 1e-3 <= result["floor"]["height"] <= max(q[1] for q in floor["corners"]) + 1e-3
    assert llamawad.polygon_outlines(level, [(10**6, 0), (0, 10**6)]) == [None, None]


@pytest.mark.generator
def test_words_and_drawing_of_a_real_probe(level):
    x, y, z = llama_start(level)
    result = llamawad.probe(level, [(x, y, z)])[0]
    result["outlines"] = llamawad.polygon_outlines(level, [(c["tile"], c["polygon"]) for c in result["candidates"]])
    floor = result["floor"]
    rows = words.describe(result, {floor["tile"]: "the tile"})
    assert rows[0].text.startswith(f"At {x:.3f}, {y:.3f}, {z:.3f}")
    assert rows[1].won and rows[1].text.startswith(f"Floor: height {floor['height']:.4f}, material {floor['material']}")
    assert rows[1].detail == f"tile {floor['tile']} polygon {floor['polygon']} (the tile)"
    assert len(rows) == 2 + len(result["candidates"]) - 1 + (result["surface_above"] is not None)
    drawn = words.drawing(result)
    assert drawn["point"] == pytest.approx((x, -z, y))
    won = result["outlines"][words.chosen_index(result)]
    assert drawn["floor"] == [pytest.approx((q[0], -q[2], q[1])) for q in won["corners"]]
    assert len(drawn["zone"]) == len(won["corners"])
    assert len(drawn["others"]) == len(result["candidates"]) - 1


def candidate(tile, polygon, height, dist, edges=(0, 0, 0), tolerance=-80, passed=True, above=False):
    return {"tile": tile, "polygon": polygon, "material": 0, "height": height, "dist": dist, "edges": list(edges), "tolerance": tolerance, "passed": passed, "above": above}


def test_why_each_candidate_lost():
    win = candidate(1, 0, 2.0, 0.5)
    lower = candidate(2, 1, 0.5, 2.0)
    tie = candidate(3, 2, 2.0, 0.5)
    above = candidate(4, 0, 3.0, -0.75, above=True)
    outside = candidate(5, 3, 2.1, 0.4, edges=(100, -4096, -300, 50), passed=False)
    result = {"x": 1.0, "y": 2.25, "z": 3.0, "cell": {"col": 1, "row": 3}, "floor": {"tile": 1, "polygon": 0, "height": 2.0, "material": 0}, "no_floor": None, "surface_above": None, "candidates": [win, lower, tie, above, outside]}
    assert words.why_not(win, result) == "chosen: the nearest surface under the feet"
    assert words.why_not(lower, result) == "lower: 1.500 below the chosen surface"
    assert words.why_not(tie, result) == "as near as the chosen surface, which the test found first"
    assert words.why_not(above, result) == "above the feet by 0.750: a surface above, never the floor"
    assert words.why_not(outside, result) == "outside edge 2 by 1.000 (the tolerance lets 0.020 pass), and outside 1 more edge"
    rows = words.describe(result, {})
    assert [r.won for r in rows] == [False, True, False, False, False, False]
    assert rows[0].detail == "cell 1, 3: 5 polygons facing up"
    # Water wins like a floor, then is no floor.
    result["no_floor"], result["floor"] = {**result["floor"], "material": 30}, None
    assert words.why_not(win, result).startswith("chosen, but its material means no floor")
    assert words.describe(result, {})[1].text == "No floor: material 30 (death plane / water) at 2.0000"
    result["no_floor"] = None
    assert words.describe(result, {})[1].text == "No floor: no polygon passes; the llama falls"
    assert words.describe({**result, "cell": None, "candidates": []}, {})[0].detail == "outside the grid: no tiles, no floor"


@pytest.mark.generator
def test_tile_models_are_the_tiles_models(level):
    gltf, _, _ = llamawad.wad_to_gltf(level)
    nodes = [n["extras"] for n in json.loads(gltf)["nodes"] if (n.get("extras") or {}).get("llamawad") == "tile"]
    models = llamawad.tile_models(level)
    assert len(models) == len(nodes)
    assert all(models[e["tile"]] == e["model"] for e in nodes)
    with pytest.raises(llamawad.WadError):
        llamawad.tile_models(b"no level")


def test_face_uvs_follow_the_texture_rule():
    entries = [
        {"flags": 0, "page": 0, "page2": -1, "u0": 0, "u1": 63, "v0": 64, "v1": 127},
        {"flags": 1, "page": 0, "page2": -1, "u0": 10, "u1": 20, "v0": 30, "v1": 0},
    ]
    uv, has = game.face_uvs(entries, [0, 0, 0, 1, 7], [0, game.FACE_MIRROR_U, game.FACE_QUAD_HALF | game.FACE_SECOND_HALF, 0, 0])
    assert has.tolist() == [True, True, True, False, False]
    # The Rust rule gives (v0, v1, v2) = (a, V1), (b, V1), (a, V0); the glTF lists v0, v2, v1.
    assert uv[0].tolist() == [[0.25, 0.5], [0.25, 0.25], [0.0, 0.5]]
    assert uv[1].tolist() == [[0.0, 0.5], [0.0, 0.25], [0.25, 0.5]]
    assert uv[2].tolist() == [[0.0, 0.25], [0.25, 0.5], [0.25, 0.25]]
    assert (uv[3:] == 0).all()
    with pytest.raises(llamawad.WadError):
        llamawad.face_uvs(entries, [0, 1], [0])


def test_shown_colours_are_doubled_and_clamped():
    shown = game.shown_colour(np.array([[0x808080, 0x000000], [0x0000FF, 0x402010]]))
    assert shown.shape == (2, 2, 4)
    assert shown[0, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert shown[0, 1].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert shown[1, 0].tolist() == [1.0, 0.0, 0.0, 1.0]
    expected = game.srgb_to_linear(np.array([0x20, 0x40, 0x80]) / 255.0)
    np.testing.assert_allclose(shown[1, 1, :3], expected, rtol=1e-6)
    # Faces that ignore vertex colours are drawn white.
    flags = [0, game.FACE_IGNORE_COLOURS, game.FACE_DOUBLE_SIDED]
    shown = game.shown_colour([0x402010, 0x402010, 0x402010], flags)
    assert shown[1].tolist() == [1.0] * 4
    assert shown[0].tolist() == shown[2].tolist() != shown[1].tolist()
    with pytest.raises(llamawad.WadError):
        llamawad.shown_colours([1, 2], [0])
