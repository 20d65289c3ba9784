"""The checkpoint format registry (:mod:`tensorca.persist`): one place tells npz, macrocell and zarr apart."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import tensorca
from tensorca import persist
from tensorca.errors import CheckpointError


@pytest.mark.parametrize("name, expected", [
    ("run.npz", "npz"), ("RUN.NPZ", "npz"), ("gun.mc", "macrocell"), ("gun.mc.gz", "macrocell"),
    ("big.zarr", "zarr"), ("state", "npz"), ("state.bin", "npz"),
])
def test_format_of_a_new_path_follows_its_suffix(tmp_path, name, expected):
    assert persist.format_of(tmp_path / name).name == expected


def test_format_of_an_existing_file_follows_its_contents(tmp_path):
    plain, zipped = tmp_path / "a.checkpoint", tmp_path / "b.checkpoint"
    plain.write_bytes(b"[M2] (golly 4.3)\n#R B3/S23\n$$$$$$*$.*$\n")
    zipped.write_bytes(gzip.compress(b"[M2] (golly 4.3)\n"))
    assert persist.format_of(plain) is persist.MACROCELL and persist.format_of(zipped) is persist.MACROCELL
    store = tmp_path / "grid"
    store.mkdir()
    (store / "zarr.json").write_text("{}")
    assert persist.format_of(store) is persist.ZARR
    (tmp_path / "unreadable").mkdir()
    assert persist.format_of(tmp_path / "unreadable") is persist.NPZ


def test_save_and_load_dispatch_on_the_format(tmp_path):
    """A run checkpoints to the format its path names, and resume reads either back."""
    gun = tensorca.load("gosper_gun")
    for name in ("gun.npz", "gun.mc"):
        path = tmp_path / name
        later = tensorca.run(gun, generations=30, checkpoint=path)
        saved = persist.load(path)
        assert saved.generation == 30 and saved.manifest["format"].startswith(
            "macrocell" if name.endswith(".mc") else "tensorca-checkpoint")
        assert tensorca.resume(path, generations=0).population == later.population
    assert persist.file_suffixes() == (".npz", ".mc", ".mc.gz")


def test_a_zarr_store_is_not_read_as_a_dense_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="zarr store"):
        persist.load(tmp_path / "big.zarr")
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        persist.load(tmp_path / "missing.npz")
    np.testing.assert_equal(persist.format_of(str(tmp_path / "x.ZARR")).name, "zarr")
