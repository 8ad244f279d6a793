"""Every page of the artist's guide followed in Blender, step by step, as a new user would: each
numbered step that names an operator runs it (``Walk.op``, by its bpy.ops name, as the button
does), the others as the artist does them with Blender's own tools. A walk records the steps it
ran (section, number) and the add-on's operators each ran; tests/blender/test_addon_guide_walk.py
compares them with the page's numbered steps (guide_pages.py), with the add-on from the source
tree, and test_addon_extension.py runs every walk again with the add-on installed from the
extension zip.

Only bpy, numpy and llamawad are used, never the add-on's own modules: the same walks run
against either."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import bpy
import llamawad
import numpy as np

WALKS: dict[str, Callable[[Walk], None]] = {}


def walk(page: str):
    def register(fn):
        WALKS[page] = fn
        return fn

    return register


class Walk:
    """One page walked: the level to start from (a copy of its own in ``work``), and the steps
    run, as (section, number)."""

    def __init__(self, page: str, level: bytes, work: Path):
        self.page = page
        self.work = work
        self.level = work / "level.wad"
        self.level.write_bytes(level)
        self.ran: list[tuple[str, int]] = []
        # The operators run in each step: (section, number, bl_idname).
        self.ops: list[tuple[str, int, str]] = []
        self.section = ""
        self.open_steps: list[tuple[str, int]] = []

    def in_section(self, section: str) -> None:
        self.section = section

    @contextmanager
    def step(self, number: int):
        self.ran.append((self.section, number))
        self.open_steps.append((self.section, number))
        try:
            yield
        finally:
            self.open_steps.pop()

    def op(self, idname: str, **properties) -> None:
        """Runs the operator ``idname`` ("llamawad.check_level"), as its button does, in the
        steps being walked; it must finish."""
        group, name = idname.split(".")
        done(getattr(getattr(bpy.ops, group), name)(**properties))
        self.ops += [(section, number, idname) for section, number in self.open_steps]

    def open_level(self, path: Path | None = None) -> None:
        """File › Import of the walk's level into an empty file."""
        bpy.ops.wm.read_homefile(use_empty=True)
        self.op("import_scene.llamawad", filepath=str(path or self.level))


def done(result: set) -> None:
    assert result == {"FINISHED"}, result


# --- the scene, as an artist finds things in it


def scene():
    return bpy.context.scene


def objects(role: str) -> list:
    return sorted((o for o in scene().objects if o.get("llamawad") == role), key=lambda o: o.name)


def mesh_tiles() -> list:
    return [o for o in objects("tile") if o.type == "MESH"]


def select_only(*chosen) -> None:
    if bpy.context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    for o in chosen:
        o.select_set(True)
    bpy.context.view_layer.objects.active = chosen[0]


def edit_all_faces(obj) -> None:
    """Tab into Edit Mode on ``obj`` and select every face (A)."""
    select_only(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")


def object_mode() -> None:
    if bpy.context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")


def ground(x: float, y: float, level: Path) -> float:
    """The floor height the game finds at Blender (x, y) of the level's file."""
    (probe,) = llamawad.probe(level.read_bytes(), [(x, 60.0, -y)])
    return probe["floor"]["height"] if probe["floor"] else 0.0


def floor_tile():
    """A tile with faces and collision near the grid's middle: a floor to work on."""
    w, h = _grid()
    middle = np.array((w / 2, -h / 2))
    near = sorted(mesh_tiles(), key=lambda o: float(np.linalg.norm(np.array(o.location.xy) - middle)))
    return next(o for o in near if o.get("collision_polygons", 0) > 0 and len(o.data.polygons) >= 2)


def _grid() -> tuple[int, int]:
    import json

    return tuple(json.loads(scene().llamawad.level_json)["grid"])


def page_material(page: int = 0):
    return next(m for m in bpy.data.materials if m.get("llamawad") == "page" and (m.get("page"), m.get("blend"), m.get("double_sided")) == (page, 0, False))


def export(w: Walk, path: Path, **options) -> bytes:
    """File › Export to ``path``; the bytes written."""
    w.op("export_scene.llamawad", filepath=str(path), **options)
    return path.read_bytes()


def new_plane(name: str, at, size: float = 2.0):
    """Add › Mesh › Plane, in Tiles (the active collection after import)."""
    object_mode()
    done(bpy.ops.mesh.primitive_plane_add(size=size, location=at))
    obj = bpy.context.active_object
    obj.name = name
    return obj


def white_colours(obj) -> None:
    """Object Data › Color Attributes › +, named Col, white."""
    colours = obj.data.color_attributes.new("Col", "BYTE_COLOR", "CORNER")
    values = np.ones(len(colours.data) * 4, np.float32)
    colours.data.foreach_set("color", values)


# --- the pages


@walk("open-a-level.md")
def open_a_level(w: Walk) -> None:
    w.in_section("Open a level")
    with w.step(1), w.step(2):
        w.open_level()
    with w.step(3):
        assert mesh_tiles() and scene().llamawad.base_path == str(w.level)


@walk("tiles.md")
def tiles(w: Walk) -> None:
    w.open_level()
    w.in_section("Move and turn")
    tile = floor_tile()
    with w.step(1):
        select_only(tile)
    with w.step(2):
        tile.location.x += 1.0
    with w.step(3):
        tile.rotation_euler.z += np.pi / 2
    copy_of = mesh_tiles()[-1]
    select_only(copy_of)
    done(bpy.ops.object.duplicate())
    bpy.context.active_object.location.x += 2.0
    written = export(w, w.work / "tiles.wad")
    assert written != w.level.read_bytes()


@walk("new-platform.md")
def new_platform(w: Walk) -> None:
    w.open_level()
    w.in_section("Model it")
    x, y = 4.5, -5.5
    with w.step(1):
        obj = new_plane("new platform", (x, y, ground(x, y, w.level) + 2.0))
    with w.step(2):
        obj.data.materials.append(page_material())
    with w.step(3):
        edit_all_faces(obj)
        done(bpy.ops.uv.unwrap())
        object_mode()
    with w.step(4):
        white_colours(obj)
    before = len(llamawad.tile_models(w.level.read_bytes()))
    written = export(w, w.work / "platform.wad")
    assert len(llamawad.tile_models(written)) > before


@walk("vertex-colours.md")
def vertex_colours(w: Walk) -> None:
    w.open_level()
    w.in_section("Paint")
    tile = floor_tile()
    with w.step(1):
        select_only(tile)
        bpy.ops.object.mode_set(mode="VERTEX_PAINT")
    with w.step(2):
        object_mode()
        tile.data = tile.data.copy()
        colours = tile.data.color_attributes["Col"]
        values = np.full(len(colours.data) * 4, 0.25, np.float32)
        colours.data.foreach_set("color", values)
    with w.step(3):
        painted = export(w, w.work / "painted.wad")
        assert painted != w.level.read_bytes()

    w.open_level()
    w.in_section("Bake light")
    props = scene().llamawad
    with w.step(1):
        w.op("llamawad.fit_light")
        assert props.light_fit
    with w.step(2):
        props.light_sun_direction = (1.0, -1.0, 0.0)
        props.light_rays = 16
    with w.step(3):
        select_only(floor_tile())
        w.op("llamawad.bake_light", whole_level=False)
        w.op("llamawad.bake_light", whole_level=True)
    with w.step(4):
        assert export(w, w.work / "baked.wad") != w.level.read_bytes()


@walk("collision.md")
def collision(w: Walk) -> None:
    w.open_level()
    w.in_section("Edit collision materials")
    with w.step(1):
        w.op("llamawad.collision_show", show=True, colour_by_material=True)
    with w.step(2):
        shape = next(c for c in objects("collision") if c.parent is not None and len(c.data.polygons))
        select_only(shape)
        bpy.ops.object.mode_set(mode="EDIT")
    with w.step(3):
        bpy.ops.mesh.select_all(action="SELECT")
    with w.step(4):
        w.op("llamawad.collision_material_set", material=16)
    with w.step(5):
        bpy.ops.mesh.select_all(action="DESELECT")
        w.op("llamawad.collision_select_material", material=16)
    object_mode()
    materials = np.empty(len(shape.data.polygons), np.int32)
    shape.data.attributes["wad_material"].data.foreach_get("value", materials)
    selected = np.empty(len(shape.data.polygons), bool)
    shape.data.polygons.foreach_get("select", selected)
    assert (materials == 16).all() and selected.all()


@walk("zones.md")
def zones(w: Walk) -> None:
    w.open_level()
    w.in_section("Put cells into a zone")
    zones_mesh = objects("zones")[0]
    with w.step(1):
        w.op("llamawad.zones_show", colours=True)
    with w.step(2):
        select_only(zones_mesh)
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="DESELECT")
        object_mode()
        selected = np.zeros(len(zones_mesh.data.polygons), bool)
        selected[:3] = True
        zones_mesh.data.polygons.foreach_set("select", selected)
        bpy.ops.object.mode_set(mode="EDIT")
    with w.step(3):
        scene().llamawad.zone = 5
        w.op("llamawad.zone_set", zone=5)
    object_mode()
    zone = np.empty(len(zones_mesh.data.polygons), np.int32)
    zones_mesh.data.attributes["wad_zone"].data.foreach_get("value", zone)
    assert (zone[:3] == 5).all()
    w.in_section("Say what each zone sees")
    w.op("llamawad.zone_visibility_set", zone=5, other=5, state="ON")


@walk("objects.md")
def objects_page(w: Walk) -> None:
    w.open_level()
    w.in_section("Add a strat of a type")
    with w.step(1):
        scene().cursor.location = floor_tile().location
    with w.step(2):
        kind = next(o.get("code_offset") for o in objects("strat") if o.get("type_name") == "Coin")
        w.op("llamawad.strat_add", strat_type=str(kind))
        assert bpy.context.active_object.get("type_name") == "Coin"

    w.open_level()
    w.in_section("A walk-through")
    llama = next(o for o in objects("strat") if o.get("type_name") == "Llama")
    with w.step(1):
        select_only(llama)
        llama.location.z += 3.0
        w.op("llamawad.strat_drop_to_floor")
    coins = [o for o in objects("strat") if o.get("type_name") == "Coin"]
    with w.step(2):
        select_only(coins[0])
        for k in range(3):
            done(bpy.ops.object.duplicate())
            bpy.context.active_object.location.x += 0.5
    with w.step(3):
        select_only(coins[1])
        done(bpy.ops.object.delete())
    with w.step(4):
        before = llamawad.strats(w.level.read_bytes())["strats"]
        written = llamawad.strats(export(w, w.work / "strats.wad"))["strats"]
        assert len(written) == len(before) + 3
        assert sum(s["not_created_at_start"] for s in written) == sum(s["not_created_at_start"] for s in before) + 1

    w.in_section("The strat table of a folder")
    with w.step(1):
        w.op("llamawad.strat_table", directory=str(w.work))
    with w.step(2):
        table = bpy.data.texts["Strat table"].as_string()
        assert "Coin" in table and "levels" in table


@walk("textures.md")
def textures(w: Walk) -> None:
    base = w.level.read_bytes()
    w.open_level()
    w.in_section("Repaint a page")
    with w.step(1):
        image = next(n.image for n in page_material().node_tree.nodes if n.type == "TEX_IMAGE")
    with w.step(2):
        folder = w.work / "pages"
        w.op("llamawad.save_pages", directory=str(folder))
        page = folder / "page-000.png"
        width, height, rgba = llamawad.decode_png(page.read_bytes())
        pixels = np.frombuffer(rgba, np.uint8).reshape(height, width, 4).copy()
        pixels[::8, :, :3] = (255, 0, 0)
        page.write_bytes(llamawad.encode_png(width, height, pixels.tobytes()))
        image.reload()
    with w.step(3):
        assert export(w, w.work / "repainted.wad") != base

    w.open_level()
    w.in_section("Set a page from a file")
    with w.step(1):
        assert "16-bit" in scene().llamawad.pages_json
    with w.step(2):
        png = w.work / "stripes.png"
        png.write_bytes(llamawad.encode_png(64, 64, bytes([0, 0, 255, 255]) * 64 * 64))
        w.op("llamawad.page_from_file", filepath=str(png), page=0, resize=True)
    with w.step(3):
        assert export(w, w.work / "set.wad") != base

    w.open_level()
    w.in_section("A new image")
    x, y = 4.5, -5.5
    obj = new_plane("painted platform", (x, y, ground(x, y, w.level) + 2.0))
    white_colours(obj)
    with w.step(1):
        image = bpy.data.images.new("my texture", 128, 128)
        image.generated_type = "COLOR_GRID"
        material = bpy.data.materials.new("my texture")
        if bpy.app.version < (5, 0, 0):
            material.use_nodes = True  # always on from Blender 5.0
        texture = material.node_tree.nodes.new("ShaderNodeTexImage")
        texture.image = image
        principled = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
        material.node_tree.links.new(texture.outputs["Color"], principled.inputs["Base Color"])
        obj.data.materials.append(material)
    with w.step(2):
        edit_all_faces(obj)
        done(bpy.ops.uv.unwrap())
        object_mode()
    with w.step(3):
        written = export(w, w.work / "new-image.wad")
        assert len(llamawad.pages(written)) == len(llamawad.pages(base)) + 1


@walk("check-and-probe.md")
def check_and_probe(w: Walk) -> None:
    w.open_level()
    w.in_section("Check Level")
    w.op("llamawad.check_level")
    assert scene().llamawad.checked
    w.in_section("The Floor probe")
    with w.step(1):
        scene().cursor.location = floor_tile().location
        w.op("llamawad.floor_probe")
    with w.step(2):
        assert scene().llamawad.probe_json
    with w.step(3):
        scene().llamawad.probe_show = False
        w.op("llamawad.floor_probe_clear")
        assert not scene().llamawad.probe_json


@walk("export.md")
def export_page(w: Walk) -> None:
    w.open_level()
    w.in_section("Export")
    out = w.work / "level-edited.wad"
    with w.step(1), w.step(2):
        floor_tile().location.z += 0.5
        export(w, out, base_path=str(w.level), overwrite_base=False, snap_uvs=False, generate_collision=True, apply_modifiers=True)
    with w.step(3):
        assert llamawad.check(out.read_bytes(), w.level.read_bytes())["errors"] == 0
    with w.step(4):
        assert scene().llamawad.last_export and len(scene().llamawad.changes)
        w.op("llamawad.export_changes")

    w.in_section("Into the game's folder, keeping the original")
    game = w.work / "game"
    game.mkdir()
    level = game / "level.wad"
    level.write_bytes(w.level.read_bytes())
    with w.step(1):
        w.open_level(level)
    with w.step(2):
        floor_tile().location.z += 0.5
        export(w, level, overwrite_base=True)
    with w.step(3):
        assert (game / "level.wad.original").read_bytes() == w.level.read_bytes()
    with w.step(4):
        assert scene().llamawad.base_path == str(level) and "written over its base" in scene().llamawad.last_export

    w.in_section("Restore the original")
    w.op("llamawad.restore_original")
    assert level.read_bytes() == w.level.read_bytes()


@walk("testlevel.md")
def testlevel(w: Walk) -> None:
    w.open_level()
    w.in_section("A test level with every object type")
    made_from = scene()
    with w.step(1), w.step(2):
        w.op("llamawad.test_level", level_name="Testlevel", spacing=3)
    with w.step(3):
        written = w.work / "level-test.wad"
        assert scene() != made_from and scene().llamawad.base_path == str(written)
        assert llamawad.parse_info(written.read_bytes())["name"] == "Testlevel"
        assert os.path.exists(made_from.llamawad.base_path)
