"""Crafted level WADs from strangers (tests/crafted.py assembles them into cases): the base
level's bytes with counts that lie, and levels edited chunk by chunk (the base's chunks, in the
convention this project writes for new levels: no padding, `total` the file size) whose models,
tiles, strats or lights make a command's work far larger than any level the game holds. Each
maker yields the level's bytes and the words its error must contain."""

import struct

import numpy as np
from wad_chunks import chunks_of, join, replaced
from wad_chunks import payload as payload_of


def wad_cases(wad: bytes):
    """Level WADs whose counts lie: refused by the parser before anything is allocated."""
    import llamawad

    chunks, at = [], 4
    while at + 8 <= len(wad):
        size = struct.unpack_from("<I", wad, at + 4)[0]
        chunks.append((wad[at : at + 4][::-1].decode(), at, size))
        at += 8 + size
    last_tag, last_at, _ = chunks[-1]
    past = bytearray(wad)
    struct.pack_into("<I", past, last_at + 4, len(wad))
    yield "wad-chunk-past-end", bytes(past), [f"{last_tag.strip()} chunk", "payload needs"]

    info = llamawad.parse_info(wad)
    assert info, "the base parses"
    text_at = next(a for t, a, _ in chunks if t == "TEXT") + 8
    # TEXT: palettes (u32 header, u32 n, n u16, n u8 each), then pages {flags, w, h, data}.
    pos = text_at
    palettes = struct.unpack_from("<I", wad, pos)[0]
    pos += 4
    for _ in range(palettes):
        n = struct.unpack_from("<I", wad, pos + 4)[0]
        pos += 8 + 3 * n
    pages_at = pos + 4

    # Page 0 (16-bit, w·h·2 bytes of pixels) becomes an RLE16 page of 100000×100000 with 16
    # compressed bytes: a page the parser read, whose placeholder image was once that size.
    flags, w, h = struct.unpack_from("<III", wad, pages_at)
    assert flags != 0 and not flags & 0x80, "page 0 is a 16-bit page"
    rle_page = struct.pack("<IIII", 0x80, 100_000, 100_000, 16) + bytes(16)
    def with_page_0(page: bytes) -> bytes:
        out = bytearray(wad[:pages_at] + page + wad[pages_at + 12 + 2 * w * h :])
        text_size = struct.unpack_from("<I", wad, text_at - 4)[0]
        struct.pack_into("<I", out, text_at - 4, text_size + len(out) - len(wad))
        struct.pack_into("<I", out, 0, len(out))
        return bytes(out)

    yield "wad-rle16-page-100000-wide", with_page_0(rle_page), ["page 0: width", "1 to 4096"]
    # A 16-bit page of 0×256 pixels, which holds no bytes: its image once failed to encode.
    empty = struct.pack("<III", flags, 0, 256)
    yield "wad-page-width-0", with_page_0(empty), ["page 0: width", "found 0"]


# Levels edited chunk by chunk (wad_chunks.py): a model added to TRAK, tiles added to MAP.

ZERO_BOX = bytes(4 * 27)  # the box's centre and 8 corners: only the check looks at them


def with_model(trak: bytes, vertices: int, faces: bytes, face_count: int, polygons: bytes) -> tuple[bytes, int]:
    """TRAK with one more model (header after the others', data at the end), and its index."""
    n = struct.unpack_from("<I", trak)[0]
    header = ZERO_BOX + struct.pack("<HHII4HI", vertices, face_count, 0, 0, len(polygons) // 32, 0, 0, 0, 0)
    vertex_bytes = b"".join(struct.pack("<6f", k % 2, 0, k // 2, 0, 1, 0) for k in range(vertices))
    headers_end = 4 + 0x84 * n
    out = struct.pack("<I", n + 1) + trak[4:headers_end] + header + trak[headers_end:] + vertex_bytes + faces + polygons
    return out, n


def map_offsets(payload: bytes, wfpc: int) -> dict:
    """Where MAP's blocks start (FORMAT.md §6), up to the vertex colours."""
    n, width, height = struct.unpack_from("<3I", payload)
    at = 12 + 24 * n
    for size in (4, 90, 34):  # parameters, zone records, waypoints: u32 n, n records
        at += 4 + size * struct.unpack_from("<I", payload, at)[0]
    regions = at
    grid = regions + 256
    fixed = grid + 4 * width * height
    models = fixed + 24 * n
    colours = models + 4 * n
    if wfpc & 0x10000:
        colours += 4 + 20 * struct.unpack_from("<I", payload, colours)[0]
    return {"n": n, "width": width, "height": height, "regions": regions, "grid": grid, "fixed": fixed, "models": models, "colours": colours}


def with_tiles(payload: bytes, wfpc: int, model: int, places, colours: bytes) -> bytes:
    """MAP with tiles of `model` at `places` (game-space x, y, z; exact in f32) put before the
    others (no index of a tile with a swap entry changes order), each with `colours`."""
    o = map_offsets(payload, wfpc)
    floats = b"".join(struct.pack("<3f3I", x, y, -z, 0, model, 0) for x, y, z in places)
    fixed = b"".join(struct.pack("<6i", 0, 0, 0, round(x * 4096), round(y * 4096), round(z * 4096)) for x, y, z in places)
    models = struct.pack(f"<{len(places)}I", *[model] * len(places))
    header = struct.pack("<3I", o["n"] + len(places), o["width"], o["height"])
    return b"".join(
        [
            header,
            floats,
            payload[12 : o["fixed"]],
            fixed,
            payload[o["fixed"] : o["models"]],
            models,
            payload[o["models"] : o["colours"]],
            colours * len(places),
            payload[o["colours"] :],
        ]
    )


def floor_triangle(corners, y: float) -> bytes:
    """A collision triangle facing up at height `y` through tile-relative corners (x, z),
    encoded as FORMAT.md §4 says (normals ×127, the plane at d/4064)."""
    cx, cz = (sum(c[0] for c in corners) / 3, sum(c[1] for c in corners) / 3)
    planes = [struct.pack("<3bBh", 0, 127, 0, 0, round(4064 * y))]
    for (px, pz), (qx, qz) in zip(corners, corners[1:] + corners[:1]):
        nx, nz = qz - pz, px - qx
        if nx * (cx - px) + nz * (cz - pz) < 0:  # edge normals point inwards
            nx, nz = -nx, -nz
        length = (nx * nx + nz * nz) ** 0.5
        nx, nz = round(127 * nx / length), round(127 * nz / length)
        planes.append(struct.pack("<3bBh", nx, 0, nz, 0, round(32 * (nx * px + nz * pz))))
    return struct.pack("<BB", 0, 0) + b"".join(planes) + bytes(6)


def limit_wad_cases(wad: bytes):
    """Levels whose glTF would be far bigger than they are: refused before it is built."""
    chunks = chunks_of(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    # A model of 65,535 faces over 3 vertices, used by 1,000 tiles of 64 bytes each: 65 million
    # faces drawn, once 37 s, 9 GB and a 4.7 GB GLB whose lengths wrapped around 2³².
    face = struct.pack("<4H2H4f", 8, 0, 1, 2, 0, 0, 0, 1, 0, 0)
    trak, model = with_model(payload_of(chunks, "TRAK"), 3, face * 65535, 65535, b"")
    places = [(0.5 + k % 8, 0.0, 0.5 + k // 8 % 8) for k in range(1000)]
    level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, struct.pack("<3I", *[0x808080] * 3)))
    yield "wad-faces-drawn-65535-by-1000", join(level), ["faces drawn over the level's tiles", "at most 1048576"]
    # A grid of 4 × 1,000,000 cells: 16 MB of zone numbers, once 1.9 GB.
    payload = payload_of(chunks, "MAP ")
    o = map_offsets(payload, wfpc)
    cells = 4 * 1_000_000
    grid = payload[:4] + struct.pack("<2I", 4, 1_000_000) + payload[12 : o["grid"]] + bytes(4 * cells) + payload[o["fixed"] :]
    yield "wad-grid-4-by-1000000", join(replaced(chunks, "MAP ", grid)), ["4×1000000 grid", "at most 262144 cells"]


def with_strats(wad: bytes, pool: int, strats, waypoints: int = 0, chained: bool = True) -> bytes:
    """The base with `pool` parameters and `waypoints` waypoints appended (one chain when
    `chained`), and strats appended as copies of its first, each `(parameter_count, index,
    waypoint)` (an index of None: the first new parameter; a waypoint of None: the first new
    one), poolExtra raised to their count. Every strat's parameters and chain are ranges of the
    pool and waypoints, so a level of a few hundred kilobytes names billions."""
    import llamawad

    chunks = chunks_of(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    assert not wfpc & 0x200000, "no paths block after the strats"
    payload = payload_of(chunks, "MAP ")
    n = struct.unpack_from("<I", payload)[0]
    at = 12 + 24 * n
    old_pool = struct.unpack_from("<I", payload, at)[0]
    zones = at + 4 + 4 * old_pool
    wp_at = zones + 4 + 90 * struct.unpack_from("<I", payload, zones)[0]
    old_waypoints = struct.unpack_from("<I", payload, wp_at)[0]
    after_waypoints = wp_at + 4 + 34 * old_waypoints
    count = len(llamawad.strats(wad)["strats"])
    # Block 12 is the last but the view distance (u32, WFPC 0x10) and the final u16.
    end = len(payload) - 2 - (4 if wfpc & 0x10 else 0)
    block = end - 8 - 58 * count
    assert struct.unpack_from("<I", payload, block)[0] == count
    first = payload[block + 8 : block + 66]
    records = []
    for parameter_count, index, waypoint in strats:
        r = bytearray(first)
        index = old_pool if index is None else index
        waypoint = old_waypoints if waypoint is None else waypoint
        struct.pack_into("<Ii", r, 22, parameter_count, index)
        struct.pack_into("<i", r, 46, waypoint)
        records.append(bytes(r))
    total = count + len(records)
    waypoint = lambda k: struct.pack("<II3H3i2I", 1 if chained and k + 1 < waypoints else 0, 0, 0, 0, 0, 4096 * (k % 64), 0, 4096 * (k // 64 % 64), 0, 0)  # noqa: E731
    out = b"".join(
        [
            payload[:at],
            struct.pack("<I", old_pool + pool),
            payload[at + 4 : zones],
            struct.pack(f"<{pool}I", *range(pool)),
            payload[zones:wp_at],
            struct.pack("<I", old_waypoints + waypoints),
            payload[wp_at + 4 : after_waypoints],
            b"".join(waypoint(k) for k in range(waypoints)),
            payload[after_waypoints:block],
            struct.pack("<II", total, max(total, struct.unpack_from("<I", payload, block + 4)[0])),
            payload[block + 8 : end],
            b"".join(records),
            payload[end:],
        ]
    )
    return join(replaced(chunks, "MAP ", out))


def strat_cases(wad: bytes):
    """Levels whose strats name a range of the pool or a waypoint chain many times over: every
    answer that copies each strat's is refused from the counts before it is built."""
    many = [(50_000, None, -1)] * 5_000
    yield "strats-5000-naming-50000-parameters", with_strats(wad, 50_000, many), ["parameters", "at most 1048576"]
    on_chain = [(0, None, None)] * 5_000
    yield "strats-5000-on-a-50000-waypoint-chain", with_strats(wad, 0, on_chain, waypoints=50_000), ["waypoints", "at most 1048576"]


def light_cases(wad: bytes):
    """Levels whose bake or fit would cast rays for minutes, or build triangles by gigabytes:
    refused from the counts before the first ray."""
    chunks = chunks_of(wad)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]

    def tiles_of(trak, model, count, colours):
        places = [(0.5 + k % 4, 0.0, 0.5 + k // 4 % 3) for k in range(count)]
        level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, colours))
        return join(level)

    # 16 tiles of a model of 65,535 faces over 3 vertices: once a bake past 60 s (a BVH of a
    # million alike triangles), with 2,000 tiles a 6 GB allocation.
    face = struct.pack("<4H2H4f", 8, 0, 1, 2, 0, 0, 0, 1, 0, 0)
    trak, model = with_model(payload_of(chunks, "TRAK"), 3, face * 65535, 65535, b"")
    grey = struct.pack("<3I", *[0x606060] * 3)
    for count in (16, 2000):
        yield f"light-{count}-tiles-of-65535-faces", tiles_of(trak, model, count, grey), ["faces drawn", "at most 1048576"], True
    # 16 tiles of a model of 8,000 vertices (a strip of 15,998 faces): 128,232 vertices to bake,
    # 65 rays each, once 18 s without a word.
    vertices = 8000
    faces = b"".join(struct.pack("<4H2H4f", 8, k, k + 1, k + 2, 0, 0, 0, 1, 0, 0) for k in range(vertices - 2))
    trak, model = with_model(payload_of(chunks, "TRAK"), vertices, faces, vertices - 2, b"")
    grey = struct.pack(f"<{vertices}I", *[0x606060] * vertices)
    yield "light-16-tiles-of-8000-vertices", tiles_of(trak, model, 16, grey), ["128232 vertices × 65 rays", "at most 4194304"], False


def check_cases(wad: bytes, full: bytes):
    """Files no game can load: `check` names the chunk missing or twice, or that there are too many.
    And a level whose collision once took `check` minutes."""
    chunks = chunks_of(wad)
    yield "check-name-chunk-only", join([("NAME", struct.pack("<I", 0))]), ["no WFPC chunk", "no MAP chunk"]
    yield "check-4-zero-bytes-after-each-chunk", join(chunks, after=bytes(4)), ["no TRAK chunk"]
    yield "check-million-empty-chunks", join([("JUNK", b"")] * 1_000_000), ["found 1000000", "at most 1024"]
    # A second MAP with a tile at x NaN, which the check once never read.
    payload = bytearray(payload_of(chunks, "MAP "))
    struct.pack_into("<f", payload, 12, float("nan"))
    yield "check-second-map", join(chunks + [("MAP ", bytes(payload))]), ["2 MAP chunks"]
    yield "check-second-trak", join(chunks + [("TRAK", payload_of(chunks, "TRAK"))]), ["2 TRAK chunks"]

    # A full level and 200 tiles of one model of 300 floor triangles reaching about 8 units
    # out: coverage compared every polygon reaching a cell with every polygon of every tile
    # there, minutes for what is now a second.
    chunks = chunks_of(full)
    wfpc = struct.unpack("<I", payload_of(chunks, "WFPC"))[0]
    width, height = struct.unpack_from("<2I", payload_of(chunks, "MAP "), 4)
    polygons = []
    for k in range(300):
        angle, radius = k * 2.399963, 7.5 * ((k + 1) / 300) ** 0.5
        x, z = radius * np.cos(angle), radius * np.sin(angle)
        polygons.append(floor_triangle([(x, z), (x + 0.3, z + 0.1), (x, z + 0.3)], 1.0 + (k % 7) / 8))
    trak, model = with_model(payload_of(chunks, "TRAK"), 0, b"", 0, b"".join(polygons))
    places = [(9.5 + k % 20, 0.0, 12.5 + k // 20) for k in range(200)]
    assert width >= 38 and height >= 30, "the tiles and their reach fit in the grid"
    level = replaced(replaced(chunks, "TRAK", trak), "MAP ", with_tiles(payload_of(chunks, "MAP "), wfpc, model, places, b""))
    yield "check-collision-heavy", join(level), ["collision polygon", "reaches into cell"]


def with_lights(wad: bytes, count: int) -> bytes:
    """The base with `count` lights in LGHT, suns and points by turns in colours of their own, as
    the base's two lights are stored (a type byte, a colour, four words)."""
    chunks = chunks_of(wad)
    lights = []
    for k in range(count):
        colour = (k % 251, k // 251 % 251, 128)
        if k % 2:
            lights.append(struct.pack("<4B4i", 2, *colour, 4096 * (k % 4), 7168, -4096 * (k // 4 % 3), 0x50d5))
        else:
            lights.append(struct.pack("<4B4i", 1, *colour, -1475, 3277, -1966, 0))
    return join(replaced(chunks, "LGHT", struct.pack("<I", count) + b"".join(lights)))
