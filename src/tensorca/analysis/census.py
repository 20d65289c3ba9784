"""Census: split a stabilised pattern into objects, name each by its apgcode, and count them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..rules.base import Rule
from .evolve import State, Stepper, initial_state
from .objects import MAX_PERIOD, Found, Splitter

_SPLITTERS: dict[str, Splitter] = {}


def splitter_for(stepper_or_rule: Stepper | Rule, max_period: int = MAX_PERIOD) -> Splitter:
    """A :class:`Splitter` for the rule, cached so its behaviour caches are reused across calls."""
    stepper = stepper_or_rule if isinstance(stepper_or_rule, Stepper) else Stepper(stepper_or_rule)
    key = f"{stepper.rule.canonical()}|{max_period}"
    if key not in _SPLITTERS:
        _SPLITTERS[key] = Splitter(stepper, max_period)
    return _SPLITTERS[key]


def sorted_counts(counts: Counter) -> dict[str, int]:
    """Most common first, ties by apgcode."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def census_state(state: State, stepper: Stepper | Rule, max_period: int = MAX_PERIOD) -> dict[str, int]:
    """Census of a ``(cells, origin)`` state: apgcode -> count, most common first."""
    found = splitter_for(stepper, max_period).split(state)
    return sorted_counts(Counter(f.apgcode for f in found))


def objects(pattern: Any, rule: str | Rule | None = None, max_period: int = MAX_PERIOD) -> list[Found]:
    """The separate objects of ``pattern`` (a :class:`Pattern` or 2-D array), each with its apgcode."""
    state, rule_value = initial_state(pattern, rule)
    return splitter_for(rule_value, max_period).split(state)


def census(pattern: Any, rule: str | Rule | None = None, max_period: int = MAX_PERIOD) -> dict[str, int]:
    """apgcode -> number of such objects in ``pattern``, most common first.

    ``pattern``: a :class:`~tensorca.pattern.Pattern` (its rule is the default) or a 2-D array;
    ``rule`` defaults to the pattern's, then B3/S23. Spaceships count like any other object,
    wherever they are. Objects that are no still life, oscillator or spaceship within
    ``max_period`` generations are counted as ``zz_UNRESOLVED``.
    """
    state, rule_value = initial_state(pattern, rule)
    return census_state(state, rule_value, max_period)
