"""Why a glTF is refused and why bytes are no level, as typed fields: every field the stubs
promise (GltfToWadRefused and WadParseError in _native.pyi, Cause and Refusal in answers.py) is
there at run time with the stubbed type, and holds the numbers the message quotes."""

import importlib.machinery
import importlib.util
import math
import struct
import types
import typing
from pathlib import Path

import llamawad
import pytest
from gltf_edit import Glb
from llamawad import answers
from wad_bytes import make_wad, payload_offset, shorten_chunk, split_wad

pytestmark = pytest.mark.generator

STUB = Path(__file__).resolve().parents[2] / "rust" / "py" / "python" / "llamawad" / "_native.pyi"


def stubbed() -> types.ModuleType:
    """_native.pyi run as a module of the llamawad package, for the annotations of its classes."""
    loader = importlib.machinery.SourceFileLoader("llamawad._native_stub", str(STUB))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    module.__package__ = "llamawad"
    loader.exec_module(module)
    return module


STUBBED = stubbed()


def conforms(value, hint) -> bool:
    """Whether `value` is what the annotation `hint` says, all the way down."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return True
    if hint is type(None):
        return value is None
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is tuple:
        return isinstance(value, tuple) and len(value) == len(args) and all(map(conforms, value, args))
    if origin is dict:
        return isinstance(value, dict) and all(conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items())
    if typing.is_typeddict(hint):
        return typed_dict_problems(value, hint) == []
    # A bool is an int to isinstance, but never what a stub means by int.
    return isinstance(value, hint) and not (hint is int and isinstance(value, bool))


def typed_dict_problems(value, hint) -> list[str]:
    if not isinstance(value, dict):
        return [f"{type(value).__name__}, not a dict"]
    hints = typing.get_type_hints(hint)
    problems = [f"{k}: missing" for k in hint.__required_keys__ if k not in value]
    problems += [f"{k}: not in {hint.__name__}" for k in value if k not in hints]
    problems += [f"{k} = {v!r}, not {hints[k]}" for k, v in value.items() if k in hints and not conforms(v, hints[k])]
    return problems


def as_stubbed(e: BaseException) -> dict:
    """Every field the stub gives the exception's class, checked there with its type: by name."""
    hints = typing.get_type_hints(getattr(STUBBED, type(e).__name__))
    assert hints, f"the stub types no field of {type(e).__name__}"
    missing = [name for name in hints if not hasattr(e, name)]
    assert not missing, f"{type(e).__name__} lacks {missing}"
    wrong = [f"{n} = {getattr(e, n)!r}, not {h}" for n, h in hints.items() if not conforms(getattr(e, n), h)]
    assert not wrong, wrong
    return {name: getattr(e, name) for name in hints}


CAUSE = typing.get_type_hints(answers.Cause)


def test_a_refusal_and_each_of_its_refusals_carry_the_same_cause_fields():
    refused = typing.get_type_hints(STUBBED.GltfToWadRefused)
    assert {name: refused.get(name) for name in CAUSE} == CAUSE
    assert CAUSE.items() <= typing.get_type_hints(answers.Refusal).items()


def test_the_check_can_fail():
    """A wrong type, a key too many or too few is found."""
    assert conforms((1, 2), tuple[int, int] | None) and not conforms([1, 2], tuple[int, int] | None)
    assert not conforms(True, int) and not conforms("3", int | None) and conforms(None, str | None)
    assert not conforms("MAP", typing.Literal["TRAK"])
    cause = {name: None for name in CAUSE}
    assert typed_dict_problems(cause, answers.Cause) == []
    assert typed_dict_problems({**cause, "cell": [1, 2]}, answers.Cause) == ["cell = [1, 2], not tuple[int, int] | None"]
    assert typed_dict_problems({**cause, "extra": 1}, answers.Cause) == ["extra: not in Cause"]
    assert typed_dict_problems({k: v for k, v in cause.items() if k != "tile"}, answers.Cause) == ["tile: missing"]


# --- refusals -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    wad = llamawad.generate(2, "small")
    glb, _ = llamawad.wad_to_glb(wad)
    return wad, glb, llamawad.parse_info(wad)


def refused(wad: bytes, g: Glb) -> tuple[llamawad.GltfToWadRefused, dict]:
    """The refusal of the edited glTF, and its fields as the stub types them (checked)."""
    with pytest.raises(llamawad.GltfToWadRefused) as caught:
        llamawad.gltf_to_wad(wad, g.to_bytes())
    return caught.value, refusal_fields(caught.value)


def refusal_fields(e: llamawad.GltfToWadRefused) -> dict:
    fields = as_stubbed(e)
    # Every refusal as the Refusal dict says, the first this one.
    for r in e.refusals:
        assert typed_dict_problems(r, answers.Refusal) == [], r
    assert {k: e.refusals[0][k] for k in CAUSE} == {k: fields[k] for k in CAUSE}
    return fields


def cause_but(fields: dict, **given) -> None:
    """The cause holds `given` and None in every other field."""
    assert {k: fields[k] for k in CAUSE} == {k: given.get(k) for k in CAUSE}, fields["message"]


def test_too_many_vertices_carries_count_and_limit(small):
    wad, glb, _ = small
    g = Glb(glb)
    node = g.node("tile", 3)
    mesh = g.own_mesh(node)
    # 2,700 triangles, every corner a vertex of its own.
    corners = [
        [x + dx, 3.0, z + dz]
        for x, z in ((k % 60 / 100 - 0.3, k // 60 / 100 - 0.3) for k in range(2700))
        for dx, dz in ((0, 0), (0, 0.005), (0.005, 0))
    ]
    # Each face with the material and texture entry of the tile's first face.
    first = mesh["primitives"][0]
    entry = g.read(first["attributes"]["_TEXTURE"])[0]
    primitive = {"attributes": {}, "material": first.get("material", 0)}
    g.set(primitive, "POSITION", corners)
    g.set(primitive, "_FLAGS", [0x800] * len(corners))
    g.set(primitive, "_TEXTURE", [entry] * len(corners))
    mesh["primitives"].append(primitive)
    e, fields = refused(wad, g)
    assert e.code == "vertex-limit"
    assert fields["count"] > fields["limit"] == 8000
    cause_but(fields, count=e.count, limit=8000)
    assert f"has {e.count} vertices; a tile model can have at most {e.limit}" in e.message


def test_a_tile_outside_the_grid_carries_its_cell_and_the_grid(small):
    wad, glb, info = small
    g = Glb(glb)
    node = g.node("tile", 3)
    x, y, z = g.json["nodes"][node]["translation"]
    g.json["nodes"][node]["translation"] = [-3.0, y, z]
    e, fields = refused(wad, g)
    assert e.code == "tile-outside-grid"
    width, height = info["grid"]
    # The cell the loader finds from the file's position (its z is the glTF's negated): x − 0.5
    # and −(z + 0.5) cut towards zero.
    cell = (math.trunc(-3.0 - 0.5), -math.trunc(-z + 0.5))
    cause_but(fields, cell=cell, grid=(width, height))
    assert f"outside the {width}×{height} grid" in e.message


def test_a_texture_entry_past_the_table_carries_the_entry_and_the_count(small):
    wad, glb, info = small
    entries = info["texture_entries"]
    g = Glb(glb)
    node = g.node("tile", 3)
    primitive = g.own_mesh(node)["primitives"][0]
    textures = g.own_attribute(primitive, "_TEXTURE")
    textures[:3] = entries + 5
    g.set(primitive, "_TEXTURE", textures)
    e, fields = refused(wad, g)
    assert e.code == "texture-entry"
    cause_but(fields, value=entries + 5, count=entries)
    assert f"texture entry {e.value} does not exist: the level's table has entries 0 to {e.count - 1}" in e.message


def test_a_tile_the_base_lacks_carries_its_number_and_the_base_count(small):
    wad, glb, info = small
    g = Glb(glb)
    g.json["nodes"][g.node("tile", 3)]["extras"]["tile"] = 99_999
    e, fields = refused(wad, g)
    assert e.code == "unknown-tile"
    cause_but(fields, tile=99_999, count=info["tiles"])
    assert f"names a tile the base level does not have ({e.count} tiles)" in e.message


def strat_nodes(g: Glb) -> list[dict]:
    return [n for n in g.json["nodes"] if n.get("extras", {}).get("llamawad") == "strat"]


def test_every_refusal_carries_its_own_cause(small):
    wad, glb, info = small
    g = Glb(glb)
    first, second = strat_nodes(g)[:2]
    second_strat = second["extras"]["strat"]
    first["extras"]["strat"] = 70_000
    second["extras"]["flags"] = 70_000
    e, _ = refused(wad, g)
    assert [r["code"] for r in e.refusals] == ["unknown-strat", "strat-field"], e.refusals
    unknown, field = e.refusals
    strats = len(llamawad.strats(wad)["strats"])
    cause_but(unknown, strat=70_000, count=strats)
    assert f"({strats} strats)" in unknown["message"]
    cause_but(field, strat=second_strat, field="flags", value=70_000)
    assert f"strat {second_strat}: `flags` is 70000" in field["message"]


def test_the_games_rules_give_the_first_problems_place(small):
    wad, glb, _ = small
    g = Glb(glb)
    node = strat_nodes(g)[0]
    node["extras"]["waypoint"] = 99_999
    e, fields = refused(wad, g)
    assert e.code == "game-rules"
    first = e.problems[0]
    assert first["strat"] == node["extras"]["strat"] and "waypoint 99999" in first["message"]
    cause_but(fields, **{k: first[k] for k in ("tile", "model", "polygon", "strat", "cell")})


def test_a_deleted_tile_gives_the_cell_its_neighbours_floor_is_left_over(small):
    wad, glb, info = small
    # Coverage copies come last: deleting one leaves its owner's floor over a cell without it.
    for tile in reversed(range(info["tiles"])):
        g = Glb(glb)
        node = g.node("tile", tile)
        for holder in [*g.json["scenes"], *g.json["nodes"]]:
            for key in ("nodes", "children"):
                if node in holder.get(key, []):
                    holder[key].remove(node)
        try:
            llamawad.gltf_to_wad(wad, g.to_bytes())
        except llamawad.GltfToWadRefused as refusal:
            if refusal.cell is not None:
                e = refusal
                break
    else:
        raise AssertionError("no deleted tile leaves a floor over a cell without it")
    fields = refusal_fields(e)
    assert e.code == "game-rules"
    first = e.problems[0]
    cause_but(fields, **{k: first[k] for k in ("tile", "model", "polygon", "strat", "cell")})
    col, row = e.cell
    assert f"tile {e.tile} collision polygon {e.polygon}: reaches into cell {col}, {row}" in e.message


# --- parse errors -------------------------------------------------------------------------------

# Each kind's message as the Rust error writes it from its fields.
MESSAGES = {
    "truncated": "{chunk} chunk, byte {offset:#x}: {what} needs {needed} bytes, only {available} are left",
    "count-too-large": "{chunk} chunk, byte {offset:#x}: {what} says {count} entries of {element_size} bytes, but "
    "only {available} bytes are left",
    "bad-value": "{chunk} chunk, byte {offset:#x}: {what}: expected {expected}, found {found}",
    "trailing-bytes": "{chunk} chunk, byte {offset:#x}: {count} bytes left over after {what}",
    "not-a-wad": "the file is not a level WAD: {reason}",
    "missing-chunk": "{chunk} chunk is needed by {needed_by} but the file has none",
}

# The fields each kind has; every other is None.
FIELDS = {
    "truncated": {"chunk", "offset", "what", "needed", "available"},
    "count-too-large": {"chunk", "offset", "what", "count", "element_size", "available"},
    "bad-value": {"chunk", "offset", "what", "expected", "found"},
    "trailing-bytes": {"chunk", "offset", "what", "count"},
    "not-a-wad": {"reason"},
    "missing-chunk": {"chunk", "needed_by"},
}


def parse_error(call, *args) -> dict:
    with pytest.raises(llamawad.WadParseError) as caught:
        call(*args)
    fields = as_stubbed(caught.value)
    kind = fields["kind"]
    # tile and model are the location's, where it names a part.
    present = {k for k, v in fields.items() if v is not None} - {"kind", "tile", "model"}
    assert present == FIELDS[kind], fields
    assert str(caught.value).endswith(MESSAGES[kind].format(**fields)), (str(caught.value), fields)
    return {**fields, "message": str(caught.value)}


def damaged(level: bytes, tag: bytes, value: int, named: str) -> dict:
    """The first parse error of `level` with one u32 of chunk `tag` set to `value` that names a
    tile or model (`named`)."""
    start = payload_offset(level, tag)
    for at in range(start, start + len(dict(split_wad(level))[tag]) - 4, 4):
        data = bytearray(level)
        data[at : at + 4] = struct.pack("<I", value)
        try:
            llamawad.parse_info(bytes(data))
        except llamawad.WadParseError as e:
            if getattr(e, named) is not None:
                return parse_error(llamawad.parse_info, bytes(data))
    raise AssertionError(f"no damaged u32 of {tag} gives an error naming a {named}")


def test_a_truncated_chunk_names_its_chunk_and_offset(tiny_wad):
    half = len(tiny_wad) // 2
    cut = struct.pack("<I", half) + tiny_wad[4:half]
    fields = parse_error(llamawad.parse_info, cut)
    assert fields["kind"] == "truncated"
    # The chunk whose payload the cut runs through.
    starts = [(payload_offset(tiny_wad, t), t) for t, _ in split_wad(tiny_wad)]
    offset, tag = max(s for s in starts if s[0] <= half)
    assert (fields["chunk"], fields["offset"]) == (tag.decode().strip(), offset)
    assert fields["available"] == len(cut) - offset < fields["needed"]


def test_a_count_larger_than_its_chunk_names_the_count(tiny_wad):
    data = bytearray(tiny_wad)
    at = payload_offset(tiny_wad, b"MAP ")
    data[at : at + 4] = struct.pack("<I", 1_000_000)
    fields = parse_error(llamawad.parse_info, bytes(data))
    assert (fields["kind"], fields["chunk"], fields["count"]) == ("count-too-large", "MAP", 1_000_000)
    assert at < fields["offset"] < at + 64


def test_an_error_in_a_model_or_a_tile_names_it(tiny_wad):
    assert damaged(tiny_wad, b"TRAK", 0x7FFF_FFFF, "model")["chunk"] == "TRAK"
    in_tile = damaged(tiny_wad, b"MAP ", 0x7FFF_FFFF, "tile")
    assert in_tile["chunk"] == "MAP" and f"tile {in_tile['tile']}: " in in_tile["message"]


def test_trailing_bytes_and_a_missing_chunk(tiny_wad):
    chunks = split_wad(tiny_wad)
    longer = make_wad([(t, p + bytes(8) if t == b"MAP " else p) for t, p in chunks])
    fields = parse_error(llamawad.parse_info, longer)
    assert (fields["kind"], fields["chunk"], fields["count"]) == ("trailing-bytes", "MAP", 8)
    assert fields["offset"] == payload_offset(longer, b"MAP ") + len(dict(chunks)[b"MAP "])
    without_map = make_wad([(t, p) for t, p in chunks if t != b"MAP "])
    fields = parse_error(llamawad.strats, without_map)
    assert (fields["kind"], fields["chunk"]) == ("missing-chunk", "MAP")


def test_bytes_that_are_no_wad_and_a_base_that_is_none(tiny_wad):
    assert parse_error(llamawad.parse_info, b"no")["reason"] == "2 bytes is too short for the length field"
    glb, _ = llamawad.wad_to_glb(tiny_wad)
    fields = parse_error(llamawad.gltf_to_wad, shorten_chunk(tiny_wad, b"WFPC", 2), glb)
    assert fields["message"].startswith("base: WFPC chunk, byte 0xc: ")
