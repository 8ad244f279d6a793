"""A level WAD as its chunks, for tests that build levels chunk by chunk (held_out.py,
crafted_wad.py): in this project's convention for new levels (no padding, `total` the file size,
a chunk's size without its header), each chunk (tag as the notes spell it, payload)."""

import struct


def chunks_of(wad: bytes) -> list[tuple[str, bytes]]:
    out, at = [], 4
    while at < len(wad):
        size = struct.unpack_from("<I", wad, at + 4)[0]
        out.append((wad[at : at + 4][::-1].decode(), wad[at + 8 : at + 8 + size]))
        at += 8 + size
    assert join(out) == wad, "the level is in the default convention"
    return out


def join(chunks, after=b"") -> bytes:
    """The level of these chunks; ``after``: bytes after each chunk (a padding the notes do not
    know)."""
    body = b"".join(tag.encode()[::-1] + struct.pack("<I", len(p)) + p + after for tag, p in chunks)
    return struct.pack("<I", 4 + len(body)) + body


def replaced(chunks, tag: str, payload: bytes | None):
    """The chunks with `tag`'s payload replaced (None: the chunk left out)."""
    return [(t, payload if t == tag else p) for t, p in chunks if t != tag or payload is not None]


def payload(chunks, tag: str) -> bytes:
    return next(p for t, p in chunks if t == tag)
