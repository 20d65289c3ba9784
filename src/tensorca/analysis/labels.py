"""Numba kernels over small cell grids for object separation: connected islands and nearest groups."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def label_islands(cells: np.ndarray, link: int) -> tuple[np.ndarray, int]:
    """Islands of the live cells of ``cells`` ``(H, W)`` uint8: live cells chained by Chebyshev steps
    of at most ``link``. Returns ``(labels, n)``: ``labels`` ``(H, W)`` int32, 0 for dead cells and
    ``1..n`` numbered in raster order of each island's first cell."""
    h, w = cells.shape
    labels = np.zeros((h, w), dtype=np.int32)
    stack = np.empty(h * w, dtype=np.int64)
    n = 0
    for y0 in range(h):
        for x0 in range(w):
            if cells[y0, x0] == 0 or labels[y0, x0] != 0:
                continue
            n += 1
            labels[y0, x0] = n
            top = 0
            stack[top] = y0 * w + x0
            top += 1
            while top > 0:
                top -= 1
                y = stack[top] // w
                x = stack[top] % w
                for yy in range(max(0, y - link), min(h, y + link + 1)):
                    for xx in range(max(0, x - link), min(w, x + link + 1)):
                        if cells[yy, xx] != 0 and labels[yy, xx] == 0:
                            labels[yy, xx] = n
                            stack[top] = yy * w + xx
                            top += 1
    return labels, n


@njit(cache=True)
def nearest_group(groups: np.ndarray, ys: np.ndarray, xs: np.ndarray, own: int, limit: int) -> int:
    """The group nearest to the cells ``(ys, xs)`` of group ``own`` within Chebyshev ``limit``.

    ``groups`` ``(H, W)`` int32: each live cell's group rank + 1 (0 for dead cells). Returns the
    rank of the nearest other group (the lowest rank among those at the least distance), or -1
    when none lies within ``limit``.
    """
    h, w = groups.shape
    for d in range(1, limit + 1):
        best = -1
        for k in range(ys.shape[0]):
            y = ys[k]
            x = xs[k]
            for yy in range(max(0, y - d), min(h, y + d + 1)):
                ring = yy == y - d or yy == y + d
                step = 1 if ring else 2 * d
                xx = x - d
                while xx <= x + d:
                    if 0 <= xx < w:
                        g = groups[yy, xx] - 1
                        if g >= 0 and g != own and (best < 0 or g < best):
                            best = g
                    xx += step
        if best >= 0:
            return best
    return -1


__all__ = ["label_islands", "nearest_group"]
