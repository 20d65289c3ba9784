"""Numba kernels for a soup's guard band: which islands reach it, and which block a ship's escape.

:meth:`tensorca.search.soups._Search.clear_band` decides, island by island, whether a spaceship in the
band may leave; these kernels give it the islands of a plane in one pass and test "is everything
else far enough behind" without listing cells on the host.
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit
from ..analysis.labels import flood, island_boxes, live_positions

#: Cells this close (Chebyshev) belong to one island: 2, so that a spaceship whose phase falls into
#: pieces (a lightweight spaceship's lone cell two steps from the rest) is one island, and can leave.
LINK = 2



@njit(cache=True, inline="always")
def _in_band(y: int, x: int, size_y: int, size_x: int, guard: int) -> bool:
    """Cell ``(y, x)`` lies within ``guard`` cells of an edge of a ``(size_y, size_x)`` plane."""
    return y < guard or y >= size_y - guard or x < guard or x >= size_x - guard


@njit(cache=True, inline="always")
def _behind(y: int, x: int, dx: int, dy: int, box: np.ndarray, gap: int) -> bool:
    """Cell ``(y, x)`` lies at least ``gap`` cells behind ``box`` ``(top, left, bottom, right)``
    along an axis a ship moving ``(dx, dy)`` moves on."""
    return ((dx < 0 and x > box[3] + gap) or (dx > 0 and x < box[1] - gap)
            or (dy < 0 and y > box[2] + gap) or (dy > 0 and y < box[0] - gap))

@njit(cache=True)
def band_islands(plane: np.ndarray, guard: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The islands of ``plane`` ``(S, S)`` uint8 (cells chained by Chebyshev steps of at most
    :data:`LINK`) and those that reach its guard band.

    Returns ``(labels, boxes, counts, in_band, positions)``: ``labels`` ``(S, S)`` int32 as
    :func:`tensorca.analysis.labels.label_islands` numbers them (1..n); ``boxes`` ``(n, 4)`` int64
    rows ``(top, left, bottom, right)`` inclusive; ``counts`` ``(n,)`` int64 live cells; ``in_band``
    the labels with a live cell within ``guard`` cells of an edge, in raster order of each one's
    first such cell; ``positions`` the live cells' flat positions in raster order."""
    labels, boxes, n, positions = island_boxes(plane, LINK)
    size_y, size_x = plane.shape
    counts = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n + 1, dtype=np.bool_)
    in_band = np.empty(n, dtype=np.int64)
    m = 0
    for p in positions:
        y = p // size_x
        x = p % size_x
        label = labels[y, x]
        counts[label - 1] += 1
        if _in_band(y, x, size_y, size_x, guard) and not seen[label]:
            seen[label] = True
            in_band[m] = label
            m += 1
    return labels, boxes, counts, in_band[:m], positions


@njit(cache=True)
def blocking_islands(labels: np.ndarray, positions: np.ndarray, alive: np.ndarray, own: int, dx: int, dy: int,
                     box: np.ndarray, gap: int) -> np.ndarray:
    """The islands that stand in the way of island ``own`` (a spaceship moving ``(dx, dy)`` per
    period, inside ``box`` ``(top, left, bottom, right)``): the live labels (``alive`` ``(n + 1,)``
    bool, by label) other than ``own`` with some cell *not* at least ``gap`` cells behind the ship
    along an axis it moves on. ``positions``: the live cells' flat positions. Returns the labels,
    ``(k,)`` int64, in increasing order."""
    n = alive.shape[0] - 1
    blocks = np.zeros(n + 1, dtype=np.bool_)
    width = labels.shape[1]
    for p in positions:
        y = p // width
        x = p % width
        label = labels[y, x]
        if label == own or not alive[label] or blocks[label]:
            continue
        if not _behind(y, x, dx, dy, box, gap):
            blocks[label] = True
    return np.flatnonzero(blocks)


@njit(cache=True)
def alive_box(boxes: np.ndarray, alive: np.ndarray) -> tuple[int, int, int, int]:
    """``(top, left, bottom, right)`` (inclusive) around the boxes ``(n, 4)`` of the islands whose
    label is ``alive`` (``(n + 1,)`` bool, by label); ``bottom < 0`` when none is."""
    top, left, bottom, right = 1 << 62, 1 << 62, -1, -1
    for g in range(boxes.shape[0]):
        if alive[g + 1]:
            top = min(top, boxes[g, 0])
            left = min(left, boxes[g, 1])
            bottom = max(bottom, boxes[g, 2])
            right = max(right, boxes[g, 3])
    return top, left, bottom, right


def scan_planes(cells: np.ndarray, guard: int) -> tuple[np.ndarray, np.ndarray]:
    """Per plane of ``cells`` ``(B, H, W)`` uint8 (0/1): its population ``(B,)`` int64 and whether a
    live cell lies within ``guard`` cells of an edge ``(B,)`` bool."""
    if HAVE_NUMBA:
        return _scan_planes(cells, guard)
    pops = np.count_nonzero(cells, axis=(1, 2)).astype(np.int64)
    band = (cells[:, :guard].any(axis=(1, 2)) | cells[:, -guard:].any(axis=(1, 2))
            | cells[:, :, :guard].any(axis=(1, 2)) | cells[:, :, -guard:].any(axis=(1, 2)))
    return pops, band


@njit(cache=True)
def _scan_planes(cells: np.ndarray, guard: int) -> tuple[np.ndarray, np.ndarray]:
    """Per plane of ``cells`` ``(B, H, W)`` uint8 (0/1): its population ``(B,)`` int64 and whether a
    live cell lies within ``guard`` cells of an edge ``(B,)`` bool, read eight cells at a time
    (numpy's ``count_nonzero`` over axes made a bool copy of the batch first)."""
    count, height, width = cells.shape
    pops = np.zeros(count, dtype=np.int64)
    band = np.zeros(count, dtype=np.bool_)
    spread = np.uint64(0x0101010101010101)
    top = np.uint64(56)
    for b in range(count):
        plane = np.ascontiguousarray(cells[b]).reshape(-1)
        words = plane[: plane.size // 8 * 8].view(np.uint64)
        total = 0
        for i in range(words.size):
            if words[i] != 0:
                total += int((words[i] * spread) >> top)  # the byte sum: eight 0/1 cells
        for j in range(words.size * 8, plane.size):
            total += plane[j]
        pops[b] = total
        if total == 0:
            continue
        edge = False
        for y in range(height):
            row = cells[b, y]
            if y < guard or y >= height - guard:
                for x in range(width):
                    if row[x] != 0:
                        edge = True
                        break
            else:
                for x in range(guard):
                    if row[x] != 0 or row[width - 1 - x] != 0:
                        edge = True
                        break
            if edge:
                break
        band[b] = edge
    return pops, band


@njit(cache=True)
def lone_band_island(plane: np.ndarray, guard: int, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The island (cells chained within :data:`LINK`) of the first live cell in the guard band of
    ``plane`` ``(S, S)`` uint8, when it is the only island there and has at most ``limit`` cells.

    Returns ``(positions, mark, box, count)``: the live cells' flat positions, ``mark`` ``(S, S)``
    uint8 (1 on the island's cells), its ``box`` ``(top, left, bottom, right)`` and its cell count;
    ``count`` is 0 when no live cell is in the band and -1 when the island is larger than ``limit``
    or another island reaches the band too (then ``mark`` is partial)."""
    size_y, size_x = plane.shape
    positions = live_positions(plane)
    mark = np.zeros((size_y, size_x), dtype=np.uint8)
    box = np.empty(4, dtype=np.int64)
    start = -1
    for p in positions:
        y = p // size_x
        x = p % size_x
        if _in_band(y, x, size_y, size_x, guard):
            start = p
            break
    if start < 0:
        return positions, mark, box, 0
    queue = np.empty(limit, dtype=np.int64)
    count = flood(plane, mark, queue, start, LINK, 1, limit)
    if count < 0:
        return positions, mark, box, -1
    box[0] = box[1] = 1 << 62
    box[2] = box[3] = -1
    for k in range(count):
        y = queue[k] // size_x
        x = queue[k] % size_x
        box[0] = min(box[0], y)
        box[1] = min(box[1], x)
        box[2] = max(box[2], y)
        box[3] = max(box[3], x)
    for p in positions:  # every live cell in the band must be the island's
        y = p // size_x
        x = p % size_x
        if _in_band(y, x, size_y, size_x, guard) and mark[y, x] == 0:
            return positions, mark, box, -1
    return positions, mark, box, count


@njit(cache=True)
def clear_behind(plane: np.ndarray, positions: np.ndarray, mark: np.ndarray, dx: int, dy: int,
                 box: np.ndarray, gap: int) -> tuple[bool, int, int, int, int]:
    """If every live cell of ``plane`` off ``mark`` lies at least ``gap`` cells behind ``box`` along
    an axis of ``(dx, dy)`` (the rule of :func:`blocking_islands` with no island in the way), erase
    the marked cells and return ``(True, top, left, bottom, right)`` of what is left (``bottom < 0``
    when nothing is); else ``(False, ...)`` and nothing changes."""
    width = plane.shape[1]
    top, left, bottom, right = 1 << 62, 1 << 62, -1, -1
    for p in positions:
        y = p // width
        x = p % width
        if mark[y, x] != 0:
            continue
        if not _behind(y, x, dx, dy, box, gap):
            return False, 0, 0, -1, -1
        top = min(top, y)
        left = min(left, x)
        bottom = max(bottom, y)
        right = max(right, x)
    for y in range(box[0], box[2] + 1):
        for x in range(box[1], box[3] + 1):
            if mark[y, x] != 0:
                plane[y, x] = 0
    return True, top, left, bottom, right


__all__ = ["LINK", "alive_box", "band_islands", "blocking_islands", "clear_behind", "lone_band_island",
           "scan_planes"]
