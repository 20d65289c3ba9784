"""Long periods on the unbounded plane, with HashLife: what :func:`classify` does past its dense
window.

The dense fingerprints of :mod:`tensorca.analysis.classify` keep every generation's cells, which is
right for small periods. Past :data:`DENSE_GENS` generations (when ``max_gens`` asks for more and
HashLife runs the rule) the pattern continues as a HashLife tree stepped one generation at a time
(each step of a repetitive pattern is a handful of cached node results), and a generation is
fingerprinted in O(1): HashLife's roots are hash-consed and centred on one lattice, so a state that
returns to the same place is the same root node (a still life or an oscillator, confirmed by the
hash-consing itself). A state that returns displaced (a spaceship) is a candidate when its
bounding-box size and a hash of its cells match an earlier generation's, confirmed cell for cell
(for boxes of at most :data:`CONFIRM_CELLS`). The earliest generation of the periodic behaviour is then found by
bisection, comparing HashLife jumps ``g`` and ``g + period`` from the start.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules.base import Rule

#: Generations the dense loop of ``classify`` runs before HashLife takes over.
DENSE_GENS = 2048
#: Largest bounding box (cells) compared cell for cell to confirm a displaced repeat.
CONFIRM_CELLS = 1 << 22
#: Longest period whose phases are materialised for an apgcode.
APGCODE_MAX_PERIOD = 1024


def available(rule: Rule) -> bool:
    """True when HashLife (Numba) runs ``rule``."""
    try:
        from ..hashlife.universe import why_not
    except ImportError:
        return False
    return why_not(rule) is None


def periodic(cells: np.ndarray, origin: tuple[int, int], rule: Rule, start: int,
             max_gens: int) -> tuple[int, int, tuple[int, int], Any] | None:
    """Look for a repeat among generations ``start..max_gens`` of the pattern whose generation 0
    is ``(cells, origin)``: ``(earlier generation, period, displacement, universe at generation
    0)``, or None; ``(gen, 0, (0, 0), None)`` when everything has died at ``gen``."""
    from ..hashlife import Universe

    first = Universe.from_cells(cells, rule, origin)
    u = first.copy().step(start)
    roots: dict[tuple[int, int, int, int], int] = {}  # snapshot -> generation (same root: same cells)
    shapes: dict[tuple[int, int, int], tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]]] = {}
    gc = u.stats()["gc_runs"]
    for gen in range(start, max_gens + 1):
        box = u.bounding_box()
        if box is None:
            return gen, 0, (0, 0), None
        if u.stats()["gc_runs"] != gc:  # nodes were renumbered: earlier fingerprints are void
            roots.clear()
            shapes.clear()
            gc = u.stats()["gc_runs"]
        snap = u.snapshot()
        if snap in roots:  # hash-consed, centred roots: the same node is the same cells in place
            return roots[snap], gen - roots[snap], (0, 0), first
        roots[snap] = gen
        if box[2] * box[3] <= CONFIRM_CELLS:  # a displaced repeat: same box size and bytes, then confirmed
            here = u.crop(*box)
            key = (box[2], box[3], hash(here.tobytes()))
            old = shapes.get(key)
            if old is not None and np.array_equal(u.view(old[1]).crop(*old[2]), here):
                return old[0], gen - old[0], (box[0] - old[2][0], box[1] - old[2][1]), first
            shapes.setdefault(key, (gen, snap, box))
        if gen < max_gens:
            u.step(1)
    return None


def earliest(first: Any, then: int, period: int, displacement: tuple[int, int]) -> int:
    """The first generation ``g`` with ``state(g + period)`` = ``state(g)`` moved by
    ``displacement``, by bisection over ``[0, then]`` (periodic from ``g`` on means from every later
    generation too); ``first`` is the universe at generation 0, jumped from with HashLife."""
    lo, hi = 0, then  # hi: known periodic

    def holds(g: int) -> bool:
        a = first.copy().step(g)
        b = a.copy().step(period)
        ba, bb = a.bounding_box(), b.bounding_box()
        if ba is None or bb is None or (ba[2], ba[3]) != (bb[2], bb[3]):
            return False
        if (bb[0] - ba[0], bb[1] - ba[1]) != displacement:
            return False
        if displacement == (0, 0):
            return a.same_cells(b)
        return ba[2] * ba[3] <= CONFIRM_CELLS and bool(np.array_equal(a.crop(*ba), b.crop(*bb)))

    while lo < hi:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def phases(first: Any, generation: int, period: int) -> list[np.ndarray] | None:
    """The ``period`` phases from ``generation`` as cropped arrays (for an apgcode), or None when
    the period or the boxes are too large to draw; ``first`` is the universe at generation 0."""
    if period > APGCODE_MAX_PERIOD:
        return None
    u = first.copy().step(generation)
    out = []
    for _ in range(period):
        box = u.bounding_box()
        if box is None or box[2] * box[3] > CONFIRM_CELLS:
            return None
        out.append(u.crop(*box))
        u.step(1)
    return out
