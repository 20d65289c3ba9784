"""tensorca: cellular automata with Golly's semantics on NumPy and PyTorch.

Public API::

    import tensorca
    rule = tensorca.parse_rule("B36/S23")             # Golly rule strings, canonical spellings
    pattern = tensorca.load("gosper_gun.rle")          # RLE, .cells, Life 1.05/1.06, gzip
    later = tensorca.run(pattern, generations=300)     # same kind of object back; backend="auto"
    grid = tensorca.run(numpy_grid, "B3/S23", 100)     # an array is a torus of its own shape
    history = tensorca.elementary(30, row, 64)         # 1-D Wolfram rules, all 256
    stable = tensorca.stabilize(heights, "sandpile")   # Abelian sandpiles; tensorca.sandpile.identity(n)

Frameworks other than NumPy (PyTorch, Numba, Triton) are imported only when an engine that
needs them is chosen. A new engine is one call: ``tensorca.register_lazy(tensorca.EngineInfo(...))``.

``import tensorca`` itself imports nothing else: each public name (and each submodule, as
``tensorca.io``) is imported on first use (PEP 562), so that ``tensorca --version`` does not pay for
NumPy and the engines. ``from tensorca import X`` works for every ``X`` in :data:`__all__`.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from . import _lazy
from ._version import __version__  # noqa: F401 (tensorca.__version__)

#: Where each public name lives: ``name -> submodule`` (relative to this package).
_LAZY: dict[str, str] = {
    "elementary": ".elementary",
    "domany_kinzel": ".elementary",
    **dict.fromkeys(("EngineCost", "EngineInfo", "engine_names", "get_engine", "register", "register_lazy"),
                    ".engines"),
    **dict.fromkeys(("CheckpointError", "EngineError", "GridError", "MemoryBudgetError", "MissingDependencyError",
                     "PatternError", "RuleError", "TensorcaError", "TopologyError", "UsageError"), ".errors"),
    **dict.fromkeys(("dumps", "load", "loads", "save"), ".io"),
    "Pattern": ".pattern",
    "random_soup": ".random_grids",
    "stabilize": ".sandpile",
    "parse_rule": ".rules",
    "parse_spec": ".rules",
    **dict.fromkeys(("Population", "explain", "resume", "run"), ".simulate"),
    "Topology": ".topology",
    "parse_topology": ".topology",
    "verify": ".verify",
    "show": ".view",
}


def bench(*args, **kwargs):
    """Benchmark the engines here: see :func:`tensorca.benchmark.bench` (imported on first use)."""
    from .benchmark import bench as _bench

    return _bench(*args, **kwargs)


def soup_census(*args, **kwargs):
    """Census apgsearch's soups, here or on dask workers: see :func:`tensorca.search.distributed.soup_census`."""
    from .search.distributed import soup_census as _soup_census

    return _soup_census(*args, **kwargs)


def __getattr__(name: str) -> Any:
    """A public name, imported from its submodule on first use and kept; else a submodule (``tensorca.io``)."""
    return _lazy.attribute(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    """The module's names with every public one, imported or not (tab completion, ``help``)."""
    return sorted(set(globals()) | set(__all__))


class _Package(ModuleType):
    """This package's module type: importing the submodule ``tensorca.verify`` (or ``.elementary``)
    must not rebind ``tensorca.verify``, the function :data:`__all__` exports under that name.

    Python sets a package's attribute to each submodule it loads; an eager ``from .verify import
    verify`` used to win by running after that. Lazily, the submodule may be loaded first (``from
    tensorca.verify import FAMILIES``), so that binding is skipped here and the name stays lazy."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and _LAZY.get(name) == f".{name}":
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
    "domany_kinzel",
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
    "stabilize",
    "show",
    "verify",
]
