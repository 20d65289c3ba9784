"""Exact stabilisation from a guess of the topple counts (the *odometer*), and how to guess them.

Stabilising ``s`` topples each cell ``u(x)`` times; ``u`` is the *odometer*, and the stable pile is
``s + L u``, where ``L u(x) = sum of u over x's neighbours - threshold * u(x)``. The least action
principle (Fey, Levine and Peres 2010) characterises it: ``u`` is the least non-negative integer
function ``v`` with ``s + L v`` stable (every height below the threshold). Two facts follow, for
any non-negative integer ``v``:

- **Ascent.** Toppling legally from ``s + L v`` (cells at or above the threshold only), starting
  the counts at ``v``, stops at the least ``w >= v`` with ``s + L w`` stable. So from any guess
  ``v <= u`` it stops at ``u`` exactly, and from any guess it stops at some ``w >= u``.
- **Descent.** For ``w >= u`` with ``s + L w`` stable, let ``A`` be the largest set of cells
  (among those with ``w >= 1``) that can each be *untoppled* once, ``w - 1_A``, with every cell
  still stable. The sets that can are closed under union, so the largest exists: start from every
  candidate and drop, until none is left to drop, each cell whose height would reach the threshold
  (it holds at least as many grains as it has neighbours in the set). ``A`` is empty exactly when
  ``w == u``: if ``w > u`` somewhere, the cells where ``w - u`` is largest form such a set, since
  ``w - 1_A = min(w, u + max(w - u) - 1)`` is stable.

So ascent from any guess, then descent rounds until the largest set is empty, gives the exact
odometer and pile, the same on every backend, whatever the guess; a good guess only makes it fast.
Plain stabilisation is the guess 0 (ascent alone). The descent needs a symmetric ``L`` (a cell's
neighbours are the cells whose neighbour it is), which every :mod:`.layout` fold keeps.

The guess used here solves the continuous version, ``L a = g - s`` with ``g`` a guess of the stable
pile, in floating point: on a plane, ``L`` with zero outside is diagonalised by the type-I discrete
sine transform (von Neumann and Moore stencils alike), so one transform each way solves it. The
sandpile identity (:mod:`.group`) guesses ``g`` from the same pile on a grid half the size.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .layout import Layout
from .model import Sandpile

#: ``solve(cells, start, layout) -> (heights, counts, rounds)`` of a backend, NumPy arrays in and out.
Solver = Callable[[np.ndarray, "np.ndarray | None", Layout], tuple[np.ndarray, np.ndarray, int]]


def _dst1(values: np.ndarray, axis: int) -> np.ndarray:
    """Type-I discrete sine transform along ``axis`` (unnormalised), through a real FFT of the odd
    extension ``[0, x, 0, -x reversed]``."""
    n = values.shape[axis]
    moved = np.moveaxis(values, axis, -1)
    zeros = np.zeros(moved.shape[:-1] + (1,))
    extended = np.concatenate([zeros, moved, zeros, -moved[..., ::-1]], axis=-1)
    return np.moveaxis(-np.fft.rfft(extended, axis=-1)[..., 1:n + 1].imag / 2, -1, axis)


def poisson(rhs: np.ndarray, pile: Sandpile) -> np.ndarray:
    """``a`` (``(H, W)`` float64) with ``L a = rhs`` on a plane, zero outside the grid."""
    height, width = rhs.shape
    cy = np.cos(np.pi * np.arange(1, height + 1) / (height + 1))[:, None]
    cx = np.cos(np.pi * np.arange(1, width + 1) / (width + 1))[None, :]
    stencil = 2 * cy + 2 * cx + (4 * cy * cx if pile.neighbourhood == "moore" else 0)
    coefficients = _dst1(_dst1(rhs.astype(np.float64), 0), 1) / (stencil - pile.threshold)
    return _dst1(_dst1(coefficients, 0), 1) * (4.0 / ((height + 1) * (width + 1)))


def guess_counts(cells: np.ndarray, stable_guess: np.ndarray, pile: Sandpile) -> np.ndarray:
    """Guessed topple counts (``(H, W)`` int64, non-negative) for stabilising ``cells`` on a plane
    when the stable pile looks like ``stable_guess`` (both ``(H, W)``)."""
    estimate = poisson(stable_guess.astype(np.float64) - cells, pile)
    return np.maximum(np.floor(estimate), 0).astype(np.int64)


def _mirrored(half: np.ndarray, rows: bool, columns: bool) -> np.ndarray:
    if rows:
        half = np.concatenate([half, half[::-1]], axis=0)
    if columns:
        half = np.concatenate([half, half[:, ::-1]], axis=1)
    return half


def solve_plane(cells: np.ndarray, start: np.ndarray | None, pile: Sandpile, solver: Solver,
                fold: bool = True) -> tuple[np.ndarray, np.ndarray, int]:
    """Stable pile and counts of one ``(H, W)`` grid on a plane, from guessed counts ``start``
    (or 0), exactly (module docstring); ``(H, W)`` int64 each, and the descent rounds run.

    With ``fold``, a grid equal to its mirror image top to bottom (left to right), of even height
    (width), is solved on its top (left) half with a mirror edge: its result has the same symmetry.
    """
    height, width = cells.shape
    rows = fold and height % 2 == 0 and np.array_equal(cells, cells[::-1])
    columns = fold and width % 2 == 0 and np.array_equal(cells, cells[:, ::-1])
    part = (slice(0, height // 2 if rows else height), slice(0, width // 2 if columns else width))
    layout = Layout.of(pile, part[0].stop, part[1].stop, mirror_bottom=rows, mirror_right=columns)
    begin = None if start is None else start[part][None]
    heights, counts, rounds = solver(cells[part][None], begin, layout)
    return _mirrored(heights[0], rows, columns), _mirrored(counts[0], rows, columns), rounds


def upsample(stable: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``stable`` (a pile on a grid half the size, rounded up) blown up 2x2 and cut to ``shape``."""
    return np.repeat(np.repeat(stable, 2, axis=0), 2, axis=1)[:shape[0], :shape[1]]

