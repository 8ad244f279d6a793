"""Images both ways in Blender (issue 23), through the add-on's operators: a page the artist
repaints is written into the level's page, a new image on a new mesh becomes a new page its
faces show. The written WAD is read back by the add-on's own import and by llamawad.parse_info."""

import addon_support
import bpy
import llamawad
import numpy as np
import pytest
from gltf_arrays import Document

from addon.blender.page_files import rgba_bytes

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


def new_image(name: str, width: int, height: int, rgba) -> bpy.types.Image:
    """An image of ``rgba`` (rows top first, 0..255) as Blender keeps it (rows bottom first)."""
    image = bpy.data.images.new(name, width, height, alpha=True)
    image.pixels.foreach_set((np.asarray(rgba, np.float32)[::-1] / 255.0).ravel())
    return image


def image_material(image: bpy.types.Image) -> bpy.types.Material:
    mat = bpy.data.materials.new(image.name)
    if mat.node_tree is None:
        mat.use_nodes = True
    tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    mat.node_tree.nodes.active = tex
    return mat


def five_bits(rgba: np.ndarray) -> np.ndarray:
    """Colours at the page's precision: 5 bits a channel, alpha transparent or not, a transparent
    pixel without a colour (the page's 0)."""
    out = (rgba.astype(np.int32) * 31 + 127) // 255
    out[..., 3] = rgba[..., 3] >= 128
    out[out[..., 3] == 0] = 0
    return out


@pytest.mark.parametrize(
    "size, transparent",
    [((64, 48), False), ((32, 32), True), ((300, 200), False)],
    ids=["64x48", "transparent", "larger than a page"],
)
def test_a_new_image_lands_on_a_new_page_as_the_game_shows_it(level, tmp_path, size, transparent):
    """The image on a new plane: a new page holding its pixels (resampled to fit when larger than
    a page, with a warning naming both sizes), transparent pixels 0, the other pages as they were."""
    w, h = size
    rng = np.random.default_rng(7)
    rgba = rng.integers(0, 256, (h, w, 4))
    rgba[..., 3] = 255
    if transparent:
        rgba[: h // 2, :, 3] = 0
    image = new_image("new image", w, h, rgba)
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, level.height)) == {"FINISHED"}
    bpy.context.active_object.data.materials.append(image_material(image))
    pages = llamawad.parse_info(level.base)["pages"]
    old = {n: rgba_bytes(page_image(n)) for n in range(pages)}
    written = addon_support.export(level.out)
    addon_support.assert_no_new_errors(written, level.base)
    assert llamawad.parse_info(written)["pages"] == pages + 1
    warned = [line for line in changes() if "resampled" in line]
    if max(w, h) > 256:
        assert warned and "300×200" in warned[0] and "256×171" in warned[0], changes()
        w, h = 256, 171
    else:
        assert warned == []
    assert addon_support.import_level(level.out) == {"FINISHED"}
    page = rgba_bytes(page_image(pages)).reshape(256, 256, 4)
    if (w, h) == size:
        # At the new page's top-left corner, pixel for pixel at the page's precision.
        assert (five_bits(page[:h, :w]) == five_bits(rgba.astype(np.uint8))).all()
    if transparent:
        assert (page[: h // 2, :w, 3] == 0).all() and (page[h // 2 : h, :w, 3] == 255).all()
    for n in range(pages):
        assert (rgba_bytes(page_image(n)) == old[n]).all(), f"page {n} changed"


def test_a_repainted_8_bit_page_takes_its_palette_colours(tmp_path):
    """Page 7 of the generated full level is 8-bit: repainted, its pixels become the nearest
    colours of the first palette, and the report says how many moved by more than a 5-bit step."""
    wad = tmp_path / "full-1.wad"
    wad.write_bytes(llamawad.generate(1, "full"))
    assert addon_support.import_level(wad) == {"FINISHED"}
    image = page_image(7)
    w, h = image.size
    before = rgba_bytes(image).reshape(h, w, 4)
    after = before.copy()
    after[:8, :8] = (12, 200, 90, 255)
    image.pixels.foreach_set((after[::-1].astype(np.float32) / 255.0).ravel())
    written = addon_support.export(tmp_path / "edited.wad")
    addon_support.assert_no_new_errors(written, wad.read_bytes())
    (line,) = [line for line in changes() if line.startswith("page 7: ")]
    assert "written from its image" in line
    assert addon_support.import_level(tmp_path / "edited.wad") == {"FINISHED"}
    back = rgba_bytes(page_image(7)).reshape(h, w, 4)
    assert (back[8:] == before[8:]).all() and (back[:, 8:] == before[:, 8:]).all()
    # Every pixel of the block took one palette colour: the one nearest the painted colour.
    block = back[:8, :8].reshape(-1, 4)
    assert (block == block[0]).all() and block[0, 3] == 255


def test_a_repainted_rle16_page_is_refused_and_nothing_written(level):
    """Page 3 of the small level is RLE16, whose compression the notes do not give: painting its
    placeholder refuses the export by page, and no file is written."""
    image = page_image(3)
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    pixels[:16] = 0.5
    image.pixels.foreach_set(pixels)
    with pytest.raises(RuntimeError, match="page 3") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert "Not written" in str(error.value) and "RLE16" in str(error.value)
    assert not level.out.exists()


def test_a_new_image_on_an_existing_tile_is_what_its_faces_show(level):
    """Every face of an existing tile given a new 64×64 image, each face's UVs a half or the whole
    of the image: the tile's faces, read back, name entries of one new page whose rectangle is
    the image's, and the image is at that rectangle of the page."""
    tile = addon_support.mesh_tiles()[0]
    faces = len(tile.data.polygons)
    rgba = np.random.default_rng(3).integers(0, 256, (64, 64, 4))
    rgba[..., 3] = 255
    tile.data.materials.append(image_material(new_image("tile image", 64, 64, rgba)))
    tile.data.polygons.foreach_set("material_index", np.full(faces, len(tile.data.materials) - 1, np.int32))
    corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    uv = tile.data.uv_layers.active.data
    for polygon in tile.data.polygons:
        assert polygon.loop_total in (3, 4)
        for k, loop in enumerate(polygon.loop_indices):
            uv[loop].uv = corners[k]
    pages = llamawad.parse_info(level.base)["pages"]
    old = {n: rgba_bytes(page_image(n)) for n in range(pages)}
    written = addon_support.export(level.out)
    addon_support.assert_no_new_errors(written, level.base)
    assert llamawad.parse_info(written)["pages"] == pages + 1

    text, bin_data, _ = llamawad.wad_to_gltf(written)
    doc = Document.from_json(text, bin_data)
    entries = doc.scene_extras()["llamawad"]["texture_entries"]
    (node,) = [n for n in doc.json["nodes"] if (n.get("extras") or {}).get("llamawad") == "tile" and n["extras"]["tile"] == tile["tile"]]
    shown = {int(t) for t in doc.triangles(node["mesh"]).per_triangle("_TEXTURE")}
    rectangles = {(entries[t]["page"], entries[t]["u0"], entries[t]["u1"], entries[t]["v0"], entries[t]["v1"]) for t in shown}
    assert rectangles == {(pages, 0, 63, 0, 63)}
    assert addon_support.import_level(level.out) == {"FINISHED"}
    page = rgba_bytes(page_image(pages)).reshape(256, 256, 4)
    assert (five_bits(page[:64, :64]) == five_bits(rgba.astype(np.uint8))).all()
    for n in range(pages):
        assert (rgba_bytes(page_image(n)) == old[n]).all(), f"page {n} changed"


def test_a_new_image_whose_file_is_gone_is_refused_by_its_material(level, tmp_path):
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, level.height)) == {"FINISHED"}
    gone = tmp_path / "gone.png"
    image = bpy.data.images.new("gone", 4, 4)
    image.source, image.filepath = "FILE", str(gone)
    bpy.context.active_object.data.materials.append(image_material(image))
    with pytest.raises(RuntimeError, match="material 'gone'") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert "Not written" in str(error.value) and str(gone) in str(error.value)
    assert not level.out.exists()


def test_a_page_image_whose_file_is_gone_keeps_its_page_and_says_so(level):
    image = page_image(0)
    image.unpack(method="REMOVE")
    image.filepath = "//gone/page 0.png"
    image.reload()
    assert tuple(image.size) == (0, 0)
    assert addon_support.export(level.out) == level.base
    warnings = [c.text for c in bpy.context.scene.llamawad.changes if "page 0's image" in c.text]
    assert warnings and "keeps its pixels" in warnings[0] and "gone" in warnings[0], changes()


def test_pages_written_over_the_base_are_the_next_exports_base(level, tmp_path):
    """A repainted page and a new image written over the base: the scene becomes the level as
    written, its pages shown as written, so that exporting again changes nothing, and a next
    repaint is written into the pages as they now are."""
    base = tmp_path / "base.wad"
    base.write_bytes(level.base)
    bpy.context.scene.llamawad.base_path = str(base)
    pages = llamawad.parse_info(level.base)["pages"]
    repainted = rgba_bytes(page_image(0)).reshape(256, 256, 4)
    repainted[:4, :4] = (255, 0, 0, 255)
    page_image(0).pixels.foreach_set((repainted[::-1].astype(np.float32) / 255.0).ravel())
    rgba = np.random.default_rng(5).integers(0, 256, (32, 32, 4))
    rgba[..., 3] = 255
    assert bpy.ops.mesh.primitive_plane_add(size=0.8, location=(*SPOT, level.height)) == {"FINISHED"}
    bpy.context.active_object.data.materials.append(image_material(new_image("new image", 32, 32, rgba)))

    first = addon_support.export(base, overwrite_base=True)
    assert llamawad.parse_info(first)["pages"] == pages + 1
    assert addon_support.export(tmp_path / "again.wad") == first
    assert changes() == []
    # The scene's images are the pages as written: the new page among them.
    page = rgba_bytes(page_image(pages)).reshape(256, 256, 4)
    assert (five_bits(page[:32, :32]) == five_bits(rgba.astype(np.uint8))).all()

    repainted = rgba_bytes(page_image(pages)).reshape(256, 256, 4)
    repainted[-4:, -4:] = (0, 0, 255, 255)
    page_image(pages).pixels.foreach_set((repainted[::-1].astype(np.float32) / 255.0).ravel())
    second = addon_support.export(base, overwrite_base=True)
    assert llamawad.parse_info(second)["pages"] == pages + 1
    assert any(line.startswith(f"page {pages}: 16 pixels written") for line in changes()), changes()
    assert addon_support.import_level(base) == {"FINISHED"}
    back = rgba_bytes(page_image(pages)).reshape(256, 256, 4)
    assert (back[-4:, -4:] == (0, 0, 255, 255)).all()
    assert (five_bits(back[:32, :32]) == five_bits(rgba.astype(np.uint8))).all()
    assert (rgba_bytes(page_image(0)).reshape(256, 256, 4)[:4, :4] == (255, 0, 0, 255)).all()


# --- Pages as files (issue 35): saved, linked, edited elsewhere, reloaded or replaced ----------


def write_png(path, rgba) -> None:
    """``rgba`` (rows top first, 0..255) as an 8-bit RGBA PNG, written with zlib and struct only,
    as another program would write the file."""
    import struct
    import zlib

    rgba = np.asarray(rgba, np.uint8)
    h, w = rgba.shape[:2]
    raw = b"".join(b"\x00" + rgba[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def shown(image: bpy.types.Image) -> np.ndarray:
    w, h = image.size
    return rgba_bytes(image).reshape(h, w, 4)


def page_numbers() -> list[int]:
    return sorted(int(i.name.split()[1]) for i in bpy.data.images if i.get("llamawad") == "page")


def save_pages(folder=None, **options) -> set:
    if folder is not None:
        options["directory"] = str(folder)
    return bpy.ops.llamawad.save_pages(**options)


def written_page(wad_path, page: int) -> np.ndarray:
    """Page ``page`` of the level at ``wad_path`` as the add-on's import shows it."""
    assert addon_support.import_level(wad_path) == {"FINISHED"}
    return shown(page_image(page))


def notes() -> list[str]:
    return [line for line in changes() if "file" in line and "page" in line]


def test_saved_pages_are_files_the_page_images_show(level, tmp_path):
    """Every page saved as page-NNN.png, its image unpacked and linked to the file, showing what it
    showed (a page painted in Blender and not exported yet too); exported, the painted page is
    written and nothing else changes."""
    before = {n: shown(page_image(n)).copy() for n in page_numbers()}
    painted = before[1].copy()
    painted[:2, :2] = (0, 255, 0, 255)
    page_image(1).pixels.foreach_set((painted[::-1].astype(np.float32) / 255.0).ravel())
    folder = tmp_path / "pages"
    assert save_pages(folder) == {"FINISHED"}
    assert sorted(p.name for p in folder.iterdir()) == [f"page-{n:03}.png" for n in page_numbers()]
    for n, pixels in before.items():
        image = page_image(n)
        assert image.packed_file is None and image.source == "FILE"
        assert bpy.path.abspath(image.filepath) == str(folder / f"page-{n:03}.png")
        assert (shown(image) == (painted if n == 1 else pixels)).all(), f"page {n}"
    written = addon_support.export(level.out)
    assert [line for line in changes() if line.startswith("page ")] == [next(line for line in changes() if line.startswith("page 1: "))]
    assert notes() == [], changes()
    assert (written_page(level.out, 1)[:2, :2] == (0, 255, 0, 255)).all()
    assert written != level.base


def test_pages_go_beside_the_saved_blend_unless_a_folder_is_chosen(level, tmp_path):
    # Unsaved, without a folder: refused, saying what to do.
    with pytest.raises(RuntimeError, match="Save the .blend first, or choose a folder"):
        save_pages()
    blend = tmp_path / "my level.blend"
    assert bpy.ops.wm.save_as_mainfile(filepath=str(blend)) == {"FINISHED"}
    assert save_pages() == {"FINISHED"}
    image = page_image(0)
    assert image.filepath == "//my level-pages/page-000.png"
    assert (tmp_path / "my level-pages" / "page-000.png").is_file()
    assert addon_support.export(level.out) == level.base


def test_a_page_edited_elsewhere_and_reloaded_is_written(level, tmp_path):
    """Saved pages changed on disk by another program: until reloaded, export writes what
    Blender shows and names each file that differs; after Image › Reload (the operator on page
    0, Image.reload() on page 2), the files' pixels are written."""
    assert save_pages(tmp_path / "pages") == {"FINISHED"}
    edited = {}
    for page in (0, 2):
        edited[page] = shown(page_image(page)).copy()
        edited[page][10:20, 30:40] = (255, 0, 255, 255)
        write_png(tmp_path / "pages" / f"page-{page:03}.png", edited[page])
    # Not reloaded yet: the pages are unchanged, and the export names both files.
    assert addon_support.export(level.out) == level.base
    said = notes()
    assert [line.split(":")[0] for line in said] == ["page 0", "page 2"], changes()
    assert all("its file " in line and "Image › Reload" in line for line in said), said
    assert "2 edits not written" in bpy.context.scene.llamawad.last_export
    with bpy.context.temp_override(edit_image=page_image(0)):
        assert bpy.ops.image.reload() == {"FINISHED"}
    page_image(2).reload()
    for page in (0, 2):
        assert (shown(page_image(page)) == edited[page]).all()
    written = addon_support.export(level.out)
    assert written != level.base and notes() == [], changes()
    for page in (0, 2):
        assert any(line.startswith(f"page {page}: 100 pixels written") for line in changes()), changes()
    back = {page: written_page(level.out, page) for page in (0, 2)}
    for page in (0, 2):
        assert (back[page] == edited[page]).all(), f"page {page}"


def test_another_file_opened_on_a_saved_page_is_written(level, tmp_path):
    """Image › Replace on a saved page (what it does: the image's file path set to the other
    file, then read) writes the other file's pixels into the page."""
    assert save_pages(tmp_path / "pages") == {"FINISHED"}
    other = np.random.default_rng(11).integers(0, 256, (256, 256, 4))
    other[..., 3] = 255
    write_png(tmp_path / "mine.png", other)
    image = page_image(0)
    image.filepath = str(tmp_path / "mine.png")
    assert (shown(image) == other).all()
    written = addon_support.export(level.out)
    assert written != level.base and notes() == [], changes()
    assert (five_bits(written_page(level.out, 0)) == five_bits(other.astype(np.uint8))).all()


def test_an_image_opened_into_a_pages_materials_is_written(level, tmp_path):
    """Image › Open in a page material's Image Texture node (its Open button) gives the node a new
    image. Page 2 has several materials: the image in one of them refuses the export, naming both
    images (never silently the base); in all of them, it is written into the page. (Image ›
    Open in the Image Editor only shows a new image: the guide says Image › Replace.)"""
    other = np.zeros((256, 256, 4), np.uint8)
    other[...] = (10, 200, 60, 255)
    write_png(tmp_path / "mine.png", other)
    assert bpy.ops.image.open(filepath=str(tmp_path / "mine.png")) == {"FINISHED"}
    opened = bpy.data.images["mine.png"]
    materials = [m for m in bpy.data.materials if (m.get("llamawad_material") or "").startswith("page 2 ")]
    nodes = [n for m in materials for n in m.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert len(nodes) > 1
    nodes[0].image = opened
    with pytest.raises(RuntimeError, match="page 2 is shown by images"):
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    for node in nodes:
        node.image = opened
    written = addon_support.export(level.out)
    assert written != level.base
    assert any(line.startswith("page 2: ") for line in changes()), changes()
    assert (five_bits(written_page(level.out, 2)) == five_bits(other)).all()


def test_an_image_of_another_size_is_refused_by_page_and_both_sizes(level, tmp_path):
    assert save_pages(tmp_path / "pages") == {"FINISHED"}
    write_png(tmp_path / "pages" / "page-000.png", np.full((128, 96, 4), 200))
    page_image(0).reload()
    assert tuple(page_image(0).size) == (96, 128)
    with pytest.raises(RuntimeError, match="page 0") as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert "256×256" in str(error.value) and "96×128" in str(error.value)
    assert not level.out.exists()


def test_a_packed_page_pointed_at_a_file_is_named_not_lost(level, tmp_path):
    """Without saving the pages first: Image › Reload of a packed page keeps its pixels (nothing
    was changed), and Image › Replace (its file path set) keeps them too, which export names as
    an edit not written, saying what to do."""
    page_image(0).reload()
    assert addon_support.export(level.out) == level.base
    assert notes() == []
    other = np.full((256, 256, 4), 255)
    write_png(tmp_path / "mine.png", other)
    image = page_image(0)
    before = shown(image).copy()
    image.filepath = str(tmp_path / "mine.png")
    image.reload()
    assert (shown(image) == before).all(), "Blender keeps the packed pixels"
    assert addon_support.export(level.out) == level.base
    (said,) = notes()
    assert said.startswith("page 0: its image names the file ") and "not written" in said and "Save Pages as Files" in said
    assert "1 edit not written" in bpy.context.scene.llamawad.last_export
    # Saved as files, then replaced again: written.
    assert save_pages(tmp_path / "pages") == {"FINISHED"}
    image.filepath = str(tmp_path / "mine.png")
    written = addon_support.export(level.out)
    assert written != level.base and notes() == []
    assert (written_page(level.out, 0) == 255).all()


def test_saving_pages_never_overwrites_a_file_edited_elsewhere_unasked(level, tmp_path, capfd):
    folder = tmp_path / "pages"
    folder.mkdir()
    mine = np.full((256, 256, 4), 77)
    write_png(folder / "page-000.png", mine)
    mine_bytes = (folder / "page-000.png").read_bytes()
    capfd.readouterr()
    assert save_pages(folder) == {"FINISHED"}
    said = capfd.readouterr().out
    assert f"page 0: {folder / 'page-000.png'} exists and shows other pixels: not overwritten" in said, said
    assert "1 left as they were" in said
    assert (folder / "page-000.png").read_bytes() == mine_bytes
    assert page_image(0).packed_file is not None, "left as it was"
    assert page_image(2).packed_file is None
    assert save_pages(folder, overwrite=True) == {"FINISHED"}
    assert (folder / "page-000.png").read_bytes() != mine_bytes
    assert page_image(0).packed_file is None
    assert addon_support.export(level.out) == level.base
    # Painted in Blender after saving: its file is not written over unasked, and export writes
    # the painting.
    saved = (folder / "page-000.png").read_bytes()
    painted = shown(page_image(0)).copy()
    painted[:3, :3] = (0, 0, 255, 255)
    page_image(0).pixels.foreach_set((painted[::-1].astype(np.float32) / 255.0).ravel())
    assert page_image(0).is_dirty
    capfd.readouterr()
    assert save_pages(folder) == {"FINISHED"}
    assert "page 0: painted in Blender, and its file" in capfd.readouterr().out
    assert (folder / "page-000.png").read_bytes() == saved
    assert addon_support.export(level.out) != level.base
    assert notes() == [], changes()
    assert (written_page(level.out, 0)[:3, :3] == (0, 0, 255, 255)).all()
