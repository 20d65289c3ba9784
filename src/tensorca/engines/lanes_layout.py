"""When a batch runs lane-per-grid (one grid per bit of each word): facts shared by the
``bitpack-cpu`` engine (:mod:`.bitpack_lanes`) and its cost entry, without importing Numba."""

from __future__ import annotations

#: Grids per ``uint64`` word.
LANES = 64
#: Batches of at least this many grids run lane-per-grid (fewer leave most of each word idle).
MIN_BATCH = 24
#: ... when each grid has at most this many cells (a group's two buffers stay in L2: 16 B per cell).
MAX_CELLS = 128 * 128


def use_lanes(shape: tuple[int, int, int]) -> bool:
    """True when a ``(B, H, W)`` batch runs faster lane-per-grid than row-packed: enough grids to
    fill most lanes, each small enough that a group stays cache-resident."""
    batch, height, width = shape
    return batch >= MIN_BATCH and height * width <= MAX_CELLS
