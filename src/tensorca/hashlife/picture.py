"""Downsampled pictures straight from the tree: a pixel is alive when any cell below it is.

With pixels of ``2**shift`` cells aligned on the root's corner, every node of level <= ``shift``
lies inside one pixel, so the walk stops there: the cost follows the picture's pixels and the
tree's depth, never the cells (a 2**40-wide breeder draws as fast as a glider).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from .tree import EMPTY, LEAF_LEVEL, LEVEL


@njit(cache=True)
def paint_pooled(nodes, meta, root: int, out: np.ndarray, y0: int, x0: int, shift: int) -> None:
    """Set ``out[i, j] = 1`` (``(h, w)`` uint8) when root-local cells ``[y0 + i*f, y0 + (i+1)*f) x
    [x0 + j*f, x0 + (j+1)*f)`` (``f = 2**shift``; ``y0``, ``x0`` multiples of ``f``) hold a live
    cell. Depth-first on an explicit stack (Numba cannot reload cached recursive functions)."""
    h, w = out.shape
    f = np.int64(1) << shift
    stack = np.empty((4 * 64, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = root, 0, 0
    sp = 1
    while sp > 0:
        sp -= 1
        n, ny, nx = stack[sp, 0], stack[sp, 1], stack[sp, 2]
        k = nodes[n, LEVEL]
        size = np.int64(1) << k
        if n == meta[EMPTY + k] or ny >= y0 + h * f or nx >= x0 + w * f or ny + size <= y0 or nx + size <= x0:
            continue
        if k <= shift:
            out[(ny - y0) >> shift, (nx - x0) >> shift] = 1
            continue
        if k == LEAF_LEVEL:  # shift < 3: the leaf's cells, pooled
            for q in range(4):
                word = nodes[n, q]
                for r in range(4):
                    for c in range(4):
                        if (word >> (15 - 4 * r - c)) & 1:
                            y = ny + 4 * (q >> 1) + r - y0
                            x = nx + 4 * (q & 1) + c - x0
                            if 0 <= y < h * f and 0 <= x < w * f:
                                out[y >> shift, x >> shift] = 1
            continue
        half = size >> 1
        for q in range(4):
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = nodes[n, q], ny + (q >> 1) * half, nx + (q & 1) * half
            sp += 1


def picture(nodes: np.ndarray, meta: np.ndarray, root: int, box: tuple[int, int, int, int],
            max_px: int) -> tuple[np.ndarray, int]:
    """``(pixels, shift)``: the root-local ``box`` ``(x, y, w, h)`` drawn with the smallest pixel
    size ``2**shift`` that keeps both sides within ``max_px`` (pixels aligned on the root)."""
    x, y, w, h = box
    shift = 0
    while True:
        pw = ((x + w - 1) >> shift) - (x >> shift) + 1
        ph = ((y + h - 1) >> shift) - (y >> shift) + 1
        if max(pw, ph) <= max_px or shift >= 62:
            break
        shift += 1
    out = np.zeros((ph, pw), np.uint8)
    paint_pooled(nodes, meta, root, out, (y >> shift) << shift, (x >> shift) << shift, shift)
    return out, shift
