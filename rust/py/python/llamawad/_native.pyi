# The native module's functions as type checkers see them; the dicts they answer are typed in
# answers.py. tests/python/test_stubs.py checks this file against the module (mypy's stubtest)
# and the add-on's calls against it (mypy).

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, Self, TypeVar, final

from .answers import (
    BakeReport,
    ChangeReport,
    CheckReport,
    FloorComparison,
    HandOverInfo,
    Info,
    Lamp,
    PageItem,
    LightFit,
    PolygonOutline,
    Probe,
    Problem,
    Refusal,
    StratTable,
    Strats,
    TestLevelReport,
)

__all__ = [
    "CODES",
    "GltfToWadRefused",
    "LightFitting",
    "WadError",
    "WadParseError",
    "bake",
    "bake_points",
    "check",
    "check_scene",
    "decode_png",
    "encode_png",
    "face_uvs",
    "fit_light",
    "floors",
    "generate",
    "gltf_to_wad",
    "info_file",
    "pages",
    "parse_info",
    "png_matches",
    "polygon_outlines",
    "probe",
    "read_file",
    "roundtrip",
    "scene_to_wad",
    "shown_colours",
    "strat_table",
    "strats",
    "test_level",
    "tile_models",
    "wad_to_glb",
    "wad_to_gltf",
    "wad_to_scene",
    "write_file",
]

# Every problem and refusal code and what it means (llamawad::Code).
CODES: dict[str, str]

class WadError(ValueError): ...

class WadParseError(WadError):
    # Bytes that are not a level (llamawad::ParseError): its kind, where, and the kind's fields;
    # a field the kind does not have is None.
    kind: Literal["truncated", "count-too-large", "bad-value", "trailing-bytes", "not-a-wad", "missing-chunk"]
    chunk: str | None  # the chunk tag ("TRAK", "MAP", "container"); missing-chunk: the one missing
    offset: int | None  # absolute byte offset in the file
    tile: int | None  # the MAP tile being read, or found at fault
    model: int | None  # the TRAK model being read, or found at fault
    what: str | None
    needed: int | None  # truncated: bytes
    available: int | None  # truncated, count-too-large: bytes left
    count: int | None  # count-too-large: entries; trailing-bytes: bytes left over
    element_size: int | None
    expected: str | None
    found: str | None
    reason: str | None  # not-a-wad
    needed_by: str | None  # missing-chunk

class GltfToWadRefused(WadError):
    code: str
    message: str
    node_index: int | None
    object: str | None
    faces: list[int]
    source_faces: list[int]
    # The numbers the message quotes, as answers.Cause says; for game-rules the first problem's.
    tile: int | None
    model: int | None
    object_model: int | None
    polygon: int | None
    strat: int | None
    waypoint: int | None
    light: int | None
    zone: int | None
    page: int | None
    image: int | None
    cell: tuple[int, int] | None
    grid: tuple[int, int] | None
    count: int | None
    limit: int | None
    field: str | None
    value: int | None
    problems: list[Problem]
    sources: list[tuple[int, str]]
    strat_sources: list[tuple[int, str]]
    refusals: list[Refusal]

_Answer = TypeVar("_Answer", covariant=True)

# --- functions ----------------------------------------------------------------------------------

def parse_info(data: bytes) -> Info: ...
def info_file(path: str | os.PathLike[str]) -> Info: ...
def read_file(path: str | os.PathLike[str]) -> bytes: ...
def write_file(path: str | os.PathLike[str], data: bytes) -> None: ...
def roundtrip(data: bytes) -> bytes: ...
def generate(seed: int, size: Literal["tiny", "small", "full"], collision_scale: Literal["4064", "4096", "mixed"] = "4064") -> bytes: ...
def wad_to_glb(data: bytes) -> tuple[bytes, list[str]]: ...
def wad_to_gltf(data: bytes) -> tuple[str, bytes, list[str]]: ...
def wad_to_scene(data: bytes) -> tuple[HandOverInfo, list[bytes], bytes, list[bytes], list[str]]: ...
def probe(level: bytes, points: list[tuple[float, float, float]]) -> list[Probe]: ...
def floors(a: bytes, b: bytes, points: int = 2800, seed: int = 1) -> FloorComparison: ...
def check(level: bytes, base: bytes | None = None) -> CheckReport: ...
def strats(level: bytes) -> Strats: ...
def strat_table(folder: str | os.PathLike[str]) -> StratTable: ...
def test_level(level: bytes, name: str | None = None, spacing: int = 3) -> tuple[bytes, TestLevelReport]: ...
def pages(level: bytes) -> list[PageItem]: ...
def decode_png(png: bytes, width: int | None = None, height: int | None = None) -> tuple[int, int, bytes]: ...
def tile_models(level: bytes) -> list[int]: ...
def encode_png(width: int, height: int, rgba: bytes) -> bytes: ...
def png_matches(png: bytes, width: int, height: int, rgba: bytes) -> bool: ...
def bake(
    level: bytes,
    sun_direction: tuple[float, float, float],
    sun_colour: tuple[float, float, float],
    sky_colour: tuple[float, float, float],
    occlusion: float = 1.0,
    tiles: list[int] | None = None,
    unlit: bool = False,
    rays: int = 64,
    animated: bool = False,
) -> tuple[bytes, BakeReport]: ...
def bake_points(
    level: bytes,
    positions: Any,  # float32 buffer, three values a point
    normals: Any,
    sun_direction: tuple[float, float, float],
    sun_colour: tuple[float, float, float],
    sky_colour: tuple[float, float, float],
    occlusion: float = 1.0,
    lamps: Sequence[Lamp] | None = None,
    rays: int = 64,
) -> bytes: ...
def fit_light(level: bytes, rays: int = 64) -> LightFit: ...

@final
class LightFitting:
    result: LightFit | None
    def __new__(cls, level: bytes, rays: int = 64) -> Self: ...
    def step(self) -> tuple[int, int] | None: ...

def polygon_outlines(level: bytes, polygons: list[tuple[int, int]]) -> list[PolygonOutline | None]: ...
def face_uvs(
    entries: Sequence[Mapping[str, int]], textures: list[int], flags: list[int]
) -> tuple[list[float], list[bool]]: ...
def shown_colours(raw: list[int], flags: list[int] | None = None) -> list[float]: ...
def gltf_to_wad(
    base: bytes,
    gltf: bytes,
    force: bool = False,
    directory: str | os.PathLike[str] | None = None,
    snap_uvs: bool = False,
    generate_collision: bool = True,
) -> tuple[bytes, ChangeReport]: ...

class _SceneConversion(Protocol[_Answer]):
    """scene_to_wad and check_scene: one conversion of a scene handed over as arrays, with one
    set of options; they differ only in what they answer.

    scene: extras, nodes, meshes; optionally images (list of answers.SceneImage),
    material_images (dict of material name to an index into images) and material_extras (dict
    of material name to its extras: a page's material says its page there)."""

    def __call__(
        self,
        base: bytes,
        scene: dict[str, Any],
        force: bool = False,
        snap_uvs: bool = False,
        generate_collision: bool = True,
        tile_collision_given: bool = True,
    ) -> _Answer: ...

scene_to_wad: _SceneConversion[tuple[bytes, ChangeReport]]
check_scene: _SceneConversion[tuple[ChangeReport, CheckReport, list[int]]]
