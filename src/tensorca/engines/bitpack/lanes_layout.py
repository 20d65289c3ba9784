"""When a batch runs lane-per-grid (one grid per bit of each word), and when one grid runs as 64
lane tiles: facts shared by the ``bitpack-cpu`` engine (:mod:`.bitpack_lanes`) and its cost entry,
without importing Numba."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

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


#: Lane groups run side by side in rows of at most this many words (:func:`groups_side_by_side`).
SIDE_BY_SIDE_WORDS = 576
#: ... and a task's two wide buffers take at most this share of a core's L2 cache.
SIDE_BY_SIDE_L2_SHARE = 0.75
#: A core's L2 where the OS does not say (the smallest seen on these machines).
DEFAULT_L2_BYTES = 512 << 10


@lru_cache(maxsize=1)
def l2_bytes() -> int:
    """A core's L2 cache in bytes, from Linux's sysfs (:data:`DEFAULT_L2_BYTES` where it is not there)."""
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "level").read_text().strip() == "2" and (index / "type").read_text().strip() != "Instruction":
                text = (index / "size").read_text().strip().upper()
                scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
                return int(text.rstrip("KMG")) * scale
        except (OSError, ValueError):
            continue
    return DEFAULT_L2_BYTES


def groups_side_by_side(lanes_shape: tuple[int, int, int], threads: int, l2: int | None = None) -> int:
    """How many lane groups of a ``(G, H + 2, W + 2)`` lane array a task runs side by side in one
    row (a power of two): rows up to :data:`SIDE_BY_SIDE_WORDS` words, the task's two buffers within
    :data:`SIDE_BY_SIDE_L2_SHARE` of ``l2`` (default :func:`l2_bytes`), and at least ``threads``
    tasks where there are that many groups. A group alone has rows of ``W + 2`` words: at 16^2, 18,
    too short for the vectorised word loop. One thread, B3/S23 torus, 512-bit vectors, G/s by
    groups side by side: 16^2 37 alone -> 103 (8) -> 126 (32); 32^2 68 -> 154 (16); 64^2 104 -> 140
    (4) -> 157 (8); 128^2 132 -> 154 (4) -> 70 (8: 2.2 MB, past a 2 MB L2). Odd counts measured
    10-25% below their even neighbours, hence powers of two."""
    groups, height, width = lanes_shape
    per_group = 2 * height * width * 8
    fit = min(SIDE_BY_SIDE_WORDS // width, int(SIDE_BY_SIDE_L2_SHARE * (l2 or l2_bytes())) // per_group)
    fit = min(fit, -(-groups // max(1, threads)))
    k = 1
    while 2 * k <= fit:
        k *= 2
    return k


#: One grid runs as 64 lane tiles, TILES x TILES of them.
TILES = 8
#: A tiled word's lanes in tile column 0 (bit 0 of each byte: lane ``8 ty + tx``) and in tile column 7.
BYTE_LOW = np.uint64(0x0101010101010101)
BYTE_HIGH = np.uint64(0x8080808080808080)
#: Grids of at least this many cells run as 64 lane tiles (:func:`.bitpack_tiles.advance_tiled`):
#: no shifts and vectorised word loops beat the row and column kernels from 1024^2 up (B3/S23,
#: 2-core EPYC AVX2, load 0.8: 1024^2 69-76 vs 38-62 G/s over 100-5000 generations, 4096^2 73-95
#: vs 29-63, 2048 x 8192 64-88 vs 46-66, B2-a/S12 1024^2 46 vs 10); at 256^2 they lose (9.5 vs
#: 19.5 G/s: a parallel region per generation for little work). With temporal blocking (several
#: generations per region, bitpack_tiles.tiled_plan) the tiles also win at 512^2 (load 1.8: 27.3 vs
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
