"""Golly's Super and History rules over a two-state 3x3 base rule (``LifeHistory``, ``B3/S23Super``;
:mod:`tensorca.families.super_history.rule`)."""

from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ..registry import Family
from .rule import matches_super, parse_super

KINDS = ("super_neighbours", "super")
_STEPS = "tensorca.families.rule_table.steps"


def claims(rule: Rule) -> bool:
    """History (7 states) and Super (26 states) rules."""
    return rule.family == "super"


def cost(spec: StepSpec) -> tuple[str, float]:
    return "super", 1.0


FAMILY = Family(
    name="super",
    title="Golly's History and Super rules over a 3x3 base rule",
    claims=claims,
    samples=("LifeHistory", "B3/S23Super", "B36/S23History", "LifeSuper"),
    notation=(matches_super, parse_super),
    cost=cost,
    steps={"numpy": {KINDS: f"{_STEPS}:numpy_super_step"}, "torch": {KINDS: f"{_STEPS}:torch_super_build"}},
    # per cell, on 512^2 grids, one thread: 190-400 ns on NumPy, 30-130 on torch
    factors={"super": {"numpy": {"cell": 120.0}, "torch@cpu": {"cell": 150.0}}},
    cell_bytes={"numpy": 22.0, "torch": 26.0},
    engines=("numpy", "torch", "dask"),
)
