"""The files the add-on writes: always to a temporary file beside the target that is then renamed
into place, and, before a level is first written over, its original kept once beside it. Pure
Python."""

from __future__ import annotations

import os
import tempfile

# The original of a level written over: ``level.wad`` keeps it as ``level.wad.original``, a name
# the game never loads and no later export writes over.
ORIGINAL_SUFFIX = ".original"


def write_atomically(path: str, data: bytes) -> None:
    """Writes to a temporary file beside ``path``, then renames it over ``path``: a reader never
    sees half a file, and a failure leaves no file."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, temporary = tempfile.mkstemp(prefix=".llamawad-", suffix=".wad.tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


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
    was written now. Raises OSError when it cannot be written."""
    kept = original_path(path)
    if os.path.isfile(kept):
        return None
    write_atomically(kept, data)
    return kept
