"""The files the add-on reads and writes (addon/common/files.py), without Blender: through the
Rust core as the command line does, and the original of a level kept once beside it."""

import os
import stat

import llamawad
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
    with pytest.raises(llamawad.WadError, match="not a regular file"):
        files.keep_original(str(tmp_path / "level.wad"), b"original")
    assert sorted(os.listdir(tmp_path)) == ["level.wad.original"]


def test_a_write_replaces_keeping_the_mode_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "out.wad"
    path.write_bytes(b"old")
    path.chmod(0o640)
    files.write_file(str(path), b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["out.wad"]


def test_a_new_file_gets_the_umasks_mode(tmp_path):
    previous = os.umask(0o022)
    try:
        files.write_file(str(tmp_path / "new.wad"), b"new")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.wad").stat().st_mode) == 0o644


def test_only_a_regular_file_is_read(tmp_path):
    (tmp_path / "level.wad").write_bytes(b"level")
    assert files.read_file(str(tmp_path / "level.wad")) == b"level"
    os.symlink("/dev/zero", tmp_path / "zero.wad")
    os.mkfifo(tmp_path / "pipe.wad")
    for name in ("zero.wad", "pipe.wad"):
        with pytest.raises(llamawad.WadError, match="not a regular file"):
            files.read_file(str(tmp_path / name))
