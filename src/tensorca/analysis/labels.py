"""Numba kernels over small cell grids for object separation: connected islands, nearest groups,
and one generation of a small two-state pattern."""

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




@njit(cache=True)
def table_step_cropped(cells: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, int, int]:
    """One generation of a two-state 3x3 ``table`` (``(512,)`` uint8, 9-bit index, NW most
    significant) on the unbounded plane around ``cells`` ``(H, W)`` uint8, cropped.

    Returns ``(out, y0, x0)``: the live cells' bounding box of the ``(H + 2, W + 2)`` result (whose
    ``[0, 0]`` lies one cell up and left of ``cells[0, 0]``) and its corner in that frame; an
    empty ``(0, 0)`` array at ``(0, 0)`` when nothing lives.
    """
    h, w = cells.shape
    out = np.zeros((h + 2, w + 2), dtype=np.uint8)
    y0, y1, x0, x1 = h + 2, -1, w + 2, -1
    for y in range(h + 2):
        for x in range(w + 2):
            index = 0
            for dy in range(3):
                yy = y + dy - 2
                for dx in range(3):
                    xx = x + dx - 2
                    index <<= 1
                    if 0 <= yy < h and 0 <= xx < w and cells[yy, xx] == 1:
                        index |= 1
            if table[index]:
                out[y, x] = 1
                y0 = min(y0, y)
                y1 = max(y1, y)
                x0 = min(x0, x)
                x1 = max(x1, x)
    if y1 < 0:
        return np.zeros((0, 0), dtype=np.uint8), 0, 0
    return out[y0 : y1 + 1, x0 : x1 + 1].copy(), y0, x0


@njit(cache=True)
def live_cells(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ys, xs)`` int64 of the non-zero cells of ``cells`` ``(H, W)`` uint8 in raster order (as
    ``np.nonzero``, several times faster on sparse planes)."""
    h, w = cells.shape
    count = 0
    for y in range(h):
        for x in range(w):
            if cells[y, x] != 0:
                count += 1
    ys = np.empty(count, dtype=np.int64)
    xs = np.empty(count, dtype=np.int64)
    k = 0
    for y in range(h):
        for x in range(w):
            if cells[y, x] != 0:
                ys[k] = y
                xs[k] = x
                k += 1
    return ys, xs


@njit(cache=True)
def group_crops(coords: np.ndarray, values: np.ndarray, ranks: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each group's cells cut to its bounding box, all in one buffer.

    ``coords`` ``(N, 2)`` int64 ``(y, x)``, ``values`` ``(N,)`` uint8, ``ranks`` ``(N,)`` the group
    ``0..n-1`` of each cell. Returns ``(buffer, boxes)``: ``boxes`` ``(n, 4)`` int64 rows ``(top,
    left, height, width)``, and group ``i``'s ``(height, width)`` uint8 crop stored row-major in
    ``buffer`` after those of groups ``0..i-1``.
    """
    boxes = np.empty((n, 4), dtype=np.int64)
    bottom = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    for i in range(n):
        boxes[i, 0] = boxes[i, 1] = np.iinfo(np.int64).max
        bottom[i] = right[i] = np.iinfo(np.int64).min
    for k in range(coords.shape[0]):
        g = ranks[k]
        boxes[g, 0] = min(boxes[g, 0], coords[k, 0])
        boxes[g, 1] = min(boxes[g, 1], coords[k, 1])
        bottom[g] = max(bottom[g], coords[k, 0])
        right[g] = max(right[g], coords[k, 1])
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    for i in range(n):
        boxes[i, 2] = bottom[i] - boxes[i, 0] + 1
        boxes[i, 3] = right[i] - boxes[i, 1] + 1
        offsets[i + 1] = offsets[i] + boxes[i, 2] * boxes[i, 3]
    buffer = np.zeros(offsets[n], dtype=np.uint8)
    for k in range(coords.shape[0]):
        g = ranks[k]
        buffer[offsets[g] + (coords[k, 0] - boxes[g, 0]) * boxes[g, 3] + coords[k, 1] - boxes[g, 1]] = values[k]
    return buffer, boxes


__all__ = ["group_crops", "label_islands", "live_cells", "nearest_group", "table_step_cropped"]
