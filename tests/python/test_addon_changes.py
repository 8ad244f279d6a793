"""The change report in words (addon/common/changes.py), without Blender: tile by tile, with the
node each tile came from, models split off shared ones, the fitting's figures and the summary
line; and the report the Rust core gives has the fields it reads."""

import llamawad
import numpy as np
import pytest
from addon.common import changes, source
from gltf_edit import Glb

REPORT = {
    "tiles_moved": [3],
    "tiles_reshaped": [3, 7],
    "tile_edits": [(3, ["vertices_moved"]), (7, ["look", "collision"])],
    "tiles_recoloured": [7],
    "tiles_emptied": [9],
    "tiles_added": [12, 13],
    "coverage_tiles": [14],
    "coverage_freed": [10],
    "coverage_removed": 0,
    "models_added": 3,
    "collision_polygons_changed": 0,
    "texture_entries_appended": 2,
    "cells_rezoned": 0,
    "zone_masks_changed": 0,
    "fit": {"faces_fitted": 5, "entries_appended": 2, "entries_shared": 3, "max_error": 0.0001, "mean_error": 0.00005, "tolerance": 1 / 256},
    "tiles_fitted": [12],
    "faces_fitted": [["ramp", 0], ["ramp", 1], ["ramp", 2]],
    "uv_snapped": [["ramp", 0], ["ramp", 1]],
    "collision_generated": ["ramp"],
    "sources": [[3, "tile 0003 · model 2"], [7, "tile 0007 · model 2"], [12, "ramp"], [13, "ramp"], [14, "ramp"]],
    "warnings": [],
}


def test_every_tile_the_report_names_in_tile_order():
    rows = changes.tile_changes(REPORT)
    assert [r.tile for r in rows] == [3, 7, 9, 10, 12, 13, 14]
    by_tile = {r.tile: r for r in rows}
    assert by_tile[3].source == "tile 0003 · model 2"
    assert by_tile[3].changes == ["moved or turned", "reshaped: vertices moved"]
    assert by_tile[7].changes == ["reshaped: textures, UVs, materials or face flags changed, collision changed", "vertex colours changed"]
    assert by_tile[9].source == "" and by_tile[9].changes[0].startswith("emptied")
    assert by_tile[12].changes == [
        "new, from ramp",
        "faces given the texture entries their UVs show",
        "collision made from its floors and walls",
    ]
    assert by_tile[14].changes == ["collision only: enters the collision of ramp into its cell"]
    assert by_tile[10].changes == ["collision only, no longer needed: emptied"]
    assert by_tile[3].text() == "tile 3: moved or turned; reshaped: vertices moved"


def test_what_became_of_the_models_is_said_once_per_model():
    # Tiles 3 and 7 of model 2's three each got a model of their own; tile 9 (emptied) has a row.
    before = [0, 1, 2, 2, 3, 4, 5, 2, 6, 7, 8, 9]
    after = [0, 1, 2, 10, 3, 4, 5, 11, 6, 15, 8, 9, 12, 13, 14]
    assert changes.model_changes(REPORT, before, after) == [
        "model 2: tile 3 of its 3 have model 10 now; 1 tile keeps model 2",
        "model 2: tile 7 of its 3 have model 11 now; 1 tile keeps model 2",
    ]
    # All fifteen tiles of a model whose collision was edited: one line, and true.
    assert changes.model_changes({}, [436] * 15, [450] * 15) == ["model 436: all 15 tiles that shared it have model 450 now"]
    assert changes.model_changes({}, [4, 5], [4, 6]) == ["tile 1: model 6 instead of model 5"]
    assert changes.details({}, [4, 5], [4, 6]) == ["tile 1: model 6 instead of model 5"]


def test_summary_and_details():
    assert changes.summary(REPORT) == (
        "2 tiles added; 1 tile moved; 2 tiles reshaped; 1 tile with faces fitted; 1 tile recoloured; 1 tile emptied; "
        "1 tile collision-only; 1 tile collision-only freed; 3 models added; 2 texture entries added; "
        "collision made for 1 new mesh; UVs of 2 faces snapped"
    )
    assert changes.details(REPORT) == [
        "ramp: added as new tiles 12, 13",
        "5 faces got the texture entry that shows their UVs within 1\u2044256 of the page (largest error 0.00010): "
        "3 on entries the level had, 2 entries added",
        "ramp: UVs of 2 faces (0, 1) snapped to the nearest layout the game can show",
        "ramp: collision made from its floors and walls",
    ]
    # A tile copy (Shift D) is named by its object too.
    assert changes.details({"tiles_added": [20], "sources": [[20, "tile 0003 · model 2.001"]]}) == ["tile 0003 · model 2.001: added as new tile 20"]
    assert changes.summary({}) == changes.UNCHANGED
    assert changes.details({"fit": {"faces_fitted": 0}}) == []


def test_strats_in_words():
    """Strats changed, by number with the object each came from (a removed one has none)."""
    report = {
        "strats_moved": [0],
        "strats_tuned": [34],
        "strats_added": [39, 40],
        "strats_removed": [5],
        "parameters_appended": 1,
        "strat_sources": [[0, "Llama · strat 000"], [34, "CameraSide · strat 034"], [39, "Coin · strat 002.001"], [40, "Coin5 · new"]],
    }
    assert changes.summary(report) == "2 strats added; 1 strat moved; 1 strat tuned; 1 strat not created at start; 1 strat parameter appended to the pool"
    assert changes.details(report) == [
        "strat 0 (Llama · strat 000): moved or turned",
        "strat 5: not created at level start (it keeps its record and number)",
        "strat 34 (CameraSide · strat 034): its record's fields or parameters changed",
        "strat 39 (Coin · strat 002.001): new",
        "strat 40 (Coin5 · new): new",
    ]
    assert changes.level_objects_changed(report) and not changes.level_objects_changed({"parameters_appended": 0})
    inserted = {"waypoints_added": [2], "waypoints_moved": [5], "strats_renumbered": [34, 37], "waypoint_sources": [[2, "waypoint 001.001"], [5, "waypoint 004"]]}
    assert changes.summary(inserted) == "1 waypoint inserted; 1 waypoint moved; 2 strats name their waypoint by a new number"
    assert changes.details(inserted) == [
        "waypoint 2 (waypoint 001.001): new, inserted into its chain after the waypoint it copies",
        "waypoint 5 (waypoint 004): moved or turned",
    ]
    assert changes.level_objects_changed(inserted)


def test_changed_lights_in_words():
    lit = {"lights_changed": [0, 2]}
    assert changes.summary(lit) == "2 lights changed"
    assert changes.details(lit) == [
        "light 0: its colour, direction, position or words changed",
        "light 2: its colour, direction, position or words changed",
    ]


@pytest.mark.generator
def test_the_rust_report_reads_in_words():
    """A tile moved in the GLB: the core's report, read here, names it and its node."""
    base = llamawad.generate(2, "small")
    glb, _ = llamawad.wad_to_glb(base)
    edit = Glb(glb)
    node = edit.node("tile", 5)
    translation = np.asarray(edit.json["nodes"][node].get("translation", [0, 0, 0]), float)
    edit.json["nodes"][node]["translation"] = (translation + [1.0, 0, 0]).tolist()
    wad, report = llamawad.gltf_to_wad(base, edit.to_bytes())
    assert set(report) >= (
        {key for key, _, _ in changes.TILE_LISTS}
        | {key for key, _, _ in changes.STRAT_LISTS + changes.WAYPOINT_LISTS}
        | {key for key, *_ in changes.COUNTS}
        | {"fit", "uv_snapped", "collision_generated", "sources", "strat_sources", "waypoint_sources", "strats_renumbered"}
    )
    rows = changes.tile_changes(report)
    moved = next(r for r in rows if r.tile == 5)
    assert moved.source == edit.name(node) and moved.changes[0] == "moved or turned"
    assert "1 tile moved" in changes.summary(report)


@pytest.mark.generator
def test_the_base_a_scene_was_made_from():
    level = llamawad.generate(3, "tiny")
    glb, _ = llamawad.wad_to_glb(level)
    doc_source = Glb(glb).json["scenes"][0]["extras"]["llamawad"]["source"]
    # The add-on measures a base as the core's export does.
    assert source.source_of(level) == doc_source
    assert source.same_source(doc_source, level)
    changed = level[:-1] + bytes([level[-1] ^ 1])
    assert not source.same_source(doc_source, changed)
    assert source.same_source(None, changed)
    message = source.other_level_message("base.wad", doc_source, changed)
    # Same size, another checksum: the message says both, so it never contradicts itself.
    assert f"{len(level):,} bytes, CRC-32 {doc_source['crc32']:08x}" in message
    assert f"{len(level):,} bytes, CRC-32 {source.source_of(changed)['crc32']:08x}" in message


def test_pages_written_and_added_are_said_with_their_size():
    report = {
        "pages_changed": [{"page": 2, "pixels_changed": 16, "pixels_moved": 0}, {"page": 5, "pixels_changed": 1, "pixels_moved": 1}],
        "pages_added": [8],
        "page_bytes_before": 131_120,
        "page_bytes_after": 262_240,
    }
    assert changes.summary(report) == "2 pages written from their images; 1 new page for new images"
    assert changes.page_changes(report) == [
        "page 2: 16 pixels written from its image",
        "page 5: 1 pixel written from its image, 1 pixel more than a 5-bit step from the nearest palette colour",
        "new page 8 for new images",
        "texture pages: 262,240 bytes (the base's 131,120)",
    ]
    unchanged = {"pages_changed": [], "pages_added": [], "page_bytes_before": 10, "page_bytes_after": 10}
    assert changes.page_changes(unchanged) == []
    assert changes.summary(unchanged) == changes.UNCHANGED
