"""Stochastic rules: noisy birth and survival (``B3/S23:pb=0.9,ps=0.99``), alpha-asynchronous updating
(``:async=0.5``), Domany-Kinzel, forest fire and SIR (:mod:`tensorca.families.stochastic.rule`). Draws are keyed by
seed, absolute generation and cell, so every engine gives the same cells."""

from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ..registry import Family
from .rule import matches, parse


def claims(rule: Rule) -> bool:
    """Rules whose update draws random numbers (asked first: a noisy rule wraps a rule of another family)."""
    return rule.compile().stochastic


def cost(spec: StepSpec) -> tuple[str, float]:
    """One class: the draws dominate whatever the base rule."""
    return "stochastic", 1.0


FAMILY = Family(
    name="stochastic",
    title="noisy, asynchronous and other random rules (Domany-Kinzel, forest fire, SIR)",
    claims=claims,
    # drawn from the default clock (seed 0, generation 0): tests/test_stochastic.py tries others
    samples=("B3/S23:pb=0.9,ps=0.8", "B36/S23:async=0.5", "B2ce3ai/S23-k:pb=0.7,ps=0.6,async=0.8",
             "345/2/4:ps=0.7", "DK:p1=0.6,p2=0.8", "ForestFire:p=0.1,f=0.05", "SIR:beta=0.4,gamma=0.2"),
    notation=(matches, parse),
    cost=cost,
    # Their draws dominate, 512^2 soups, one thread, 2026-12 (2-core EPYC, loaded): NumPy ~30 ns a cell
    # (noisy B3/S23, forest fire, SIR), torch CPU 30-41 ns; bitpack-cpu's noisy word pass at 4096^2
    # ~0.13 ns a cell with its row kernels; the CUDA factors are estimates.
    factors={"stochastic": {"numpy": {"cell": 6.0}, "torch@cpu": {"cell": 70.0},
                            "torch@cuda": {"gen": 3.0, "cell": 6.0}, "bitpack-cpu": {"cell": 1.6}}},
    engines=("numpy", "torch", "bitpack-cpu", "dask"),
)
