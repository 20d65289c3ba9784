"""Wolfram's elementary rules as 2-D rules (``W30``: each row the next generation;
:mod:`tensorca.families.wolfram.notation`)."""

from ...rules.base import Rule
from ..native import table_class
from ..registry import Family
from .notation import matches, parse_wolfram


def claims(rule: Rule) -> bool:
    """``W<n>`` rules."""
    return rule.family == "wolfram"


FAMILY = Family(
    name="wolfram",
    title="Wolfram's elementary rules, one row a generation (W<n>)",
    claims=claims,
    samples=("W30", "W90", "W110"),
    notation=(matches, parse_wolfram),
    cost=table_class,
    engines=("numpy", "torch", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
