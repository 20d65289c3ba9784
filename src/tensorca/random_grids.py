"""Random starting grids ("soups"), reproducible from a seed, the same cells however they are made.

One definition serves every engine: the grid is cut into fixed ``TILE x TILE`` tiles and tile
``(b, ty, tx)`` (grid ``b`` of a batch, tile row ``ty``, tile column ``tx``) is drawn from its own
generators, ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(b, ty, tx, k)))``: ``k = 0``
says which cells are alive, ``k = 1`` the states of the live cells (Generations rules). So a cell
depends only on ``(seed, b, y, x, density, n_states)``: :func:`random_soup` (the grid in memory) and
:func:`tensorca.outofcore.soup.lazy_soup` (chunk by chunk, for dask) give the same cells for the
same seed, whatever the chunking, and a smaller soup is the top-left corner of a larger one.
"""

from __future__ import annotations

import secrets

import numpy as np

from .errors import GridError, UsageError
from .memory import require_memory

#: Side of a tile drawn from one pair of generators.
TILE = 256


def random_soup(
    height: int,
    width: int,
    density: float = 0.5,
    seed: int | None = None,
    batch: int | None = None,
    n_states: int = 2,
) -> np.ndarray:
    """A random grid: ``(H, W)`` uint8, or ``(batch, H, W)`` when ``batch`` is given.

    The arguments are in NumPy's order, **height first**: ``random_soup(128, 256)`` is 128 rows of
    256 cells, shape ``(128, 256)``. The command line writes sizes the other way round, width
    first as Golly does: ``--soup 256x128`` is the same grid (:func:`parse_size` turns
    ``"256x128"`` into ``(height, width) = (128, 256)``).

    Each cell is non-zero with probability ``density``; non-zero cells take states
    ``1..n_states-1`` uniformly (so Generations soups include decaying cells). The cells are drawn
    tile by tile (module docstring): the same ``seed`` gives the same grid on every machine and
    every engine, equal to ``lazy_soup(height, width, density, seed, batch=batch or 1)`` (its grid 0
    when ``batch`` is None); ``seed=None`` draws fresh entropy.
    """
    for name, value in (("height", height), ("width", width), ("batch", batch), ("n_states", n_states)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise UsageError(f"random_soup {name} must be an integer, got {value!r}")
    if isinstance(density, bool) or not isinstance(density, (int, float, np.integer, np.floating)):
        raise UsageError(f"density must be a number in [0, 1], got {density!r}")
    if not 0.0 <= density <= 1.0:
        raise GridError(f"density must lie in [0, 1], got {density}")
    if height < 1 or width < 1:
        raise GridError(f"soup size must be positive, got {width}x{height} (width x height)")
    if batch is not None and batch < 1:
        raise GridError(f"batch must be positive, got {batch}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise UsageError(f"seed must be None or a non-negative integer, got {seed!r}")
    if not 2 <= n_states <= 256:
        raise GridError(f"n_states must lie in 2..256, got {n_states}")
    shape = (height, width) if batch is None else (batch, height, width)
    cells = int(np.prod(shape, dtype=np.int64))
    require_memory(f"a soup of {cells:,} cells", cells, "use a smaller size or batch", estimate=True)
    if seed is None:
        seed = secrets.randbits(128)
    grids = np.empty((batch or 1, height, width), dtype=np.uint8)
    fill_tiles(grids, (0, 0, 0), float(density), int(seed), int(n_states))
    return grids if batch is not None else grids[0]


def fill_tiles(out: np.ndarray, origin: tuple[int, int, int], density: float, seed: int, n_states: int) -> None:
    """Write the soup's cells into ``out``, a ``(B, h, w)`` uint8 block whose first cell is grid
    ``origin[0]``, row ``origin[1]``, column ``origin[2]`` of the whole soup: every tile the block
    overlaps, drawn from that tile's own generators (module docstring). Arguments are not checked."""
    b0, y0, x0 = origin
    nb, h, w = out.shape
    y1, x1 = y0 + h, x0 + w
    # uint32 draws below a threshold: exactly the fraction density of 2**32 (density 1 is special-cased)
    threshold = np.uint32(min(int(density * 2**32), 2**32 - 1))
    for b in range(b0, b0 + nb):
        for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
            # the tile's rows from its first to the block's last: a prefix of the tile's stream, so a
            # block that ends part-way down a tile draws no more than it needs and the same cells
            rows = min(y1, (ty + 1) * TILE) - ty * TILE
            for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
                tile = _tile(seed, (b, ty, tx), rows, density, threshold, n_states)
                ys, xs = max(y0, ty * TILE), max(x0, tx * TILE)
                ye, xe = min(y1, (ty + 1) * TILE), min(x1, (tx + 1) * TILE)
                out[b - b0, ys - y0 : ye - y0, xs - x0 : xe - x0] = tile[ys - ty * TILE :,
                                                                         xs - tx * TILE : xe - tx * TILE]


def _tile(seed: int, key: tuple[int, int, int], rows: int, density: float, threshold: np.uint32,
          n_states: int) -> np.ndarray:
    """The first ``rows`` rows of tile ``key = (b, ty, tx)``: ``(rows, TILE)`` uint8 states."""
    alive = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*key, 0)))
    cells = (alive.integers(0, 2**32, size=(rows, TILE), dtype=np.uint32) < threshold).view(np.uint8)
    if density >= 1.0:
        cells[:] = 1
    if n_states > 2:
        states = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*key, 1)))
        cells = cells * states.integers(1, n_states, size=(rows, TILE), dtype=np.uint8)
    return cells


def parse_size(text: str) -> tuple[int, int]:
    """A command-line size, width first (``"256x128"``: 256 wide, 128 high) -> ``(height, width) = (128, 256)``.

    ``"64"`` is ``(64, 64)``. The result is in :func:`random_soup`'s order: ``random_soup(*parse_size(text))``.
    """
    if not isinstance(text, str):
        raise UsageError(f"size must be a string such as '256x128' (WIDTHxHEIGHT), got {text!r}")
    parts = text.lower().split("x")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise GridError(f"size {text!r} must look like WIDTHxHEIGHT, e.g. 256x256") from None
    if len(numbers) == 1:
        numbers *= 2
    if len(numbers) != 2 or min(numbers) < 1:
        raise GridError(f"size {text!r} must look like WIDTHxHEIGHT with positive numbers")
    width, height = numbers
    return height, width
