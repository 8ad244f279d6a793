"""Which level a scene was made from: the size and CRC-32 of the WAD its level document's
``source`` keeps (rust/core/src/gltf/MAPPING.md; the way back refuses another base), and a
base's bytes measured alike. Pure Python."""

from __future__ import annotations

import zlib


def source_of(data: bytes) -> dict:
    """A WAD's ``source``, as the glTF export writes it (size and CRC-32, the zlib polynomial)."""
    return {"size": len(data), "crc32": zlib.crc32(data)}


def same_source(source: dict | None, data: bytes) -> bool:
    """Whether ``data`` is the WAD ``source`` describes; a document without one (another tool's
    glTF) names no level, so any base will do."""
    if not source:
        return True
    got = source_of(data)
    return int(source.get("size", -1)) == got["size"] and int(source.get("crc32", -1)) == got["crc32"]


def describe(source: dict) -> str:
    return f"{int(source['size']):,} bytes, CRC-32 {int(source['crc32']):08x}"


def other_level_message(name: str, source: dict, data: bytes) -> str:
    """Why ``data`` (the file ``name``) cannot be the base of a scene made from ``source``, and
    what to do."""
    return (
        f"{name} is not the level this scene was made from: it holds {describe(source_of(data))}, the scene was made "
        f"from {describe(source)}. It has changed since (written over by another export or program?), or it is "
        "another level: choose the level the scene was made from as the base, import the file again to edit it as "
        "it is now, or tick 'Other base' to write against it anyway"
    )
