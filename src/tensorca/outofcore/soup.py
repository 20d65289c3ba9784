"""Random soups as lazy dask arrays, generated chunk by chunk, the same cells for every chunking.

The grid is cut into fixed ``TILE x TILE`` tiles; tile ``(b, ty, tx)`` is drawn from
``numpy.random.default_rng([seed, b, ty, tx])``, so a chunk fills only the tiles it overlaps and a
131072^2 soup never exists in one piece. (These are not the cells of
:func:`tensorca.random_grids.random_soup` for the same seed, which draws one stream for the whole grid.)
"""

from __future__ import annotations

import dask.array as da
import numpy as np

from ..errors import GridError, UsageError
from ..random_grids import random_soup

#: Side of a tile drawn from one generator.
TILE = 256


def lazy_soup(height: int, width: int, density: float = 0.5, seed: int = 0, *, batch: int = 1, n_states: int = 2,
              chunks: int = 4096) -> da.Array:
    """A ``(batch, height, width)`` uint8 random soup as a dask array of ``chunks x chunks`` chunks.

    Each cell is non-zero with probability ``density``; non-zero cells take states ``1..n_states-1``
    uniformly. ``seed`` (a non-negative integer) fixes every cell, whatever ``chunks`` is.
    """
    for name, value in (("height", height), ("width", width), ("batch", batch), ("seed", seed),
                        ("n_states", n_states), ("chunks", chunks)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise UsageError(f"lazy_soup {name} must be an integer, got {value!r}")
    if height < 1 or width < 1 or batch < 1 or chunks < 1:
        raise GridError(f"soup size, batch and chunks must be positive, got {width}x{height}, batch {batch}, "
                        f"chunks {chunks}")
    if seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed}")
    random_soup(1, 1, density, 0, n_states=n_states)  # the same checks of density and n_states
    grid = da.zeros((batch, height, width), dtype=np.uint8, chunks=(1, chunks, chunks))
    return grid.map_blocks(_fill, density=float(density), seed=int(seed), n_states=int(n_states), dtype=np.uint8)


def _fill(block: np.ndarray, density: float, seed: int, n_states: int, block_info: dict | None = None) -> np.ndarray:
    """The soup's cells in this block: every tile it overlaps, drawn from that tile's own generator."""
    (b0, b1), (y0, y1), (x0, x1) = block_info[None]["array-location"]  # type: ignore[index]
    out = np.zeros((b1 - b0, y1 - y0, x1 - x0), dtype=np.uint8)
    threshold = np.uint32(min(density * 2**32, 2**32 - 1))
    for b in range(b0, b1):
        for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
            for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
                rng = np.random.default_rng([seed, b, ty, tx])
                tile = rng.integers(0, 2**32, size=(TILE, TILE), dtype=np.uint32) < threshold
                if density >= 1.0:
                    tile[:] = True
                cells = tile.astype(np.uint8)
                if n_states > 2:
                    cells *= rng.integers(1, n_states, size=(TILE, TILE), dtype=np.uint8)
                ys, xs = max(y0, ty * TILE), max(x0, tx * TILE)
                ye, xe = min(y1, (ty + 1) * TILE), min(x1, (tx + 1) * TILE)
                out[b - b0, ys - y0 : ye - y0, xs - x0 : xe - x0] = cells[ys - ty * TILE : ye - ty * TILE,
                                                                          xs - tx * TILE : xe - tx * TILE]
    return out
