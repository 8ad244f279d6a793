"""Reads and writes the level WADs of *Ein Königreich für ein Lama* (The Emperor's New Groove, PC).

The work is done in Rust (the ``_native`` extension); this package only re-exports it.

- ``parse_info(data) -> dict``: the summary of a level (what ``llamawad info --json`` prints)
- ``info_file(path) -> dict``: the same for a file on disk
- ``roundtrip(data) -> bytes``: parse and write back
- ``generate(seed, size) -> bytes``: a synthetic level; size is "tiny", "small" or "full"
- ``WadError`` (a ``ValueError``): raised for every file that cannot be read or written
"""

from ._native import WadError, generate, info_file, parse_info, roundtrip

__all__ = ["WadError", "generate", "info_file", "parse_info", "roundtrip"]
