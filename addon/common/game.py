"""What the game's numbers mean to the add-on: face flag bits and their names, texture entries,
collision material presets, zones, the colours the viewport shows them in. Pure Python and numpy,
shared by the importer, the exporter and the panels. The game's rules are the Rust core's: the
texture rule and the colours the game shows are asked of it (``llamawad.face_uvs``,
``llamawad.shown_colours``), never computed here."""

from __future__ import annotations

import json

import numpy as np
import numpy.typing as npt

# --- face flags (16 bits per face)

FACE_SPECIAL_1 = 0x1
FACE_SPECIAL_2 = 0x2
FACE_SECOND_HALF = 0x10
FACE_MIRROR_U = 0x20
FACE_DOUBLE_SIDED = 0x400
FACE_QUAD_HALF = 0x800
FACE_IGNORE_COLOURS = 0x4000
# A new render batch starts at this face: the conversion back to a WAD sets it itself.
FACE_NEW_BATCH = 0x8

# (bit, name, what the game does with it) for the named checkboxes.
NAMED_FLAGS = (
    (FACE_DOUBLE_SIDED, "Double-sided", "0x400: the game draws the face from both sides (no back-face culling)"),
    (FACE_IGNORE_COLOURS, "Ignore vertex colours", "0x4000: the game draws the face at full brightness, ignoring its vertex colours"),
    (FACE_SPECIAL_1, "Special mode 1", "0x1: one of the engine's special draw modes; its exact effect is not documented"),
    (FACE_SPECIAL_2, "Special mode 2", "0x2: one of the engine's special draw modes; its exact effect is not documented"),
)
# Bits that choose the half of the texture rectangle a triangle shows.
UV_BITS = FACE_QUAD_HALF | FACE_SECOND_HALF | FACE_MIRROR_U
KNOWN_BITS = UV_BITS | FACE_NEW_BATCH | sum(bit for bit, _, _ in NAMED_FLAGS)
RAW_BITS = tuple(1 << b for b in range(16) if not (1 << b) & KNOWN_BITS)

# Which half of its texture rectangle a triangle shows (flags 0x800 and 0x10).
UV_HALVES = (
    ("TRIANGLE", "Triangle", "No 0x800: the triangle shows the rectangle's corners (U1,V1), (U0,V1), (U1,V0)", 0),
    ("FIRST", "Quad, first half", "0x800: the first half of a quad split along its diagonal", FACE_QUAD_HALF),
    ("SECOND", "Quad, second half", "0x800 + 0x10: the second half of a quad split along its diagonal", FACE_QUAD_HALF | FACE_SECOND_HALF),
)

# --- texture entries

ENTRY_FLAT_COLOUR = 0x1


def is_flat_colour(entry: dict) -> bool:
    return bool(entry["flags"] & ENTRY_FLAT_COLOUR)


def blend_mode(entry: dict) -> int:
    return (entry["flags"] >> 12) & 0x7


def material_name(entry: dict | None, double_sided: bool) -> str:
    """The name of the material a face with this entry uses: the names the glTF export gives
    (rust/core/src/gltf/export.rs)."""
    suffix = " double-sided" if double_sided else ""
    if entry is None:
        return "missing texture entry"
    if is_flat_colour(entry):
        return f"flat #{entry['u0']:02x}{entry['u1']:02x}{entry['v0']:02x}"
    return f"page {entry['page']} blend {blend_mode(entry)}{suffix}"


def page_material_extras(entry: dict, double_sided: bool) -> dict:
    """What the material of a face with this page entry says of it, as the glTF export writes it
    in the material's extras (rust/core/src/gltf/material.rs) and export reads it back."""
    return {"llamawad": "page", "page": entry["page"], "blend": blend_mode(entry), "double_sided": double_sided}


def blender_material_name(entry: dict | None, double_sided: bool) -> str:
    """The Blender material of a face: the export's name, with " double-sided" also for flat
    colours and missing entries (the export names those alike; Blender names must be unique)."""
    name = material_name(entry, double_sided)
    if double_sided and not name.endswith(" double-sided"):
        name += " double-sided"
    return name


def entry_label(index: int, entry: dict) -> str:
    if is_flat_colour(entry):
        return f"{index}: flat #{entry['u0']:02x}{entry['u1']:02x}{entry['v0']:02x}"
    return f"{index}: page {entry['page']} u {entry['u0']}–{entry['u1']} v {entry['v0']}–{entry['v1']}"


# How a page's image shows it (``llamawad.pages``' ``shown``), in the Pages panel's words.
PAGE_SHOWN = {
    "16-bit": "16-bit",
    "8-bit": "8-bit, shown through the first palette",
    "RLE16": "RLE16, a placeholder: cannot be written",
}


def pages(pages_json: str) -> list[dict]:
    """The level's pages as import listed them (``Scene.llamawad.pages_json``)."""
    return json.loads(pages_json) if pages_json else []


def page_label(page: dict) -> str:
    return f"page {page['page']}: {page['width']} × {page['height']}, {PAGE_SHOWN.get(page['shown'], page['shown'])}"


def face_uvs(entries: list[dict], textures: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The glTF texture coordinates of triangles (origin top-left), shape (n, 3, 2), in the
    glTF's corner order, by the texture rule (which the Rust core owns); and which
    triangles have a texture rectangle (not a flat colour, entry exists)."""
    import llamawad

    textures = np.asarray(textures, np.int64)
    flags = np.asarray(flags, np.int64) & 0xFFFF
    uvs, has = llamawad.face_uvs(entries, textures.tolist(), flags.tolist())
    return np.asarray(uvs, np.float32).reshape(-1, 3, 2), np.asarray(has, bool)


# --- collision

COLLISION_QUAD = 0x1
COLLISION_FACING_DOWN = 0x4
# (material, name, what the game does)
COLLISION_PRESETS = (
    (0, "Normal ground", "0: ordinary floor and walls"),
    (16, "Exit floor", "16: the floor that ends the level when Kuzco stands on it"),
    # The floor test skips 17, or 18 instead for a strat with flag 0x8000000 (strat+0xe8): the
    # names say it, as the buttons show them.
    (17, "Llama falls through unless flagged", "17: the floor test skips it, so the llama (and any object) falls through. Flagged: a strat with flag 0x8000000 skips 18 instead and stands on 17"),
    (18, "Llama falls through if flagged", "18: the llama stands on it, unless its strat has flag 0x8000000: then the floor test skips 18 instead of 17, and it falls through"),
    (30, "Death plane / water", "30: falling onto it kills (death plane, water)"),
)
COLLISION_GROUPS = (("A", 0), ("B", 1), ("C", 2))


def hue(degrees: int) -> tuple[float, float, float]:
    h = degrees / 60.0
    x = 1.0 - abs(h % 2.0 - 1.0)
    r, g, b = [(1.0, x, 0.0), (x, 1.0, 0.0), (0.0, 1.0, x), (0.0, x, 1.0), (x, 0.0, 1.0), (1.0, 0.0, x)][min(int(h), 5)]
    return (0.15 + 0.7 * r, 0.15 + 0.7 * g, 0.15 + 0.7 * b)


def collision_colour(material: int) -> tuple[float, float, float]:
    """The colour the glTF gives a collision material (export.rs collision_material_colour)."""
    fixed = {0: (0.45, 0.55, 0.45), 16: (1.0, 0.85, 0.0), 17: (0.0, 0.8, 1.0), 18: (0.2, 0.3, 1.0), 30: (1.0, 0.05, 0.05)}
    return fixed.get(material, hue(material * 37 % 360))


def zone_colour(zone: int) -> tuple[float, float, float]:
    return hue((zone * 137) % 360)


def colour_table(colour_of, values: np.ndarray) -> np.ndarray:
    """RGBA rows for integer values through ``colour_of``, computed once per distinct value."""
    values = np.asarray(values, np.int64)
    out = np.ones((len(values), 4), np.float32)
    for v in np.unique(values):
        out[values == v, :3] = colour_of(int(v))
    return out


# --- zones

ZONES = 32


def sees(regions: list[dict], a: int, z: int) -> bool:
    """Bit z of zone a's mask: zone a sees zone z."""
    return bool(regions[a]["mask"] >> z & 1)


# --- strats (note 003, "Strats")

# Flag bit 1 of a strat record (offset 54): the game does not create the strat at level start.
STRAT_NOT_CREATED_AT_START = 0x2
# A strat's position, and parameters that are distances or places, are 20.12 fixed point.
FIXED_ONE = 4096
# Parameters from this far from 0 are shown in units too: smaller ones are counts and switches.
UNITS_FROM = FIXED_ONE // 16


def strat_not_created_at_start(properties) -> bool:
    """Whether a strat's record (its custom properties, or its node's extras) has flag bit 1."""
    flags = properties.get("flags")
    return isinstance(flags, int) and bool(flags & STRAT_NOT_CREATED_AT_START)


def strat_properties(extras: dict) -> dict:
    """A strat node's extras as custom properties: its parameters (pool entries, unsigned 32 bits)
    as Blender's signed 32-bit integers, which the way back reads as their two's complement, so
    that they stay a list of integers the Strat panel edits."""
    parameters = extras.get("parameters")
    if not isinstance(parameters, list):
        return extras
    return {**extras, "parameters": [p - (1 << 32) if isinstance(p, int) and p >= 1 << 31 else p for p in parameters]}


def light_properties(extras: dict) -> dict:
    """A level light's node extras as custom properties: its words (u32) as Blender's signed
    32-bit integers, read back as their two's complement, as a strat's parameters are; its
    colour not, which the light (or the marker's object colour) holds."""
    out = {k: v for k, v in extras.items() if k != "colour"}
    words = extras.get("words")
    if isinstance(words, list):
        out["words"] = [w - (1 << 32) if isinstance(w, int) and w >= 1 << 31 else w for w in words]
    return out


def light_colour_to_blender(colour) -> tuple[float, float, float]:
    """A level light's stored colour bytes as Blender's colour: byte / 255, as stored (the notes
    say nothing of a light's gamma or brightness)."""
    return tuple(c / 255.0 for c in colour)


def light_colour_to_file(color) -> list[int]:
    """Blender's colour of a level light as its colour bytes: the inverse of
    ``light_colour_to_blender``, clamped to a byte."""
    return [min(255, max(0, round(c * 255.0))) for c in color[:3]]


def parameter_units(value: int) -> float | None:
    """A parameter as units of 20.12 fixed point, when it may be a distance or a place (None for
    small numbers: counts, switches, indices)."""
    return value / FIXED_ONE if abs(value) >= UNITS_FROM else None


# --- vertex colours

def srgb_to_linear(c: npt.ArrayLike) -> np.ndarray:
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def shown_colour(raw_rgb: np.ndarray, flags: np.ndarray | None = None) -> np.ndarray:
    """What the game shows for raw colour bytes packed R + G·256 + B·65536 on faces with these
    flags (one a colour; none: no flags), as linear RGBA floats (the glTF's COLOR_0), as the Rust
    core gives it."""
    import llamawad

    raw = np.asarray(raw_rgb, np.int64)
    face_flags = None if flags is None else (np.asarray(flags, np.int64).ravel() & 0xFFFF).tolist()
    shown = llamawad.shown_colours((raw.ravel() & 0xFFFFFF).tolist(), face_flags)
    return np.asarray(shown, np.float32).reshape(raw.shape + (4,))
