"""The NumPy reference: parallel toppling waves, and the descent rounds of :mod:`.descent`.

Short and plainly correct; speed is the other backends' job. Arrays are batches: heights padded
``(B, H + 2, W + 2)`` int64 (halo zero between waves, :mod:`.layout`), counts ``(B, H, W)`` int64.

A *wave* topples every unstable cell at once, each ``h // threshold`` times: any cell holding that
many grains could topple that often one after another, so a wave is a legal sequence of topplings
and, by the Abelian property, changes neither the final pile nor the counts.
"""

from __future__ import annotations

import numpy as np

from .layout import Layout
from .model import topples_forever


def _fold_halo(padded: np.ndarray, layout: Layout) -> None:
    """Move the grains in the halo to the cells they stand for (or drop them at the sink)."""
    index, target = layout.halo
    flat = padded.reshape(padded.shape[0], -1)
    grains = flat[:, index]
    flat[:, index] = 0
    keep = target >= 0
    rows = np.arange(flat.shape[0])[:, None]
    np.add.at(flat, (rows, target[keep][None, :]), grains[:, keep])


def _neighbour_sum(values: np.ndarray, layout: Layout) -> np.ndarray:
    """``(B, H, W)``: for every cell, the sum of ``values`` (``(B, H, W)``) over its neighbours,
    halo cells read from the cells they stand for (0 at the sink)."""
    batch, (height, width) = values.shape[0], (layout.height, layout.width)
    padded = np.zeros((batch, height + 2, width + 2), dtype=np.int64)
    padded[:, 1:-1, 1:-1] = values
    index, target = layout.halo
    flat = padded.reshape(batch, -1)
    flat[:, index] = np.where(target >= 0, flat[:, np.maximum(target, 0)], 0)
    total = np.zeros((batch, height, width), dtype=np.int64)
    for dy, dx in layout.stencil:
        total += padded[:, 1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
    return total


def laplacian(counts: np.ndarray, layout: Layout) -> np.ndarray:
    """The change in heights when each cell topples ``counts`` times: ``(B, H, W)`` int64."""
    return _neighbour_sum(counts, layout) - layout.threshold * counts


def ascend(padded: np.ndarray, counts: np.ndarray, layout: Layout) -> int:
    """Topple in waves until every cell is stable; ``padded`` and ``counts`` change in place.

    Returns the number of waves. On a closed torus (:attr:`Layout.closed`), counts starting at 0,
    :func:`~.model.topples_forever` is raised once every cell of a grid has toppled.
    """
    height, width, threshold = layout.height, layout.width, layout.threshold
    inner = padded[:, 1:-1, 1:-1]
    waves = 0
    while True:
        # negative heights (a guessed start, :mod:`.odometer`) never topple
        topples = np.maximum(inner, 0) // threshold
        if not topples.any():
            return waves
        inner -= threshold * topples
        for dy, dx in layout.stencil:
            padded[:, 1 + dy:1 + dy + height, 1 + dx:1 + dx + width] += topples
        counts += topples
        _fold_halo(padded, layout)
        waves += 1
        if layout.closed:
            everywhere = (counts > 0).reshape(counts.shape[0], -1).all(1)
            if everywhere.any():
                item = int(np.argmax(everywhere))
                raise topples_forever(int(inner[item].sum()), height * width, item if len(counts) > 1 else None)


def unfire_round(padded: np.ndarray, counts: np.ndarray, layout: Layout) -> int:
    """Untopple the largest set of cells that leaves every grid stable (:mod:`.descent`), once each.

    Starts from every cell with a positive count and drops, until none is left to drop, each cell
    holding at least as many grains as it has neighbours in the set (untoppling it would leave it
    unstable). Returns the number of cells untoppled, over the batch.
    """
    threshold = layout.threshold
    inner = padded[:, 1:-1, 1:-1]
    members = counts > 0
    while True:
        degree = _neighbour_sum(members.astype(np.int64), layout)
        drop = members & (inner >= degree)
        if not drop.any():
            break
        members &= ~drop
    inner += threshold * members - degree
    counts -= members
    return int(members.sum())


def solve(cells: np.ndarray, start: np.ndarray | None, layout: Layout) -> tuple[np.ndarray, np.ndarray, int]:
    """The stable piles and topple counts of ``cells`` (``(B, H, W)`` int64), both ``(B, H, W)`` int64,
    and the number of descent rounds run.

    ``start``: None, or guessed counts (``(B, H, W)``, non-negative): toppling starts from the pile
    those counts leave, and descent rounds then take back any topplings too many
    (:mod:`.odometer`); the answer is exact either way.
    """
    batch = cells.shape[0]
    padded = np.zeros((batch, layout.height + 2, layout.width + 2), dtype=np.int64)
    counts = np.zeros(cells.shape, dtype=np.int64) if start is None else start.astype(np.int64, copy=True)
    padded[:, 1:-1, 1:-1] = cells if start is None else cells + laplacian(counts, layout)
    ascend(padded, counts, layout)
    rounds = 0
    if start is not None:
        while unfire_round(padded, counts, layout):
            rounds += 1
    return padded[:, 1:-1, 1:-1].copy(), counts, rounds
