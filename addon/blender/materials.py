"""Page images and materials. The glTF's PNG pages are packed into the .blend from memory; each
glTF material becomes an unlit node material (texture × vertex colour, as the game lights it,
KHR_materials_unlit): Image Texture (closest pixel) × Color Attribute → Emission, mixed with
Transparent by the texture's alpha. A page's material carries its glTF extras as custom
properties (``llamawad`` = ``page``, ``page``, ``blend``, ``double_sided``): what export reads
of its faces' page, whatever the material is called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import bpy

from ..common import game

COLOUR_ATTRIBUTE = "Col"
# The material's name as import gave it, by which import and the face tools find it again
# after the artist renamed it.
KEY = "llamawad_material"
# The custom properties a page's material carries (its glTF extras: rust/core/src/gltf/material.rs).
PAGE_PROPERTIES = ("llamawad", "page", "blend", "double_sided")


def build_images(info: Mapping[str, Any], pngs: list[bytes]) -> list[bpy.types.Image]:
    """The pages, from the hand-over of ``llamawad.wad_to_scene``: names and PNG bytes."""
    images = []
    for name, png in zip(info["images"], pngs):
        img = bpy.data.images.new(name, 1, 1)
        img.pack(data=png, data_len=len(png))
        img.source = "FILE"
        img["llamawad"] = "page"
        images.append(img)
    return images


def _says(mat, extras: Mapping[str, Any] | None) -> None:
    """The material's page as ``extras`` say it (a page material's glTF extras), in its custom
    properties; none for a material that is no page's."""
    for prop in PAGE_PROPERTIES:
        if prop in mat:
            del mat[prop]
    for prop, value in (extras or {}).items():
        if prop in PAGE_PROPERTIES:
            mat[prop] = value


def new_material(name: str, *, base=(1.0, 1.0, 1.0, 1.0), image=None, alpha_mode="OPAQUE", double_sided=False, vertex_colours=True, key=None, extras=None, templates=None):
    """An unlit material; ``extras``, a page material's glTF extras, which say its page. With
    ``templates`` (a dict kept over one import), materials of one node layout are copies of the
    first: a copy costs a twentieth of building the nodes."""
    layout = (image is not None, alpha_mode if image is not None else "OPAQUE", vertex_colours)
    if templates is not None and layout in templates:
        mat = templates[layout].copy()
        mat.name = name
        mat[KEY] = key or name
        _says(mat, extras)
        mat.diffuse_color = base
        mat.use_backface_culling = not double_sided
        mat.surface_render_method = "BLENDED" if alpha_mode == "BLEND" else "DITHERED"
        nodes = mat.node_tree.nodes
        for node in nodes:
            if node.type == "EMISSION":
                node.inputs["Color"].default_value = base
            elif node.type == "MIX":
                node.inputs["A"].default_value = base
            elif node.type == "TEX_IMAGE":
                node.image = image
        return mat
    mat = _build_material(name, base=base, image=image, alpha_mode=alpha_mode, double_sided=double_sided, vertex_colours=vertex_colours, key=key)
    _says(mat, extras)
    if templates is not None:
        templates[layout] = mat
    return mat


def _build_material(name, *, base, image, alpha_mode, double_sided, vertex_colours, key):
    mat = bpy.data.materials.new(name)
    mat[KEY] = key or name
    mat.diffuse_color = base
    mat.use_backface_culling = not double_sided
    if alpha_mode == "BLEND":
        mat.surface_render_method = "BLENDED"
    else:
        mat.surface_render_method = "DITHERED"
    if mat.node_tree is None:
        # Blender before 5.0 gives a material nodes only when asked (5.0 always does).
        mat.use_nodes = True
    nt = mat.node_tree
    nodes, links = nt.nodes, nt.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputMaterial")
    out.location = (600, 0)
    emission = nodes.new("ShaderNodeEmission")
    emission.location = (200, -100)
    emission.inputs["Color"].default_value = base
    colour = emission.inputs["Color"]
    alpha_socket = None
    mul = None
    if vertex_colours:
        vcol = nodes.new("ShaderNodeVertexColor")
        vcol.layer_name = COLOUR_ATTRIBUTE
        vcol.location = (-400, -200)
        mul = nodes.new("ShaderNodeMix")
        mul.data_type = "RGBA"
        mul.blend_type = "MULTIPLY"
        mul.inputs["Factor"].default_value = 1.0
        mul.location = (-50, -100)
        mul.inputs["A"].default_value = base
        links.new(vcol.outputs["Color"], mul.inputs["B"])
        links.new(mul.outputs["Result"], colour)
        colour = mul.inputs["A"]
    if image is not None:
        tex = nodes.new("ShaderNodeTexImage")
        tex.image = image
        tex.interpolation = "Closest"
        tex.extension = "EXTEND"
        tex.location = (-400, 100)
        nt.nodes.active = tex
        links.new(tex.outputs["Color"], colour)
        if alpha_mode != "OPAQUE":
            alpha_socket = tex.outputs["Alpha"]
    if alpha_socket is not None:
        transparent = nodes.new("ShaderNodeBsdfTransparent")
        transparent.location = (200, 100)
        mix = nodes.new("ShaderNodeMixShader")
        mix.location = (400, 0)
        if alpha_mode == "MASK":
            # Alpha test at 0.5, like the glTF's alphaCutoff.
            cut = nodes.new("ShaderNodeMath")
            cut.operation = "GREATER_THAN"
            cut.inputs[1].default_value = 0.5
            cut.location = (0, 200)
            links.new(alpha_socket, cut.inputs[0])
            alpha_socket = cut.outputs[0]
        links.new(alpha_socket, mix.inputs["Fac"])
        links.new(transparent.outputs[0], mix.inputs[1])
        links.new(emission.outputs[0], mix.inputs[2])
        links.new(mix.outputs[0], out.inputs["Surface"])
    else:
        links.new(emission.outputs[0], out.inputs["Surface"])
    return mat


def _key(m: Mapping[str, Any]) -> str:
    # Blender names are unique: the export gives flat colours the same name either way.
    name = m["name"]
    return name + " double-sided" if m["double_sided"] and not name.endswith(" double-sided") else name


def _level_material(m: Mapping[str, Any], images, templates=None) -> bpy.types.Material:
    """The material of the hand-over's material ``m`` (``images``: the pages by index)."""
    image = m["image"]
    return new_material(
        _key(m),
        base=tuple(m["base_colour"]),
        image=images[image] if image is not None and image < len(images) else None,
        alpha_mode=m["alpha_mode"],
        double_sided=m["double_sided"],
        key=_key(m),
        extras=m["extras"],
        templates=templates,
    )


def build_materials(info: Mapping[str, Any], images) -> list[bpy.types.Material]:
    templates: dict[str, bpy.types.Material] = {}
    return [_level_material(m, images, templates) for m in info["materials"]]


def level_images(info: Mapping[str, Any], pngs: list[bytes]) -> list[bpy.types.Image]:
    """The pages the file has already (by name), each made only where it has none."""
    have = {i.name: i for i in bpy.data.images if i.get("llamawad") == "page"}
    return [have.get(name) or build_images({"images": [name]}, [png])[0] for name, png in zip(info["images"], pngs)]


def level_materials(info: Mapping[str, Any], images) -> list[bpy.types.Material]:
    """The materials the file has already (by key), each made only where it has none."""
    have = {mat.get(KEY): mat for mat in bpy.data.materials if mat.get(KEY)}
    return [have.get(_key(m)) or _level_material(m, images) for m in info["materials"]]


def level_material(m: Mapping[str, Any]) -> bpy.types.Material:
    """The material of the hand-over's material ``m`` that the file has (by its key), else a new
    one: a material nothing uses is not saved with the .blend."""
    key = _key(m)
    return next((mat for mat in bpy.data.materials if mat.get(KEY) == key), None) or _level_material(m, [])


def material_for_entry(entries: list[dict], texture: int, double_sided: bool) -> bpy.types.Material:
    """The material faces with this texture entry and sidedness use: found by its key, made
    when the level has none yet (a new page, blend mode or sidedness in use)."""
    entry = entries[texture] if 0 <= texture < len(entries) else None
    name = game.blender_material_name(entry, double_sided)
    for mat in bpy.data.materials:
        if mat.get(KEY) == name:
            return mat
    if entry is None:
        return new_material(name, base=(1.0, 0.0, 1.0, 1.0), double_sided=double_sided)
    if game.is_flat_colour(entry):
        linear = game.srgb_to_linear([entry["u0"] / 255.0, entry["u1"] / 255.0, entry["v0"] / 255.0])
        return new_material(name, base=(*map(float, linear), 1.0), double_sided=double_sided)
    image = next((i for i in bpy.data.images if i.get("llamawad") == "page" and i.name.split(".")[0] == f"page {entry['page']}"), None)
    blend = game.blend_mode(entry)
    return new_material(name, image=image, alpha_mode="BLEND" if blend else "MASK", double_sided=double_sided, extras=game.page_material_extras(entry, double_sided))
