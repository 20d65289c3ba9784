"""The benchmark sweep: CUPS per engine and device over grid size and batch size, and the breakdown.

For every available engine and device:

- **overheads** on a tiny 8x8 grid: the fixed cost of one engine call (``call_s``) and of one
  generation (``gen_s``), from calls of 1 and of ``G`` generations;
- **grid sweep** (batch 1): square grids from 64^2 up, doubling the side while one timed call stays
  inside the time budget; each point runs enough generations to take ~``target_s``;
- **batch sweep**: 64^2 grids in batches of 1, 16, 256 (and 1024 outside ``quick``);
- **transfers** (CUDA only): host-to-device and device-to-host copy of the largest grid;
- **compile / graphs** (torch engine): the same mid-size point with ``compile=True`` (first-call
  compile seconds and the steady speed-up) and, on CUDA, with CUDA graphs.

CUPS = cell updates per second = cells x generations / median seconds of ``engine.advance`` on
data already in the engine's array type and device (timed with device synchronisation).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable

import numpy as np

from ..engines import engine_names, get_engine
from ..errors import EngineError
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
    seconds = median_time(lambda: engine.advance(cells, rule, topology, gens), device=device, repeats=repeats, warmup=warmup)
    cups = batch * side_h * side_w * gens / seconds if seconds > 0 else float("inf")
    return BenchRow(engine.name, device, variant, sweep, batch, side_h, side_w, gens, seconds, cups)


def _gens_for(seconds_per_cell_gen: float, cells: int, target_s: float, gen_s: float, cap: int = 1000) -> int:
    per_gen = gen_s + cells * seconds_per_cell_gen
    return int(max(1, min(cap, target_s / max(per_gen, 1e-9))))


def _engines_and_devices(engines: list[str] | None, devices: list[str] | None) -> list[tuple[str, str | None, str]]:
    """``(engine, device or None, reason)`` for every engine asked for; reason set when unavailable."""
    out = []
    for name in engines or engine_names():
        try:
            engine = get_engine(name)
        except EngineError as exc:
            out.append((name, None, str(exc)))
            continue
        found = engine.devices()
        if name == "bitpack-gpu" and "cuda" not in found:
            out.append((name, None, "needs a CUDA device (here only Triton's interpreter, which is for tests)"))
            continue
        wanted = [d for d in found if devices is None or d in devices or d.split(":")[0] in devices]
        if not wanted:
            out.append((name, None, f"no device here among {devices or ['cpu', 'cuda']} (has: {', '.join(found) or 'none'})"))
        for device in wanted:
            out.append((name, device, ""))
    return out


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
    """Measure every available engine and device (see the module docstring); returns a :class:`BenchReport`.

    ``budget_s``: seconds one engine/device may spend on its grid sweep (default 6 quick, 30
    full); a grid size is measured only if the previous point predicts it fits. ``target_s``: the
    time of one timed call (default 15 ms quick, 60 ms full). ``compile``: measure
    ``torch.compile`` (default: not in ``quick`` on CPU, where compiling takes tens of seconds).
    """
    began = time.perf_counter()
    rule_value = parse_rule(rule)
    budget_s = budget_s if budget_s is not None else (6.0 if quick else 30.0)
    target_s = target_s if target_s is not None else (0.015 if quick else 0.06)
    repeats = repeats if repeats is not None else (3 if quick else 7)
    rows: list[BenchRow] = []
    summaries: list[EngineSummary] = []

    def keep(row: BenchRow) -> BenchRow:
        rows.append(row)
        if on_row is not None:
            on_row(row)
        return row

    for name, device, reason in _engines_and_devices(engines, devices):
        if device is None:
            summaries.append(EngineSummary(name, "-", False, reason))
            continue
        engine = get_engine(name)
        if not engine.supports(rule_value, Topology.torus(TINY, TINY)):
            summaries.append(EngineSummary(name, device, False, engine.why_unsupported(rule_value, Topology.torus(TINY, TINY))))
            continue
        summary = EngineSummary(name, device, True)
        # Overheads on a tiny grid: first call (compiles/loads kernels), then 1 vs G generations.
        time_once(lambda: engine.advance(_prepare(engine, _grid(1, TINY, TINY), device), rule_value,
                                         Topology.torus(TINY, TINY), 1), device)
        g_tiny = 32
        one = keep(_point(engine, rule_value, device, 1, TINY, TINY, 1, max(repeats, 5), "tiny"))
        many = keep(_point(engine, rule_value, device, 1, TINY, TINY, g_tiny, max(repeats, 5), "tiny"))
        summary.gen_s = max(0.0, (many.seconds - one.seconds) / (g_tiny - 1))
        summary.call_s = max(0.0, one.seconds - summary.gen_s)
        # Grid sweep at batch 1.
        per_cell = 1e-9
        spent = 0.0
        last = None
        for side in GRID_SIDES:
            if quick and side > QUICK_MAX_SIDE:
                break
            cells = side * side
            estimate = (summary.gen_s + cells * per_cell) * (repeats + 1) + summary.call_s * (repeats + 1)
            if last is not None and spent + estimate > budget_s:
                break
            gens = _gens_for(per_cell, cells, target_s, summary.gen_s)
            t0 = time.perf_counter()
            try:
                row = keep(_point(engine, rule_value, device, 1, side, side, gens, repeats, "grid"))
            except (MemoryError, RuntimeError) as exc:  # out of memory on the device: stop growing
                if "memory" not in str(exc).lower() and not isinstance(exc, MemoryError):
                    raise
                break
            spent += time.perf_counter() - t0
            per_cell = max(1e-13, (row.seconds - summary.call_s - gens * summary.gen_s) / (gens * cells))
            last = row
        if last is not None:
            # Steady state: the best throughput of the grid sweep (overheads amortised, before
            # the grid outgrows the caches).
            peak = max((r for r in rows if r.sweep == "grid" and r.engine == name and r.device == device),
                       key=lambda r: r.cups)
            summary.steady_cups, summary.steady_cells = peak.cups, peak.cells
            last = peak
            # Per-call cost that grows with the grid (packing, conversion): 1 generation vs many.
            one_big = _point(engine, rule_value, device, 1, last.height, last.width, 1, repeats, "grid-1gen")
            extra = one_big.seconds - summary.call_s - summary.gen_s - last.cells / last.cups
            summary.call_cell_s = max(0.0, extra / last.cells)
        # Batch sweep of 64^2 grids.
        for batch in (BATCHES_QUICK if quick else BATCHES_FULL):
            cells = batch * 64 * 64
            gens = _gens_for(per_cell, cells, target_s, summary.gen_s)
            keep(_point(engine, rule_value, device, batch, 64, 64, gens, repeats, "batch"))
        if device.startswith("cuda") and last is not None:
            summary.h2d_Bps, summary.d2h_Bps = _transfers(last.height, last.width, device, repeats)
        if name == "torch" and last is not None:
            side = min(last.height, 1024)
            base = _point(engine, rule_value, device, 1, side, side, 20, repeats, "variant")
            want_compile = compile if compile is not None else (not quick or device.startswith("cuda"))
            if want_compile:
                compiled = engine.with_options(compile=True)
                cells = _prepare(engine, _grid(1, side, side), device)
                summary.compile_first_s = time_once(lambda: compiled.advance(cells, rule_value, Topology.torus(side, side), 1), device)
                row = keep(_point(compiled, rule_value, device, 1, side, side, 20, repeats, "variant", "compile"))
                summary.compile_speedup = base.seconds / row.seconds
            if device.startswith("cuda"):
                graphed = engine.with_options(cuda_graphs=True)
                row = keep(_point(graphed, rule_value, device, 1, 256, 256, 64, repeats, "variant", "graphs"))
                plain = _point(engine, rule_value, device, 1, 256, 256, 64, repeats, "variant")
                summary.graphs_speedup = plain.seconds / row.seconds
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
        leader_prev, cells_prev = None, None
        for cells in sorted(by_cells):
            # Only compare engines measured at this size (slow engines stop early).
            leader = max(by_cells[cells].items(), key=lambda kv: kv[1])[0]
            if leader_prev is not None and leader != leader_prev:
                found.append({"sweep": sweep, "from": leader_prev, "to": leader,
                              "cells": int(math.sqrt(cells_prev * cells)), "between": [cells_prev, cells]})
            leader_prev, cells_prev = leader, cells
    return found
