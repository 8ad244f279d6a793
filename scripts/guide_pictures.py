"""The pictures of the artist's guide (addon/docs/guide/), rendered in headless Blender through the
add-on on the sample level scripts/setup makes (`llamawad generate --seed 1 --size full`), so
that re-running it reproduces them. Run by scripts/guide-pictures:

  guide_pictures.py [--out DIR] [--size 800x450] [--only NAME ...] [--list]

Each picture starts from a fresh import, makes the edit its guide page teaches through the
add-on's operators (or as the artist's own tool would, where that tool is Blender's: G, R,
Shift D, painting), and renders the level (Cycles, as the game shows it), its collision
coloured by material or its zones (Workbench). Empties (strats) and the Floor probe's lines do
not render, so markers in their place are added as meshes. The caption that says what the
panels show is the guide page's.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
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

PICTURES = {}


def picture(fn):
    PICTURES[fn.__name__.replace("_", "-")] = fn
    return fn


@picture
def level():
    """The level as imported, whole."""
    return "level"


@picture
def collision():
    """Its collision coloured by material, whole."""
    return "collision"


@picture
def zones():
    """The Zones mesh in its zone colours (Zones › Zone colours)."""
    return "zones"


@picture
def strats():
    """The strats near the start, each a cone."""
    strat_markers()
    aim(SPOT, distance=16.0, elevation=55.0)
    return "level"


@picture
def closeup():
    """The close-up every before/after pair starts from."""
    aim(SPOT)
    return "level"


def _moved_tile():
    """The bulkiest tile near the middle of the close-up (a block), so that its move shows."""
    near = [o for o in mesh_tiles() if (o.location.xy - SPOT.xy).length < 2.5 and o.dimensions.z < 3.0]
    return max(near, key=lambda o: o.dimensions.x * o.dimensions.y * o.dimensions.z)


@picture
def tile_moved():
    """The block moved one cell east and turned a quarter (G X 1, R Z 90)."""
    tile = _moved_tile()
    tile.location.x += 1.0
    tile.rotation_euler.z += math.pi / 2
    aim(SPOT)
    return "level"


@picture
def tile_copied():
    """The block copied (Shift D) and placed two cells east."""
    tile = _moved_tile()
    select_only(tile)
    bpy.ops.object.duplicate(linked=False)
    copy = bpy.context.view_layer.objects.active
    copy.location += Vector((2.0, 0.0, 0.0))
    aim(SPOT)
    return "level"


def _platform():
    """A 3 × 3 platform of the level's first page, 1.5 over the floor south of the start."""
    x, y = SPOT.x - 1.0, SPOT.y - 1.5
    blender_job._new_mesh("new platform", 3, 3.0, (x, y, ground(x, y) + 1.5), 0.25)
    obj = bpy.data.objects["new platform"]
    # White, as the game shows a new mesh without vertex colours (the material multiplies the
    # page by them: without, Blender renders it black).
    colours = obj.data.color_attributes.new("Col", "BYTE_COLOR", "CORNER")
    for corner in colours.data:
        corner.color = (1.0, 1.0, 1.0, 1.0)
    return obj


@picture
def platform():
    _platform()
    aim(SPOT)
    return "level"


@picture
def platform_collision():
    """The platform's collision made from its faces (Collision › Collision from selected faces),
    in the collision view."""
    on_every_face(_platform(), lambda: bpy.ops.llamawad.collision_from_faces(material=0))
    aim(SPOT)
    return "collision"


@picture
def vertex_colours():
    """The floor around the middle of the close-up painted (Vertex Paint): orange towards the
    east, dark blue towards the west, fading out over three units."""
    middle = SPOT.xy + Vector((-1.0, 1.0))
    for tile in mesh_tiles():
        if (tile.location.xy - middle).length > 4.0 or "Col" not in tile.data.color_attributes:
            continue
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
    aim(SPOT)
    return "level"


@picture
def level_baked():
    """The whole level baked (Light › Bake level) with a low evening sun: Sun goes 0.8, −0.5,
    0.3; Sun 0.9, 0.75, 0.55; Sky 0.3, 0.35, 0.45; Occlusion 1."""
    props = bpy.context.scene.llamawad
    props.light_sun_direction = (0.8, -0.5, 0.3)
    props.light_sun_colour = (0.9, 0.75, 0.55)
    props.light_sky_colour = (0.3, 0.35, 0.45)
    props.light_occlusion = 1.0
    assert bpy.ops.llamawad.bake_light(whole_level=True) == {"FINISHED"}
    aim(SPOT)
    return "level"


def _collision_tile():
    return nearest_tile(SPOT + Vector((-1.0, 0.0, 0.0)))


@picture
def collision_closeup():
    aim(SPOT)
    bpy.ops.llamawad.collision_show(show=True, colour_by_material=True)
    return "collision"


@picture
def collision_death():
    """A tile's collision faces given material 30 (Collision › 30: Death plane / water)."""
    bpy.ops.llamawad.collision_show(show=True, colour_by_material=True)
    on_every_face(level_scene.collision_of(_collision_tile()), lambda: bpy.ops.llamawad.collision_material_set(material=30))
    aim(SPOT)
    return "collision"


@picture
def page_repainted():
    """The page of the tile near the start repainted: every other row of 8 pixels tinted red."""
    tile = _moved_tile()
    image = next(n.image for m in tile.data.materials if m and m.use_nodes for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image)
    pixels = list(image.pixels)
    w = image.size[0]
    for i in range(0, len(pixels), 4):
        if (i // 4 // w) // 8 % 2 == 0:
            pixels[i], pixels[i + 1], pixels[i + 2] = 0.5 + pixels[i] / 2, pixels[i + 1] / 2, pixels[i + 2] / 2
    image.pixels = pixels
    aim(SPOT)
    return "level"


@picture
def new_image():
    """The platform showing an image of its own (Image › New, Color Grid) instead of a page."""
    obj = _platform()
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
    aim(SPOT)
    return "level"


@picture
def floor_probe():
    """The Floor probe at a point near the start, its lines: the floor polygon green, the zone
    its edge tolerance lets pass yellow, the polygons that lost grey, the point a stick."""
    point = SPOT + Vector((0.3, 0.4, 0.0))
    point.z = ground(point.x, point.y) + 0.5
    bpy.context.scene.cursor.location = point
    bpy.ops.llamawad.floor_probe()
    drawn = probe_words.drawing(level_probe.stored(bpy.context.scene))
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


@picture
def testlevel():
    """The test level `llamawad testlevel` builds from the sample level: its plate of one strat
    of every placeable type and the parkour to the exit."""
    strat_markers()
    doc = level_scene.level_document(bpy.context.scene)
    width, height = doc["grid"]
    aim(Vector((14.0, -(height - 5.0), 0.0)), distance=22.0, heading=0.0, elevation=50.0, lens=28.0)
    return "level"


def level_for(name: str, work: Path) -> Path:
    """The level a picture is made from: the sample level, or for `testlevel` the test level the
    command line builds from it."""
    sample = work / "sample.wad"
    if not sample.exists():
        sample.write_bytes(llamawad.generate(SEED, SIZE))
    if name != "testlevel":
        return sample
    out = work / "testlevel.wad"
    if not out.exists():
        subprocess.run([str(ROOT / "scripts" / "llamawad"), "testlevel", str(sample), str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def make(name: str, out: Path, size: tuple[int, int], work: Path) -> Path:
    blender_job.import_level(level_for(name, work))
    view = PICTURES[name]()
    path = out / f"{name}.jpg"
    with blender_job._Quiet():
        blender_job.render(path, view, size)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=GUIDE / "pictures")
    parser.add_argument("--size", type=blender_job.size_arg, default=(800, 450))
    parser.add_argument("--only", nargs="+", choices=sorted(PICTURES), metavar="NAME")
    parser.add_argument("--list", action="store_true", help="print the pictures' names and stop")
    args = parser.parse_args()
    if args.list:
        print("\n".join(PICTURES))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="guide-pictures-"))
    try:
        for name in args.only or PICTURES:
            print(make(name, args.out.resolve(), args.size, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    blender_job.leave(main())
