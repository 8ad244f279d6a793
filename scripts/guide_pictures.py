"""The pictures of the artist's guide (addon/docs/guide/), rendered in headless Blender through the
add-on on the sample level scripts/setup makes (`llamawad generate --seed 1 --size full`), so
that re-running it reproduces them. Run by scripts/guide-pictures:

  guide_pictures.py [--out DIR] [--size 800x450] [--only NAME ...] [--list] [--steps]

Each picture starts from a fresh import, makes the edit its guide page teaches by the page's own
numbered steps, through the add-on's operators (or as the artist's own tool would, where that
tool is Blender's: G, R, Shift D, painting, Unwrap), and renders the level (Cycles, as the game
shows it), its collision coloured by material or its zones (Workbench). A picture that shows a
section's steps names the page and section and runs each step inside `step(N)`; `--steps`
runs the pictures without rendering and prints, as JSON, the steps each ran, which
tests/blender/test_addon_guide.py compares with the page's numbered steps. Empties (strats) and
the Floor probe's lines do not render, so markers in their place are added as meshes. The
caption that says what the panels show is the guide page's.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import blender_job  # noqa: E402  (imports bpy and the add-on from the source tree)
import bmesh  # noqa: E402
import bpy  # noqa: E402
import llamawad  # noqa: E402
from mathutils import Vector  # noqa: E402

from addon.blender import probe as level_probe  # noqa: E402
from addon.blender import scene as level_scene  # noqa: E402
from addon.common import game  # noqa: E402
from addon.common import probe as probe_words  # noqa: E402

ROOT = blender_job.ROOT
GUIDE = ROOT / "addon" / "docs" / "guide"
# The sample level of scripts/setup.
SEED, SIZE = 1, "full"
# Where the close-ups look: the Llama's start (strat 0) of the sample level, in units
# (Blender x east, y = -row).
SPOT = Vector((13.5, -17.5, 0.2))


# --- the scene


def aim(target: Vector, distance: float = 9.0, heading: float = -25.0, elevation: float = 42.0, lens: float = 30.0) -> None:
    """A camera looking at ``target`` from ``distance`` away, from the south turned ``heading``
    degrees towards the east, ``elevation`` degrees up."""
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Guide camera", bpy.data.cameras.new("Guide camera"))
    camera.data.lens = lens
    scene.collection.objects.link(camera)
    h, e = math.radians(heading), math.radians(elevation)
    offset = Vector((math.sin(h) * math.cos(e), -math.cos(h) * math.cos(e), math.sin(e))) * distance
    camera.location = target + offset
    camera.rotation_euler = (-offset).to_track_quat("-Z", "Y").to_euler()
    scene.camera = camera


def ground(x: float, y: float) -> float:
    """The floor height the game finds at Blender (x, y) of the scene as export would write it."""
    result = level_probe.probe_points(level_probe.probed_level(bpy.context), [Vector((x, y, 60.0))])[0]
    floor = result.get("floor")
    return floor["height"] if floor else 0.0


def mesh_tiles() -> list:
    return [o for o in bpy.context.scene.objects if level_scene.role(o) == "tile" and o.type == "MESH"]


def nearest_tile(point: Vector, skip=()) -> bpy.types.Object:
    return min((o for o in mesh_tiles() if o not in skip), key=lambda o: (o.location.xy - point.xy).length)


def marker(name: str, mesh: bpy.types.Mesh, colour) -> bpy.types.Object:
    """A mesh that renders in one colour in both looks: a colour attribute for Workbench's
    vertex colours, an emission material for Cycles."""
    attribute = mesh.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
    for value in attribute.data:
        value.color = (*colour, 1.0)
    mesh.color_attributes.active_color = attribute
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    nodes = material.node_tree.nodes
    nodes.clear()
    emission = nodes.new("ShaderNodeEmission")
    emission.inputs["Color"].default_value = (*colour, 1.0)
    output = nodes.new("ShaderNodeOutputMaterial")
    material.node_tree.links.new(emission.outputs[0], output.inputs[0])
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def cone(name: str, at: Vector, colour, height: float = 0.6) -> bpy.types.Object:
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=0.0, radius2=0.22, depth=height)
    bmesh.ops.translate(bm, vec=Vector((0, 0, height / 2)), verts=bm.verts)
    bm.to_mesh(mesh)
    bm.free()
    obj = marker(name, mesh, colour)
    obj.location = at
    return obj


def lines(name: str, polylines: list[list[Vector]], colour, radius: float = 0.025, closed: bool = True) -> bpy.types.Object | None:
    """Thin tubes along the polylines (the viewport's lines, which do not render)."""
    polylines = [p for p in polylines if len(p) >= 2]
    if not polylines:
        return None
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    curve.bevel_depth = radius
    for points in polylines:
        spline = curve.splines.new("POLY")
        spline.points.add(len(points) - 1)
        for point, p in zip(spline.points, points):
            point.co = (*p, 1.0)
        spline.use_cyclic_u = closed
    holder = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(holder)
    mesh = bpy.data.meshes.new_from_object(holder.evaluated_get(bpy.context.evaluated_depsgraph_get()))
    bpy.data.objects.remove(holder)
    return marker(name, mesh, colour)


def strat_markers() -> None:
    """A cone over every strat created at level start: the Llama's start white, coins yellow,
    the others orange."""
    for obj in level_scene.objects_with_role(bpy.context.scene, "strat"):
        if game.strat_not_created_at_start(obj):
            continue
        kind = obj.get("type_name") or ""
        colour = (1.0, 1.0, 1.0) if kind == "Llama" else (1.0, 0.85, 0.1) if kind == "Coin" else (1.0, 0.45, 0.1)
        cone(f"marker {obj.name}", obj.matrix_world.translation, colour)


def select_only(*objects) -> None:
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0] if objects else None


def on_every_face(obj, operator) -> None:
    """Runs an operator of the panels on every face of ``obj`` in Edit Mode, as the artist does
    after selecting the object, Tab and A."""
    select_only(obj)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    assert operator() == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")


# --- the pictures: name -> what it shows (each from a fresh import)


@dataclass
class Steps:
    """The numbered steps of a guide page's section a picture's script ran, in order."""

    ran: list[int] = field(default_factory=list)

    @contextmanager
    def __call__(self, number: int):
        self.ran.append(number)
        yield


@dataclass
class Picture:
    make: Callable[[Steps, Path], str]
    # The page and section (its heading) whose numbered steps the picture shows the result of.
    page: str | None = None
    section: str | None = None


PICTURES: dict[str, Picture] = {}


def picture(page: str | None = None, section: str | None = None):
    def register(fn):
        PICTURES[fn.__name__.replace("_", "-")] = Picture(fn, page, section)
        return fn

    return register


def sample(work: Path) -> Path:
    """The sample level, imported into an empty file (File › Import: what every picture starts
    from)."""
    path = work / "sample.wad"
    if not path.exists():
        path.write_bytes(llamawad.generate(SEED, SIZE))
    blender_job.import_level(path)
    return path


def export(work: Path) -> None:
    """File › Export, to a file of its own (the picture shows the scene)."""
    assert bpy.ops.export_scene.llamawad(filepath=str(work / "exported.wad")) == {"FINISHED"}


@picture("open-a-level.md", "Open a level")
def level(step, work):
    """The level as imported, whole."""
    with step(1), step(2):
        sample(work)
    with step(3):
        assert level_scene.has_level(bpy.context.scene)
    return "level"


@picture()
def collision(step, work):
    """Its collision coloured by material, whole."""
    sample(work)
    return "collision"


@picture()
def zones(step, work):
    """The Zones mesh in its zone colours (Zones › Zone colours)."""
    sample(work)
    return "zones"


@picture()
def strats(step, work):
    """The strats near the start, each a cone."""
    sample(work)
    strat_markers()
    aim(SPOT, distance=16.0, elevation=55.0)
    return "level"


@picture()
def closeup(step, work):
    """The close-up every before/after pair starts from."""
    sample(work)
    aim(SPOT)
    return "level"


def _moved_tile():
    """The widest block near the middle of the close-up (standing 0.3 to 1 high, neither a floor
    nor a pillar), so that its move shows."""
    near = [o for o in mesh_tiles() if (o.location.xy - SPOT.xy).length < 2.5 and 0.3 < o.dimensions.z < 1.0]
    return max(near, key=lambda o: o.dimensions.x * o.dimensions.y)


@picture("tiles.md", "Move and turn")
def tile_moved(step, work):
    """The block moved one cell east and turned a quarter (G X 1, R Z 90)."""
    sample(work)
    with step(1):
        tile = _moved_tile()
        select_only(tile)
    with step(2):
        tile.location.x += 1.0
    with step(3):
        tile.rotation_euler.z += math.pi / 2
    aim(SPOT)
    return "level"


@picture()
def tile_copied(step, work):
    """The block copied (Shift D) and placed two cells east."""
    sample(work)
    tile = _moved_tile()
    select_only(tile)
    bpy.ops.object.duplicate(linked=False)
    copy = bpy.context.view_layer.objects.active
    copy.location += Vector((2.0, 0.0, 0.0))
    aim(SPOT)
    return "level"


def _platform(step=None):
    """A 3 × 3 platform 1.5 over the floor south of the start, by the steps of "Model it": a
    grid mesh (1), a page's material of the level (2), its UVs laid over a quarter of the page
    (3), a white `Col` (4)."""
    step = step or Steps()
    x, y = SPOT.x - 1.0, SPOT.y - 1.5
    with step(1), step(2), step(3):
        blender_job._new_mesh("new platform", 3, 3.0, (x, y, ground(x, y) + 1.5), 0.25)
    obj = bpy.data.objects["new platform"]
    with step(4):
        # White, as the game shows a new mesh without vertex colours (the material multiplies
        # the page by them: without, Blender renders it black).
        colours = obj.data.color_attributes.new("Col", "BYTE_COLOR", "CORNER")
        for corner in colours.data:
            corner.color = (1.0, 1.0, 1.0, 1.0)
    return obj


@picture("new-platform.md", "Model it")
def platform(step, work):
    sample(work)
    _platform(step)
    aim(SPOT)
    return "level"


@picture()
def platform_collision(step, work):
    """The platform's collision made from its faces (Collision › Collision from selected faces),
    in the collision view."""
    sample(work)
    on_every_face(_platform(), lambda: bpy.ops.llamawad.collision_from_faces(material=0))
    aim(SPOT)
    return "collision"


@picture("vertex-colours.md", "Paint")
def vertex_colours(step, work):
    """The floor around the middle of the close-up painted (Vertex Paint): orange towards the
    east, dark blue towards the west, fading out over three units; exported."""
    sample(work)
    middle = SPOT.xy + Vector((-1.0, 1.0))
    with step(1):
        painted = [t for t in mesh_tiles() if (t.location.xy - middle).length <= 4.0 and "Col" in t.data.color_attributes]
        select_only(*painted)
        bpy.ops.object.mode_set(mode="VERTEX_PAINT")
    with step(2):
        bpy.ops.object.mode_set(mode="OBJECT")
        for tile in painted:
            # Painted on a mesh of its own, should another tile share this one.
            tile.data = tile.data.copy()
            colours = tile.data.color_attributes["Col"]
            world = tile.matrix_world
            for corner, loop in zip(colours.data, tile.data.loops):
                at = (world @ tile.data.vertices[loop.vertex_index].co).xy - middle
                fade = max(0.0, 1.0 - at.length / 3.0)
                side = max(-1.0, min(1.0, 2.0 * at.x))
                paint = (1.0, 0.45, 0.05) if side > 0 else (0.05, 0.08, 0.3)
                weight = min(1.0, 1.5 * fade) * abs(side)
                r, g, b, a = corner.color
                corner.color = (*(c + (p - c) * weight for c, p in zip((r, g, b), paint)), a)
            tile.data.update()
    with step(3):
        export(work)
    aim(SPOT)
    return "level"


@picture("vertex-colours.md", "Bake light")
def level_baked(step, work):
    """The whole level baked (Light › Bake level) with a low evening sun: Fit Lighting first,
    then Sun goes 0.8, −0.5, 0.3; Sun 0.9, 0.75, 0.55; Sky 0.3, 0.35, 0.45; Occlusion 1."""
    sample(work)
    props = bpy.context.scene.llamawad
    with step(1):
        assert bpy.ops.llamawad.fit_light() == {"FINISHED"}
    with step(2):
        props.light_sun_direction = (0.8, -0.5, 0.3)
        props.light_sun_colour = (0.9, 0.75, 0.55)
        props.light_sky_colour = (0.3, 0.35, 0.45)
        props.light_occlusion = 1.0
    with step(3):
        assert bpy.ops.llamawad.bake_light(whole_level=True) == {"FINISHED"}
    aim(SPOT)
    return "level"


def _collision_tile():
    return nearest_tile(SPOT + Vector((-1.0, 0.0, 0.0)))


@picture()
def collision_closeup(step, work):
    sample(work)
    aim(SPOT)
    bpy.ops.llamawad.collision_show(show=True, colour_by_material=True)
    return "collision"


@picture("collision.md", "Edit collision materials")
def collision_death(step, work):
    """A tile's collision faces given material 30 (Collision › 30: Death plane / water)."""
    sample(work)
    with step(1):
        assert bpy.ops.llamawad.collision_show(show=True, colour_by_material=True) == {"FINISHED"}
    with step(2):
        select_only(level_scene.collision_of(_collision_tile()))
        bpy.ops.object.mode_set(mode="EDIT")
    with step(3):
        bpy.ops.mesh.select_all(action="SELECT")
    with step(4):
        assert bpy.ops.llamawad.collision_material_set(material=30) == {"FINISHED"}
    with step(5):
        assert bpy.ops.llamawad.collision_select_material(material=30) == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    aim(SPOT)
    return "collision"


@picture("textures.md", "Repaint a page")
def page_repainted(step, work):
    """The page of the tile near the start repainted in Blender: every other row of 8 pixels
    tinted red; exported."""
    sample(work)
    with step(1):
        tile = _moved_tile()
        image = next(n.image for m in tile.data.materials if m and m.use_nodes for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image)
    with step(2):
        pixels = list(image.pixels)
        w = image.size[0]
        for i in range(0, len(pixels), 4):
            if (i // 4 // w) // 8 % 2 == 0:
                pixels[i], pixels[i + 1], pixels[i + 2] = 0.5 + pixels[i] / 2, pixels[i + 1] / 2, pixels[i + 2] / 2
        image.pixels = pixels
    with step(3):
        export(work)
    aim(SPOT)
    return "level"


@picture("textures.md", "A new image")
def new_image(step, work):
    """The platform given a material of its own showing a new image (Image › New, Color Grid),
    its faces unwrapped onto the image (U › Unwrap), exported."""
    sample(work)
    obj = _platform()
    with step(1):
        image = bpy.data.images.new("my texture", 128, 128)
        image.generated_type = "COLOR_GRID"
        material = bpy.data.materials.new("my texture")
        material.use_nodes = True
        nodes = material.node_tree.nodes
        texture = nodes.new("ShaderNodeTexImage")
        texture.image = image
        material.node_tree.links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
        # Cycles renders the level unlit: show the image as it would be drawn, full bright.
        material.node_tree.links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Emission Color"])
        nodes["Principled BSDF"].inputs["Emission Strength"].default_value = 1.0
        obj.data.materials[0] = material
    with step(2):
        select_only(obj)
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        assert bpy.ops.uv.unwrap() == {"FINISHED"}
        bpy.ops.object.mode_set(mode="OBJECT")
    with step(3):
        export(work)
    aim(SPOT)
    return "level"


@picture("check-and-probe.md", "The Floor probe")
def floor_probe(step, work):
    """The Floor probe at a point near the start, its lines: the floor polygon green, the zone
    its edge tolerance lets pass yellow, the polygons that lost grey, the point a stick."""
    sample(work)
    point = SPOT + Vector((0.3, 0.4, 0.0))
    point.z = ground(point.x, point.y) + 0.5
    with step(1):
        bpy.context.scene.cursor.location = point
        assert bpy.ops.llamawad.floor_probe() == {"FINISHED"}
    with step(2):
        result = level_probe.stored(bpy.context.scene)
        assert result["floor"] is not None
    with step(3):
        drawn = probe_words.drawing(result)
        lift = Vector((0, 0, 0.03))
        lines("probe floor", [[Vector(c) + lift for c in drawn["floor"]]], (0.1, 1.0, 0.2), radius=0.035)
        # The zone lies a hair outside the polygon: thinner and higher, so that it shows beside it.
        lines("probe zone", [[Vector(c) + 2 * lift for c in drawn["zone"]]], (1.0, 0.9, 0.1), radius=0.015)
        lines("probe others", [[Vector(c) + lift for c in o] for o in drawn["others"]], (0.6, 0.6, 0.6), radius=0.02)
        top = Vector(drawn["point"])
        lines("probe point", [[top, Vector((top.x, top.y, top.z - 0.5))]], (1.0, 1.0, 1.0), radius=0.03, closed=False)
    bpy.ops.llamawad.collision_show(show=True, colour_by_material=True)
    aim(point, distance=3.0, elevation=55.0)
    return "collision"


@picture("testlevel.md", "A test level with every object type")
def testlevel(step, work):
    """The test level of the sample level (Level › Make test level…): its plate of one strat of
    every placeable type and the parkour to the exit, in the scene it opens in."""
    sample(work)
    made_from = bpy.context.scene
    with step(1), step(2):
        assert bpy.ops.llamawad.test_level(filepath=str(work / "sample-test.wad"), spacing=3) == {"FINISHED"}
    with step(3):
        assert bpy.context.scene != made_from and level_scene.has_level(bpy.context.scene)
    strat_markers()
    doc = level_scene.level_document(bpy.context.scene)
    width, height = doc["grid"]
    aim(Vector((14.0, -(height - 5.0), 0.0)), distance=22.0, heading=0.0, elevation=50.0, lens=28.0)
    return "level"


def make(name: str, out: Path, size: tuple[int, int], work: Path) -> Path:
    view = PICTURES[name].make(Steps(), work)
    path = out / f"{name}.jpg"
    with blender_job._Quiet():
        blender_job.render(path, view, size)
    return path


def steps_run(name: str, work: Path) -> dict:
    """What a picture's script does without the render: its page, section and the steps it ran."""
    steps = Steps()
    with blender_job._Quiet():
        PICTURES[name].make(steps, work)
    return {"page": PICTURES[name].page, "section": PICTURES[name].section, "steps": steps.ran}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=GUIDE / "pictures")
    parser.add_argument("--size", type=blender_job.size_arg, default=(800, 450))
    parser.add_argument("--only", nargs="+", choices=sorted(PICTURES), metavar="NAME")
    parser.add_argument("--list", action="store_true", help="print the pictures' names and stop")
    parser.add_argument("--steps", action="store_true", help="run the pictures' steps without rendering; print the steps each ran (JSON)")
    args = parser.parse_args()
    if args.list:
        print("\n".join(PICTURES))
        return 0
    work = Path(tempfile.mkdtemp(prefix="guide-pictures-"))
    try:
        if args.steps:
            print(json.dumps({name: steps_run(name, work) for name in args.only or PICTURES}))
            return 0
        args.out.mkdir(parents=True, exist_ok=True)
        for name in args.only or PICTURES:
            print(make(name, args.out.resolve(), args.size, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    blender_job.leave(main())
