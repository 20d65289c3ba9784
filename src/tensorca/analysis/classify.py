"""What a pattern does on the unbounded plane: still life, oscillator, spaceship, gun, dies, or unresolved.

:func:`classify` steps the pattern and remembers a fingerprint of every generation (population,
bounding-box size and a hash of the cropped cells). A fingerprint seen before is only a candidate:
the two generations are then compared cell for cell, so a hash collision can never produce a
wrong answer. The first confirmed repeat of generation ``g`` at generation ``g + p`` means the
pattern is periodic from ``g`` on with period ``p``; the shift of the bounding box between the two
says whether it moves (a spaceship) or not (a still life when ``p == 1``, else an oscillator).

Past :data:`~tensorca.analysis.long_period.DENSE_GENS` generations (when ``max_gens`` asks for
more and HashLife runs the rule) the search continues on a HashLife tree, where a generation's
fingerprint costs O(1) (:mod:`tensorca.analysis.long_period`): periods and displacements of
thousands of generations are found without keeping thousands of arrays.

A *gun* (a stationary core that emits spaceships forever, like the Gosper gun) never repeats as
a whole. :func:`classify` also watches a fixed window around the starting pattern: when the window
repeats with period ``p`` for three periods while the population grows by the same amount each
period, the pattern is a gun; what leaves the window each period is censused into ``emits``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..crop import crop
from ..rules.base import Rule
from . import long_period
from .apgcode import apgcode
from .census import census_state
from .evolve import State, Stepper, initial_state, key_of, same

KINDS = ("still_life", "oscillator", "spaceship", "gun", "dies", "unresolved")

#: Cells of margin around the starting pattern in which a gun's core is watched.
GUN_WINDOW_MARGIN = 16


@dataclass(frozen=True)
class Classification:
    """The result of :func:`classify`.

    - ``kind``: one of ``"still_life"``, ``"oscillator"``, ``"spaceship"``, ``"gun"``, ``"dies"``,
      ``"unresolved"`` (nothing found within ``max_gens``).
    - ``period``: the period (1 for a still life), ``None`` for ``dies``/``unresolved``.
    - ``displacement``: ``(dx, dy)`` per period (x right, y down); ``(0, 0)`` unless a spaceship.
    - ``generation``: for ``dies``, the first generation with no live cell; otherwise the
      generation from which the behaviour holds (0 when the pattern itself is periodic; e.g. a
      pre-block is ``still_life`` from generation 1).
    - ``apgcode``: the canonical name of the periodic state (``xq4_153`` for a glider), or None.
    - ``emits``: for a gun, apgcode -> objects emitted per period.
    """

    kind: str
    period: int | None = None
    displacement: tuple[int, int] = (0, 0)
    generation: int = 0
    apgcode: str | None = None
    emits: dict[str, int] = field(default_factory=dict)

    @property
    def speed(self) -> str | None:
        """A spaceship's speed as the community writes it (``"c/4"``, ``"2c/4"``...)."""
        if self.kind != "spaceship" or not self.period:
            return None
        step = max(abs(self.displacement[0]), abs(self.displacement[1]))
        return f"{'' if step == 1 else step}c/{self.period}"


def periodic_kind(period: int, displacement: tuple[int, int]) -> str:
    if displacement != (0, 0):
        return "spaceship"
    return "still_life" if period == 1 else "oscillator"


def _window(state: State, box: tuple[int, int, int, int]) -> np.ndarray:
    """The cells of ``state`` inside the fixed box ``(x0, y0, x1, y1)`` (half-open), as an array."""
    cells, (ox, oy) = state
    x0, y0, x1, y1 = box
    out = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
    sx0, sy0 = max(x0, ox), max(y0, oy)
    sx1, sy1 = min(x1, ox + cells.shape[1]), min(y1, oy + cells.shape[0])
    if sx0 < sx1 and sy0 < sy1:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = cells[sy0 - oy : sy1 - oy, sx0 - ox : sx1 - ox]
    return out


def _outside(state: State, box: tuple[int, int, int, int]) -> State:
    cells, origin = state
    cells = cells.copy()
    x0, y0, x1, y1 = box
    ox, oy = origin
    cells[max(0, y0 - oy) : max(0, y1 - oy), max(0, x0 - ox) : max(0, x1 - ox)] = 0
    return crop(cells, origin)


def classify(pattern: Any, rule: str | Rule | None = None, max_gens: int = 1000) -> Classification:
    """Classify ``pattern`` (a :class:`Pattern` or a 2-D array) under ``rule`` on the unbounded plane.

    ``rule`` defaults to the pattern's rule, then B3/S23. Runs at most ``max_gens`` generations.
    """
    state, rule_value = initial_state(pattern, rule)
    stepper = Stepper(rule_value)
    seen: dict[tuple[int, int, int, int], list[tuple[int, State]]] = {}
    cells0, (ox, oy) = state
    m = GUN_WINDOW_MARGIN
    box = (ox - m, oy - m, ox + cells0.shape[1] + m, oy + cells0.shape[0] + m)
    windows: list[tuple[int, int]] = []  # per generation: (hash of window, population)
    window_cells: dict[int, list[tuple[int, np.ndarray]]] = {}
    for gen in range(max_gens + 1):
        cells, origin = state
        if cells.size == 0:
            return Classification("dies", generation=gen)
        key = key_of(cells)
        for then, old in seen.get(key, ()):
            if same(old[0], cells):
                period = gen - then
                displacement = (origin[0] - old[1][0], origin[1] - old[1][1])
                kind = periodic_kind(period, displacement)
                phases = [s[0] for s in stepper.history(old, period - 1)]
                return Classification(kind, period, displacement, then, apgcode(phases, kind, period))
        seen.setdefault(key, []).append((gen, state))
        gun = _gun_check(stepper, state, gen, box, windows, window_cells)
        if gun is not None:
            return gun
        if gen == long_period.DENSE_GENS < max_gens and long_period.available(rule_value):
            return _classify_long(cells0, (ox, oy), rule_value, gen, max_gens)
        if gen < max_gens:
            state = stepper.step(state)
    return Classification("unresolved")


def _classify_long(cells: np.ndarray, origin: tuple[int, int], rule: Rule, start: int,
                   max_gens: int) -> Classification:
    """Generations ``start..max_gens`` on a HashLife tree (see :mod:`tensorca.analysis.long_period`)."""
    found = long_period.periodic(cells, origin, rule, start, max_gens)
    if found is None:
        return Classification("unresolved")
    then, period, displacement, first = found
    if first is None:
        return Classification("dies", generation=then)
    generation = long_period.earliest(first, then, period, displacement)
    kind = periodic_kind(period, displacement)
    drawn = long_period.phases(first, generation, period)
    code = None if drawn is None else apgcode(drawn, kind, period)
    return Classification(kind, period, displacement, generation, code)


def _gun_check(stepper, state, gen, box, windows, window_cells) -> Classification | None:
    """Record the window at ``gen``; a :class:`Classification` of kind ``"gun"`` once confirmed."""
    window = _window(state, box)
    population = int(np.count_nonzero(state[0]))
    whash = hash(window.tobytes())
    windows.append((whash, population))
    candidates = window_cells.setdefault(whash, [])
    for then, old in candidates:
        period = gen - then
        if not same(old, window):
            continue
        if then - 2 * period < 0:
            continue
        h = [windows[then - k * period] for k in (0, 1, 2)]
        if not all(w[0] == whash for w in h):
            continue
        growth = population - h[0][1]
        if growth > 0 and growth == h[0][1] - h[1][1] == h[1][1] - h[2][1]:
            return Classification("gun", period, (0, 0), then - 2 * period, None, _emitted(stepper, state, box, period))
    candidates.append((gen, window))
    return None


def _emitted(stepper: Stepper, state: State, box, period: int) -> dict[str, int]:
    """Objects that leave the window in one period: census outside it now and a period later."""
    before = census_state(_outside(state, box), stepper)
    after = census_state(_outside(stepper.step(state, period), box), stepper)
    diff = Counter(after)
    diff.subtract(before)
    return {code: n for code, n in diff.items() if n > 0}
