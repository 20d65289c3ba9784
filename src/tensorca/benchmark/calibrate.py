"""Fit the cost model of ``backend="auto"`` (:mod:`tensorca.costmodel`) to measurements and save it.

From a :class:`~.sweep.BenchReport`: ``call_s`` and ``gen_s`` from the tiny-grid overheads,
``cell_s`` from the largest grid of the sweep (steady state, overheads removed), ``call_cell_s``
(per-call work that grows with the grid: packing, conversions) from one-generation calls on that
grid, ``transfer_Bps`` from the CUDA copies, and the torch ``compile_s`` from its first call.
:func:`family_factors` adds the per-rule-class multipliers (every cost class the rule families declare:
Hensel tables, Generations, Larger than Life, rule tables, Lenia, ...) measured on a 256^2 grid. The
result overrides the built-in defaults key by key.

A machine under load gives noisy figures, so :func:`calibrate` runs the sweep :data:`RUNS` times,
keeps the median of each fitted value (one outlying run cannot move it) and warns
(:class:`NoisyCalibrationWarning`) about values whose runs spread by more than
:data:`NOISY_SPREAD` of their median.
"""

from __future__ import annotations

import dataclasses
import statistics
import warnings
from collections.abc import Callable
from typing import Any

from ..engines import get_engine
from ..errors import TensorcaError, UsageError
from ..families import families as all_families
from ..families import family_of
from ..rules import parse_rule
from ..topology import Topology
from .measure import median_time
from .sweep import BenchReport, BenchRow, _grid, _prepare, bench

#: Sweeps per calibration; each fitted value is the median over them.
RUNS = 3
#: A fitted value whose runs spread ((max - min) / median) by more than this is reported as noisy.
NOISY_SPREAD = 0.25


class NoisyCalibrationWarning(UserWarning):
    """Repeated calibration sweeps disagree: the machine was probably busy; the saved costs may mislead ``auto``."""


@dataclasses.dataclass
class Calibration:
    """The fitted costs of :func:`calibrate`.

    ``values``: ``{"engine@device": {field: median}}`` (what :func:`tensorca.costmodel.save_calibration`
    takes); ``spread``: ``{"engine@device": {field: (max - min) / median}}`` over the runs;
    ``noisy``: one line per value whose spread exceeds :data:`NOISY_SPREAD`; ``reports``: the sweeps.
    """

    values: dict[str, dict]
    spread: dict[str, dict[str, float]]
    noisy: list[str]
    reports: list[BenchReport]



def class_samples() -> dict[str, str]:
    """``{cost class: rule text}``: for each cost class, a sample that parses and is priced as that class,
    a family's representative (first sample) before its other samples (what ``bench --calibrate``
    measures each class by)."""
    found: dict[str, str] = {}
    declared = all_families()
    # representatives first (a family's first sample), then the other samples for classes still missing
    for texts in [f.samples[:1] for f in declared] + [f.samples[1:] for f in declared]:
        for text in texts:
            try:
                rule = parse_rule(text)
            except TensorcaError:  # a sample form only verify expands (MAP-random:1)
                continue
            found.setdefault(family_of(rule).cost(rule.compile())[0], text)  # type: ignore[union-attr]
    return found


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
    """Per engine/device, ``family_cell`` multipliers of ``cell_s`` relative to B3/S23 (256^2 grid), for every
    cost class the rule families declare (:func:`tensorca.families.class_samples`: one rule each)."""
    out: dict[str, dict] = {}
    topology = Topology.torus(side, side)
    for key in keys:
        name, device = key.split("@")
        engine = get_engine(name)
        cells_np = _grid(1, side, side)
        times = {}
        for family, text in class_samples().items():
            rule = parse_rule(text)
            if not engine.supports(rule, topology):
                continue
            space = rule.state_space
            if space.discrete:
                start = (cells_np % rule.n_states).astype("uint8")
            else:  # continuous states (Lenia): the same soup as floats, one plane a channel
                start = (cells_np > 0).astype("float64")
                if space.channels:
                    start = start[:, None].repeat(space.channels, axis=1)
            cells = _prepare(engine, start, device)
            times[family] = median_time(_advancing(engine, cells, rule, topology, gens), device=device,
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


def _advancing(engine: Any, cells: Any, rule: Any, topology: Topology, gens: int) -> Callable[[], Any]:
    """A call of ``engine.advance`` on these arguments (bound now, not when the loop moves on)."""
    return lambda: engine.advance(cells, rule, topology, gens)


def fit_runs(reports: list[BenchReport], noisy_spread: float = NOISY_SPREAD) -> Calibration:
    """The median over ``reports`` of each value :func:`fit` finds, with each value's spread."""
    fitted = [fit(report) for report in reports]
    values: dict[str, dict] = {}
    spread: dict[str, dict[str, float]] = {}
    noisy: list[str] = []
    for key in sorted({k for f in fitted for k in f}):
        names = sorted({name for f in fitted for name in f.get(key, {})})
        values[key], spread[key] = {}, {}
        for name in names:
            samples = [f[key][name] for f in fitted if name in f.get(key, {})]
            middle = statistics.median(samples)
            values[key][name] = middle
            spread[key][name] = (max(samples) - min(samples)) / middle if middle > 0 else 0.0
            if len(samples) > 1 and spread[key][name] > noisy_spread:
                noisy.append(f"{key} {name}: runs spread by {spread[key][name]:.0%} of the median "
                             f"({', '.join(f'{v:.3g}' for v in samples)})")
    return Calibration(values, spread, noisy, list(reports))


def calibrate(
    first: BenchReport | None = None,
    *,
    runs: int = RUNS,
    families: bool | None = None,
    on_row: Callable[[BenchRow], None] | None = None,
    **bench_options: Any,
) -> Calibration:
    """Run the sweep ``runs`` times (``first``, if given, counts as one), keep each fitted value's
    median, add the rule-family factors (default: unless ``quick``), and warn with
    :class:`NoisyCalibrationWarning` when values spread by more than :data:`NOISY_SPREAD`.

    ``bench_options`` go to :func:`~tensorca.benchmark.sweep.bench` (``engines``, ``devices``,
    ``quick``, ``rule``, ``budget_s``, ...). Save the result with
    ``costmodel.save_calibration(calibration.values, meta=...)``.
    """
    if runs < 1:
        raise UsageError(f"calibration needs at least one run, got runs={runs}")
    options = {"compile": False, **bench_options}  # torch.compile is not part of the fit
    if first is not None:
        options.setdefault("quick", first.quick)
        options.setdefault("rule", first.rule)
        options.setdefault("engines", sorted({e.engine for e in first.engines if e.available}) or None)
    reports = [first] if first is not None else []
    while len(reports) < runs:
        reports.append(bench(on_row=on_row, **options))
    result = fit_runs(reports)
    if families if families is not None else not options.get("quick", False):
        for key, extra in family_factors(list(result.values)).items():
            result.values[key].update(extra)
    if result.noisy:
        warnings.warn(f"calibration runs disagree (is the machine busy?): {'; '.join(result.noisy)}",
                      NoisyCalibrationWarning, stacklevel=2)
    return result
