"""Larger than Life and HROT: counts over a range-r neighbourhood (Moore, von Neumann, circular, custom and
weighted; ``R5,C0,M1,S34..58,B34..45,NM``; :mod:`tensorca.families.larger_than_life.notation`)."""

from ...rules.base import Rule
from ..native import count_class
from ..registry import Family
from .notation import LargerThanLifeRule, matches, parse_ltl


def claims(rule: Rule) -> bool:
    """Larger than Life and HROT rules (any neighbourhood, weighted or not, any number of states)."""
    return isinstance(rule, LargerThanLifeRule)


FAMILY = Family(
    name="larger-than-life",
    title="Larger than Life and HROT: counts over a range-r neighbourhood, weighted or not",
    claims=claims,
    samples=("R5,C0,M1,S34..58,B34..45,NM", "R1,C0,M0,S2..3,B3..3,NM", "R2,C0,M0,S3..6,B4..5,NN",
             "R3,C3,M1,S10..20,B10..14,NC", "R3,C0,S0,7-12,B8,12,N+", "R2,C5,S2-4,B3,NX",
             "R2,C0,M1,S1..12,B1..12,N2", "R2,C4,S1-5,B2-3,N*", "R2,C0,S1-3,B2,N@891891",
             "R1,C0,S1,B2,NW0810080a850a081008", "R1,C4,S1,B2,NW123401323,012A",
             "R2,C0,S2-7,B3-5,NW11A1112221A2F2A1222111A11", "R2,C3,S2-9,B3-6,NG"),
    notation=(matches, parse_ltl),
    cost=count_class,
    # Time per generation and per cell over B3/S23's for R5 Moore (the class's scale 1; count_class scales
    # other ranges). CUDA: the counted ratios on an H200 (102 B a cell against 47, 15 kernels against 12).
    # ltl-cpu's own costs are per R5 cell already.
    factors={"ltl": {"numpy": {"gen": 2.0, "cell": 2.4}, "torch@cpu": {"gen": 1.2, "cell": 2.5},
                     "torch@cuda": {"gen": 1.25, "cell": 2.17}}},
    engines=("numpy", "torch", "ltl-cpu", "dask"),
)
