"""Counter-based randomness: every sample's random numbers depend only on ``(seed, index)``.

Two schemes, one per place where start states are made:

- on the host (:class:`~tensorca.data.Trajectories`): :func:`item_rng` gives a NumPy
  ``Generator`` seeded with ``SeedSequence(seed, spawn_key=(index,))``, which is exactly the
  ``index``-th child of ``SeedSequence(seed).spawn(...)``. Nothing is shared between items, so
  the data do not depend on the order items are asked for, on the number of DataLoader workers,
  or on the machine.
- on a device (:class:`~tensorca.data.DeviceStream`): :func:`hash32` is a stateless integer hash
  (Chris Wellons' "hash prospector" family, multipliers below 2**31 so that every intermediate
  product fits in a signed 64-bit integer). Applied to ``(seed, batch, sample, cell)`` with
  int64 tensor operations it gives the same bits on every torch device and in NumPy, with no
  generator state to carry, move or synchronise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UsageError

MASK32 = 0xFFFFFFFF
_M1 = 0x21F0AAAD
_M2 = 0x735A2D97


def item_rng(seed: int, index: int) -> np.random.Generator:
    """The NumPy generator of item ``index`` under ``seed`` (both non-negative integers)."""
    if seed < 0 or index < 0:
        raise UsageError(f"seed and index must be non-negative, got seed={seed}, index={index}")
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(int(seed), spawn_key=(int(index),))))


def hash32(x: Any) -> Any:
    """A 32-bit integer hash of ``x`` (a Python int, or an int64 NumPy array / torch tensor holding 0..2**32-1).

    Uses only ``^ >> * &`` with products below 2**63, so Python ints, NumPy int64 and torch int64
    on any device give identical results.
    """
    x = x & MASK32
    x = x ^ (x >> 16)
    x = (x * _M1) & MASK32
    x = x ^ (x >> 15)
    x = (x * _M2) & MASK32
    x = x ^ (x >> 15)
    return x


def fold(*words: int) -> int:
    """One 32-bit key from any number of non-negative integers (each of any size)."""
    key = 0x9E3779B9
    for word in words:
        if word < 0:
            raise UsageError(f"seed words must be non-negative, got {word}")
        while True:
            key = hash32(key ^ (word & MASK32))
            word >>= 32
            if not word:
                break
        key = hash32(key + 0x7F4A7C15)
    return key


def cell_bits(key: Any, cells: Any) -> Any:
    """32 random bits per cell, elementwise; identical for NumPy int64 and torch int64 on any device.

    ``key``: int64 keys broadcastable against ``cells`` (int64 cell numbers), both in 0..2**32-1.
    """
    return hash32(hash32(cells ^ key) ^ hash32(key + 0x3C6EF372))
