"""The ``hashlife`` engine's registry facts, answerable without importing Numba.

The costs were measured on the 2-core AMD EPYC (Zen 5), Numba 0.68, 2026-12-01, with
``benchmarks/bench_hashlife.py`` and the scenarios of ``costmodel.tree_work``: importing Numba
~0.2 s; loading the compiled functions from Numba's cache ~0.23 s (first build and step in a
fresh process); compiling them cold ~45 s; ~3 ms per universe (store allocation and the first
calls); ~80 ns per live cell to build a tree from dense cells; 180-630 ns per node result
(cache misses of the result cache: ~200 ns for regular patterns, ~600 ns for a 1024^2 soup whose
store outgrows the CPU caches), 350 ns taken.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..cache_dirs import compiled_on_disk
from .info import EngineCost, EngineInfo

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Rule
    from ..rules.stepspec import StepSpec
    from ..topology import Topology

_FAST = "pip install 'tensorca[fast]'"


def hashlife_precheck(spec: StepSpec, topology: Topology) -> bool:
    """HashLife's class: two-state rules on the 3x3 neighbourhood without B0 (any topology: the
    cost model asks it on the unbounded plane only)."""
    return spec.kinds == ("index3x3", "table") and spec.n_states == 2 and not spec.births_from_nothing


def hashlife_kernel_state(rule: Rule) -> str:
    """``"loaded"`` once a universe has been stepped in this process, ``"disk"`` when Numba's cache
    holds the stepping function, else ``"cold"`` (every rule runs the same compiled code)."""
    if not hashlife_precheck(rule.compile(), None):  # type: ignore[arg-type]
        return "none"
    universe = sys.modules.get("tensorca.hashlife.universe")
    if universe is not None and getattr(universe, "_STEPPED", False):
        return "loaded"
    return "disk" if _cached_on_disk() else "cold"


_ON_DISK: list[bool] = []  # once found, remembered (the cache is not removed under a running process)


def _cached_on_disk() -> bool:
    """True when Numba's cache holds ``hashlife/step.py``'s ``result``."""
    if _ON_DISK:
        return True
    step_file = Path(__file__).resolve().parent.parent / "hashlife" / "step.py"
    if compiled_on_disk(step_file, "step.result-*.nbi"):
        _ON_DISK.append(True)
        return True
    return False


HASHLIFE = EngineInfo(
    "hashlife", "tensorca.hashlife.engine:HashLifeEngine", requires=("numba",), install=_FAST, imports="numba",
    preference=60, precheck=hashlife_precheck, kernel_state=hashlife_kernel_state, unbounded_native=True,
    default_costs={"cpu": EngineCost(call_s=3e-3, gen_s=0.0, cell_s=80e-9, compile_s=45.0, load_s=0.23,
                                     import_s=0.2, node_s=350e-9)},
)
