"""When a batch runs lane-per-grid (one grid per bit of each word), and when one grid runs as 64
lane tiles: facts shared by the ``bitpack-cpu`` engine (:mod:`.bitpack_lanes`) and its cost entry,
without importing Numba."""

from __future__ import annotations

import numpy as np

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


#: One grid runs as 64 lane tiles, TILES x TILES of them.
TILES = 8
#: A tiled word's lanes in tile column 0 (bit 0 of each byte: lane ``8 ty + tx``) and in tile column 7.
BYTE_LOW = np.uint64(0x0101010101010101)
BYTE_HIGH = np.uint64(0x8080808080808080)
#: Grids of at least this many cells run as 64 lane tiles (:func:`.bitpack_lanes.advance_tiled`):
#: no shifts and vectorised word loops beat the row and column kernels from 1024^2 up (B3/S23,
#: 2-core EPYC AVX2, load 0.8: 1024^2 69-76 vs 38-62 G/s over 100-5000 generations, 4096^2 73-95
#: vs 29-63, 2048 x 8192 64-88 vs 46-66, B2-a/S12 1024^2 46 vs 10); at 256^2 they lose (9.5 vs
#: 19.5 G/s: a parallel region per generation for little work). With temporal blocking (several
#: generations per region, bitpack_lanes.tiled_plan) the tiles also win at 512^2 (load 1.8: 27.3 vs
#: 17.6 G/s at 100 generations, 43.4 vs 30.6 at 1000); at 256^2 the column kernels still win long
#: runs (19.3 vs 15.9 G/s at 1000), where they skip what has settled.
TILED_MIN_CELLS = 1 << 18


def use_tiles(shape: tuple[int, int, int]) -> bool:
    """True when each grid of a ``(B, H, W)`` batch can run as 64 lane tiles: sides multiples of 8,
    tiles at least 16 words wide (the word loops vectorise)."""
    _, height, width = shape
    return height % TILES == 0 and width % TILES == 0 and width // TILES >= 16 and height // TILES >= 4


def runs_tiled(shape: tuple[int, int, int]) -> bool:
    """True when ``bitpack-cpu`` runs each grid of a ``(B, H, W)`` batch as 64 lane tiles (and the
    batch is not run lane-per-grid)."""
    return not use_lanes(shape) and use_tiles(shape) and shape[1] * shape[2] >= TILED_MIN_CELLS
