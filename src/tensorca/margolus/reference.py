"""The NumPy reference for block rules: one generation, written to be obviously right.

Conventions every block engine follows (the definition of a Margolus step here):

- ``cells``: ``(B, H, W)`` ``uint8`` states ``0..n-1``, indexed ``[b, y, x]``.
- ``phase = (py, px)``: the blocks of this step have their top-left cells at ``y % 2 == py`` and
  ``x % 2 == px``. Each step flips both (the blocks move by one cell diagonally), so a run that
  starts at phase ``(0, 0)`` uses blocks at (0, 0) on even generations and at (1, 1) on odd ones.
- ``torus``: blocks wrap around the edges (height and width must be even). A bounded plane
  (``torus=False``) leaves the blocks that stick out of the grid unchanged, which keeps a
  reversible rule reversible (nothing is lost at the edge) and is what Golly's emulated rules do at
  the edge of their grid.
- ``present``: ``None``, or a ``bool`` array broadcastable to ``cells``: a block holding a cell
  that is not present (Golly's off-grid state 0 in an emulated pattern) is left unchanged.
"""

from __future__ import annotations

import numpy as np

from ..errors import GridError, TopologyError
from .rules import BlockRule

__all__ = ["check_grid", "step_numpy"]


def check_grid(shape: tuple[int, ...], torus: bool) -> None:
    """:class:`TopologyError` for an odd torus (its blocks cannot tile it); :class:`GridError` for
    a shape that is not ``(B, H, W)``."""
    if len(shape) != 3:
        raise GridError(f"block engines take (B, H, W) cells, got shape {tuple(shape)}")
    if torus and (shape[1] % 2 or shape[2] % 2):
        raise TopologyError(f"a Margolus torus needs an even height and width (2x2 blocks tile it), "
                            f"got {shape[2]}x{shape[1]} (W x H); use a bounded plane or an even size")


def step_numpy(cells: np.ndarray, rule: BlockRule, phase: tuple[int, int], torus: bool,
               present: np.ndarray | None = None) -> np.ndarray:
    """One generation of ``rule`` on ``cells`` ``(B, H, W)`` uint8 at ``phase``; a new array."""
    check_grid(cells.shape, torus)
    py, px = phase
    n = rule.n_states
    grid = cells.copy()
    if torus:  # move the blocks' corners to (0, 0), step the whole grid, move back
        grid = np.roll(grid, (-py, -px), axis=(1, 2))
        keep = None if present is None else np.roll(np.broadcast_to(present, cells.shape), (-py, -px), axis=(1, 2))
        inner = (slice(None), slice(None), slice(None))
    else:  # only the blocks wholly inside the grid
        height, width = cells.shape[1:]
        rows = slice(py, py + 2 * ((height - py) // 2))
        cols = slice(px, px + 2 * ((width - px) // 2))
        inner = (slice(None), rows, cols)
        keep = None if present is None else np.broadcast_to(present, cells.shape)
    part = grid[inner]
    b, h, w = part.shape
    blocks = part.reshape(b, h // 2, 2, w // 2, 2)
    tl, tr, bl, br = (blocks[:, :, i, :, j].astype(np.int64) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    code = tl + n * tr + n * n * bl + n**3 * br
    new = rule.new_cells()[code]  # (b, h/2, w/2, 4): the new TL, TR, BL, BR
    if keep is not None:
        here = keep[inner].reshape(b, h // 2, 2, w // 2, 2).all(axis=(2, 4))
        new = np.where(here[..., None], new, np.stack([tl, tr, bl, br], axis=-1).astype(np.uint8))
    out = np.empty_like(blocks)
    for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        out[:, :, i, :, j] = new[..., k]
    grid[inner] = out.reshape(b, h, w)
    return np.roll(grid, (py, px), axis=(1, 2)) if torus else grid
