"""Small patterns on the unbounded plane, stepped one generation at a time on the host.

Analysis runs many tiny objects for a few generations each, so it steps cropped NumPy arrays
directly with the reference engine's perceive/update functions: pad by the rule's reach (a
pattern grows by at most that much per generation), step on a bounded plane of that size (exact:
nothing outside could come alive), crop to the bounding box. The origin ``(x, y)`` of ``[0, 0]``
tracks the crop, as in :mod:`tensorca.unbounded`.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from ..engines.numpy_reference import apply_decay, step_ltl, step_table
from ..errors import TopologyError
from ..rules import parse_rule
from ..rules.base import LargerThanLifeRule, Rule, TableRule
from ..topology import Topology
from ..unbounded import births_from_nothing, rule_reach

State = tuple[np.ndarray, tuple[int, int]]
"""``(cells, origin)``: ``(H, W)`` uint8 cropped to the bounding box, origin ``(x, y)`` of [0, 0]."""


def as_rule(rule: str | Rule | None, fallback: Rule | None = None) -> Rule:
    """A rule value from a string, a value, or the fallback (then B3/S23)."""
    if isinstance(rule, Rule):
        return rule
    if rule is None:
        return fallback if fallback is not None else parse_rule("B3/S23")
    return parse_rule(rule)


def crop_state(cells: np.ndarray, origin: tuple[int, int]) -> State:
    """Crop to the bounding box of the non-zero cells; empty -> ``(0, 0)`` array at the same origin."""
    rows = np.flatnonzero(cells.any(axis=1))
    if rows.size == 0:
        return cells[:0, :0], origin
    cols = np.flatnonzero(cells.any(axis=0))
    y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return cells[y0:y1, x0:x1], (origin[0] + int(x0), origin[1] + int(y0))


class Stepper:
    """Steps cropped states of one rule on the unbounded plane."""

    def __init__(self, rule: Rule):
        if not isinstance(rule, (TableRule, LargerThanLifeRule)):
            raise TopologyError(f"rule {rule.canonical()!r} cannot be analysed")
        if births_from_nothing(rule):
            raise TopologyError(
                f"rule {rule.canonical()!r} has B0, so the unbounded plane fills at once; it cannot be analysed"
            )
        self.rule = rule
        self.reach = rule_reach(rule)
        self._step = step_table if isinstance(rule, TableRule) else step_ltl
        self._table = rule.lookup_table() if isinstance(rule, TableRule) else None

    def _step_table(self, cells: np.ndarray) -> np.ndarray:
        """One generation of a table rule, the result one cell larger on each side.

        The same definition as :func:`~tensorca.engines.numpy_reference.step_table` (9-bit index,
        NW most significant), written for one small grid without ``np.pad``.
        """
        h, w = cells.shape
        alive = np.zeros((h + 4, w + 4), dtype=np.int16)
        alive[2:-2, 2:-2] = cells == 1
        height, width = h + 2, w + 2
        index = np.zeros((height, width), dtype=np.int16)
        for dy in range(3):
            for dx in range(3):
                index |= alive[dy : dy + height, dx : dx + width] << (8 - (3 * dy + dx))
        on = self._table[index]
        if self.rule.n_states == 2:
            return on
        grown = np.zeros((height, width), dtype=np.uint8)
        grown[1:-1, 1:-1] = cells
        return apply_decay(grown, on.astype(bool), self.rule.n_states)

    def step(self, state: State, generations: int = 1) -> State:
        cells, origin = state
        for _ in range(generations):
            if cells.size == 0:
                return cells, origin
            r = self.reach
            if self._table is not None:
                cells, origin = crop_state(self._step_table(cells), (origin[0] - 1, origin[1] - 1))
                continue
            padded = np.pad(cells, r)
            plane = Topology.plane(padded.shape[1], padded.shape[0])
            nxt = self._step(padded[None], self.rule, plane)[0]  # type: ignore[arg-type]
            cells, origin = crop_state(nxt, (origin[0] - r, origin[1] - r))
        return cells, origin

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
