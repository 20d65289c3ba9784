"""The Numba backend: in-place toppling sweeps and worklist descent rounds (imports Numba).

A *sweep* visits every cell in turn and topples it ``h // threshold`` times at once, in place, so a
cell already sees the grains its earlier neighbours sent in the same sweep (Gauss-Seidel rather
than the reference's waves); sweeps alternate direction so grains travel fast both ways. Any such
order is a legal sequence of topplings, so the pile and the counts equal the reference's exactly.
A descent round (:mod:`.odometer`) finds the largest set it may untopple with a worklist: each cell
dropped from the set lowers its neighbours' counts of members, and only those are looked at again.

Each grid is a flat padded array (:mod:`.layout`) of int64, or int32 where the caller knows every
height and count fits (:mod:`.group` does), which halves the memory traffic.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from . import reference
from .layout import Layout
from .model import topples_forever


@njit(cache=True)
def _ascend(h, v, halo, target, threshold, height, width, moore, closed):  # pragma: no cover - compiled
    """Sweep until stable; ``h``, ``v`` flat padded. Returns sweeps, or -1 once every cell of a
    closed torus has toppled (its counts started at 0)."""
    row = width + 2
    fired = 0
    sweeps = 0
    forward = True
    while True:
        toppled = 0
        for yy in range(height):
            y = yy + 1 if forward else height - yy
            base = y * row
            for xx in range(width):
                i = base + (xx + 1 if forward else width - xx)
                grains = h[i]
                if grains >= threshold:
                    k = grains // threshold
                    h[i] = grains - k * threshold
                    if closed and v[i] == 0:
                        fired += 1
                    v[i] += k
                    h[i - row] += k
                    h[i + row] += k
                    h[i - 1] += k
                    h[i + 1] += k
                    if moore:
                        h[i - row - 1] += k
                        h[i - row + 1] += k
                        h[i + row - 1] += k
                        h[i + row + 1] += k
                    toppled += 1
        for j in range(halo.size):
            grains = h[halo[j]]
            if grains != 0:
                h[halo[j]] = 0
                if target[j] >= 0:
                    h[target[j]] += grains
        sweeps += 1
        forward = not forward
        if toppled == 0:
            return sweeps
        if closed and fired == height * width:
            return -1


@njit(cache=True)
def _unfire(h, v, resolve, halo, target, offsets, threshold, height, width, member, degree, stack):  # pragma: no cover
    """One descent round on flat padded ``h``, ``v``: returns the number of cells untoppled."""
    row = width + 2
    for y in range(1, height + 1):
        for x in range(1, width + 1):
            member[y * row + x] = 1 if v[y * row + x] > 0 else 0
    for j in range(halo.size):
        member[halo[j]] = member[target[j]] if target[j] >= 0 else 0
    top = 0
    for y in range(1, height + 1):
        for x in range(1, width + 1):
            i = y * row + x
            d = 0
            for o in offsets:
                d += member[i + o]
            degree[i] = d
            if member[i] and h[i] >= d:
                stack[top] = i
                top += 1
    for s in range(top):
        member[stack[s]] = 0
    # from here a halo cell reads 2: only neighbours across an edge look up the cell they stand for
    for j in range(halo.size):
        member[halo[j]] = 2
    while top > 0:
        top -= 1
        i = stack[top]
        for o in offsets:
            t = i + o
            m = member[t]
            if m == 2:
                t = resolve[t]
                if t < 0:
                    continue
                m = member[t]
            degree[t] -= 1
            if m == 1 and h[t] >= degree[t]:
                member[t] = 0
                stack[top] = t
                top += 1
    count = 0
    for y in range(1, height + 1):
        for x in range(1, width + 1):
            i = y * row + x
            m = member[i]
            count += m
            v[i] -= m
            h[i] += m * threshold - degree[i]
    return count


def solve(cells: np.ndarray, start: np.ndarray | None, layout: Layout,
          dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray, int]:
    """As :func:`.reference.solve`, computed in ``dtype`` (``np.int64``, or ``np.int32`` where the
    caller has bounded every height and count)."""
    height, width, threshold = layout.height, layout.width, layout.threshold
    halo, target = layout.halo
    moore = layout.neighbourhood == "moore"
    heights = np.empty(cells.shape, dtype=np.int64)
    counts = np.empty(cells.shape, dtype=np.int64)
    rounds = 0
    inner = (slice(1, -1), slice(1, -1))
    if start is not None:
        resolve, offsets = layout.resolve, layout.offsets
        member = np.zeros(layout.padded_shape, dtype=np.uint8).ravel()
        degree = np.zeros(layout.padded_shape, dtype=np.int32).ravel()
        stack = np.empty(member.size, dtype=np.int64)
        begin = cells + reference.laplacian(start, layout)
    for item in range(cells.shape[0]):
        h = np.zeros(layout.padded_shape, dtype=dtype)
        v = np.zeros(layout.padded_shape, dtype=dtype)
        h[inner] = cells[item] if start is None else begin[item]
        if start is not None:
            v[inner] = start[item]
        hf, vf = h.ravel(), v.ravel()
        if _ascend(hf, vf, halo, target, dtype(threshold), height, width, moore, layout.closed) < 0:
            raise topples_forever(int(h[inner].sum()), height * width, item if cells.shape[0] > 1 else None)
        if start is not None:
            while _unfire(hf, vf, resolve, halo, target, offsets, dtype(threshold), height, width,
                          member, degree, stack):
                rounds += 1
        heights[item] = h[inner]
        counts[item] = v[inner]
    return heights, counts, rounds
