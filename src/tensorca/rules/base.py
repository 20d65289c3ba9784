"""Rule values: frozen dataclasses that say what a rule computes, independent of any engine.

Every rule has ``family`` (a display name), ``n_states``, ``canonical()`` (Golly's spelling) and
``compile()``, the :class:`~tensorca.rules.stepspec.StepSpec` engines dispatch on (code outside
the rule families never asks which class a rule is). Here:

- :class:`TableRule`: any rule whose next state is decided by the 3x3 neighbourhood of state-1
  cells: two-state B/S rules (Moore, ``V``, ``H``), isotropic non-totalistic (Hensel) rules, ``MAP``
  rules, Generations (the same table plus decay states) and Golly's ``Wn`` emulation. All compile to
  one 512-entry table indexed by the 3x3 neighbourhood read in reading order, NW the most
  significant bit and SE the least (Golly's MAP order): index = sum(bit(y, x) << (8 - (3*y + x))).
  Compiles to ``index3x3`` / ``table``.
- every other family's own values (Larger than Life, rule tables, Lenia, ...) live in its folder under
  :mod:`tensorca.families`.

Neighbourhood geometry (3x3 index bits, Golly's range-r shapes and weights) is in
:mod:`.neighbourhoods`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..errors import RuleError
from .neighbourhoods import CENTRE_BIT, TABLE_WEIGHTS
from .stepspec import Index3x3, StateSpace, StepSpec, TableUpdate

__all__ = ["CENTRE_BIT", "TABLE_WEIGHTS", "Rule", "TableRule"]


class Rule:
    """Base of all rule values. Subclasses are frozen (hashable) dataclasses.

    The rule protocol, which is all that code outside ``rules/`` may ask of a rule:

    - ``canonical()``: Golly's spelling; ``family``: a display name ("life-like", ...);
    - ``reach``: how far (cells) a state influences the next generation;
    - ``births_from_nothing()``: a dead cell with nothing alive around it is born (B0);
    - ``state_space``: discrete ``n_states`` or continuous floats;
    - ``compile()``: the :class:`~tensorca.rules.stepspec.StepSpec` engines dispatch on.
    """

    family: ClassVar[str] = "abstract"
    n_states: int

    def canonical(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def _compile(self) -> StepSpec:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def compile(self) -> StepSpec:
        """The step spec of this rule, computed once per rule value and kept on it.

        Kept on the value (not in a global cache) so a rule with a million-cell weighted
        neighbourhood frees its spec with itself; ``parse_rule`` returns the same value for the
        same text, so engines asking again every run reuse it.
        """
        spec = self.__dict__.get("_spec")
        if spec is None:
            spec = self._compile()
            object.__setattr__(self, "_spec", spec)  # frozen dataclass: not a field, not compared
        return spec

    def __getstate__(self) -> dict:
        # pickles (worker processes) carry the rule, not its compiled arrays
        return {k: v for k, v in self.__dict__.items() if k != "_spec"}

    @property
    def reach(self) -> int:
        """How far (in cells) a state can influence the next generation."""
        return self.compile().reach

    @property
    def state_space(self) -> StateSpace:
        """The values a cell may hold under this rule."""
        return self.compile().state_space

    def births_from_nothing(self) -> bool:
        """True when a dead cell with no live cell around it is born: the unbounded plane fills at once."""
        return self.compile().births_from_nothing

    def __str__(self) -> str:
        return self.canonical()


@dataclass(frozen=True, eq=True)
class TableRule(Rule):
    """A rule decided by the 3x3 neighbourhood of state-1 cells, as a 512-entry table.

    ``table`` holds 512 bytes, each 0 or 1: for a cell in state 1 (centre bit set) it says whether
    the cell survives; for a cell in state 0 (centre bit clear) whether it is born. With
    ``n_states > 2`` (Generations) a state-1 cell that does not survive goes to state 2, and cells
    in states 2..n-1 advance by one (n-1 goes to 0) whatever their neighbours; they do not count
    as neighbours and cannot be born into.

    ``kind`` says how the rule was written and so how ``canonical()`` spells it:
    ``"bs"`` (outer-totalistic B/S, with ``neighbourhood`` "M", "V" or "H"), ``"hensel"``
    (isotropic non-totalistic letters), ``"map"``, ``"wolfram"``.
    ``birth`` and ``survival`` are the outer-totalistic count sets (counts over ``neighbourhood``)
    when the rule is outer-totalistic, else ``None``; bit-packed engines use them. ``family``: the
    display name the parser gives (:mod:`tensorca.families` says which family a rule belongs to).
    """

    table: bytes
    n_states: int = 2
    kind: str = "bs"
    neighbourhood: str = "M"
    birth: frozenset[int] | None = None
    survival: frozenset[int] | None = None
    text: str = field(default="", compare=False)  # Golly's canonical spelling, set by the parser
    wolfram: int | None = None  # the Wolfram number for kind "wolfram"
    generations: bool = False  # written in Generations notation (S/B/C), even with C = 2
    #: The family's display name (``Rule.family``), set by the family's parser: five families share this value.
    family: str = field(default="", compare=False)  # type: ignore[misc]

    def __post_init__(self) -> None:
        if len(self.table) != 512 or any(b > 1 for b in self.table):
            raise RuleError("a TableRule's table must be 512 bytes, each 0 or 1")

    @property
    def is_generations(self) -> bool:
        """True when the rule has decay states (n_states > 2)."""
        return self.n_states > 2

    @property
    def is_outer_totalistic_moore(self) -> bool:
        """True for a two-state B/S rule on the Moore neighbourhood (bit-packed engines' class)."""
        return self.birth is not None and self.neighbourhood == "M" and self.n_states == 2

    @property
    def has_b0(self) -> bool:
        """True when a dead cell with no live neighbours is born (index 0 of the table)."""
        return self.table[0] == 1

    def lookup_table(self) -> np.ndarray:
        """The table as a ``(512,)`` ``uint8`` NumPy array of 0/1 (a fresh copy)."""
        return np.frombuffer(self.table, dtype=np.uint8).copy()

    def canonical(self) -> str:
        return self.text

    def _compile(self) -> StepSpec:
        return StepSpec(
            perceive=Index3x3(),
            update=TableUpdate(self.table, self.neighbourhood, self.birth, self.survival),
            reach=1,
            state_space=StateSpace("discrete", self.n_states),
            births_from_nothing=self.has_b0,
        )
