"""Reads and writes the level WADs of *Ein Königreich für ein Lama* (The Emperor's New Groove, PC).

The work is done in Rust (the ``_native`` extension); this package only re-exports it.
Every answer is plain Python data made field by field from the core's types (dicts, lists, and
tuples for fixed pairs and triples); ``llamawad.answers`` types each as a ``TypedDict`` and
``_native.pyi`` types the functions, for mypy and pyright.

- ``parse_info(data) -> dict``: the summary of a level (what ``llamawad info --json`` prints)
- ``info_file(path) -> dict``: the same for a file on disk
- ``read_file(path) -> bytes``: a regular file's bytes (a folder, device or pipe is refused)
- ``write_file(path, data)``: a file written as the command line writes its outputs (beside it,
  renamed into place; a folder, device, pipe or read-only file is refused)
- ``roundtrip(data) -> bytes``: parse and write back
- ``generate(seed, size) -> bytes``: a synthetic level; size is "tiny", "small" or "full"
- ``wad_to_glb(data) -> (bytes, list[str])``: the level as binary glTF (.glb), and the
  conversion's warnings
- ``wad_to_gltf(data) -> (str, bytes, list[str])``: the level as glTF JSON text (buffer 0 has no
  uri), its binary buffer, and the warnings
- ``wad_to_scene(data) -> (dict, list[bytes], bytes, list[bytes], list[str])``: that glTF as
  the add-on's importer reads it: nodes, materials and mesh batches as plain values, the
  batches' attributes and the nodes' transforms as float32 bytes, the images' PNGs, and the
  warnings
- ``gltf_to_wad(base, gltf, force=False, directory=None) -> (bytes, dict)``: a level written from
  a glTF (.glb bytes, or .gltf JSON bytes with its buffers in ``directory``) and the level it was
  made from, and the change report
- ``scene_to_wad(base, scene, force=False, snap_uvs=False, generate_collision=True) -> (bytes,
  dict)``: the same, with the scene handed over as numpy arrays instead of a glTF (the add-on's
  export; ``help(scene_to_wad)`` says how ``scene`` is made)
- ``check_scene(base, scene, ...) -> (dict, dict, list[int])``: the scene converted as
  ``scene_to_wad`` does and checked against the base in one go: the change report, the check's
  report and each tile's model (the add-on's Check level)
- ``probe(level, points) -> list[dict]``: the game's floor test at each (x, y, z) point
- ``floors(a, b, points=2800, seed=1) -> dict``: two levels' floors compared at random points
- ``check(level, base=None) -> dict``: every rule of the notes, every problem with its culprit
- ``polygon_outlines(level, [(tile, polygon), ...]) -> list[dict | None]``: collision polygons
  in world game space with the zone the floor test's edge tolerance lets pass
- ``strats(level) -> dict``: the placed strats and every type the code names, with whether a
  new strat of it can be placed (what ``llamawad strats --all --json`` prints)
- ``strat_table(folder) -> dict``: how many strats of each type every level of a folder places
  (what ``llamawad strat-table --json`` prints)
- ``test_level(level, name=None, spacing=3) -> (bytes, dict)``: note 003's test level of a
  level and its report (what ``llamawad testlevel`` writes and ``--json`` prints)
- ``tile_models(level) -> list[int]``: the model of each tile
- ``encode_png(width, height, rgba) -> bytes``: an image (RGBA8, rows top first) as PNG bytes,
  as ``llamawad pages`` writes a page
- ``png_matches(png, width, height, rgba) -> bool``: whether a PNG shows the image as a page
  would hold both (same size, every pixel the same at 5 bits a channel, transparent or not)
- ``decode_png(png, width=None, height=None) -> (int, int, bytes)``: a PNG as RGBA8, rows top
  first, resampled to width × height when given (as ``llamawad set-page --resize`` does)
- ``pages(level) -> list[dict]``: every texture page with its size, flags and how its image
  shows it (16-bit, 8-bit through the first palette, an RLE16 or damaged page's placeholder),
  as ``llamawad pages`` lists them
- ``face_uvs(entries, textures, flags) -> (list[float], list[bool])``: the texture rule's UVs
- ``shown_colours(raw) -> list[float]``: what the game shows for raw vertex colours
- ``bake(level, sun_direction, sun_colour, sky_colour, occlusion=1.0, tiles=None, unlit=False,
  rays=64, animated=False) -> (bytes, dict)``: sun, sky and ambient occlusion baked into tiles'
  vertex colours (what ``llamawad bake`` does)
- ``bake_points(level, positions, normals, sun_direction, sun_colour, sky_colour, occlusion=1.0,
  lamps=None, rays=64) -> bytes``: the raw colours the light (and suns and points of the
  artist's) gives points standing among the level's tiles (float32 buffers, three values a
  point, game space): geometry not in the level yet
- ``fit_light(level, rays=64) -> dict``: the light that explains a level's colours best, and
  how well (what ``llamawad fit-light --json`` prints)
- ``LightFitting(level, rays=64)``: the same fit a step at a time: ``step()`` returns (rays
  cast, rays in all) until it returns None and ``result`` holds the fit; a tool shows the
  progress and stops by dropping it
- ``CODES: dict[str, str]``: every problem and refusal code (``check``'s problems,
  ``GltfToWadRefused.code``) and what it means: decide by code, never by a message's wording
- ``WadError`` (a ``ValueError``): raised for every file that cannot be read or written
- ``WadParseError`` (a ``WadError``): bytes that are not a level; ``kind`` says why and ``chunk``,
  ``offset``, ``tile`` and ``model`` where, with the kind's numbers (``needed``, ``available``,
  ``count``, …) as fields
- ``GltfToWadRefused`` (a ``WadError``): a glTF that cannot become a level; ``node_index`` (the
  node's index among the glTF's nodes or the nodes handed to ``scene_to_wad``, or None),
  ``object`` (the node's name, or None) and ``faces`` (list of triangle indices in the node's
  mesh) name the culprit, ``code`` says what is wrong and the numbers its message quotes are
  fields (``count`` and ``limit``, ``cell``, ``tile``, …: ``llamawad.answers.Cause``)
"""

# Every name of the native module, listed once: in its own __all__ (which _native.pyi holds as
# well, checked against the module by stubtest).
from ._native import *  # noqa: F403
