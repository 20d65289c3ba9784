"""Numba kernels over small cell grids for object separation: connected islands, nearest groups,
and one generation of a small two-state pattern."""

from __future__ import annotations

import numpy as np

from .._jit import njit

#: :func:`live_positions` sizes its output for every cell up to this many cells (one pass), and
#: counts the live cells first above it.
ROOM_FOR_ALL = 1 << 20


@njit(cache=True)
def live_positions(cells: np.ndarray) -> np.ndarray:
    """Flat raster positions ``y * W + x`` (int64) of the non-zero cells of ``cells`` ``(H, W)``
    uint8, read eight cells at a time (soup planes are mostly empty)."""
    flat = np.ascontiguousarray(cells).reshape(-1)
    words = flat[: flat.size // 8 * 8].view(np.uint64)
    room = flat.size
    if room > ROOM_FOR_ALL:  # a big grid: count first rather than hold 8 bytes for every cell
        room = 0
        for i in range(words.size):
            if words[i] != 0:
                for j in range(8 * i, 8 * i + 8):
                    room += flat[j] != 0
        for j in range(words.size * 8, flat.size):
            room += flat[j] != 0
    out = np.empty(room, dtype=np.int64)  # small planes: one pass into room for every cell, then cut
    k = 0
    for i in range(words.size):
        if words[i] != 0:
            for j in range(8 * i, 8 * i + 8):
                if flat[j] != 0:
                    out[k] = j
                    k += 1
    for j in range(words.size * 8, flat.size):
        if flat[j] != 0:
            out[k] = j
            k += 1
    return out[:k].copy()


@njit(cache=True)
def flood(cells: np.ndarray, labels: np.ndarray, queue: np.ndarray, start: int, link: int, value: int,
          limit: int) -> int:
    """Give ``value`` in ``labels`` (same shape as ``cells``, 0 = not yet) to the island of the live
    cell at flat position ``start``: live cells chained by Chebyshev steps of at most ``link``.

    ``queue`` (room for ``limit`` positions) holds the island's flat positions when it returns their
    count; -1 when the island has more than ``limit`` cells (then it is labelled only in part)."""
    h, w = cells.shape
    labels[start // w, start % w] = value
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        y = queue[head] // w
        x = queue[head] % w
        head += 1
        for yy in range(max(0, y - link), min(h, y + link + 1)):
            for xx in range(max(0, x - link), min(w, x + link + 1)):
                if cells[yy, xx] != 0 and labels[yy, xx] == 0:
                    if tail == limit:
                        return -1
                    labels[yy, xx] = value
                    queue[tail] = yy * w + xx
                    tail += 1
    return tail


@njit(cache=True)
def label_live(cells: np.ndarray, link: int) -> tuple[np.ndarray, int, np.ndarray]:
    """:func:`label_islands` that also returns the live cells' flat positions (raster order):
    ``(labels, n, positions)``; the work is proportional to the live cells, not the area."""
    h, w = cells.shape
    positions = live_positions(cells)
    labels = np.zeros((h, w), dtype=np.int32)
    queue = np.empty(max(1, positions.size), dtype=np.int64)  # a cell is queued once, when it is labelled
    n = 0
    for p in positions:
        if labels[p // w, p % w] == 0:
            n += 1
            flood(cells, labels, queue, p, link, n, queue.size)
    return labels, n, positions


@njit(cache=True)
def label_islands(cells: np.ndarray, link: int) -> tuple[np.ndarray, int]:
    """Islands of the live cells of ``cells`` ``(H, W)`` uint8: live cells chained by Chebyshev steps
    of at most ``link``. Returns ``(labels, n)``: ``labels`` ``(H, W)`` int32, 0 for dead cells and
    ``1..n`` numbered in raster order of each island's first cell."""
    labels, n, _ = label_live(cells, link)
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
    padded = np.zeros((h + 4, w + 4), dtype=np.int64)  # two dead cells around: no bounds checks below
    for y in range(h):
        for x in range(w):
            padded[y + 2, x + 2] = cells[y, x] == 1
    out = np.zeros((h + 2, w + 2), dtype=np.uint8)
    y0, y1, x0, x1 = h + 2, -1, w + 2, -1
    for y in range(h + 2):
        top = padded[y]
        mid = padded[y + 1]
        bottom = padded[y + 2]
        # the three rows' 3-cell windows slide along x: one new column per cell
        a = (top[0] << 1) | top[1]
        b = (mid[0] << 1) | mid[1]
        c = (bottom[0] << 1) | bottom[1]
        for x in range(w + 2):
            a = ((a << 1) | top[x + 2]) & 7
            b = ((b << 1) | mid[x + 2]) & 7
            c = ((c << 1) | bottom[x + 2]) & 7
            if table[(a << 6) | (b << 3) | c]:
                out[y, x] = 1
                y0 = min(y0, y)
                y1 = max(y1, y)
                x0 = min(x0, x)
                x1 = max(x1, x)
    if y1 < 0:
        return np.zeros((0, 0), dtype=np.uint8), 0, 0
    return out[y0 : y1 + 1, x0 : x1 + 1].copy(), y0, x0


@njit(cache=True)
def table_period(cells: np.ndarray, table: np.ndarray, max_period: int) -> tuple[int, int, int]:
    """The first generation ``1..max_period`` at which ``cells`` ``(H, W)`` uint8 (cropped, two
    states) recurs under the 3x3 ``table`` (as :func:`table_step_cropped`), up to a shift.

    Returns ``(period, dx, dy)``, the shift of the cropped box; ``(0, 0, 0)`` when the pattern dies
    or does not recur within ``max_period`` generations."""
    state = cells
    x, y = 0, 0
    for gen in range(1, max_period + 1):
        state, y0, x0 = table_step_cropped(state, table)
        if state.shape[0] == 0:
            return 0, 0, 0
        x += x0 - 1
        y += y0 - 1
        if state.shape[0] == cells.shape[0] and state.shape[1] == cells.shape[1] and np.array_equal(state, cells):
            return gen, x, y
    return 0, 0, 0


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


@njit(cache=True)
def island_boxes(cells: np.ndarray, link: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """The islands of ``cells`` ``(H, W)`` uint8 (cells chained by Chebyshev steps of at most
    ``link``: 1 for 8-connected) and their boxes.

    Returns ``(labels, boxes, n, positions)``: ``labels`` as :func:`label_islands` (raster order of
    each island's first cell), ``boxes`` ``(n, 4)`` int64 rows ``(top, left, bottom, right)``,
    inclusive, and the live cells' flat positions as :func:`live_positions`."""
    labels, n, positions = label_live(cells, link)
    h, w = cells.shape
    boxes = np.empty((n, 4), dtype=np.int64)
    for i in range(n):
        boxes[i, 0] = h
        boxes[i, 1] = w
        boxes[i, 2] = -1
        boxes[i, 3] = -1
    for p in positions:
        y = p // w
        x = p % w
        g = labels[y, x] - 1
        boxes[g, 0] = min(boxes[g, 0], y)
        boxes[g, 1] = min(boxes[g, 1], x)
        boxes[g, 2] = max(boxes[g, 2], y)
        boxes[g, 3] = max(boxes[g, 3], x)
    return labels, boxes, n, positions


@njit(cache=True)
def island_crops(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each 8-connected island of ``cells`` ``(H, W)`` uint8 cut to its bounding box (its own
    cells only, states kept), islands in raster order of their first cell: ``(buffer, boxes)``
    as :func:`group_crops` returns them (``boxes`` rows ``(top, left, height, width)``)."""
    labels, corners, n, positions = island_boxes(cells, 1)
    boxes = np.empty((n, 4), dtype=np.int64)
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    for i in range(n):
        boxes[i, 0] = corners[i, 0]
        boxes[i, 1] = corners[i, 1]
        boxes[i, 2] = corners[i, 2] - corners[i, 0] + 1
        boxes[i, 3] = corners[i, 3] - corners[i, 1] + 1
        offsets[i + 1] = offsets[i] + boxes[i, 2] * boxes[i, 3]
    buffer = np.zeros(offsets[n], dtype=np.uint8)
    w = cells.shape[1]
    for p in positions:
        y = p // w
        x = p % w
        g = labels[y, x] - 1
        buffer[offsets[g] + (y - boxes[g, 0]) * boxes[g, 3] + x - boxes[g, 1]] = cells[y, x]
    return buffer, boxes


@njit(cache=True)
def close_pairs(boxes: np.ndarray, usable: np.ndarray, near: int) -> np.ndarray:
    """Pairs ``(i, j)``, ``i < j`` in row-major order, of boxes that come within ``near`` cells.

    ``boxes`` ``(n, 4)`` int64 rows ``(x0, y0, x1, y1)`` with exclusive ends; ``usable`` ``(n,)``
    bool: boxes that may pair at all. Returns ``(m, 2)`` int64."""
    n = boxes.shape[0]
    out = np.empty((max(1, n * (n - 1) // 2), 2), dtype=np.int64)
    m = 0
    for i in range(n):
        if not usable[i]:
            continue
        for j in range(i + 1, n):
            if (usable[j] and boxes[i, 0] - near < boxes[j, 2] and boxes[j, 0] - near < boxes[i, 2]
                    and boxes[i, 1] - near < boxes[j, 3] and boxes[j, 1] - near < boxes[i, 3]):
                out[m, 0] = i
                out[m, 1] = j
                m += 1
    return out[:m]


__all__ = ["close_pairs", "flood", "group_crops", "island_boxes", "island_crops", "label_islands", "label_live",
           "live_positions", "nearest_group", "table_period", "table_step_cropped"]
