"""The files the add-on writes (addon/common/files.py), without Blender: atomic writes, and the
original of a level kept once beside it."""

import os

import pytest
from addon.common import files


def test_the_original_is_kept_once(tmp_path):
    level = tmp_path / "level.wad"
    assert files.keep_original(str(level), b"original") == str(tmp_path / "level.wad.original")
    # A later export over the level finds it kept: never replaced.
    assert files.keep_original(str(level), b"edited") is None
    assert (tmp_path / "level.wad.original").read_bytes() == b"original"
    assert sorted(os.listdir(tmp_path)) == ["level.wad.original"]


def test_something_in_the_way_of_the_original_is_an_error(tmp_path):
    (tmp_path / "level.wad.original").mkdir()
    with pytest.raises(OSError):
        files.keep_original(str(tmp_path / "level.wad"), b"original")
    assert sorted(os.listdir(tmp_path)) == ["level.wad.original"]


def test_write_atomically_replaces_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "out.wad"
    path.write_bytes(b"old")
    files.write_atomically(str(path), b"new")
    assert path.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["out.wad"]
