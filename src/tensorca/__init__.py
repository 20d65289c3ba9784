"""tensorca: cellular automata with Golly's semantics on NumPy and PyTorch.

Public API::

    import tensorca
    rule = tensorca.parse_rule("B36/S23")             # Golly rule strings, canonical spellings
    pattern = tensorca.load("gosper_gun.rle")          # RLE, .cells, Life 1.05/1.06, gzip
    later = tensorca.run(pattern, generations=300)     # same kind of object back; backend="auto"
    grid = tensorca.run(numpy_grid, "B3/S23", 100)     # an array is a torus of its own shape
    history = tensorca.elementary(30, row, 64)         # 1-D Wolfram rules, all 256

Frameworks other than NumPy (PyTorch, Numba, Triton) are imported only when an engine that
needs them is chosen. A new engine is one call: ``tensorca.register_lazy(tensorca.EngineInfo(...))``.
"""

from .elementary import elementary
from .engines import EngineCost, EngineInfo, engine_names, get_engine, register, register_lazy
from .errors import (
    CheckpointError,
    EngineError,
    GridError,
    MemoryBudgetError,
    MissingDependencyError,
    PatternError,
    RuleError,
    TensorcaError,
    TopologyError,
    UsageError,
)
from .io import dumps, load, loads, save
from .lenia import expanded as _expanded  # noqa: F401  registers the ExpandedLenia notation and kernels
from .pattern import Pattern
from .random_grids import random_soup
from .rules import parse_rule, parse_spec
from .simulate import Population, explain, resume, run
from .topology import Topology, parse_topology
from .verify import verify
from .view import show

__version__ = "0.1.0"


def bench(*args, **kwargs):
    """Benchmark the engines here: see :func:`tensorca.benchmark.bench` (imported on first use)."""
    from .benchmark import bench as _bench

    return _bench(*args, **kwargs)


def soup_census(*args, **kwargs):
    """Census apgsearch's soups, here or on dask workers: see :func:`tensorca.search.distributed.soup_census`."""
    from .search.distributed import soup_census as _soup_census

    return _soup_census(*args, **kwargs)


__all__ = [
    "CheckpointError",
    "EngineCost",
    "EngineError",
    "EngineInfo",
    "GridError",
    "MemoryBudgetError",
    "MissingDependencyError",
    "Pattern",
    "PatternError",
    "Population",
    "RuleError",
    "TensorcaError",
    "Topology",
    "TopologyError",
    "UsageError",
    "bench",
    "dumps",
    "elementary",
    "engine_names",
    "explain",
    "get_engine",
    "load",
    "loads",
    "parse_rule",
    "parse_spec",
    "parse_topology",
    "random_soup",
    "register",
    "register_lazy",
    "resume",
    "run",
    "soup_census",
    "save",
    "show",
    "verify",
]
