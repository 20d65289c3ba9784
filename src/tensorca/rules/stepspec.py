"""Step specs: how a rule is computed, as data engines dispatch on (never on the rule's class).

Every rule compiles (:meth:`tensorca.rules.base.Rule.compile`) to a :class:`StepSpec`: a
*perceive* stage that turns the states around each cell into a number, and an *update* stage
that turns that number (and the cell's own state) into the next state, optionally followed by
Generations-style *decay*. This is CAX's perceive/update split, written as values::

    rule --compile()--> StepSpec(perceive, update, decay, reach, state_space)
                                   |         |
             index3x3 | mask_count |         | table | intervals      (today)
             weighted_count        |         | (decay: states 2..n-1 age)
      room for: neighbour_states,  |         | room for: tree, growth
                kernel_fft

An engine says which ``(perceive.kind, update.kind)`` pairs it runs
(:func:`kinds_of`) and refuses the rest with :class:`~tensorca.errors.EngineError`. A new rule
family is one rule module that compiles to a spec, plus kernels for any new kind.

Perceive kinds (all count only state-1 cells unless ``state_weights`` says otherwise):

- ``index3x3``: the 9-bit index of the 3x3 window, NW the most significant bit, SE bit 0
  (Golly's MAP order): ``sum(alive(y, x) << (8 - (3*y + x)))``.
- ``mask_count``: the number of state-1 cells under a ``(2r+1, 2r+1)`` 0/1 ``mask``.
- ``weighted_count``: ``sum(weights * (state == 1))``, or ``sum(weights * state_weights[state])``
  when ``state_weights`` is given (cells off a bounded plane are state 0).

Update kinds:

- ``table``: ``next = table[index]`` (512 bytes of 0/1): for a state-1 cell, survival; for a
  state-0 cell, birth. ``birth``/``survival`` are the outer-totalistic count sets over
  ``neighbourhood`` (``"M"``, ``"V"``, ``"H"``) when the table is outer-totalistic, else None.
- ``intervals``: born when a state-0 cell's count is in a ``birth`` interval, survives when a
  state-1 cell's count is in a ``survival`` interval (inclusive ``(lo, hi)`` pairs).

``decay`` (``n_states > 2``): a state-1 cell that fails survival becomes 2, states 2..n-1 advance
by one (n-1 goes to 0) whatever their neighbours, only state-0 cells are born.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

PerceiveKind = Literal["index3x3", "mask_count", "weighted_count"]
UpdateKind = Literal["table", "intervals"]


@dataclass(frozen=True)
class StateSpace:
    """The values a cell may hold: ``discrete`` states ``0..n_states-1`` (``uint8``), or
    ``continuous`` floats in ``[low, high]`` (room for Lenia and neural CA). ``channels``: None for
    one plane per grid (``(H, W)`` / ``(B, H, W)`` cells), else the size of the channel axis before
    ``H, W`` (``(C, H, W)`` / ``(B, C, H, W)``, multi-channel Lenia)."""

    kind: Literal["discrete", "continuous"] = "discrete"
    n_states: int | None = 2
    low: float = 0.0
    high: float = 1.0
    channels: int | None = None

    @property
    def discrete(self) -> bool:
        return self.kind == "discrete"


@dataclass(frozen=True)
class Index3x3:
    """Perceive the 9-bit index of the 3x3 window of state-1 cells (see the module docstring)."""

    kind: Literal["index3x3"] = "index3x3"


@dataclass(frozen=True)
class MaskCount:
    """Perceive the number of state-1 cells under ``mask``, ``(2*radius+1, 2*radius+1)`` uint8 0/1."""

    radius: int
    mask: np.ndarray = field(compare=False, repr=False)
    kind: Literal["mask_count"] = "mask_count"


@dataclass(frozen=True)
class WeightedCount:
    """Perceive ``sum(weights * (state == 1))`` or, with ``state_weights`` (one int per state),
    ``sum(weights * state_weights[state])``; ``weights`` is ``(2r+1, 2r+1)`` int64, may be negative.
    ``empty`` is the count of a cell whose whole window is dead."""

    radius: int
    weights: np.ndarray = field(compare=False, repr=False)
    state_weights: tuple[int, ...] | None = None
    empty: int = 0
    kind: Literal["weighted_count"] = "weighted_count"


@dataclass(frozen=True)
class TableUpdate:
    """Update by a 512-entry 0/1 table indexed by the perceived 3x3 index.

    ``table`` is 512 bytes. ``birth``/``survival``: the outer-totalistic count sets over
    ``neighbourhood`` when the rule is outer-totalistic (bit-packed circuits use them), else None.
    """

    table: bytes = field(repr=False)
    neighbourhood: str = "M"
    birth: frozenset[int] | None = None
    survival: frozenset[int] | None = None
    kind: Literal["table"] = "table"

    def lookup(self) -> np.ndarray:
        """The table as a ``(512,)`` ``uint8`` array of 0/1 (a fresh copy)."""
        return np.frombuffer(self.table, dtype=np.uint8).copy()

    @property
    def outer_totalistic_moore(self) -> bool:
        """True when the table is a B/S rule on the Moore neighbourhood."""
        return self.birth is not None and self.neighbourhood == "M"


@dataclass(frozen=True)
class IntervalUpdate:
    """Update by inclusive count intervals: ``birth`` and ``survival`` are tuples of ``(lo, hi)``."""

    birth: tuple[tuple[int, int], ...]
    survival: tuple[tuple[int, int], ...]
    kind: Literal["intervals"] = "intervals"


Perceive = Index3x3 | MaskCount | WeightedCount
Update = TableUpdate | IntervalUpdate


@dataclass(frozen=True)
class StepSpec:
    """How one generation of a rule is computed: ``perceive`` -> ``update`` -> optional ``decay``.

    ``reach``: how far (cells) a state can influence the next generation (1 for 3x3 rules, the
    range for Larger than Life). ``births_from_nothing``: a dead cell with nothing alive around
    it is born (B0): the unbounded plane would fill at once. ``state_space``: the cell values.
    ``stochastic``: the update draws random numbers (:mod:`tensorca.families.stochastic.rule`): engines that
    run it take a :class:`~tensorca.randomness.Clock` (seed, generation, grid, origin) with the cells.
    """

    perceive: Perceive
    update: Update
    reach: int
    state_space: StateSpace
    births_from_nothing: bool = False
    stochastic: bool = False

    @property
    def n_states(self) -> int:
        """Number of discrete states (2 for two-state rules)."""
        return int(self.state_space.n_states or 0)

    @property
    def decay(self) -> bool:
        """True when states 2..n-1 are Generations-style decay states."""
        return self.state_space.discrete and self.n_states > 2

    @property
    def kinds(self) -> tuple[str, str]:
        """``(perceive.kind, update.kind)``: the pair engines dispatch on."""
        return self.perceive.kind, self.update.kind


def kinds_of(spec: StepSpec) -> tuple[str, str]:
    """``(perceive kind, update kind)`` of ``spec`` (the key of engines' dispatch tables)."""
    return spec.kinds
