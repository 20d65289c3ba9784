"""The one bounding box and crop of state arrays, shared by patterns, files, the unbounded plane
and analysis (each used to carry its own copy)."""

from __future__ import annotations

import numpy as np

Box = tuple[int, int, int, int]
"""``(y0, y1, x0, x1)``: half-open row and column bounds."""


def bounding_box(cells: np.ndarray) -> Box | None:
    """``(y0, y1, x0, x1)`` (half-open) of the non-zero cells of ``(H, W)`` or ``(B, H, W)``
    states (over every grid of a batch), or None when every cell is 0."""
    cells = np.asarray(cells)
    occupied = cells.any(axis=0) if cells.ndim == 3 else cells != 0
    rows = np.flatnonzero(occupied.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(occupied.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def crop(
    cells: np.ndarray, origin: tuple[int, int] = (0, 0), *, copy: bool = False
) -> tuple[np.ndarray, tuple[int, int]]:
    """``cells`` (``(H, W)`` or ``(B, H, W)``) cut to the bounding box of its non-zero cells.

    ``origin`` is ``(x, y)`` of ``cells[..., 0, 0]``; the new origin is returned with the crop.
    All-zero input gives an ``(..., 0, 0)`` array at the same origin. ``copy=True`` returns a
    fresh array instead of a view.
    """
    box = bounding_box(cells)
    if box is None:
        out = cells[..., :0, :0]
        return (out.copy() if copy else out), origin
    y0, y1, x0, x1 = box
    out = cells[..., y0:y1, x0:x1]
    return (out.copy() if copy else out), (origin[0] + x0, origin[1] + y0)
