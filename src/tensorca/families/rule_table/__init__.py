"""Rule tables and trees: Golly's ``.rule`` files (``WireWorld``, ``Langtons-Ant``;
:mod:`tensorca.families.rule_table.loader`), any number of states over the Moore, von Neumann or hexagonal
neighbourhood, run as a decision tree."""

from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ..registry import Family
from .loader import matches_name, parse_name

KINDS = ("neighbour_states", "tree")
_STEPS = "tensorca.families.rule_table.steps"


def claims(rule: Rule) -> bool:
    """Rules loaded from rule files (tables and trees)."""
    return rule.family == "ruletable"


def cost(spec: StepSpec) -> tuple[str, float]:
    return "tree", 1.0


FAMILY = Family(
    name="ruletable",
    title="Golly rule tables and trees (.rule files), any number of states",
    claims=claims,
    samples=("WireWorld", "Langtons-Ant", "BBM-emulated"),
    notation=(matches_name, parse_name),
    cost=cost,
    steps={"numpy": {KINDS: f"{_STEPS}:numpy_tree_step"}, "torch": {KINDS: f"{_STEPS}:torch_tree_build"}},
    # per cell, on 512^2 grids, one thread: ~80 ns on NumPy, ~5-19 on torch
    factors={"tree": {"numpy": {"cell": 33.0}, "torch@cpu": {"cell": 25.0}}},
    cell_bytes={"numpy": 22.0, "torch": 26.0},
    engines=("numpy", "torch", "margolus", "dask"),
)
