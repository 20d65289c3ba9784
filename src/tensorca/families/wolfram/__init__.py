"""Wolfram's elementary rules as 2-D rules (``W30``: each row the next generation; :mod:`tensorca.rules.wolfram`)."""

from ...rules.base import Rule
from ..native import table_class
from ..registry import Family


def claims(rule: Rule) -> bool:
    """``W<n>`` rules."""
    return rule.family == "wolfram"


FAMILY = Family(
    name="wolfram",
    title="Wolfram's elementary rules, one row a generation (W<n>)",
    claims=claims,
    samples=("W30", "W90", "W110"),
    cost=table_class,
    engines=("numpy", "torch", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
