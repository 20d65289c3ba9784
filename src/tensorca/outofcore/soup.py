"""Random soups as lazy dask arrays, generated chunk by chunk, the same cells for every chunking.

The cells are :func:`tensorca.random_grids.random_soup`'s: the grid is cut into fixed
``TILE x TILE`` tiles, each drawn from its own generators seeded by ``(seed, grid, tile row, tile
column)`` (:mod:`tensorca.random_grids`), so a chunk fills only the tiles it overlaps, a 131072^2
soup never exists in one piece, and ``lazy_soup(h, w, d, s)[0]`` equals ``random_soup(h, w, d, s)``.
"""

from __future__ import annotations

import dask.array as da
import numpy as np

from ..errors import GridError, UsageError
from ..random_grids import fill_tiles, random_soup


def lazy_soup(height: int, width: int, density: float = 0.5, seed: int = 0, *, batch: int = 1, n_states: int = 2,
              chunks: int = 4096) -> da.Array:
    """A ``(batch, height, width)`` uint8 random soup as a dask array of ``chunks x chunks`` chunks.

    Each cell is non-zero with probability ``density``; non-zero cells take states ``1..n_states-1``
    uniformly. ``seed`` (a non-negative integer) fixes every cell, whatever ``chunks`` is: the grids
    are ``random_soup(height, width, density, seed, batch=batch, n_states=n_states)``, made chunk by chunk.
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
    """The soup's cells in this block (``(b, h, w)`` uint8): every tile it overlaps, from that tile's generators."""
    (b0, _), (y0, _), (x0, _) = block_info[None]["array-location"]  # type: ignore[index]
    out = np.empty(block.shape, dtype=np.uint8)
    fill_tiles(out, (b0, y0, x0), density, seed, n_states)
    return out
