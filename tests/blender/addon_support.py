"""Shared by the add-on tests (tests/blender/test_addon_*.py): the add-on package importable as
``addon`` from the repository root, without installing it."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def register_addon():
    """Registers the add-on from the source tree (once per process)."""
    import bpy

    import addon

    if not hasattr(bpy.types.Scene, "llamawad"):
        addon.register()
    return addon


def import_level(path, collision: bool = False) -> set:
    """An empty home file with the level at ``path`` imported through the add-on's operator;
    with ``collision``, the tiles' collision objects made too (Show collision, then hidden
    again as after import)."""
    import bpy

    register_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    result = bpy.ops.import_scene.llamawad(filepath=str(path))
    if collision and result == {"FINISHED"}:
        assert bpy.ops.llamawad.collision_show(show=True) == {"FINISHED"}
        assert bpy.ops.llamawad.collision_show(show=False) == {"FINISHED"}
    return result


# Where the tests add a floor: over cell (4, 5), by its centre.
SPOT = (4.5, -5.5)


def level_with_spot(wad_file, tmp_path):
    """The level at ``wad_file`` imported; its bytes (``base``), where to export (``out``) and the
    height 2 units above the ground at SPOT (``height``), where a new floor goes."""
    from types import SimpleNamespace

    import llamawad

    assert import_level(wad_file) == {"FINISHED"}
    base = wad_file.read_bytes()
    (ground,) = llamawad.probe(base, [(SPOT[0], 60.0, -SPOT[1])])
    return SimpleNamespace(base=base, out=tmp_path / "edited.wad", height=round(ground["floor"]["height"] + 2.0, 3))


def page_material(page: int = 0):
    """The material import made for the page's faces of blend 0."""
    import bpy

    return next(m for m in bpy.data.materials if m.get("llamawad") == "page" and (m.get("page"), m.get("blend"), m.get("double_sided")) == (page, 0, False))


def reimport(path, collision: bool = False) -> None:
    """The written level, imported into a fresh scene through the add-on (with ``collision``,
    its tiles' collision objects made)."""
    import bpy

    assert import_level(path, collision) == {"FINISHED"}
    bpy.context.view_layer.update()


def ints(mesh, name, domain="FACE"):
    """The values of a mesh's integer attribute."""
    import numpy as np

    n = {"FACE": len(mesh.polygons), "POINT": len(mesh.vertices)}[domain]
    values = np.empty(n, np.int32)
    mesh.attributes[name].data.foreach_get("value", values)
    return values


def tiles_collection():
    import bpy

    return next(c for c in bpy.context.scene.collection.children if c.get("llamawad") == "tiles")


def floor_under(wad: bytes, x: float, y_blender: float, above: float) -> dict | None:
    """The floor the game finds at Blender (x, y), dropped from ``above`` (Blender z)."""
    import llamawad

    (result,) = llamawad.probe(wad, [(x, above, -y_blender)])
    return result["floor"]


def new_floor(base: bytes, name="new floor"):
    """A new mesh in the Tiles collection: a 0.8 × 0.8 floor quad with a page's UVs, over cell
    (4, 5), 2 units above its ground. Returns the object and its height."""
    import bmesh
    import bpy

    ground = floor_under(base, *SPOT, 60.0)
    height = round((ground["height"] if ground else 0.0) + 2.0, 3)
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    verts = [bm.verts.new(c) for c in ((0.1, 0.1, 0), (0.9, 0.1, 0), (0.9, 0.9, 0), (0.1, 0.9, 0))]
    face = bm.faces.new(verts)
    for loop, value in zip(face.loops, ((0.0, 0.75), (0.25, 0.75), (0.25, 1.0), (0.0, 1.0))):
        loop[uv].uv = value
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(page_material(0))
    obj = bpy.data.objects.new(name, mesh)
    obj.location = (SPOT[0] - 0.5, SPOT[1] - 0.5, height)
    tiles_collection().objects.link(obj)
    return obj, height


def export(path, **options) -> bytes:
    """The scene exported through the add-on's operator to ``path``; the bytes written."""
    import bpy

    assert bpy.ops.export_scene.llamawad(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def assert_no_new_errors(wad: bytes, base: bytes) -> None:
    """The Rust check finds no error in ``wad`` that its base does not have."""
    import llamawad

    report = llamawad.check(wad, base)
    new = [p["message"] for p in report["problems"] if p["severity"] == "error" and not p.get("pre_existing")]
    assert new == []


def tiles_with_collision(wad: bytes) -> set[int]:
    """The tiles of the level ``wad`` whose model has collision (those whose collision node has a
    mesh)."""
    import llamawad

    nodes = llamawad.wad_to_scene(wad)[0]["nodes"]
    return {int(e["tile"]) for role, e, mesh in zip(nodes["role"], nodes["extras"], nodes["mesh"]) if role == "collision" and mesh is not None}


def tile_object(index: int):
    """The tile object of tile ``index`` (the original, not a copy)."""
    import bpy

    tiles = [o for o in bpy.context.scene.objects if o.get("llamawad") == "tile" and o.get("tile") == index]
    tiles.sort(key=lambda o: ("." in o.name, o.name))
    return tiles[0]


def world_matrix(obj):
    """The object's world matrix from its own transforms (parent chain, parent inverse), as
    export places it: right for objects the depsgraph does not evaluate (hidden collision)."""
    m = obj.matrix_basis.copy()
    while obj.parent is not None:
        m = obj.parent.matrix_basis @ obj.matrix_parent_inverse @ m
        obj = obj.parent
    return m


def select_faces(obj, faces):
    """Object mode: ``obj`` the only selected and the active object, exactly ``faces`` selected."""
    import bpy
    import numpy as np

    for o in bpy.context.view_layer.objects.selected:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    sel = np.zeros(len(obj.data.polygons), bool)
    sel[list(faces)] = True
    obj.data.polygons.foreach_set("select", sel)


def level_state(wad: bytes) -> dict:
    """What a level shows, tile by tile, as comparable plain data: placement, render faces
    (flags, entry, corners with raw colours) and collision polygons (material, kind, group,
    corners), the zone of each cell and the zone masks. Read through the Rust glTF export, so
    that two WADs can be compared by content whatever their model numbering."""
    import llamawad
    import numpy as np

    from gltf_arrays import Document

    text, bin_data, _ = llamawad.wad_to_gltf(wad)
    doc = Document.from_json(text, bin_data)
    nodes = doc.json["nodes"]
    extras = doc.scene_extras()["llamawad"]

    def r(values):
        return tuple(round(float(v), 3) for v in values)

    tiles = {}
    for node in nodes:
        e = node.get("extras") or {}
        if e.get("llamawad") != "tile":
            continue
        state = {"placement": (r(node.get("translation", [0, 0, 0])), e["rotation"]), "faces": (), "collision": ()}
        if "mesh" in node:
            t = doc.triangles(node["mesh"])
            flags, textures = t.per_triangle("_FLAGS"), t.per_triangle("_TEXTURE")
            pos = t.attributes["POSITION"]
            rgb = t.attributes.get("_RGB_0", np.zeros(len(pos)))
            faces = []
            for k in range(t.count):
                corners = tuple((r(pos[3 * k + c]), int(rgb[3 * k + c])) for c in range(3))
                faces.append((int(flags[k]), int(textures[k]), corners))
            state["faces"] = tuple(sorted(faces))
        for child in node.get("children", []):
            cn = nodes[child]
            if (cn.get("extras") or {}).get("llamawad") != "collision" or "mesh" not in cn:
                continue
            t = doc.triangles(cn["mesh"])
            polygon = t.per_triangle("_POLYGON")
            pos = t.attributes["POSITION"].reshape(-1, 3, 3)
            polys = []
            for p in np.unique(polygon):
                ts = np.nonzero(polygon == p)[0]
                corners = tuple(sorted({r(c) for tri in pos[ts] for c in tri}))
                k = ts[0]
                polys.append((int(t.per_triangle("_MATERIAL")[k]), int(t.per_triangle("_KIND")[k]), int(t.per_triangle("_GROUP")[k]), corners))
            state["collision"] = tuple(sorted(polys))
        tiles[e["tile"]] = state
    return {"tiles": tiles, "region_grid": list(extras["region_grid"]), "regions": [(x["mask"], x["value"]) for x in extras["regions"]]}


def level_diff(before: dict, after: dict) -> dict:
    """Which tiles differ in what (placement, faces, collision), which tiles are new or gone,
    which cells changed zone and which zone masks changed."""
    out = {}
    for key in ("placement", "faces", "collision"):
        changed = sorted(i for i in before["tiles"] if i in after["tiles"] and before["tiles"][i][key] != after["tiles"][i][key])
        if changed:
            out[key] = changed
    added = sorted(set(after["tiles"]) - set(before["tiles"]))
    if added:
        out["added"] = added
    gone = sorted(set(before["tiles"]) - set(after["tiles"]))
    if gone:
        out["gone"] = gone
    cells = [i for i, (a, b) in enumerate(zip(before["region_grid"], after["region_grid"])) if a != b]
    if cells:
        out["cells"] = cells
    masks = [i for i, (a, b) in enumerate(zip(before["regions"], after["regions"])) if a != b]
    if masks:
        out["regions"] = masks
    return out


def mesh_tiles():
    """Original tile objects that have a mesh, in tile order."""
    import bpy

    tiles = [o for o in bpy.context.scene.objects if o.get("llamawad") == "tile" and o.type == "MESH"]
    return sorted(tiles, key=lambda o: o["tile"])


def level_document() -> dict:
    import bpy

    from addon.blender import scene as level_scene

    return level_scene.level_document(bpy.context.scene)


_IN_BLENDER = r'''
import importlib.abc, importlib.machinery, json, sys

# The add-on must find llamawad in the wheel Blender installed, not in the test venv.
venv_site = [p for p in sys.path if p.endswith("site-packages")]
class HideVenvLlamawad(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "llamawad":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [p for p in sys.path if p not in venv_site])
sys.meta_path.insert(0, HideVenvLlamawad())

import bpy

zip_path, wad, out = sys.argv[1:4]
result = {"extensions": bpy.utils.user_resource("EXTENSIONS")}
bpy.ops.wm.read_homefile(use_empty=True)
result["install"] = sorted(bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True))
result["enabled"] = sorted(m for m in bpy.context.preferences.addons.keys() if "llamawad" in m)
# A fresh file keeps installed extensions enabled (read_factory_settings would not).
bpy.ops.wm.read_homefile(use_empty=True)
result["import"] = sorted(bpy.ops.import_scene.llamawad(filepath=wad))
result["tiles"] = sum(1 for o in bpy.data.objects if o.get("llamawad") == "tile")
result["export"] = sorted(bpy.ops.export_scene.llamawad(filepath=out))
import llamawad
result["llamawad"] = llamawad.__file__
print("RESULT " + json.dumps(result))
'''


def install_and_use_extension(extension_zip, tmp_path) -> None:
    """Real Blender installs the extension zip into a user resource directory of its own
    (BLENDER_USER_RESOURCES, so ~ is not touched), enables it, and imports and exports a level
    through the installed add-on, whose llamawad must come from the wheel in the zip."""
    import llamawad

    wad = tmp_path / "small.wad"
    wad.write_bytes(llamawad.generate(2, "small"))
    out = tmp_path / "out.wad"
    resources = tmp_path / "blender-user"
    resources.mkdir()
    script = tmp_path / "in_blender.py"
    script.write_text(_IN_BLENDER)
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(resources))
    done = subprocess.run(
        [sys.executable, script, extension_zip, wad, out],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout + done.stderr
    result = json.loads(lines[-1][len("RESULT ") :])
    assert result["extensions"].startswith(str(resources))
    assert result["install"] == ["FINISHED"]
    assert result["enabled"] == ["bl_ext.user_default.llamawad"]
    assert result["import"] == ["FINISHED"] and result["export"] == ["FINISHED"]
    assert result["tiles"] == llamawad.parse_info(wad.read_bytes())["tiles"]
    # The native module is the wheel Blender installed for the extension.
    assert result["llamawad"].startswith(str(resources))
    assert out.read_bytes() == wad.read_bytes()
