"""Writing files loses nothing the user had: failures leave the old file whole, no temporary files."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorca
from tensorca.atomic import write_bytes_atomic
from tensorca.errors import PatternError


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "sub" / "out.bin"
    write_bytes_atomic(target, b"first")
    write_bytes_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.bin"]


def test_failed_rename_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_save_that_cannot_encode_leaves_the_existing_pattern_file(tmp_path):
    target = tmp_path / "keep.cells"
    tensorca.save(target, tensorca.loads("x = 3, y = 1\n3o!"))
    before = target.read_bytes()
    multistate = tensorca.Pattern(cells=np.array([[2, 1]], dtype=np.uint8), rule=tensorca.parse_rule("/2/3"))
    with pytest.raises(PatternError):
        tensorca.save(target, multistate)  # .cells holds two states only
    assert target.read_bytes() == before
