"""The fast CPU path for block rules: a Numba kernel that runs every generation in one call.

Blocks are disjoint, so each step updates the grid in place: a block reads its four cells, forms
its code (``TL + n*TR + n**2*BL + n**3*BR``), and writes the four cells of ``rule.new_cells()``
back. On large grids rows of blocks (over the whole batch) are spread over threads with
``prange`` (:data:`PARALLEL_CELLS`); the generation loop stays inside the kernel, so a run is one
call whatever its length. Semantics are
:mod:`tensorca.margolus.reference`'s, edge for edge.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .reference import check_grid
from .rules import BlockRule

__all__ = ["PARALLEL_CELLS", "advance_numba"]

#: Grids (all of the batch) from this many cells run rows of blocks on several threads; smaller ones
#: run on one, where a barrier per generation would cost more than it saves (and a busy machine
#: can stall every barrier for a scheduler tick).
PARALLEL_CELLS = 1 << 20


@njit(cache=True, parallel=True, nogil=True)
def _advance(grid, new_cells, n, py, px, torus, present, masked, steps):  # pragma: no cover - compiled
    batch, height, width = grid.shape
    masks = present.shape[0]
    for s in range(steps):
        qy = py ^ (s & 1)
        qx = px ^ (s & 1)
        if torus:
            rows = height // 2
            cols = width // 2
        else:
            rows = (height - qy) // 2
            cols = (width - qx) // 2
        for t in prange(batch * rows):
            b = t // rows
            y0 = qy + 2 * (t % rows)
            y1 = y0 + 1
            if y1 == height:
                y1 = 0
            m = b % masks
            for j in range(cols):
                x0 = qx + 2 * j
                x1 = x0 + 1
                if x1 == width:
                    x1 = 0
                if masked:
                    if not (present[m, y0, x0] and present[m, y0, x1] and present[m, y1, x0] and present[m, y1, x1]):
                        continue
                code = grid[b, y0, x0] + n * (grid[b, y0, x1] + n * (grid[b, y1, x0] + n * np.int32(grid[b, y1, x1])))
                grid[b, y0, x0] = new_cells[code, 0]
                grid[b, y0, x1] = new_cells[code, 1]
                grid[b, y1, x0] = new_cells[code, 2]
                grid[b, y1, x1] = new_cells[code, 3]


@njit(cache=True, nogil=True)
def _advance_serial(grid, new_cells, n, py, px, torus, present, masked, steps):  # pragma: no cover - compiled
    batch, height, width = grid.shape
    masks = present.shape[0]
    for s in range(steps):
        qy = py ^ (s & 1)
        qx = px ^ (s & 1)
        if torus:
            rows = height // 2
            cols = width // 2
        else:
            rows = (height - qy) // 2
            cols = (width - qx) // 2
        for t in range(batch * rows):
            b = t // rows
            y0 = qy + 2 * (t % rows)
            y1 = y0 + 1
            if y1 == height:
                y1 = 0
            m = b % masks
            for j in range(cols):
                x0 = qx + 2 * j
                x1 = x0 + 1
                if x1 == width:
                    x1 = 0
                if masked:
                    if not (present[m, y0, x0] and present[m, y0, x1] and present[m, y1, x0] and present[m, y1, x1]):
                        continue
                code = grid[b, y0, x0] + n * (grid[b, y0, x1] + n * (grid[b, y1, x0] + n * np.int32(grid[b, y1, x1])))
                grid[b, y0, x0] = new_cells[code, 0]
                grid[b, y0, x1] = new_cells[code, 1]
                grid[b, y1, x0] = new_cells[code, 2]
                grid[b, y1, x1] = new_cells[code, 3]


def advance_numba(cells: np.ndarray, rule: BlockRule, generations: int, phase: tuple[int, int], torus: bool,
                  present: np.ndarray | None = None) -> np.ndarray:
    """``generations`` steps of ``rule`` on ``cells`` ``(B, H, W)`` uint8 from ``phase``; a new array.
    ``present``: ``None`` or bool, broadcastable to ``(B, H, W)`` (one mask for all, or one per grid)."""
    check_grid(cells.shape, torus)
    grid = np.ascontiguousarray(cells, dtype=np.uint8).copy()
    if present is None:
        mask, masked = np.ones((1, 1, 1), dtype=np.bool_), False
    else:
        mask = np.asarray(present, dtype=np.bool_)
        mask = np.array(np.broadcast_to(mask, (mask.shape[0] if mask.ndim == 3 else 1, *cells.shape[1:])), order="C")
        masked = True
    kernel = _advance if grid.size >= PARALLEL_CELLS else _advance_serial
    kernel(grid, rule.new_cells(), np.int32(rule.n_states), np.int32(phase[0]), np.int32(phase[1]), bool(torus),
             mask, masked, np.int64(generations))
    return grid
