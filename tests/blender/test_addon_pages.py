"""Images both ways in Blender (issue 23), through the add-on's operators: a page the artist
repaints is written into the level's page, a new image on a new mesh becomes a new page its
faces show. The written WAD is read back by the add-on's own import and by llamawad.parse_info."""

import addon_support
import bpy
import llamawad
import numpy as np
import pytest

from addon.blender.scene_to_wad.images import rgba_bytes

pytestmark = pytest.mark.generator

SPOT = addon_support.SPOT


@pytest.fixture
def level(small_wad_file, tmp_path):
    return addon_support.level_with_spot(small_wad_file, tmp_path)


def changes() -> list[str]:
    return [c.text for c in bpy.context.scene.llamawad.changes]


def page_image(page: int) -> bpy.types.Image:
    return next(i for i in bpy.data.images if i.get("llamawad") == "page" and i.name.split(".")[0] == f"page {page}")


def test_an_unchanged_level_with_its_pages_handed_over_is_the_base(level):
    assert addon_support.export(level.out) == level.base
    assert changes() == []


def test_a_repainted_page_is_written_into_the_level(level):
    image = page_image(0)
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rows = pixels.reshape(h, w, 4)
    # Four by four pixels at the page's top-left corner (Blender's rows are bottom first), red.
    rows[h - 4 :, :4] = (1.0, 0.0, 0.0, 1.0)
    image.pixels.foreach_set(rows.ravel())
    written = addon_support.export(level.out)
    assert written != level.base
    assert any(line.startswith("page 0: ") and "written from its image" in line for line in changes()), changes()
    # The level read back shows the red block, and the rest of the page as it was.
    assert addon_support.import_level(level.out) == {"FINISHED"}
    back = rgba_bytes(page_image(0)).reshape(h, w, 4)
    assert (back[:4, :4] == (255, 0, 0, 255)).all()
    before = np.clip(np.round(pixels.reshape(h, w, 4)[::-1] * 255), 0, 255).astype(np.uint8)
    assert (back[4:] == before[4:]).all() and (back[:, 4:] == before[:, 4:]).all()


def test_a_new_image_on_a_new_mesh_becomes_a_new_page(level):
    pages = llamawad.parse_info(level.base)["pages"]
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, level.height)) == {"FINISHED"}
    plane = bpy.context.active_object
    image = bpy.data.images.new("painted", 64, 64)
    checker = np.indices((64, 64)).sum(axis=0) % 2
    image.pixels.foreach_set(np.repeat(checker.ravel(), 4).astype(np.float32))
    mat = bpy.data.materials.new("painted")
    if mat.node_tree is None:
        mat.use_nodes = True
    tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    mat.node_tree.nodes.active = tex
    plane.data.materials.append(mat)
    written = addon_support.export(level.out)
    assert llamawad.parse_info(written)["pages"] == pages + 1
    assert any(f"new page {pages} for new images" in line for line in changes()), changes()
    addon_support.assert_no_new_errors(written, level.base)
