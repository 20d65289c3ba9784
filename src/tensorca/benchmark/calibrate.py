"""Fit the cost model of ``backend="auto"`` (:mod:`tensorca.costmodel`) to measurements and save it.

From a :class:`~.sweep.BenchReport`: ``call_s`` and ``gen_s`` from the tiny-grid overheads,
``cell_s`` from the largest grid of the sweep (steady state, overheads removed), ``call_cell_s``
(per-call work that grows with the grid: packing, conversions) from one-generation calls on that
grid, ``transfer_Bps`` from the CUDA copies, and the torch ``compile_s`` from its first call.
:func:`family_factors` adds the per-rule-class multipliers (Hensel tables, Generations, Larger
than Life) measured on a 256^2 grid. The result overrides the built-in defaults key by key.
"""

from __future__ import annotations

from typing import Callable

from ..engines import get_engine
from ..rules import parse_rule
from ..topology import Topology
from .measure import median_time
from .sweep import BenchReport, _grid, _prepare

FAMILY_RULES = {"moore": "B3/S23", "table": "B2-a/S12", "generations": "345/2/4", "ltl": "R5,C0,M1,S34..58,B34..45,NM"}


def fit(report: BenchReport) -> dict[str, dict]:
    """``{"engine@device": {field: value}}`` fitted from ``report``."""
    values: dict[str, dict] = {}
    for s in report.engines:
        if not s.available or s.steady_cups is None:
            continue
        entry: dict = {}
        if s.call_s is not None:
            entry["call_s"] = s.call_s
        if s.gen_s is not None:
            entry["gen_s"] = s.gen_s
        if s.steady_cups and s.steady_cells:
            per_gen_cells = 1.0 / s.steady_cups
            entry["cell_s"] = max(1e-14, per_gen_cells - (s.gen_s or 0.0) / s.steady_cells)
        if s.call_cell_s is not None:
            entry["call_cell_s"] = s.call_cell_s
        if s.h2d_Bps and s.d2h_Bps:
            entry["transfer_Bps"] = 2.0 / (1.0 / s.h2d_Bps + 1.0 / s.d2h_Bps)
        values[f"{s.engine}@{s.device}"] = entry
    return values


def family_factors(keys: list[str], side: int = 256, gens: int = 8, repeats: int = 3,
                   on_result: Callable[[str, str, float], None] | None = None) -> dict[str, dict]:
    """Per engine/device, ``family_cell`` multipliers of ``cell_s`` relative to B3/S23 (256^2 grid)."""
    out: dict[str, dict] = {}
    topology = Topology.torus(side, side)
    for key in keys:
        name, device = key.split("@")
        engine = get_engine(name)
        cells_np = _grid(1, side, side)
        times = {}
        for family, text in FAMILY_RULES.items():
            rule = parse_rule(text)
            if not engine.supports(rule, topology):
                continue
            n_states = rule.n_states
            cells = _prepare(engine, (cells_np % n_states).astype("uint8"), device)
            times[family] = median_time(lambda: engine.advance(cells, rule, topology, gens), device=device,
                                        repeats=repeats)
        if "moore" not in times or len(times) < 2:
            continue
        factors = {}
        for family, seconds in times.items():
            if family != "moore":
                factors[family] = seconds / times["moore"]
                if on_result:
                    on_result(key, family, factors[family])
        out[key] = {"family_cell": factors}
    return out
