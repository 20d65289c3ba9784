"""``tensorca bench --systems``: the CA beyond deterministic rules, per backend, against a baseline of the same run.

One row per (system, backend, device): noisy Life against deterministic Life on the same engine and size
(what the draws cost), BBM on the native block engines against the rule-table engine running Golly's
emulated form of the same cells, the sandpile identity, Ising and Potts sweeps and Flow Lenia steps
against the NumPy backend. Every time is the median of timed calls after a warm-up call (compilation,
lazy set-up) on the same machine in the same process, so the ratios hold where the absolute figures
drift with the machine's load. A backend that is not installed gives a row saying so, never a figure.

Sizes (full / ``quick``): noisy Life 4096² x 100 on bitpack-cpu and 1024² x 10 on NumPy and torch
(1024² x 20 and 512² x 5); BBM 512² (256²); the identity of the 256² sandpile group (128²) and 1024² on
Numba; Ising and 3-state Potts 256² (128²) x 20 sweeps; Flow Lenia's bundled FOr on 128² (64²) x 10 steps.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import margolus, spins
from ..errors import UsageError
from ..lenia.flow import flow_creature, run_flow
from ..pattern import Pattern
from ..sandpile import identity
from ..simulate import run
from .measure import median_time

NOISY_LIFE = "B3/S23:pb=0.9,ps=0.99"


@dataclasses.dataclass
class SystemRow:
    """One measured (or unmeasurable) backend of one system.

    ``rate`` is ``work / seconds`` in ``unit``; ``ratio`` is this row's rate over the rate of the row named
    by ``baseline`` (the same system measured in the same run), None for the baseline itself or no figure.
    """

    system: str
    backend: str
    device: str
    size: str
    work: float = 0.0
    unit: str = "cells/s"
    seconds: float | None = None
    baseline: str = ""
    ratio: float | None = None
    reason: str = ""

    @property
    def rate(self) -> float | None:
        return None if self.seconds is None or self.seconds <= 0 else self.work / self.seconds

    def to_json(self) -> dict:
        return {**dataclasses.asdict(self), "rate": self.rate}


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _torch_devices(devices: tuple[str, ...]) -> list[str]:
    """The torch devices to measure: the CPU, and CUDA when asked for and present."""
    if not _has("torch"):
        return []
    import torch

    return [d for d in devices if d == "cpu" or (d == "cuda" and torch.cuda.is_available())]


def _timed(row: SystemRow, fn: Callable[[], Any], repeats: int) -> SystemRow:
    row.seconds = median_time(fn, device=row.device, repeats=repeats, warmup=1)
    return row


def _missing(system: str, backend: str, size: str, extra: str) -> SystemRow:
    return SystemRow(system, backend, "cpu", size, reason=f"not installed: pip install 'tensorca[{extra}]'")


def _soup(shape: tuple[int, int], density: float, seed: int = 1) -> np.ndarray:
    return (np.random.default_rng(seed).random(shape) < density).astype(np.uint8)


def _noisy_life(quick: bool, devices: tuple[str, ...], repeats: int) -> Iterator[SystemRow]:
    """Noisy Life and deterministic Life on every engine that runs both, at the same size."""
    plans = [("bitpack-cpu", "cpu", 1024 if quick else 4096, 20 if quick else 100, "fast"),
             ("numpy", "cpu", 512 if quick else 1024, 5 if quick else 10, ""),
             *[("torch", d, 512 if quick else 1024, 5 if quick else 10, "torch") for d in _torch_devices(devices)]]
    if not _has("torch"):
        plans.append(("torch", "cpu", 0, 0, "torch"))
    for engine, device, side, gens, extra in plans:
        size = f"{side}^2 x {gens} gens"
        if extra and not _has("numba" if extra == "fast" else "torch"):
            yield _missing(f"noisy Life {NOISY_LIFE}", engine, size, extra)
            continue
        cells: Any = _soup((side, side), 0.35)
        if engine == "torch":
            import torch

            cells = torch.from_numpy(cells).to(device)
        base = _timed(SystemRow("Life B3/S23", engine, device, size, side * side * gens),
                      lambda c=cells, e=engine, g=gens: run(c, "B3/S23", g, backend=e), repeats)
        yield base
        noisy = SystemRow(f"noisy Life {NOISY_LIFE}", engine, device, size, side * side * gens,
                          baseline=f"Life B3/S23 on {engine}@{device}")
        yield _timed(noisy, lambda c=cells, e=engine, g=gens: run(c, NOISY_LIFE, g, seed=7, backend=e),
                     repeats)


def _margolus(quick: bool, devices: tuple[str, ...], repeats: int) -> Iterator[SystemRow]:
    """BBM natively (margolus.run per backend) and as Golly's emulated rule table on the table engine."""
    side = 256 if quick else 512
    start = _soup((side, side), 0.2)
    table_gens, native_gens = 10, 100
    golly = Pattern(cells=margolus.encode(start, None, (0, 0)), rule=f"BBM-emulated:T{side},{side}")
    baseline = "BBM-emulated rule table on numpy@cpu"
    yield _timed(SystemRow("BBM-emulated rule table", "numpy", "cpu", f"{side}^2 x {table_gens} gens",
                           side * side * table_gens),
                 lambda: run(golly, generations=table_gens, backend="numpy"), repeats)
    yield _timed(SystemRow("BBM-emulated, auto (margolus engine)", "margolus", "cpu",
                           f"{side}^2 x {native_gens} gens", side * side * native_gens, baseline=baseline),
                 lambda: run(golly, generations=native_gens), repeats)
    backends = [("numpy", "cpu", ""), ("numba", "cpu", "fast")]
    backends += [("torch", d, "torch") for d in (_torch_devices(devices) or ["cpu"])]
    for backend, device, extra in backends:
        size = f"{side}^2 x {native_gens} gens"
        if extra and not _has("numba" if extra == "fast" else "torch"):
            yield _missing("BBM native (margolus.run)", backend, size, extra)
            continue
        cells: Any = start
        if backend == "torch":
            import torch

            cells = torch.from_numpy(start).to(device)
        row = SystemRow("BBM native (margolus.run)", backend, device, size, side * side * native_gens,
                        baseline=baseline)
        yield _timed(row, lambda c=cells, b=backend: margolus.run(c, "BBM", native_gens, backend=b), repeats)


def _sandpile(quick: bool, devices: tuple[str, ...], repeats: int) -> Iterator[SystemRow]:
    """The identity of the sandpile group, per backend, and 1024² on Numba."""
    side = 128 if quick else 256
    baseline = f"sandpile identity {side}^2 on numpy@cpu"
    plans = [("numpy", "cpu", side, ""), ("numba", "cpu", side, "fast")]
    plans += [("torch", d, side, "torch") for d in (_torch_devices(devices) or ["cpu"])]
    if not quick:
        plans.append(("numba", "cpu", 1024, "fast"))
    for backend, device, n, extra in plans:
        name = f"sandpile identity {n}^2"
        if extra and not _has("numba" if extra == "fast" else "torch"):
            yield _missing(name, backend, f"{n}^2", extra)
            continue
        row = SystemRow(name, backend, device, f"{n}^2", n * n, baseline="" if backend == "numpy" else baseline)
        if n != side:
            row.baseline = ""
        yield _timed(row, lambda b=backend, d=device, k=n: identity(k, backend=b,
                                                                    device=d if b == "torch" else None),
                     1 if n > side else repeats)


def _spins(quick: bool, devices: tuple[str, ...], repeats: int) -> Iterator[SystemRow]:
    """Checkerboard Metropolis sweeps of Ising and 3-state Potts at their critical temperatures."""
    side, sweeps = (128 if quick else 256), 20
    backends = [("numpy", "cpu")] + [("torch", d) for d in _torch_devices(devices)]
    for model, stepper, temperature in (("Ising", spins.ising, 2.269), ("Potts q=3", None, spins.potts_tc(3))):
        baseline = f"{model} {side}^2 on numpy@cpu"
        for backend, device in backends:
            if stepper is None:
                def call(b: str = backend, d: str = device, t: float = temperature) -> Any:
                    return spins.potts((side, side), 3, t, sweeps, seed=1, backend=b,
                                       device=d if b == "torch" else None)
            else:
                def call(b: str = backend, d: str = device, t: float = temperature) -> Any:
                    return spins.ising((side, side), t, sweeps, seed=1, backend=b,
                                       device=d if b == "torch" else None)
            row = SystemRow(f"{model} {side}^2", backend, device, f"{side}^2 x {sweeps} sweeps",
                            side * side * sweeps, unit="spin updates/s",
                            baseline="" if backend == "numpy" else baseline)
            yield _timed(row, call, repeats)
        if not backends[1:]:
            yield _missing(f"{model} {side}^2", "torch", f"{side}^2 x {sweeps} sweeps", "torch")


def _flow_lenia(quick: bool, devices: tuple[str, ...], repeats: int) -> Iterator[SystemRow]:
    """Flow Lenia's bundled ring: the float64 NumPy reference and the torch step (float32)."""
    side, steps = (64 if quick else 128), 10
    ring = flow_creature("FOr")
    start = ring.field((side, side))
    size = f"{side}^2 x {steps} steps"
    baseline = "Flow Lenia FOr (float64) on numpy@cpu"
    yield _timed(SystemRow("Flow Lenia FOr (float64)", "numpy", "cpu", size, side * side * steps),
                 lambda: run_flow(start, ring.world, steps), repeats)
    torch_devices = _torch_devices(devices)
    if not torch_devices:
        yield _missing("Flow Lenia FOr (float32)", "torch", size, "torch")
    for device in torch_devices:
        import torch

        cells = torch.from_numpy(start).float().to(device)
        yield _timed(SystemRow("Flow Lenia FOr (float32)", "torch", device, size, side * side * steps,
                               baseline=baseline),
                     lambda c=cells: run_flow(c, ring.world, steps), repeats)


SYSTEMS: dict[str, Callable[[bool, tuple[str, ...], int], Iterator[SystemRow]]] = {
    "noisy-life": _noisy_life, "margolus": _margolus, "sandpile": _sandpile, "spins": _spins,
    "flow-lenia": _flow_lenia,
}


def bench_systems(names: list[str] | None = None, *, quick: bool = False, devices: tuple[str, ...] = ("cpu", "cuda"),
                  repeats: int | None = None, on_row: Callable[[SystemRow], None] | None = None) -> list[SystemRow]:
    """Measure ``names`` (default: every one of :data:`SYSTEMS`), one after the other, and fill each
    row's ``ratio`` from its baseline row. ``devices``: where torch rows run (CUDA only when present)."""
    unknown = [n for n in names or [] if n not in SYSTEMS]
    if unknown:
        raise UsageError(f"unknown system {unknown[0]!r}; choose from {', '.join(SYSTEMS)}")
    repeats = repeats if repeats is not None else (2 if quick else 3)
    rows: list[SystemRow] = []
    for name in names or list(SYSTEMS):
        for row in SYSTEMS[name](quick, devices, repeats):
            rows.append(row)
            if on_row is not None:
                on_row(row)
    by_key = {f"{r.system} on {r.backend}@{r.device}": r for r in rows}
    for row in rows:
        base = by_key.get(row.baseline)
        if row.baseline and base is not None and base.rate and row.rate:
            row.ratio = row.rate / base.rate
    return rows
