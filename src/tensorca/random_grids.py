"""Random starting grids ("soups"), reproducible from a seed."""

from __future__ import annotations

import numpy as np

from .errors import GridError, UsageError
from .memory import require_memory


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
    ``1..n_states-1`` uniformly (so Generations soups include decaying cells). The same ``seed``
    gives the same grid on every machine; ``seed=None`` draws fresh entropy.
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
    # the soup and one same-sized temporary
    require_memory(f"a soup of {cells:,} cells", 2 * cells, "use a smaller size or batch", estimate=True)
    rng = np.random.default_rng(seed)
    # Draw in blocks of rows (the same stream as one draw) so the float64 temporaries stay small.
    alive = np.empty(shape, dtype=bool)
    rows = alive.reshape(-1, width)
    step = max(1, (1 << 22) // width)
    for start in range(0, rows.shape[0], step):
        rows[start : start + step] = rng.random((min(step, rows.shape[0] - start), width)) < density
    states = rng.integers(1, n_states, size=shape, dtype=np.uint8) if n_states > 2 else np.uint8(1)
    return np.where(alive, states, 0).astype(np.uint8)


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
