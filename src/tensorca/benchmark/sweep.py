"""The benchmark sweep: CUPS per engine and device over grid size and batch size, and the breakdown.

For every engine in the registry (:func:`tensorca.engines.engine_infos`) and each device it is
registered to run on here:

- **overheads** on a tiny 8x8 grid: the fixed cost of one engine call (``call_s``) and of one
  generation (``gen_s``), from calls of 1 and of ``G`` generations;
- **grid sweep** (batch 1): square grids from 64^2 up, doubling the side while one timed call stays
  inside the time budget; each point runs enough generations to take ~``target_s``;
- **batch sweep**: 64^2 grids in batches of 1, 16, 256 (and 1024 outside ``quick``);
- **transfers** (CUDA only): host-to-device and device-to-host copy of the largest grid;
- **compile / graphs** (engines with ``with_options(compile=..., cuda_graphs=...)``, i.e. torch):
  the same mid-size point with ``compile=True`` (first-call compile seconds and the steady
  speed-up) and, on CUDA, with CUDA graphs.

CUPS = cell updates per second = cells x generations / median seconds of ``engine.advance`` on
data already in the engine's array type and device (timed with device synchronisation).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import compiling
from ..engines import engine_info, engine_infos, get_engine
from ..engines.registry import devices_here
from ..errors import EngineError, MissingDependencyError, UsageError
from ..rules import parse_rule
from ..topology import Topology
from .measure import machine, median_time, time_once

GRID_SIDES = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
BATCHES_QUICK = (1, 16, 256)
BATCHES_FULL = (1, 16, 256, 1024)
TINY = 8
#: ``quick`` stops the grid sweep here (16 M cells).
QUICK_MAX_SIDE = 4096


@dataclasses.dataclass
class BenchRow:
    """One measured point."""

    engine: str
    device: str
    variant: str  # "eager", "compile", "graphs"
    sweep: str  # "grid", "batch", "tiny"
    batch: int
    height: int
    width: int
    generations: int
    seconds: float  # median of the timed calls
    cups: float

    @property
    def cells(self) -> int:
        return self.batch * self.height * self.width


@dataclasses.dataclass
class EngineSummary:
    """The breakdown for one engine on one device (None where it does not apply)."""

    engine: str
    device: str
    available: bool
    reason: str = ""
    call_s: float | None = None
    gen_s: float | None = None
    steady_cups: float | None = None
    steady_cells: int | None = None
    h2d_Bps: float | None = None
    d2h_Bps: float | None = None
    compile_first_s: float | None = None
    compile_speedup: float | None = None
    graphs_speedup: float | None = None
    call_cell_s: float | None = None
    #: Seconds spent compiling kernels (Numba) during this engine's sweep: first uses only, in the
    #: untimed warm-up call before each point, so in no figure (:mod:`tensorca.compiling`).
    kernel_compile_s: float | None = None


@dataclasses.dataclass
class BenchReport:
    """Everything ``tensorca bench`` measured; :meth:`to_json` is the ``--json`` format."""

    rule: str
    quick: bool
    machine: dict
    rows: list
    engines: list
    crossovers: list
    seconds: float

    def to_json(self) -> dict:
        return {
            "format": "tensorca-bench/1",
            "rule": self.rule,
            "quick": self.quick,
            "machine": self.machine,
            "seconds": self.seconds,
            "engines": [dataclasses.asdict(e) for e in self.engines],
            "rows": [{**dataclasses.asdict(r), "cells": r.cells} for r in self.rows],
            "crossovers": self.crossovers,
        }


def _grid(batch: int, height: int, width: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random((batch, height, width)) < 0.3).astype(np.uint8)


def _prepare(engine: Any, cells: np.ndarray, device: str) -> Any:
    if engine.array_module == "torch":
        import torch

        return torch.from_numpy(cells).to(device)
    return cells


def _point(engine: Any, rule, device: str, batch: int, side_h: int, side_w: int, gens: int, repeats: int,
           sweep: str, variant: str = "eager", warmup: int = 1) -> BenchRow:
    topology = Topology.torus(side_w, side_h)
    cells = _prepare(engine, _grid(batch, side_h, side_w), device)
    seconds = median_time(lambda: engine.advance(cells, rule, topology, gens), device=device, repeats=repeats,
                          warmup=warmup)
    cups = batch * side_h * side_w * gens / seconds if seconds > 0 else float("inf")
    return BenchRow(engine.name, device, variant, sweep, batch, side_h, side_w, gens, seconds, cups)


def _gens_for(seconds_per_cell_gen: float, cells: int, target_s: float, gen_s: float, cap: int = 1000) -> int:
    per_gen = gen_s + cells * seconds_per_cell_gen
    return int(max(1, min(cap, target_s / max(per_gen, 1e-9))))


def bench_targets(engines: list[str] | None = None,
                  devices: list[str] | None = None) -> list[tuple[str, str | None, str]]:
    """``(engine, device or None, reason)`` for every engine asked for (default: the registry's, in
    order of preference) on each device it is registered to run on here; reason set when unavailable."""
    out: list[tuple[str, str | None, str]] = []
    for name in engines or [info.name for info in engine_infos()]:
        try:
            info = engine_info(name)
            engine = get_engine(name)
        except (EngineError, MissingDependencyError) as exc:
            out.append((name, None, str(exc)))
            continue
        kinds = devices_here(info)
        found = [d for d in engine.devices() if d.split(":")[0] in kinds]
        if not found:
            runs_on = ", ".join(sorted(info.default_costs)) or "its devices"
            out.append((name, None, f"runs on {runs_on}, none of which is usable here"))
            continue
        wanted = [d for d in found if devices is None or d in devices or d.split(":")[0] in devices]
        if not wanted:
            out.append((name, None, f"no device here among {devices or ['cpu', 'cuda']} (has: {', '.join(found)})"))
        for device in wanted:
            out.append((name, device, ""))
    return out


@dataclasses.dataclass
class _Settings:
    """What one sweep measures: the rule, the time budget and target per call, repeats, options."""

    rule: Any
    quick: bool
    budget_s: float
    target_s: float
    repeats: int
    compile: bool | None


class _Sweep:
    """The measurements of one engine on one device, appended to ``rows`` as they are made."""

    def __init__(self, engine: Any, device: str, settings: _Settings, keep: Callable[[BenchRow], BenchRow]):
        self.engine, self.device, self.settings, self.keep = engine, device, settings, keep
        self.summary = EngineSummary(engine.name, device, True)
        self.call_s = self.gen_s = 0.0  # set by overheads()
        self.per_cell = 1e-9
        self.grid_rows: list[BenchRow] = []

    def point(self, batch: int, side_h: int, side_w: int, gens: int, sweep: str, engine: Any = None,
              variant: str = "eager", repeats: int | None = None) -> BenchRow:
        return _point(engine or self.engine, self.settings.rule, self.device, batch, side_h, side_w, gens,
                      repeats or self.settings.repeats, sweep, variant)

    def overheads(self) -> None:
        """First call (compiles/loads kernels), then 1 vs G generations on a tiny grid."""
        engine, rule, device = self.engine, self.settings.rule, self.device
        time_once(lambda: engine.advance(_prepare(engine, _grid(1, TINY, TINY), device), rule,
                                         Topology.torus(TINY, TINY), 1), device)
        g_tiny, repeats = 32, max(self.settings.repeats, 5)
        one = self.keep(self.point(1, TINY, TINY, 1, "tiny", repeats=repeats))
        many = self.keep(self.point(1, TINY, TINY, g_tiny, "tiny", repeats=repeats))
        self.gen_s = max(0.0, (many.seconds - one.seconds) / (g_tiny - 1))
        self.call_s = max(0.0, one.seconds - self.gen_s)
        self.summary.gen_s, self.summary.call_s = self.gen_s, self.call_s

    def grid_sweep(self) -> BenchRow | None:
        """Square grids at batch 1 while the next point fits the budget; the fastest point (or None)."""
        s, summary, repeats = self.settings, self.summary, self.settings.repeats
        spent = 0.0
        for side in GRID_SIDES:
            if s.quick and side > QUICK_MAX_SIDE:
                break
            cells = side * side
            estimate = (self.gen_s + cells * self.per_cell) * (repeats + 1) + self.call_s * (repeats + 1)
            if self.grid_rows and spent + estimate > s.budget_s:
                break
            gens = _gens_for(self.per_cell, cells, s.target_s, self.gen_s)
            t0 = time.perf_counter()
            try:
                row = self.keep(self.point(1, side, side, gens, "grid"))
            except (MemoryError, RuntimeError) as exc:  # out of memory on the device: stop growing
                if "memory" not in str(exc).lower() and not isinstance(exc, MemoryError):
                    raise
                break
            spent += time.perf_counter() - t0
            self.per_cell = max(1e-13, (row.seconds - self.call_s - gens * self.gen_s) / (gens * cells))
            self.grid_rows.append(row)
        if not self.grid_rows:
            return None
        # Steady state: the best throughput of the sweep (overheads amortised, before the grid
        # outgrows the caches); the per-call cost that grows with the grid from 1 generation vs many.
        peak = max(self.grid_rows, key=lambda r: r.cups)
        summary.steady_cups, summary.steady_cells = peak.cups, peak.cells
        one_big = self.point(1, peak.height, peak.width, 1, "grid-1gen")
        extra = one_big.seconds - self.call_s - self.gen_s - peak.cells / peak.cups
        summary.call_cell_s = max(0.0, extra / peak.cells)
        return peak

    def batch_sweep(self) -> None:
        for batch in (BATCHES_QUICK if self.settings.quick else BATCHES_FULL):
            gens = _gens_for(self.per_cell, batch * 64 * 64, self.settings.target_s, self.gen_s)
            self.keep(self.point(batch, 64, 64, gens, "batch"))

    def variants(self, peak: BenchRow) -> None:
        """``compile=True`` (first call and speed-up) and, on CUDA, CUDA graphs."""
        engine, device, s = self.engine, self.device, self.settings
        side = min(peak.height, 1024)
        base = self.point(1, side, side, 20, "variant")
        if s.compile if s.compile is not None else (not s.quick or device.startswith("cuda")):
            compiled = engine.with_options(compile=True)
            cells = _prepare(engine, _grid(1, side, side), device)
            self.summary.compile_first_s = time_once(
                lambda: compiled.advance(cells, s.rule, Topology.torus(side, side), 1), device)
            row = self.keep(self.point(1, side, side, 20, "variant", engine=compiled, variant="compile"))
            self.summary.compile_speedup = base.seconds / row.seconds
        if device.startswith("cuda"):
            graphed = engine.with_options(cuda_graphs=True)
            row = self.keep(self.point(1, 256, 256, 64, "variant", engine=graphed, variant="graphs"))
            plain = self.point(1, 256, 256, 64, "variant")
            self.summary.graphs_speedup = plain.seconds / row.seconds

    def run(self) -> EngineSummary:
        self.overheads()
        peak = self.grid_sweep()
        self.batch_sweep()
        if self.device.startswith("cuda") and peak is not None:
            self.summary.h2d_Bps, self.summary.d2h_Bps = _transfers(peak.height, peak.width, self.device,
                                                                    self.settings.repeats)
        if hasattr(self.engine, "with_options") and peak is not None:
            self.variants(peak)
        return self.summary


def bench(
    engines: list[str] | None = None,
    devices: list[str] | None = None,
    *,
    quick: bool = False,
    rule: str = "B3/S23",
    budget_s: float | None = None,
    target_s: float | None = None,
    repeats: int | None = None,
    compile: bool | None = None,
    on_row: Callable[[BenchRow], None] | None = None,
) -> BenchReport:
    """Measure every engine in the registry on each device (see the module docstring); returns a
    :class:`BenchReport`.

    ``budget_s``: seconds one engine/device may spend on its grid sweep (default 6 quick, 30
    full); a grid size is measured only if the previous point predicts it fits. ``target_s``: the
    time of one timed call (default 15 ms quick, 60 ms full). ``compile``: measure
    ``torch.compile`` (default: not in ``quick`` on CPU, where compiling takes tens of seconds).
    """
    began = time.perf_counter()
    for label, value in (("budget_s", budget_s), ("target_s", target_s), ("repeats", repeats)):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise UsageError(f"bench needs a positive, finite {label}, got {value!r}")
    settings = _Settings(parse_rule(rule), quick, budget_s if budget_s is not None else (6.0 if quick else 30.0),
                         target_s if target_s is not None else (0.015 if quick else 0.06),
                         repeats if repeats is not None else (3 if quick else 7), compile)
    rule_value, tiny = settings.rule, Topology.torus(TINY, TINY)
    rows: list[BenchRow] = []
    summaries: list[EngineSummary] = []

    def keep(row: BenchRow) -> BenchRow:
        rows.append(row)
        if on_row is not None:
            on_row(row)
        return row

    for name, device, reason in bench_targets(engines, devices):
        if device is None:
            summaries.append(EngineSummary(name, "-", False, reason))
            continue
        engine = get_engine(name)
        if not engine.supports(rule_value, tiny):
            summaries.append(EngineSummary(name, device, False, engine.why_unsupported(rule_value, tiny)))
            continue
        with compiling.measure() as clock:
            summary = _Sweep(engine, device, settings, keep).run()
        summary.kernel_compile_s = clock.seconds
        summaries.append(summary)
    return BenchReport(rule=rule_value.canonical(), quick=quick, machine=machine(), rows=rows, engines=summaries,
                       crossovers=crossovers(rows), seconds=time.perf_counter() - began)


def _transfers(height: int, width: int, device: str, repeats: int) -> tuple[float, float]:
    import torch

    host = torch.from_numpy(_grid(1, height, width))
    on_device = host.to(device)
    nbytes = host.numel()
    h2d = median_time(lambda: host.to(device), device=device, repeats=repeats)
    d2h = median_time(lambda: on_device.cpu(), device=device, repeats=repeats)
    return nbytes / h2d, nbytes / d2h


def crossovers(rows: list[BenchRow]) -> list[dict]:
    """Where the fastest engine/device changes along each sweep (``grid`` at batch 1, ``batch`` of 64^2).

    Each entry: ``sweep``, ``from`` and ``to`` (``engine@device``), ``cells`` (the geometric mean
    of the two cell counts it lies between) and those two counts.
    """
    found = []
    for sweep in ("grid", "batch"):
        by_cells: dict[int, dict[str, float]] = {}
        for r in rows:
            if r.sweep == sweep and r.variant == "eager":
                by_cells.setdefault(r.cells, {})[f"{r.engine}@{r.device}"] = r.cups
        leader_prev: str | None = None
        cells_prev = 0
        for cells in sorted(by_cells):
            # Only compare engines measured at this size (slow engines stop early).
            leader = max(by_cells[cells].items(), key=lambda kv: kv[1])[0]
            if leader_prev is not None and leader != leader_prev:
                found.append({"sweep": sweep, "from": leader_prev, "to": leader,
                              "cells": int(math.sqrt(cells_prev * cells)), "between": [cells_prev, cells]})
            leader_prev, cells_prev = leader, cells
    return found
