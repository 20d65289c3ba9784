"""Generations rules: 3x3 rules whose dying cells decay through states 2..n-1 (``345/2/4``, ``B2/S/C3``;
:mod:`tensorca.families.generations.notation`)."""

from ...rules.base import Rule
from ..native import table_class
from ..registry import Family
from .notation import matches, parse


def claims(rule: Rule) -> bool:
    """Generations rules of every 3x3 notation (B/S, Hensel, MAP, von Neumann, hexagonal)."""
    return rule.family == "generations"


FAMILY = Family(
    name="generations",
    title="Generations rules: dying cells decay through extra states",
    claims=claims,
    samples=("345/2/4", "/2/3", "23/3/2", "12/34/3", "12/34/256", "12/2-a/4", "23/3/3V", "2/3/3H"),
    notation=(matches, parse),
    cost=table_class,
    # Time per generation and per cell over B3/S23's. bitpack-cpu (bitpack_generations), 1024^2 soups,
    # packing included: 0.8 (/2/3) to 2.3 (256 states), 2.1 for 345/2/4 (load average 5). CUDA: the counted
    # ratios on an H200 (75 B a cell against 47, 23 kernels a generation against 12).
    factors={"generations": {"numpy": {"gen": 1.3, "cell": 5.0}, "torch@cpu": {"gen": 1.5, "cell": 4.5},
                             "torch@cuda": {"gen": 1.9, "cell": 1.6}, "bitpack-cpu": {"cell": 2.0}}},
    engines=("numpy", "torch", "dense-conv", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
