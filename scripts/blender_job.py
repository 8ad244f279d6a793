"""Jobs in headless Blender (the bpy module in .venv) through the add-on, registered from the
source tree (addon/). Run by scripts/render-preview and by the main job of scripts/setup.

  blender_job.py render LEVEL.wad OUT.png|OUT.jpg [--view level|collision] [--size 1280x720]
  blender_job.py main LEVEL.wad OUTDIR      import, export, byte-compare, render both views

Exit status: 0 fine, 1 error, 3 when the export is not byte-identical to the level.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402

import addon  # noqa: E402
from addon.blender import scene as level_scene  # noqa: E402


def import_level(path: Path) -> float:
    if not hasattr(bpy.types.Scene, "llamawad"):
        addon.register()
    bpy.ops.wm.read_homefile(use_empty=True)
    started = time.perf_counter()
    result = bpy.ops.import_scene.llamawad(filepath=str(path))
    if result != {"FINISHED"}:
        raise SystemExit(f"error: import of {path} failed")
    return time.perf_counter() - started


def export_level(path: Path) -> float:
    started = time.perf_counter()
    result = bpy.ops.export_scene.llamawad(filepath=str(path))
    if result != {"FINISHED"}:
        raise SystemExit(f"error: export to {path} failed")
    return time.perf_counter() - started


def frame_camera(scene, size: tuple[int, int]) -> None:
    """A camera looking down at the whole grid from its south side, 40° up."""
    doc = level_scene.level_document(scene)
    width, height = doc.get("grid", [16, 16])
    camera = bpy.data.cameras.new("Preview")
    camera.lens = 28
    obj = bpy.data.objects.new("Preview camera", camera)
    scene.collection.objects.link(obj)
    scene.camera = obj
    centre = Vector((width / 2, -height / 2, 0.0))
    obj.location = centre + Vector((0.0, -0.8 * height, 0.62 * max(width, height)))
    obj.rotation_euler = (centre - obj.location).to_track_quat("-Z", "Y").to_euler()
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    world = bpy.data.worlds.new("Preview")
    world.color = (0.04, 0.045, 0.06)
    scene.world = world


def render(path: Path, view: str, size: tuple[int, int]) -> float:
    scene = bpy.context.scene
    if scene.camera is None:
        frame_camera(scene, size)
    colls = level_scene.level_collections(scene)
    if view == "level":
        # As the game shows it: unlit page textures × vertex colours (Cycles, emission shaders).
        colls["tiles"].hide_render = False
        colls["collision"].hide_render = True
        scene.render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = 16
        scene.cycles.use_denoising = False
        scene.cycles.max_bounces = 0
    else:
        # Collision coloured by material (0 grey-green, 16 yellow, 17 cyan, 18 blue, 30 red),
        # shaded so that its shapes read; the render tiles left out.
        bpy.ops.llamawad.collision_show(show=True, colour_by_material=True)
        colls["tiles"].hide_render = True
        colls["collision"].hide_render = False
        scene.render.engine = "BLENDER_WORKBENCH"
        shading = scene.display.shading
        shading.light = "STUDIO"
        shading.color_type = "VERTEX"
        shading.show_cavity = True
    scene.render.filepath = str(path)
    settings = scene.render.image_settings
    settings.color_mode = "RGB"
    if path.suffix.lower() in (".jpg", ".jpeg"):
        settings.file_format = "JPEG"
        settings.quality = 85
    else:
        settings.file_format = "PNG"
        settings.compression = 90
    started = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    return time.perf_counter() - started


def size_arg(text: str) -> tuple[int, int]:
    w, h = text.lower().split("x")
    return int(w), int(h)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="job", required=True)
    r = sub.add_parser("render", help="render a level as imported by the add-on")
    r.add_argument("level", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--view", choices=["level", "collision"], default="level")
    r.add_argument("--size", type=size_arg, default=(1280, 720))
    m = sub.add_parser("main", help="import, export, byte-compare, render")
    m.add_argument("level", type=Path)
    m.add_argument("outdir", type=Path)
    m.add_argument("--size", type=size_arg, default=(1280, 720))
    args = parser.parse_args()

    if args.job == "render":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        import_level(args.level)
        render(args.out.resolve(), args.view, args.size)
        print(args.out.resolve())
        return 0

    args.outdir.mkdir(parents=True, exist_ok=True)
    written = args.outdir / "blender-export.wad"
    imported = import_level(args.level)
    exported = export_level(written)
    same = written.read_bytes() == args.level.read_bytes()
    preview = (args.outdir / "preview.png").resolve()
    collision = (args.outdir / "preview-collision.png").resolve()
    rendered = render(preview, "level", args.size)
    render(collision, "collision", args.size)
    print(
        json.dumps(
            {
                "imported_s": round(imported, 3),
                "exported_s": round(exported, 3),
                "byte_identical": same,
                "render_s": round(rendered, 2),
            }
        )
    )
    print(f"Blender export: {written.resolve()} ({'byte-identical to the level' if same else 'DIFFERS from the level'})")
    print(f"Preview render: {preview}")
    print(f"Collision view: {collision}")
    return 0 if same else 3


if __name__ == "__main__":
    sys.exit(main())
