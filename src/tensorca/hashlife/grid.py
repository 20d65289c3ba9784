"""Between cells and trees: build a tree from live cells, paint a window, find the extent.

Coordinates here are relative to the root's top-left corner, in int64 (a root has at most
level 62). Rows are ``y`` (down), columns ``x`` (right), as in ``cells[y, x]``.
"""

from __future__ import annotations

import functools

import numpy as np

from .._numba import njit
from .tree import EMPTY, LEAF_LEVEL, LEVEL, find_node


@njit(cache=True)
def _leaves(nodes, table, meta, ys: np.ndarray, xs: np.ndarray, keys: np.ndarray, order: np.ndarray):
    """Leaves of live cells ``(ys, xs)`` (int64, relative to the root corner) whose 8x8 blocks have
    ``keys`` (``block_y * side + block_x``), visited in key ``order``: ``(keys, nodes)`` sorted by
    key; nodes -1 when the store filled."""
    out_keys = np.empty(keys.shape[0], np.int64)
    out_nodes = np.empty(keys.shape[0], np.int32)
    count, i = 0, 0
    while i < order.shape[0]:
        key = keys[order[i]]
        words = np.zeros(4, np.int64)
        while i < order.shape[0] and keys[order[i]] == key:
            y, x = ys[order[i]] & 7, xs[order[i]] & 7
            words[2 * (y >> 2) + (x >> 2)] |= 1 << (15 - 4 * (y & 3) - (x & 3))
            i += 1
        out_keys[count] = key
        out_nodes[count] = find_node(nodes, table, meta, LEAF_LEVEL, words[0], words[1], words[2], words[3])
        count += 1
    return out_keys[:count], out_nodes[:count]


@njit(cache=True)
def _parents(nodes, table, meta, keys: np.ndarray, kids: np.ndarray, pkeys: np.ndarray, order: np.ndarray,
             side: int, lvl: int):
    """Level-``lvl`` parents of sorted level-``lvl-1`` ``(keys, nodes)`` on a grid ``side``
    wide (``kids``: their node indices; ``pkeys``: their parents' keys on the grid ``side // 2``
    wide, visited in ``order``): ``(keys, nodes)`` of the parents, sorted; missing children are empty."""
    empty = meta[EMPTY + lvl - 1]
    out_keys = np.empty(keys.shape[0], np.int64)
    out_nodes = np.empty(keys.shape[0], np.int32)
    count, i = 0, 0
    while i < order.shape[0]:
        key = pkeys[order[i]]
        q = np.full(4, empty, np.int64)
        while i < order.shape[0] and pkeys[order[i]] == key:
            k = keys[order[i]]
            q[2 * ((k // side) & 1) + ((k % side) & 1)] = kids[order[i]]
            i += 1
        out_keys[count] = key
        out_nodes[count] = find_node(nodes, table, meta, lvl, q[0], q[1], q[2], q[3])
        count += 1
    return out_keys[:count], out_nodes[:count]


def build(nodes, table, meta, ys: np.ndarray, xs: np.ndarray, level: int) -> int:
    """The level-``level`` node (``level`` in 4..34) holding live cells ``(ys, xs)`` (int64,
    ``0 <= y, x < 2**level``); -1 when the store filled. Cost follows the live cells only.

    The keys are sorted by NumPy here, level by level, and the kernels only walk them: Numba's own
    sort cost a second of the first run's compile."""
    if ys.shape[0] == 0:
        return int(meta[EMPTY + level])
    side = 1 << (level - LEAF_LEVEL)
    ys, xs = np.ascontiguousarray(ys, np.int64), np.ascontiguousarray(xs, np.int64)
    keys = (ys >> 3) * side + (xs >> 3)
    keys, ids = _leaves(nodes, table, meta, ys, xs, keys, np.argsort(keys, kind="stable"))
    lvl = LEAF_LEVEL
    while lvl < level:
        if np.any(ids < 0):
            return -1
        lvl += 1
        pkeys = (keys // side >> 1) * (side >> 1) + (keys % side >> 1)
        keys, ids = _parents(nodes, table, meta, keys, ids, pkeys, np.argsort(pkeys, kind="stable"), side, lvl)
        side >>= 1
    return int(ids[0])


@njit(cache=True)
def _paint_leaf(nodes, n: int, ny: int, nx: int, out: np.ndarray, y0: int, x0: int) -> None:
    """Write the live cells of leaf ``n`` (top-left ``(ny, nx)``) into ``out`` (window at (y0, x0))."""
    h, w = out.shape
    for q in range(4):
        word = nodes[n, q]
        if word == 0:
            continue
        for r in range(4):
            for c in range(4):
                if (word >> (15 - 4 * r - c)) & 1:
                    y = ny + 4 * (q >> 1) + r - y0
                    x = nx + 4 * (q & 1) + c - x0
                    if 0 <= y < h and 0 <= x < w:
                        out[y, x] = 1


@njit(cache=True)
def paint(nodes, meta, root: int, out: np.ndarray, y0: int, x0: int) -> None:
    """Write the live cells of ``root`` (corner at (0, 0)) that fall in the window ``out``
    (``(h, w)`` uint8, top-left ``(y0, x0)``) as 1; empty nodes and nodes outside are skipped.
    Depth-first on an explicit stack (Numba cannot reload cached recursive functions)."""
    h, w = out.shape
    stack = np.empty((4 * 64, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = root, 0, 0
    sp = 1
    while sp > 0:
        sp -= 1
        n, ny, nx = stack[sp, 0], stack[sp, 1], stack[sp, 2]
        size = np.int64(1) << nodes[n, LEVEL]
        if n == meta[EMPTY + nodes[n, LEVEL]] or ny >= y0 + h or nx >= x0 + w or ny + size <= y0 or nx + size <= x0:
            continue
        if nodes[n, LEVEL] == LEAF_LEVEL:
            _paint_leaf(nodes, n, ny, nx, out, y0, x0)
            continue
        half = size >> 1
        for q in range(4):
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = nodes[n, q], ny + (q >> 1) * half, nx + (q & 1) * half
            sp += 1


@functools.cache
def _leaf_lines() -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, ``(65536,)`` int64: the rows / columns (0..3) of 4x4 word ``w`` that hold a
    live cell, as bit masks (made on the first bounding box, not at import)."""
    words = np.arange(65536, dtype=np.int64)
    rows, cols = np.zeros(65536, np.int64), np.zeros(65536, np.int64)
    for r in range(4):
        for c in range(4):
            on = ((words >> (15 - 4 * r - c)) & 1).astype(bool)
            rows[on] |= 1 << r
            cols[on] |= 1 << c
    return rows, cols


def _edge(nodes: np.ndarray, meta: np.ndarray, root: int, side: int) -> int:
    """Extent of non-empty ``root`` towards ``side`` (0: min y, 1: max y, 2: min x, 3: max x)
    relative to its corner. Level by level, the frontier is the distinct non-empty nodes of the
    grid row (or column) nearest that side: only they can hold the extreme cell. NumPy over the
    frontier, level by level (no compile: the frontier of a level is small)."""
    towards_max = side % 2 == 1
    vertical = side < 2
    front = np.array([root], np.int64)
    off = 0
    for k in range(int(nodes[root, LEVEL]), LEAF_LEVEL, -1):
        empty = int(meta[EMPTY + k - 1])
        for far in range(2):
            bit = 1 if towards_max != (far == 1) else 0  # which half of the axis this pass takes
            quadrants = [q for q in range(4) if ((q >> 1) if vertical else (q & 1)) == bit]
            kids = nodes[front][:, quadrants].ravel()
            kids = kids[kids != empty]
            # distinct nodes only (a tree shares subtrees); a set is cheaper than np.unique's sort
            # for the small frontiers of most patterns
            kids = np.fromiter(set(kids.tolist()), np.int64) if kids.size < 4096 else np.unique(kids.astype(np.int64))
            if kids.size:
                off += bit << (k - 1)
                front = kids
                break
    # Leaves: four 4x4 words each (nw, ne, sw, se); the extreme row or column among the live cells.
    words = nodes[front, :4].astype(np.int64)
    lines = _leaf_lines()[0 if vertical else 1][words]  # (n, 4) masks of rows/cols 0..3 per word
    best = -1
    for q in range(4):
        low = 4 * ((q >> 1) if vertical else (q & 1))  # the word's first row (column) in the leaf
        for line in (range(3, -1, -1) if towards_max else range(4)):
            if np.any(lines[:, q] & (1 << line)):
                v = low + line
                if best < 0 or (v > best if towards_max else v < best):
                    best = v
                break
    return off + best


def extent(nodes: np.ndarray, meta: np.ndarray, seen: np.ndarray, root: int) -> tuple[int, int, int, int]:
    """``(min_y, max_y, min_x, max_x)`` (inclusive, relative to the root's corner) of the live
    cells, or all -1 when the root is empty. ``seen`` is unused (kept for the callers' signature)."""
    if root == meta[EMPTY + nodes[root, LEVEL]]:
        return -1, -1, -1, -1
    return (_edge(nodes, meta, root, 0), _edge(nodes, meta, root, 1),
            _edge(nodes, meta, root, 2), _edge(nodes, meta, root, 3))
