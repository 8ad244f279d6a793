"""WAD bytes by hand, in the convention the project writes for new levels: `u32 total` (the file
size), then chunks `{tag reversed, u32 payload size, payload}` with no padding."""

import struct


def make_wad(chunks: list[tuple[bytes, bytes]]) -> bytes:
    body = b"".join(tag[::-1] + struct.pack("<I", len(payload)) + payload for tag, payload in chunks)
    return struct.pack("<I", 4 + len(body)) + body


def split_wad(data: bytes) -> list[tuple[bytes, bytes]]:
    """The inverse of make_wad, for files in that convention (generated levels are)."""
    chunks, pos = [], 4
    while pos < len(data):
        tag, size = data[pos : pos + 4][::-1], struct.unpack_from("<I", data, pos + 4)[0]
        chunks.append((tag, data[pos + 8 : pos + 8 + size]))
        pos += 8 + size
    assert make_wad(chunks) == data, "not in the default convention"
    return chunks


def payload_offset(data: bytes, tag: bytes) -> int:
    """Where the payload of the chunk `tag` starts in the file."""
    pos = 4
    for t, payload in split_wad(data):
        if t == tag:
            return pos + 8
        pos += 8 + len(payload)
    raise KeyError(tag)


def shorten_chunk(data: bytes, tag: bytes, keep: int) -> bytes:
    """The level with one chunk's payload cut to `keep` bytes and the sizes updated to match: the
    container is sound, the chunk itself is truncated."""
    return make_wad([(t, p[:keep] if t == tag else p) for t, p in split_wad(data)])
