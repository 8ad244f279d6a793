"""Levels as a stranger's tool would write them, byte by byte from the notes' layouts rather than
by this project's generator: a 2 × 2 level made from nothing (no strats, waypoints or object
models), the committed fixture tests/fixtures/tiny-1.wad with another LGHT chunk (a light of type
0 and the notes' word counts; one no reading explains; none), and the fixture damaged where the
game reads floats, counts and flags (issue 35). Each with what `check` must say of it.

    python tests/held_out.py FOLDER     # writes the levels into FOLDER and lists them
"""

import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from wad_chunks import chunks_of, join, payload, replaced

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "tests" / "fixtures" / "tiny-1.wad"
NAN = struct.pack("<f", float("nan"))
INF = struct.pack("<f", float("inf"))


@dataclass
class Level:
    name: str
    data: bytes
    # What `check` must report: (code, severity, culprit field, its value) each; the level may
    # have other problems besides.
    problems: list
    # Whether the LGHT chunk is read (and how many lights), or kept as bytes (None), or absent.
    lights: int | None = None


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def patched(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value) :]


# ---------------------------------------------------------------------------------------------
# A level from nothing (FORMAT.md §1-§9): a 2 × 2 grid, model 0 empty, model 1 one triangle at
# y 0.25 without collision, one tile of it in cell 0, one 4 × 4 page, no strats.


def model_header(vertices: int, faces: int, lo, hi) -> bytes:
    centre = struct.pack("<3f", *[(a + b) / 2 for a, b in zip(lo, hi)])
    corners = b"".join(
        struct.pack("<3f", hi[0] if i & 1 else lo[0], hi[1] if i & 2 else lo[1], lo[2] if i & 4 else hi[2]) for i in range(8)
    )
    return centre + corners + struct.pack("<HHII4HI", vertices, faces, 0, 0, 0, 0, 0, 0, 0)


def from_nothing(lights: bytes | None) -> bytes:
    text = words(0, 1, 1, 4, 4) + struct.pack("<16H", *[0x8000 | i for i in range(16)])
    text += words(1) + struct.pack("<H2b4B", 0, 0, -1, 0, 3, 0, 3)
    corners = [(-0.5, 0.25, 0.5), (0.5, 0.25, -0.5), (-0.5, 0.25, -0.5)]
    trak = words(2) + model_header(0, 0, (0, 0, 0), (0, 0, 0))
    trak += model_header(3, 1, (-0.51, 0.24, -0.51), (0.51, 0.26, 0.51))
    trak += b"".join(struct.pack("<6f", *c, 0, 1, 0) for c in corners)
    # Face (0, 1, 2) of export space, its plane n = (v1 − v0) × (v2 − v0) up, d = n · v0.
    trak += struct.pack("<6H4f", 0x8, 0, 1, 2, 0, 0, 0, 1, 0, 0.25)
    stpc = words(0, 0) + bytes(16)
    grid = words(1, 2, 2) + struct.pack("<3f3I", 0.5, 0, -0.5, 0, 1, 0)
    grid += words(0, 0, 0)  # parameters, zones, waypoints
    grid += b"".join(words(1 if z == 0 else 0, 0) for z in range(32))
    grid += words(0, 0, 0, 0)  # every cell in zone 0
    grid += struct.pack("<6i", 0, 0, 0, 2048, 0, 2048) + words(1)
    grid += bytes([0x80, 0x80, 0x80, 0]) * 3
    grid += words(0, 0) + struct.pack("<H", 0)  # no strats, poolExtra 0, the final u16
    chunks = [("WFPC", words(0)), ("TEXT", text), ("TRAK", trak), ("STPC", stpc), ("MAP ", grid)]
    if lights is not None:
        chunks.append(("LGHT", lights))
    return join(chunks)


def nothing_at_all() -> bytes:
    """A level of the five chunks the game needs, holding nothing: no palettes, pages or texture
    entries, no models, a 0 × 0 grid, no strats; its glTF has no data at all."""
    grid = words(0, 0, 0) + words(0, 0, 0) + b"".join(words(0, 0) for _ in range(32))
    grid += words(0, 0) + struct.pack("<H", 0)
    chunks = [("WFPC", words(0)), ("TEXT", words(0, 0, 0)), ("TRAK", words(0)), ("STPC", words(0, 0) + bytes(16)), ("MAP ", grid)]
    return join(chunks)


# ---------------------------------------------------------------------------------------------
# LGHT payloads (note 003: u32 n; per light u8 type, u8 r, u8 g, u8 b, type 1/2/…: more u32).

# An ambient light of type 0 (no words), a sun of type 1 straight overhead, a point of type 2 at
# (1.5, 1, 1.5) with z stored positive (note 002: lights in game space), over the grid of either
# level: the notes' counts.
NOTES_LIGHTS = words(3, 0x00202000, 0x00808001, 0, 4096, 0, 0x00406002, 0x1800, 0x1000, 0x1800)
# Two lights in 12 bytes: two type-0 lights leave 4 bytes over, and nothing else reads them.
UNREADABLE_LIGHTS = words(2, 0x100, 0, 0)


# ---------------------------------------------------------------------------------------------
# The fixture damaged (issue 35).


def trak_model(trak: bytes, model: int) -> dict:
    """Where TRAK model `model`'s header and data start, and its counts."""
    n = struct.unpack_from("<I", trak)[0]
    at = 4 + 0x84 * n
    for m in range(n):
        header = 4 + 0x84 * m
        nv, nf = struct.unpack_from("<HH", trak, header + 0x6C)
        nc = sum(struct.unpack_from("<3H", trak, header + 0x78))
        if m == model:
            return {"header": header, "vertices": at, "faces": at + 24 * nv, "collision": at + 24 * nv + 28 * nf, "nv": nv, "nf": nf, "nc": nc}
        at += 24 * nv + 28 * nf + 32 * nc
    raise IndexError(model)


def damaged(wad: bytes) -> list[Level]:
    import llamawad

    chunks = chunks_of(wad)
    trak, grid = payload(chunks, "TRAK"), payload(chunks, "MAP ")
    wfpc = struct.unpack("<I", payload(chunks, "WFPC"))[0]
    assert not wfpc & (0x200000 | 0x10), "MAP ends with the strats and a u16"
    tiles = llamawad.tile_models(wad)
    # The model of tile 0, which other tiles use too; a tile whose model has collision.
    model = tiles[0]
    users = [t for t, m in enumerate(tiles) if m == model]
    assert len(users) > 1, "tile 0's model is used by more than one tile"
    m = trak_model(trak, model)
    solid = next(t for t, k in enumerate(tiles) if trak_model(trak, k)["nc"] > 0)
    c = trak_model(trak, tiles[solid])
    strats = llamawad.strats(wad)
    llama = next(s["index"] for s in strats["strats"] if s["type_name"] == "Llama")
    n = len(strats["strats"])
    pool_at = len(grid) - 2 - 58 * n - 4
    assert struct.unpack_from("<I", grid, pool_at)[0] == strats["pool_extra"]
    flags_at = pool_at + 4 + 58 * llama + 54

    def trak_with(at, value):
        return join(replaced(chunks, "TRAK", patched(trak, at, value)))

    def map_with(at, value):
        return join(replaced(chunks, "MAP ", patched(grid, at, value)))

    levels = [
        Level("damaged-nan-vertex", trak_with(m["vertices"] + 4, NAN), [("not-finite", "error", "model", model)]),
        Level("damaged-nan-normal", trak_with(m["vertices"] + 24 + 16, NAN), [("not-finite", "error", "model", model)]),
        Level("damaged-nan-box", trak_with(m["header"], NAN * 27), [("not-finite", "error", "model", model)]),
        Level("damaged-inf-face-plane", trak_with(m["faces"] + 12 + 12, INF), [("not-finite", "error", "face", 0)]),
        Level("damaged-nan-tile-y", map_with(12 + 24 * users[1] + 4, NAN), [("not-finite", "error", "tile", users[1])]),
        Level("damaged-collision-kind-ff", trak_with(c["collision"], b"\xff"), [("collision-kind", "warning", "polygon", 0)]),
        Level("damaged-pool-extra-ffffffff", map_with(pool_at, words(0xFFFFFFFF)), [("strat-pool", "error", None, None)]),
        Level("damaged-llama-not-created", map_with(flags_at, struct.pack("<H", 2)), [("player-start", "error", "strat", llama)]),
    ]
    # The fixture's own lights, read: damage elsewhere leaves them so.
    for level in levels:
        level.lights = llamawad.parse_info(wad)["lights"]
    return levels


def levels() -> list[Level]:
    wad = BASE.read_bytes()
    chunks = chunks_of(wad)
    return [
        Level("nothing-at-all", nothing_at_all(), [], None),
        Level("nothing-lights-kept-as-bytes", from_nothing(UNREADABLE_LIGHTS), [], None),
        Level("nothing-lights-of-the-notes", from_nothing(NOTES_LIGHTS), [], 3),
        Level("nothing-no-lights", from_nothing(None), [], None),
        Level("fixture-lights-of-the-notes", join(replaced(chunks, "LGHT", NOTES_LIGHTS)), [], 3),
        Level("fixture-lights-kept-as-bytes", join(replaced(chunks, "LGHT", UNREADABLE_LIGHTS)), [], None),
        Level("fixture-no-lights", join(replaced(chunks, "LGHT", None)), [], None),
        *damaged(wad),
    ]


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    for level in levels():
        (target / f"{level.name}.wad").write_bytes(level.data)
        print(f"{level.name}.wad: {len(level.data)} bytes; check: {level.problems}")
