"""Isotropic non-totalistic rules in Hensel's letters (``B2-a/S12``, :mod:`tensorca.families.life_like.hensel`)."""

from ..native import named, table_class
from ..registry import Family

FAMILY = Family(
    name="isotropic",
    title="isotropic non-totalistic rules (Hensel's letters)",
    claims=named("isotropic"),
    samples=("B2-a/S12", "B3/S2-i34q", "B2ce3ai/S23-k", "B2i34c/S1e2-a5"),
    cost=table_class,
    # The "table" class (any two-state 3x3 table but Moore B/S): time per generation and per cell over
    # B3/S23's. CPU: measured on the 2-core EPYC; CUDA: the counted ratios of the index path (64 B a cell
    # against 47, 12 kernels a generation against 12) on an H200.
    factors={"table": {"numpy": {"gen": 1.0, "cell": 1.05}, "torch@cpu": {"gen": 1.1, "cell": 1.1},
                       "torch@cuda": {"gen": 1.0, "cell": 1.36}, "bitpack-cpu": {"cell": 2.5}}},
    engines=("numpy", "torch", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
