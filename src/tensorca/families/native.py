"""Cost classes of the families whose rules compile to the engines' own step-spec kinds.

Every engine runs ``index3x3``/``table`` and the count/interval kinds itself (no family kernels): the
3x3-table families (life-like, isotropic, MAP, Generations, Wolfram) and Larger than Life share these
two pricing functions, and the engines' costs carry the factors of the classes they return
(``moore``, ``table``, ``generations``, ``ltl``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..rules.base import Rule, TableRule
from ..rules.stepspec import StepSpec


def table_class(spec: StepSpec) -> tuple[str, float]:
    """``generations`` (decay states), ``moore`` (two-state B/S on the Moore neighbourhood) or ``table``
    (any other 3x3 table), scale 1."""
    if spec.decay:
        return "generations", 1.0
    moore = spec.update.kind == "table" and spec.update.outer_totalistic_moore  # type: ignore[union-attr]
    return ("moore" if moore else "table"), 1.0


def count_class(spec: StepSpec) -> tuple[str, float]:
    """``ltl``, scaled by the window's rows over 11 (R5's), times the mask counts a weighted
    neighbourhood needs (one per distinct weight and per weighted state)."""
    perceive = spec.perceive
    if perceive.kind == "mask_count":
        return "ltl", (2 * perceive.radius + 1) / 11.0
    state_weights = perceive.state_weights  # type: ignore[union-attr]
    states = 1 if state_weights is None else max(1, sum(1 for w in state_weights[1:] if w != state_weights[0]))
    passes = len({int(w) for w in perceive.weights.flat if w}) * states  # type: ignore[union-attr]
    return "ltl", passes * (2 * perceive.radius + 1) / 11.0


def named(family: str) -> Callable[[Rule], bool]:
    """``claims`` for the 3x3-table rules whose parser named them ``family`` (``TableRule.family``)."""

    def claims(rule: Rule) -> bool:
        return isinstance(rule, TableRule) and rule.family == family

    return claims
