"""Random starting grids ("soups"), reproducible from a seed."""

from __future__ import annotations

import numpy as np

from .errors import GridError


def random_soup(
    height: int,
    width: int,
    density: float = 0.5,
    seed: int | None = None,
    batch: int | None = None,
    n_states: int = 2,
) -> np.ndarray:
    """A random grid: ``(H, W)`` uint8, or ``(batch, H, W)`` when ``batch`` is given.

    Each cell is non-zero with probability ``density``; non-zero cells take states
    ``1..n_states-1`` uniformly (so Generations soups include decaying cells).
    """
    if not 0.0 <= density <= 1.0:
        raise GridError(f"density must lie in [0, 1], got {density}")
    if height < 1 or width < 1:
        raise GridError(f"soup size must be positive, got {width}x{height}")
    if batch is not None and batch < 1:
        raise GridError(f"batch must be positive, got {batch}")
    rng = np.random.default_rng(seed)
    shape = (height, width) if batch is None else (batch, height, width)
    alive = rng.random(shape) < density
    states = rng.integers(1, n_states, size=shape, dtype=np.uint8) if n_states > 2 else np.uint8(1)
    return np.where(alive, states, 0).astype(np.uint8)


def parse_size(text: str) -> tuple[int, int]:
    """``"256x128"`` -> ``(height, width) = (128, 256)``; ``"64"`` -> ``(64, 64)``."""
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
