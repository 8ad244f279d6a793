"""The files the add-on reads and writes, through the Rust core as the command line does
(``llamawad.read_file``, ``llamawad.write_file``): only a regular file is read (a device never
ends, a pipe waits for a writer), and a write goes to a temporary beside the target, renamed into
place, keeping the permissions of the file it replaces. Before a level is first written over, its
original is kept once beside it. Errors are ``llamawad.WadError``, naming the file."""

from __future__ import annotations

import os

# The original of a level written over: ``level.wad`` keeps it as ``level.wad.original``, a name
# the game never loads and no later export writes over.
ORIGINAL_SUFFIX = ".original"


def read_file(path: str) -> bytes:
    import llamawad

    return llamawad.read_file(path)


def write_file(path: str, data: bytes) -> None:
    import llamawad

    llamawad.write_file(path, data)


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def original_path(path: str) -> str:
    """Where the original of the level at ``path`` is kept."""
    return path + ORIGINAL_SUFFIX


def keep_original(path: str, data: bytes) -> str | None:
    """Keeps ``data`` (the bytes of ``path`` before it is written over) as its original, unless an
    original is kept already: the first is never replaced. Returns the original's path when it
    was written now. Raises llamawad.WadError when it cannot be written."""
    kept = original_path(path)
    if os.path.isfile(kept):
        return None
    write_file(kept, data)
    return kept
