"""Every edit an artist makes in Blender arrives in the WAD as the game shows it, or is refused by
name with nothing written (issue 10), in real Blender 5.0 through the add-on's operators: UVs
and materials of existing faces (a renamed page material among them), free UVs on new geometry
in every orientation, vertex paint on single corners, and the refusals of faces the game cannot
show (collision: test_addon_collision_edits.py). Each written level is imported again through
the add-on (the numbers compared) and checked by the Rust check against its base (no new
error)."""

from types import SimpleNamespace

import addon_support
import bpy  # noqa: I001  (bmesh exists only once bpy is imported)
import bmesh
import llamawad
import numpy as np
import pytest
from addon.common import game

pytestmark = pytest.mark.generator

# How close what comes back must be: UVs within 1/256 of the page, colours within 1/128.
UV_TOLERANCE = 1 / 256
COLOUR_TOLERANCE = 1 / 128


@pytest.fixture
def level(small_wad_file, tmp_path):
    assert addon_support.import_level(small_wad_file) == {"FINISHED"}
    return SimpleNamespace(base=small_wad_file, out=tmp_path / "edited.wad", tmp=tmp_path)


def loop_array(collection, attr, width):
    values = np.empty(len(collection) * width, np.float32)
    collection.foreach_get(attr, values)
    return values.reshape(-1, width)


@pytest.fixture(scope="module")
def page_size(small_wad_file):
    """Width and height of page 0 in pixels, from the level's glTF image."""
    from gltf_arrays import Document

    text, data, _ = llamawad.wad_to_gltf(small_wad_file.read_bytes())
    doc = Document.from_json(text, data)
    png = doc.view_bytes(doc.json["images"][0]["bufferView"])
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


class Corners:
    """Every render corner of the scene's tiles (new meshes too): its world position, UV,
    colour, the face it belongs to and that face's material key. What the tests compare after
    an import."""

    def __init__(self, objects=None):
        objects = objects if objects is not None else [o for o in bpy.context.scene.objects if o.type == "MESH" and o.get("llamawad") == "tile"]
        pos, uv, colour, face, key = [], [], [], [], []
        for obj in objects:
            mesh = obj.data
            if not len(mesh.polygons):
                continue
            co = loop_array(mesh.vertices, "co", 3)
            loop_vertex = np.empty(len(mesh.loops), np.int32)
            mesh.loops.foreach_get("vertex_index", loop_vertex)
            world = np.array(obj.matrix_world)
            p = co[loop_vertex] @ world[:3, :3].T + world[:3, 3]
            pos.append(p)
            uv.append(loop_array(mesh.uv_layers.active.uv, "vector", 2))
            col = mesh.color_attributes.get("Col")
            colour.append(loop_array(col.data, "color", 4) if col is not None else np.ones((len(p), 4), np.float32))
            totals = np.empty(len(mesh.polygons), np.int32)
            mesh.polygons.foreach_get("loop_total", totals)
            slots = np.empty(len(mesh.polygons), np.int32)
            mesh.polygons.foreach_get("material_index", slots)
            names = [m.get("llamawad_material", m.name) if m else "" for m in mesh.materials] or [""]
            loop_face = np.repeat(np.arange(len(totals)), totals)
            face.extend((obj.name, int(f)) for f in loop_face)
            key.extend(names[min(int(slots[f]), len(names) - 1)] for f in loop_face)
        self.pos = np.concatenate(pos)
        self.uv = np.concatenate(uv)
        self.colour = np.concatenate(colour)
        self.face = face
        self.material = key

    def at(self, point, near=1e-3) -> np.ndarray:
        """Indices of the corners at ``point`` (world space)."""
        return np.nonzero(np.abs(self.pos - np.asarray(point)).max(axis=1) < near)[0]

    def face_at(self, points, near=1e-3) -> tuple[str, int]:
        """The face (object name, index) with a corner at each of ``points``."""
        sets = [{self.face[i] for i in self.at(p, near)} for p in points]
        common = set.intersection(*sets)
        assert len(common) >= 1, f"no face at {points}"
        return sorted(common)[0]

    def of_face(self, face) -> np.ndarray:
        return np.array([i for i, f in enumerate(self.face) if f == face])


def face_corners(obj, f):
    """World positions and loop indices of face ``f`` of ``obj``."""
    poly = obj.data.polygons[f]
    world = obj.matrix_world
    loops = list(range(poly.loop_start, poly.loop_start + poly.loop_total))
    return [tuple(world @ obj.data.vertices[obj.data.loops[k].vertex_index].co) for k in loops], loops


def assert_uvs_arrive(corners: Corners, expected: list[dict]):
    """``expected``: per edited face or quad, its corners' positions → UVs. The re-imported
    triangles made of those corners only (however the way back cut a quad) show at each corner
    the UV given, within 1/256 of the page."""
    for uvs in expected:
        points = np.array(list(uvs))
        inside = np.array([np.abs(points - p).max(axis=1).min() < 1e-3 for p in corners.pos])
        faces = {f for f, i in zip(corners.face, inside) if i}
        faces = [f for f in faces if inside[corners.of_face(f)].all()]
        assert faces, f"no face made of {list(uvs)}"
        for f in faces:
            for i in corners.of_face(f):
                want = next(uv for p, uv in uvs.items() if np.abs(np.asarray(p) - corners.pos[i]).max() < 1e-3)
                assert np.abs(corners.uv[i] - np.asarray(want)).max() <= UV_TOLERANCE, (f, corners.pos[i], corners.uv[i], want)


def textured_tiles():
    """Tiles whose faces are all on texture pages 0–2 (real images), with their entries."""
    entries = addon_support.level_document()["texture_entries"]
    out = []
    for obj in addon_support.mesh_tiles():
        tex = addon_support.ints(obj.data, "wad_texture")
        if all(0 <= t < len(entries) and not game.is_flat_colour(entries[t]) and entries[t]["page"] < 3 for t in tex):
            out.append(obj)
    return out


# --- UVs and materials of existing faces


def test_a_face_given_another_faces_uvs(level):
    """Face A of a tile gets the UVs face B shows (another rectangle of the same page): the game
    shows B's rectangle on A."""
    entries = addon_support.level_document()["texture_entries"]
    edits = []
    for obj in textured_tiles():
        tex = addon_support.ints(obj.data, "wad_texture")
        slots = [p.material_index for p in obj.data.polygons]
        pairs = [(a, b) for a in range(len(tex)) for b in range(len(tex)) if slots[a] == slots[b] and entries[tex[a]] != entries[tex[b]]]
        if pairs:
            edits.append((obj, *pairs[0]))
        if len(edits) == 3:
            break
    assert len(edits) == 3
    expected = []
    for obj, a, b in edits:
        layer = obj.data.uv_layers.active.uv
        points, loops_a = face_corners(obj, a)
        _, loops_b = face_corners(obj, b)
        for la, lb in zip(loops_a, loops_b):
            layer[la].vector = layer[lb].vector
        expected.append({p: tuple(layer[la].vector) for p, la in zip(points, loops_a)})
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, level.base.read_bytes())
    changed = bpy.context.scene.llamawad.changes
    assert {c.tile for c in changed if "reshaped: textures, UVs, materials or face flags changed" in c.text} >= {obj["tile"] for obj, _, _ in edits}
    addon_support.reimport(level.out)
    assert_uvs_arrive(Corners(), expected)


def uv_island(obj):
    """Two faces of a tile that make a quad (flags 0x800 and 0x810 on one entry) sharing an edge:
    (face, face)."""
    tex = addon_support.ints(obj.data, "wad_texture")
    flags = addon_support.ints(obj.data, "wad_flags")
    for a in range(len(tex)):
        for b in range(len(tex)):
            if tex[a] == tex[b] and flags[a] & 0x830 == 0x800 and flags[b] & 0x830 == 0x810:
                va, vb = set(obj.data.polygons[a].vertices), set(obj.data.polygons[b].vertices)
                if len(va & vb) == 2:
                    return a, b
    return None


@pytest.mark.parametrize("edit", ["moved", "turned"])
def test_a_uv_island_moved_or_turned(level, edit):
    """A quad's UV island moved across its page (by 1/8 of it), or turned by 90° about its
    centre: the game shows the moved or turned rectangle (an entry found or added). The game
    shows a turned quad along its other diagonal: its two triangles are joined into a quad
    (Face › Triangles to Quads), which export cuts where the game can show it."""
    edits = []
    for obj in textured_tiles():
        island = uv_island(obj)
        if island is not None:
            edits.append((obj, island))
        if len(edits) == 2:
            break
    assert len(edits) == 2
    expected = []
    for obj, faces in edits:
        layer = obj.data.uv_layers.active.uv
        loops = [k for f in faces for k in face_corners(obj, f)[1]]
        uvs = np.array([tuple(layer[k].vector) for k in loops])
        if edit == "moved":
            lo, hi = uvs.min(axis=0), uvs.max(axis=0)
            # 1/8 of the page along u, towards the side with room.
            shift = np.array([0.125 if hi[0] + 0.125 <= 1 else -0.125, 0.0])
            assert (lo + shift >= 0).all() and (hi + shift <= 1).all()
            new = uvs + shift
        else:
            centre = (uvs.min(axis=0) + uvs.max(axis=0)) / 2
            d = uvs - centre
            new = centre + np.stack([-d[:, 1], d[:, 0]], axis=1)
            assert (new >= -1e-6).all() and (new <= 1 + 1e-6).all()
        for k, value in zip(loops, new):
            layer[k].vector = value
        island = {}
        for f in faces:
            points, face_loops = face_corners(obj, f)
            island.update((p, tuple(layer[k].vector)) for p, k in zip(points, face_loops))
        expected.append(island)
        if edit == "turned":
            addon_support.select_faces(obj, faces)
            bpy.ops.object.mode_set(mode="EDIT")
            assert bpy.ops.mesh.tris_convert_to_quads() == {"FINISHED"}
            bpy.ops.object.mode_set(mode="OBJECT")
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, level.base.read_bytes())
    addon_support.reimport(level.out)
    assert_uvs_arrive(Corners(), expected)


def test_a_faces_material_changed_to_another_page(level):
    """A face moved to another page's material (its UVs kept): the game shows that page, the
    same rectangle of it."""
    obj = textured_tiles()[0]
    f = 0
    old = obj.data.materials[obj.data.polygons[f].material_index].get("llamawad_material")
    other = next(p for p in (0, 1, 2) if f"page {p} blend 0" != old)
    material = addon_support.page_material(other)
    if material.name not in obj.data.materials:
        obj.data.materials.append(material)
    obj.data.polygons[f].material_index = list(obj.data.materials).index(material)
    points, loops = face_corners(obj, f)
    layer = obj.data.uv_layers.active.uv
    expected = [{p: tuple(layer[k].vector) for p, k in zip(points, loops)}]
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, level.base.read_bytes())
    addon_support.reimport(level.out)
    corners = Corners()
    assert_uvs_arrive(corners, expected)
    face = corners.face_at(points)
    assert {corners.material[i] for i in corners.of_face(face)} == {f"page {other} blend 0"}


def test_a_renamed_page_material_keeps_its_page(level):
    """Every page material renamed as an artist names them ("Sand"): its custom properties say
    its page and blend mode, so a face moved onto one is written on that page, the same bytes as
    before the rename."""
    obj = textured_tiles()[0]
    other = next(p for p in (0, 1, 2) if f"page {p} blend 0" != obj.data.materials[obj.data.polygons[0].material_index].get("llamawad_material"))
    material = addon_support.page_material(other)
    assert (material["llamawad"], material["page"], material["blend"]) == ("page", other, 0)
    if material.name not in obj.data.materials:
        obj.data.materials.append(material)
    obj.data.polygons[0].material_index = list(obj.data.materials).index(material)
    named = addon_support.export(level.out)
    assert named != level.base.read_bytes()
    for k, mat in enumerate(m for m in bpy.data.materials if m.get("llamawad") == "page"):
        mat.name = f"Sand {k}"
    assert material.name.startswith("Sand")
    assert addon_support.export(level.tmp / "renamed.wad") == named


# --- new geometry with free UVs


ORIENTATIONS = [(turns, mirrored) for mirrored in (False, True) for turns in range(4)]


def rectangle_corners(lo, hi, turns: int, mirrored: bool):
    """A rectangle's UV corners for a quad's corners in order, turned by quarter turns and
    mirrored along u."""
    corners = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
    if mirrored:
        corners = [corners[1], corners[0], corners[3], corners[2]]
    return corners[turns:] + corners[:turns]


def test_free_uvs_in_every_orientation(level, page_size):
    """Eight new quads on page 0, one for each of the 4 turns × 2 mirrorings of one rectangle:
    each comes back within 1/256 of the page at every corner, all on one texture entry."""
    w, h = page_size
    # A rectangle on whole pixels, not square: turning it shows whether the halves are right.
    lo, hi = (40 / w, 24 / h), (104 / w, 56 / h)
    mesh = bpy.data.meshes.new("free uvs")
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    quads = []
    for k, (turns, mirrored) in enumerate(ORIENTATIONS):
        x = 0.1 + (k % 4) * 0.22
        y = 0.1 + (k // 4) * 0.22
        verts = [bm.verts.new(c) for c in ((x, y, 0.2), (x + 0.2, y, 0.2), (x + 0.2, y + 0.1, 0.2), (x, y + 0.1, 0.2))]
        face = bm.faces.new(verts)
        for loop, value in zip(face.loops, rectangle_corners(lo, hi, turns, mirrored)):
            loop[uv].uv = value
        quads.append([(tuple(v.co), tuple(l[uv].uv)) for v, l in zip(verts, face.loops)])
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(addon_support.page_material(0))
    obj = bpy.data.objects.new("free uvs", mesh)
    obj.location = (3.0, -4.0, 0.0)
    addon_support.tiles_collection().objects.link(obj)
    offset = np.array(obj.location)
    expected = [{tuple(np.array(p) + offset): value for p, value in quad} for quad in quads]
    base = level.base.read_bytes()
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, base)
    # One rectangle: one entry at most, shared by all eight quads.
    assert llamawad.parse_info(wad)["texture_entries"] - llamawad.parse_info(base)["texture_entries"] <= 1
    addon_support.reimport(level.out)
    assert_uvs_arrive(Corners(), expected)


# --- vertex paint


def srgb(linear):
    linear = np.asarray(linear, np.float64)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def test_vertex_paint_on_single_corners(level):
    """Twelve corners painted alone, each at a vertex other faces share: each comes back within
    1/128 (sRGB) of what was painted, and the other corners of its vertex keep their colours."""
    edits = []
    for obj in addon_support.mesh_tiles():
        mesh = obj.data
        if "Col" not in mesh.color_attributes or len(mesh.polygons) < 2:
            continue
        flags = addon_support.ints(mesh, "wad_flags")
        loop_vertex = np.empty(len(mesh.loops), np.int32)
        mesh.loops.foreach_get("vertex_index", loop_vertex)
        totals = np.empty(len(mesh.polygons), np.int32)
        mesh.polygons.foreach_get("loop_total", totals)
        loop_face = np.repeat(np.arange(len(totals)), totals)
        # A vertex with corners on two faces that show vertex colours.
        shows = (flags[loop_face] & game.FACE_IGNORE_COLOURS) == 0
        vertex, counts = np.unique(loop_vertex[shows], return_counts=True)
        shared = vertex[counts >= 2]
        if not len(shared):
            continue
        k = int(np.nonzero((loop_vertex == shared[0]) & shows)[0][0])
        edits.append((obj, k))
        if len(edits) == 12:
            break
    assert len(edits) == 12
    rng = np.random.default_rng(10)
    expected = []
    for obj, k in edits:
        mesh = obj.data
        colours = mesh.color_attributes["Col"]
        painted = rng.uniform(0.05, 0.8, 3)
        colours.data[k].color = (*painted, 1.0)
        f = next(p.index for p in mesh.polygons if p.loop_start <= k < p.loop_start + p.loop_total)
        points, loops = face_corners(obj, f)
        v = mesh.loops[k].vertex_index
        point = tuple(obj.matrix_world @ mesh.vertices[v].co)
        others = [
            (face_corners(obj, p.index)[0], tuple(colours.data[l].color)[:3])
            for p in mesh.polygons
            if p.index != f
            for l in range(p.loop_start, p.loop_start + p.loop_total)
            if mesh.loops[l].vertex_index == v
        ]
        expected.append((points, point, painted, others))
    wad = addon_support.export(level.out)
    addon_support.assert_no_new_errors(wad, level.base.read_bytes())
    addon_support.reimport(level.out)
    corners = Corners()

    def colour_at(points, point):
        face = corners.face_at(points)
        ids = [i for i in corners.at(point) if corners.face[i] == face]
        return corners.colour[ids[0], :3]

    for points, point, painted, others in expected:
        got = colour_at(points, point)
        assert np.abs(srgb(got) - srgb(painted)).max() <= COLOUR_TOLERANCE, (point, got, painted)
        for other_points, colour in others:
            assert np.abs(srgb(colour_at(other_points, point)) - srgb(colour)).max() <= COLOUR_TOLERANCE


# --- refusals


def new_quad_pair(name, uvs, material):
    """A new mesh of two quads side by side, with these UVs per quad (or none) and material."""
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    v = [bm.verts.new(c) for c in ((0, 0, 0), (0.4, 0, 0), (0.4, 0.4, 0), (0, 0.4, 0), (0.8, 0, 0), (0.8, 0.4, 0))]
    faces = [bm.faces.new(v[:4]), bm.faces.new([v[1], v[4], v[5], v[2]])]
    if uvs is not None:
        layer = bm.loops.layers.uv.new("UVMap")
        for face, values in zip(faces, uvs):
            for loop, value in zip(face.loops, values):
                loop[layer].uv = value
    bm.to_mesh(mesh)
    bm.free()
    if material is not None:
        mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = (2.1, -3.1, 0.0)
    addon_support.tiles_collection().objects.link(obj)
    return obj


RECTANGLE = ((0.0, 0.75), (0.25, 0.75), (0.25, 1.0), (0.0, 1.0))
TRAPEZIUM = ((0.0, 0.75), (0.25, 0.75), (0.2, 1.0), (0.05, 1.0))

REFUSALS = {
    "no uvs": (None, "page", [0, 1], "no UVs to fit one from"),
    "no material": ([RECTANGLE, RECTANGLE], "other", [0, 1], "no material that says its page"),
    "no rectangle half": ([RECTANGLE, TRAPEZIUM], "page", [1], "no half of a texture rectangle"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_select_the_blender_faces(level, case):
    uvs, material, faces, message = REFUSALS[case]
    obj = new_quad_pair("refused", uvs, addon_support.page_material(0) if material == "page" else bpy.data.materials.new("clay"))
    with pytest.raises(RuntimeError, match=message) as error:
        bpy.ops.export_scene.llamawad(filepath=str(level.out))
    assert not level.out.exists()
    assert f"selected in Edit Mode: refused, Blender face{'s' if len(faces) > 1 else ''} {', '.join(map(str, faces))}" in str(error.value)
    assert bpy.context.active_object == obj and obj.mode == "EDIT"
    bm = bmesh.from_edit_mesh(obj.data)
    assert [f.index for f in bm.faces if f.select] == faces
    # Each refusal its own message, saying what to do.
    assert not any(other in str(error.value) for *_, other in REFUSALS.values() if other != message)
    assert any(hint in str(error.value) for hint in ("unwrap them", "give them a page's material", "snapped"))


def test_snapped_uvs_are_written_and_reported(level):
    new_quad_pair("snapped", [RECTANGLE, TRAPEZIUM], addon_support.page_material(0))
    wad = addon_support.export(level.out, snap_uvs=True)
    addon_support.assert_no_new_errors(wad, level.base.read_bytes())
    texts = [c.text for c in bpy.context.scene.llamawad.changes]
    assert any(t.startswith("snapped: UVs of") and "snapped to the nearest layout" in t for t in texts)
    assert "snapped" in bpy.context.scene.llamawad.last_export
