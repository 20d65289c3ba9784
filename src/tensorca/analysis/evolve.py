"""Small patterns on the unbounded plane, stepped one generation at a time on the host.

Analysis runs many tiny objects for a few generations each, so it steps cropped NumPy arrays
directly with the reference engine's step of the rule's step spec: pad by the spec's reach (a
pattern grows by at most that much per generation), step on a bounded plane of that size (exact:
nothing outside could come alive), crop to the bounding box. The origin ``(x, y)`` of ``[0, 0]``
tracks the crop, as in :mod:`tensorca.unbounded`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .._jit import HAVE_NUMBA
from ..crop import crop
from ..engines.numpy_reference import KINDS, apply_decay, step
from ..errors import GridError, TopologyError
from ..pattern import Pattern
from ..rules.base import Rule
from ..rules.spec import resolve
from ..rules.stepspec import TableUpdate
from ..topology import Topology
from .labels import table_period, table_step_cropped

State = tuple[np.ndarray, tuple[int, int]]
"""``(cells, origin)``: ``(H, W)`` uint8 cropped to the bounding box, origin ``(x, y)`` of [0, 0]."""


def initial_state(pattern: Any, rule: str | Rule | None) -> tuple[State, Rule]:
    """``(cells, origin)`` cropped, and the rule, from a :class:`Pattern` or a 2-D array (origin (0, 0)).

    ``rule`` defaults to the pattern's rule, then B3/S23.
    """
    if isinstance(pattern, Pattern):
        cells, origin, fallback = np.asarray(pattern.cells, dtype=np.uint8), pattern.origin, pattern.rule
    else:
        cells, origin, fallback = np.asarray(pattern, dtype=np.uint8), (0, 0), None
        if cells.ndim != 2:
            raise GridError(f"a pattern to analyse must be 2-D (H, W), got shape {cells.shape}")
    return crop(cells, origin), resolve(rule, fallback=fallback)[0]


class Stepper:
    """Steps cropped states of one rule on the unbounded plane."""

    def __init__(self, rule: Rule):
        spec = rule.compile()
        if spec.kinds not in KINDS:
            raise TopologyError(f"rule {rule.canonical()!r} cannot be analysed (perceive {spec.kinds[0]!r}, "
                                f"update {spec.kinds[1]!r})")
        if spec.births_from_nothing:
            raise TopologyError(
                f"rule {rule.canonical()!r} has B0, so the unbounded plane fills at once; it cannot be analysed"
            )
        self.rule = rule
        self.spec = spec
        self.reach = spec.reach
        update = spec.update
        self._table = update.lookup() if spec.perceive.kind == "index3x3" and isinstance(update, TableUpdate) else None

    def _step_table(self, cells: np.ndarray) -> np.ndarray:
        """One generation of a table rule, the result one cell larger on each side.

        The same definition as :func:`~tensorca.engines.numpy_reference.step` for a 3x3 table
        (9-bit index, NW most significant), written for one small grid without ``np.pad``.
        """
        assert self._table is not None  # only called for table specs
        h, w = cells.shape
        alive = np.zeros((h + 4, w + 4), dtype=np.int16)
        alive[2:-2, 2:-2] = cells == 1
        height, width = h + 2, w + 2
        index = np.zeros((height, width), dtype=np.int16)
        for dy in range(3):
            for dx in range(3):
                index |= alive[dy : dy + height, dx : dx + width] << (8 - (3 * dy + dx))
        on = self._table[index]
        if self.spec.n_states == 2:
            return on
        grown = np.zeros((height, width), dtype=np.uint8)
        grown[1:-1, 1:-1] = cells
        return apply_decay(grown, on.astype(bool), self.spec.n_states)

    def step(self, state: State, generations: int = 1) -> State:
        cells, origin = state
        for _ in range(generations):
            if cells.size == 0:
                return cells, origin
            r = self.reach
            if self._table is not None and self.spec.n_states == 2 and HAVE_NUMBA:
                cells, y0, x0 = table_step_cropped(np.ascontiguousarray(cells, dtype=np.uint8), self._table)
                origin = (origin[0] - 1 + x0, origin[1] - 1 + y0)
                continue
            if self._table is not None:
                cells, origin = crop(self._step_table(cells), (origin[0] - 1, origin[1] - 1))
                continue
            padded = np.pad(cells, r)
            plane = Topology.plane(padded.shape[1], padded.shape[0])
            nxt = step(padded[None], self.spec, plane)[0]
            cells, origin = crop(nxt, (origin[0] - r, origin[1] - r))
        return cells, origin

    def period(self, cells: np.ndarray, max_period: int) -> tuple[int, tuple[int, int]] | None:
        """``(period, displacement)`` of the cropped ``cells`` (0 and ``(0, 0)`` when it dies or does
        not recur within ``max_period`` generations), worked out in one compiled call for a two-state
        3x3 table rule; None for other rules (step them with :meth:`step`)."""
        if self._table is None or self.spec.n_states != 2 or not HAVE_NUMBA:
            return None
        period, dx, dy = table_period(np.ascontiguousarray(cells, dtype=np.uint8), self._table, max_period)
        return period, (dx, dy)

    def history(self, state: State, generations: int) -> Iterator[State]:
        """``state`` and the next ``generations`` states (``generations + 1`` in all)."""
        yield state
        for _ in range(generations):
            state = self.step(state)
            yield state


def key_of(cells: np.ndarray) -> tuple[int, int, int, int]:
    """A cheap fingerprint: population, height, width, hash of the bytes (confirm cell for cell!)."""
    return (int(np.count_nonzero(cells)), cells.shape[0], cells.shape[1], hash(cells.tobytes()))


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Cell-for-cell equality of two cropped grids."""
    return a.shape == b.shape and bool(np.array_equal(a, b))
