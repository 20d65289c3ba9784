"""Golly's Super algorithm rules: ``[R]History`` (7 states) and ``[R]Super`` (26 states).

``R`` is any two-state rule of Golly's QuickLife family (B/S with Hensel letters, ``V``, ``H``,
``MAP``; ``Life`` is B3/S23); the postfix is case-insensitive. Odd states are ON, even states
are OFF: a cell's ON/OFF fate comes from R's 512-entry table over the 3x3 window of *odd*
cells, and its new state from its old state and the set of states among its neighbours
(Golly's ``typeMask``; Moore, or R's von Neumann / hexagonal neighbours). Semantics as
Help/Algorithms/Super.html and ``superalgo.cpp`` (``slowcalc``) define them:

- History: a neighbour in state 6 turns 1 into 2 and 3, 5 into 4. Otherwise a birth makes 4 -> 3,
  6 stays 6, other OFF states -> 1; a death makes 5 -> 4 and other ON states s -> s + 1.
- Super: as History for states 0..6, plus trail states 9/10, 11/12, no-trail ON states 13..25 that
  pass their state on to births, labels 14..24 (see :mod:`tensorca.families.rule_table.steps` for the
  kernel, which follows Golly's decision list line by line).

B0 rules are accepted only with Smax, run as Golly does: with the table ``1 - reversed(table)``.
Compiles to perceive ``super_neighbours`` / update ``super`` (its own kinds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ...errors import RuleError
from ...rules.base import Rule
from ...rules.notation import parse_range
from ...rules.stepspec import StateSpace, StepSpec

__all__ = ["SuperNeighbours", "SuperRule", "SuperUpdate", "matches_super", "parse_super"]

POSTFIXES = {"history": ("History", 7), "super": ("Super", 26)}


@dataclass(frozen=True)
class SuperNeighbours:
    """Perceive the 3x3 index of odd (ON) cells and the bit set ``OR(1 << state)`` of the states
    of the ``neighbourhood``'s neighbours (``"M"``, ``"V"`` or ``"H"``; centre excluded)."""

    neighbourhood: str = "M"
    kind: Literal["super_neighbours"] = "super_neighbours"


@dataclass(frozen=True)
class SuperUpdate:
    """Golly's Super decision list: ``mode`` ``"history"`` or ``"super"``, R's 512-byte ``table``
    (already complemented for B0 with Smax)."""

    table: bytes = field(repr=False)
    mode: str = "history"
    kind: Literal["super"] = "super"


@dataclass(frozen=True, eq=True)
class SuperRule(Rule):
    """``[R]History`` / ``[R]Super``: the two-state rule ``base`` (its 512-entry ``table`` and
    ``neighbourhood`` letter) with Golly's extra states."""

    family: ClassVar[str] = "super"

    base: str
    table: bytes = field(repr=False)
    neighbourhood: str
    mode: str
    text: str = field(default="", compare=False)

    @property
    def n_states(self) -> int:  # type: ignore[override]
        return POSTFIXES[self.mode][1]

    def canonical(self) -> str:
        return self.text

    def _compile(self) -> StepSpec:
        return StepSpec(
            perceive=SuperNeighbours(self.neighbourhood),
            update=SuperUpdate(self.table, self.mode),
            reach=1,
            state_space=StateSpace("discrete", self.n_states),
            births_from_nothing=False,  # B0 runs only with Smax, complemented: never born from nothing
        )


def _postfix(body: str) -> str | None:
    lower = body.lower()
    for key in POSTFIXES:
        if lower.endswith(key) and len(body) > len(key):
            return key
    return None


def matches_super(body: str) -> bool:
    """True when ``body`` ends in ``History`` or ``Super`` (any case) after some rule text."""
    return _postfix(body) is not None


def parse_super(text: str, start: int, end: int) -> Rule:
    """Parse ``[R]History`` / ``[R]Super`` in ``text[start:end]``."""
    body = text[start:end]
    mode = _postfix(body)
    if mode is None:  # pragma: no cover - the matcher said so
        raise RuleError("missing History or Super postfix", text, start)
    base_text = body[: len(body) - len(mode)]
    life = base_text.lower()
    if life in ("life", "lifeh", "lifev"):
        base_text = "B3/S23" + life[4:].upper()
    try:
        base = parse_range(base_text, 0, len(base_text))
    except RuleError as exc:
        position = start + exc.position if isinstance(exc.position, int) else start
        raise RuleError(f"bad base rule for {POSTFIXES[mode][0]}: {exc.reason}", text, position) from exc
    spec = base.compile()
    if spec.kinds != ("index3x3", "table") or spec.n_states != 2 or base.family == "wolfram":
        raise RuleError(f"{POSTFIXES[mode][0]} needs a two-state B/S, Hensel or MAP rule, not "
                        f"{base.canonical()!r}", text, start)
    table = bytes(spec.update.table)  # type: ignore[union-attr]
    if table[0]:
        if not table[511]:
            raise RuleError(f"{POSTFIXES[mode][0]} only supports B0 with Smax", text, start)
        table = bytes(1 - b for b in reversed(table))
    canon = base.canonical()
    nbhd = spec.update.neighbourhood  # type: ignore[union-attr]
    if canon == "B3/S23":
        canon = "Life"
    return SuperRule(canon, table, nbhd, mode, text=canon + POSTFIXES[mode][0])
