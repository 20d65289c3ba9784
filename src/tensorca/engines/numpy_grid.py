"""NumPy grid helpers every NumPy step shares (the reference engine's, the stochastic draws', the family
kernels'): padding by a topology, the 3x3 index, the runs of a mask. Rule families' NumPy kernels pad
through :func:`pad` (also importable from :mod:`tensorca.engines.numpy_reference`), so every topology
joins its edges the same way."""

from __future__ import annotations

import numpy as np

from ..topology import Topology, padding_index

__all__ = ["mask_runs", "neighbourhood_index", "pad"]


def pad(alive: np.ndarray, radius: int, topology: Topology) -> np.ndarray:
    """Pad ``(B, H, W)`` by ``radius`` on each side of H and W as ``topology`` joins its edges.

    A plain torus wraps and a bounded plane is dead outside (``np.pad``); every other kind
    (shifted torus, Klein bottle, cross-surface, sphere) gathers each padded cell from the grid
    cell :func:`~tensorca.topology.padding_index` names.
    """
    widths = ((0, 0), (radius, radius), (radius, radius))
    if topology.kind == "torus" and topology.simple:
        return np.pad(alive, widths, mode="wrap")
    if topology.kind == "plane":
        return np.pad(alive, widths, mode="constant", constant_values=0)
    rows, cols, valid = padding_index(topology, radius)
    padded = alive[:, rows, cols]
    return padded if valid.all() else np.where(valid, padded, 0).astype(alive.dtype)


def neighbourhood_index(alive: np.ndarray, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` int16 9-bit index of each 3x3 window, NW = 256 ... centre = 16 ... SE = 1."""
    _, height, width = alive.shape
    padded = pad(alive.astype(np.int16), 1, topology)
    index = np.zeros(alive.shape, dtype=np.int16)
    for dy in range(3):
        for dx in range(3):
            bit = 8 - (3 * dy + dx)
            index |= padded[:, dy : dy + height, dx : dx + width] << bit
    return index


def mask_runs(mask: np.ndarray) -> list[tuple[int, int, int]]:
    """``(dy, first, last)`` for every horizontal run of ones in a 2-D 0/1 mask (inclusive columns)."""
    runs = []
    for dy, row in enumerate(mask):
        dx = 0
        while dx < len(row):
            if row[dx]:
                start = dx
                while dx < len(row) and row[dx]:
                    dx += 1
                runs.append((dy, start, dx - 1))
            else:
                dx += 1
    return runs
