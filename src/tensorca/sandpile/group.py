"""The identity element of the sandpile group of a rectangle, from grids half the size upwards.

The recurrent piles of a grid with a sink (a plane's edge) form a group under "add cell by cell,
then stabilise"; its identity ``e`` is ``stab(2m - stab(2m))``, with ``m`` the all-``threshold - 1``
pile (``2m - stab(2m)`` is recurrent, being at least ``m``, and equivalent to 0). Both
stabilisations topple each cell of an ``n x n`` grid some ``n**2 / 4`` times (about 10**11
topplings in all at 1024^2), so toppling alone is hopeless at that size; they are solved exactly
from guessed counts instead (:mod:`.odometer`).

The guess: the same two piles, already solved on a grid half the size (each side rounded up),
blown up 2x2 give the guessed stable piles, and a Poisson solve turns them into counts. The guess
is off by a few hundred topplings at 1024^2, which the ascent and descent rounds correct exactly.
Below :data:`BASE` cells a side there is no smaller grid, and plain toppling is cheap. The piles
are symmetric, so grids of even size are solved a quarter at a time (:func:`.odometer.solve_plane`).
"""

from __future__ import annotations

import numpy as np

from .model import Sandpile
from .odometer import Solver, guess_counts, solve_plane, upsample

#: Grids with a side this short or shorter are stabilised from no guess.
BASE = 32


def levels(height: int, width: int) -> list[tuple[int, int]]:
    """The grid sizes solved, smallest first: halving (rounded up) down to a side of :data:`BASE`."""
    sizes = [(height, width)]
    while min(sizes[-1]) > BASE:
        h, w = sizes[-1]
        sizes.append(((h + 1) // 2, (w + 1) // 2))
    return sizes[::-1]


def identity_pile(pile: Sandpile, height: int, width: int, solver: Solver, fold: bool = True) -> np.ndarray:
    """The identity of the sandpile group of ``pile`` (a plane) on ``height x width`` cells:
    ``(height, width)`` int64, heights ``0..threshold-1``."""
    double = 2 * (pile.threshold - 1)
    previous: tuple[np.ndarray, np.ndarray] | None = None
    for shape in levels(height, width):
        full = np.full(shape, double, dtype=np.int64)
        start = None if previous is None else guess_counts(full, upsample(previous[0], shape), pile)
        first, _, _ = solve_plane(full, start, pile, solver, fold)
        rest = double - first
        start = None if previous is None else guess_counts(rest, upsample(previous[1], shape), pile)
        unit, _, _ = solve_plane(rest, start, pile, solver, fold)
        previous = first, unit
    assert previous is not None
    return previous[1]
