"""What the Rust core answers, as the types of the plain dicts it hands Python.

Each answer is made field by field from the core's own types (pythonize), so these TypedDicts
mirror the core's structs: a Rust fixed-size array or pair arrives as a tuple, a Vec as a list,
an Option as None or the value. For type checkers and readers; at run time they are dicts.
"""

from typing import Any, Literal, NotRequired, TypedDict

__all__ = ["Candidate", "Cause", "Cell", "ChangeReport", "CheckReport", "ChunkInfo", "Convention", "FitReport", "FloorComparison", "HandOverAttribute", "HandOverBatch", "HandOverInfo", "HandOverMaterial", "HandOverNodes", "Info", "PageChanged", "PageItem", "PolygonOutline", "Probe", "Problem", "Refusal", "SceneImage", "StratTable", "StratTableRow", "StratTableSkipped", "Surface", "TestLevelLeftOut", "TestLevelReport", "TestLevelStrat"]

class Cause(TypedDict):
    """The numbers a refusal's message quotes (llamawad::gltf::Cause), each None where it quotes
    none of it: fields of GltfToWadRefused and items of each of its refusals."""
    tile: int | None
    model: int | None  # a TRAK model
    object_model: int | None  # an STPC object model
    polygon: int | None  # a collision polygon of the tile's model
    strat: int | None
    waypoint: int | None
    light: int | None
    zone: int | None
    page: int | None
    image: int | None  # among the glTF's images, or those handed over
    cell: tuple[int, int] | None  # (column, row) as the loader finds it: outside the grid for a tile outside it
    grid: tuple[int, int] | None  # the base's (width, height)
    count: int | None  # how many the message counts: the scene's, against `limit`; the base's, for one it lacks
    limit: int | None  # the most a level, the game or the file holds
    field: str | None  # the custom property whose value does not fit
    value: int | None  # a whole number that does not fit its field, or names nothing

class Refusal(Cause):
    code: str  # one of llamawad.CODES
    message: str
    node_index: int | None  # the node's index among the glTF's (or the handed-over) nodes
    object: str | None  # the node's name
    faces: list[int]
    source_faces: list[int]

# --- info ---------------------------------------------------------------------------------------

class Convention(TypedDict):
    total: str
    size_includes_header: bool
    alignment: int

class ChunkInfo(TypedDict):
    tag: str
    size: int
    kept_as: str

class CollisionScale(TypedDict):
    # "4064" (the engine's), "4096" (note 001's wording), "mixed" or "unknown".
    verdict: Literal["4064", "4096", "mixed", "unknown"]
    engine_models: list[int]
    notes_models: list[int]
    undecided_models: int

class LightTypeInfo(TypedDict):
    kind: int
    count: int
    words: int

class LightReading(TypedDict):
    by: Literal["built", "notes", "equal_size", "by_type"]
    others: NotRequired[bool | int]  # notes: other word counts read the chunk too; by_type: how many

class LightZChoice(TypedDict):
    z: Literal["negated", "game_space"]  # note 003's reading, or note 002's
    why: Literal["no_point_light", "only_this_inside", "both_inside", "neither_inside"]

class LightChunkInfo(TypedDict):
    """What the LGHT chunk holds, how it was read and which way z is; or why it is kept as bytes."""
    bytes: int
    types: list[LightTypeInfo]
    reading: LightReading | None
    read_as: str | None
    z: LightZChoice | None
    z_read_as: str | None
    kept_as_bytes: str | None

class ObjectModelInfo(TypedDict):
    index: int
    bones: int
    bone_vertex_counts: list[int]
    vertices: int
    faces: int
    collision_polygons: int
    pages: list[int]
    # The animation sets with as many bones: which model an animation set moves the notes do not say.
    animation_sets_with_its_bones: list[int]

class Info(TypedDict):
    file_size: int
    convention: Convention
    chunks: list[ChunkInfo]
    wfpc: int
    name: str | None
    models: int
    model_faces: int
    model_vertices: int
    collision_polygons: int
    tiles: int
    tile_faces: int
    grid: tuple[int, int]
    palettes: int
    pages: int
    # Bytes the pages take in the file (headers and pixels).
    page_bytes: int
    texture_entries: int
    object_models: int
    object_model_list: list[ObjectModelInfo]
    animation_sets: int
    stpc_extra_block: str | None
    lights: int | None
    light_chunk: LightChunkInfo | None
    strats: int
    strat_types: dict[str, int]
    tile_swaps: int
    # The scale the collision planes of the models its tiles use were written at.
    collision_scale: CollisionScale
    warnings: list[str]

# --- check --------------------------------------------------------------------------------------

class Problem(TypedDict):
    code: str  # one of llamawad.CODES
    severity: Literal["error", "warning"]
    message: str
    tile: int | None
    model: int | None
    polygon: int | None
    face: int | None
    strat: int | None
    cell: tuple[int, int] | None
    pre_existing: bool
    # In a refusal: the tile whose edit made the problem, where it is not the tile named.
    cause: int | None

class CheckReport(TypedDict):
    problems: list[Problem]
    errors: int
    warnings: int

# --- the floor test -----------------------------------------------------------------------------

class Cell(TypedDict):
    col: int
    row: int

class Surface(TypedDict):
    height: float
    tile: int
    polygon: int
    material: int

class Candidate(TypedDict):
    tile: int
    polygon: int
    material: int
    dist: float
    edges: list[int]
    tolerance: int
    passed: bool
    above: bool
    height: float

class Probe(TypedDict):
    x: float
    y: float
    z: float
    cell: Cell | None
    floor: Surface | None
    no_floor: Surface | None
    surface_above: Surface | None
    candidates: list[Candidate]

class FloorComparison(TypedDict):
    points: int
    both: int
    lost: int
    gained: int
    within_1mm: int
    within_5mm: int
    max_mm: float
    material_same: int

class PolygonOutline(TypedDict):
    corners: list[tuple[float, float, float]]
    zone: list[tuple[float, float, float]]
    tolerance: float

# --- strats (note 003) ----------------------------------------------------------------------------

class TypeFields(TypedDict):
    variables: int
    slots: int
    type_flags: int
    extra_memory: int

class PlacedStrat(TypedDict):
    index: int
    type_name: str | None
    code_offset: int
    position: tuple[float, float, float]
    position_fixed: tuple[int, int, int]
    rotation: tuple[int, int, int]
    rotation_y_degrees: float
    flags: int
    not_created_at_start: bool
    parameters: list[int] | None
    parameter_index: int
    parameter_count: int
    waypoint: int
    waypoint_chain: list[int]
    type_fields: TypeFields

class StratType(TypedDict):
    name: str | None
    code_offset: int
    offset_source: Literal["placed", "name_instruction"]
    instances: int
    placeable: bool
    why_not: str | None
    type_fields: TypeFields | None
    first_instance: int | None
    differing_instances: list[int]

class Strats(TypedDict):
    pool_extra: int
    parameter_pool: int
    waypoints: int
    strats: list[PlacedStrat]
    types: list[StratType]
    notes: NotRequired[list[str]]

class TestLevelStrat(TypedDict):
    strat: int
    name: str
    position: tuple[float, float, float]

class TestLevelLeftOut(TypedDict):
    name: str
    reason: str

class TestLevelReport(TypedDict):
    grid_before: tuple[int, int]
    grid: tuple[int, int]
    area: tuple[int, int, int, int]
    floor_model: int
    plate_model: int
    exit_model: int
    tiles_added: int
    coverage_tiles: int
    player: TestLevelStrat
    placed: list[TestLevelStrat]
    left_out: list[TestLevelLeftOut]
    pool_extra: tuple[int, int]
    new_warnings: list[str]

class StratTableRow(TypedDict):
    name: str
    counts: list[int]
    total: int
    levels: int

class StratTableSkipped(TypedDict):
    file: str
    reason: str

class StratTable(TypedDict):
    levels: list[str]
    types: list[StratTableRow]
    skipped: list[StratTableSkipped]

# --- pages --------------------------------------------------------------------------------------

class PageItem(TypedDict):
    page: int
    width: int
    height: int
    flags: int
    shown: Literal["16-bit", "8-bit", "RLE16"]

# --- the way back -------------------------------------------------------------------------------

class FitReport(TypedDict):
    faces_fitted: int
    entries_appended: int
    entries_shared: int
    max_error: float
    mean_error: float
    tolerance: float

class PageChanged(TypedDict):
    page: int
    pixels_changed: int
    pixels_moved: int  # 8-bit pages: pixels whose palette colour is more than a 5-bit step off

class SceneImage(TypedDict):
    """An image handed to scene_to_wad (its `images`): RGBA8, rows top first; or, with
    `missing` (why), one without pixels."""
    name: str
    width: int
    height: int
    pixels: Any  # a uint8 buffer of width * height * 4 bytes
    missing: NotRequired[str]

class Lighting(TypedDict):
    """What lights a level's tiles (game space, the sun's direction the way its light travels,
    colours 1.0 = raw 0x80)."""
    sun_direction: tuple[float, float, float]
    sun_colour: tuple[float, float, float]
    sky_colour: tuple[float, float, float]
    occlusion: float

class Lamp(TypedDict):
    """A light of the artist's for bake_points: a "sun" (direction) or a "point" (position,
    cutoff), its colour scaled by its strength."""
    kind: Literal["sun", "point"]
    colour: tuple[float, float, float]
    direction: NotRequired[tuple[float, float, float]]
    position: NotRequired[tuple[float, float, float]]
    cutoff: NotRequired[float]

class BakeReport(TypedDict):
    baked: list[int]
    animated_kept: list[int]
    vertices: int

class LightFit(TypedDict):
    lighting: Lighting
    error: float
    vertices: int

class ChangeReport(TypedDict):
    tiles_moved: list[int]
    tiles_reshaped: list[int]
    tile_edits: list[tuple[int, list[Literal["vertices_moved", "faces_added", "faces_removed", "look", "colours_apart", "collision"]]]]
    tiles_recoloured: list[int]
    tiles_emptied: list[int]
    tiles_added: list[int]
    tiles_retiled: list[int]
    coverage_tiles: list[int]
    coverage_freed: list[int]
    coverage_removed: int
    models_added: int
    collision_polygons_changed: int
    texture_entries_appended: int
    pages_changed: list[PageChanged]
    pages_added: list[int]
    page_bytes_before: int
    page_bytes_after: int
    cells_rezoned: int
    zone_masks_changed: int
    fit: FitReport
    texture_entries_by_object: dict[str, int]
    tiles_fitted: list[int]
    faces_fitted: list[tuple[str, int]]
    uv_snapped: list[tuple[str, int]]
    collision_followed: list[int]
    collision_copied: list[int]
    collision_kept: list[int]
    collision_generated: list[str]
    sources: list[tuple[int, str]]
    strats_moved: list[int]
    strats_tuned: list[int]
    strats_added: list[int]
    strats_removed: list[int]
    strats_restored: list[int]
    parameters_appended: int
    strat_sources: list[tuple[int, str]]
    waypoints_moved: list[int]
    waypoints_added: list[int]
    strats_renumbered: list[int]
    waypoint_sources: list[tuple[int, str]]
    lights_changed: list[int]
    object_models_changed: list[int]
    warnings: list[str]

# --- the hand-over to the add-on (MAPPING.md, "The hand-over to the Blender add-on") -------------

class HandOverMaterial(TypedDict):
    name: str | None
    base_colour: tuple[float, float, float, float]
    image: int | None
    alpha_mode: str
    double_sided: bool
    # A page's material: {"llamawad": "page", "page": 3, "blend": 0, "double_sided": False}.
    extras: dict[str, Any] | None

class HandOverNodes(TypedDict):
    scene: list[int]
    node: list[int]
    parent: list[int | None]
    name: list[str | None]
    role: list[str | None]
    mesh: list[int | None]
    extras: list[Any]

class HandOverAttribute(TypedDict):
    name: str
    width: int
    array: int
    meshes_without: list[int]

class HandOverBatch(TypedDict):
    meshes: list[int]
    names: list[str | None]
    corner_start: list[int]
    primitive_materials: list[list[int | None]]
    primitive_triangles: list[list[int]]
    attributes: list[HandOverAttribute]
    same_but_colours: list[int | None]

class HandOverInfo(TypedDict):
    scene_extras: list[Any]
    images: list[str]
    materials: list[HandOverMaterial]
    nodes: HandOverNodes
    batches: dict[str, HandOverBatch]
