"""``tensorca loader-bench``: is the input pipeline the bottleneck, and which setting removes it?

A consumer loop takes batches of :class:`~tensorca.data.Trajectories` pairs from a
``torch.utils.data.DataLoader`` (for several ``num_workers``, ``pin_memory``, ``prefetch_factor``,
``persistent_workers`` settings), or from a :class:`~tensorca.data.DeviceStream`, and after each batch
runs a simulated training step of fixed cost:

- ``sleep``: the host is idle while an accelerator computes (the usual GPU-training case);
- ``busy``: the host spins (a CPU-bound step that competes with the workers for cores);
- ``matmul``: real float32 matrix products on the bench device, sized to the cost.

For each setting it measures samples per second over the whole run (worker start-up included:
``epochs`` passes, so non-persistent workers start ``epochs`` times) and the *wait fraction*: time
the consumer spends blocked in ``next(iterator)`` (plus moving the batch to the device), over the
total time. A wait fraction near 0 means the consumer never waits for input.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import warnings
from typing import Any, Callable

import torch

STEP_KINDS = ("sleep", "busy", "matmul")


@dataclasses.dataclass(frozen=True)
class LoaderSetting:
    """One way of feeding the consumer: a DataLoader configuration, or ``DeviceStream``."""

    kind: str = "dataloader"  # or "device-stream"
    num_workers: int = 0
    pin_memory: bool = False
    prefetch_factor: int | None = None
    persistent_workers: bool = False

    @property
    def label(self) -> str:
        if self.kind == "device-stream":
            return "DeviceStream"
        parts = [f"workers={self.num_workers}"]
        if self.num_workers and self.prefetch_factor is not None:
            parts.append(f"prefetch={self.prefetch_factor}")
        if self.persistent_workers:
            parts.append("persistent")
        if self.pin_memory:
            parts.append("pin_memory")
        return "DataLoader " + " ".join(parts)


@dataclasses.dataclass(frozen=True)
class LoaderResult:
    """Measured figures for one setting."""

    setting: LoaderSetting
    samples: int
    seconds: float
    wait_seconds: float
    first_batch_seconds: float

    @property
    def samples_per_second(self) -> float:
        return self.samples / self.seconds if self.seconds > 0 else math.inf

    @property
    def wait_fraction(self) -> float:
        return self.wait_seconds / self.seconds if self.seconds > 0 else 0.0


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    """What is generated and how expensive the consumer's step is."""

    rule: str = "B3/S23"
    shape: tuple[int, int] = (64, 64)
    batch_size: int = 64
    generations: int = 1
    warmup: int | tuple[int, int] = (0, 16)
    step: str = "sleep"
    step_ms: float = 10.0
    batches: int = 40  # per epoch
    epochs: int = 2
    seed: int = 0
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.step not in STEP_KINDS:
            raise ValueError(f"step must be one of {', '.join(STEP_KINDS)}, got {self.step!r}")
        if self.step_ms < 0 or self.batches < 1 or self.epochs < 1 or self.batch_size < 1:
            raise ValueError("step_ms must be >= 0 and batches, epochs, batch_size >= 1")


def default_settings(quick: bool = False) -> list[LoaderSetting]:
    """The settings compared by default (``quick``: fewer of them)."""
    if quick:
        return [
            LoaderSetting(num_workers=0),
            LoaderSetting(num_workers=2, prefetch_factor=2),
            LoaderSetting(num_workers=2, prefetch_factor=2, persistent_workers=True),
            LoaderSetting(kind="device-stream"),
        ]
    return [
        LoaderSetting(num_workers=0),
        LoaderSetting(num_workers=0, pin_memory=True),
        LoaderSetting(num_workers=1, prefetch_factor=2),
        LoaderSetting(num_workers=2, prefetch_factor=2),
        LoaderSetting(num_workers=2, prefetch_factor=4),
        LoaderSetting(num_workers=2, prefetch_factor=2, persistent_workers=True),
        LoaderSetting(num_workers=2, prefetch_factor=2, persistent_workers=True, pin_memory=True),
        LoaderSetting(num_workers=4, prefetch_factor=2),
        LoaderSetting(num_workers=4, prefetch_factor=2, persistent_workers=True),
        LoaderSetting(kind="device-stream"),
    ]


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def simulated_step(kind: str, cost_ms: float, device: torch.device) -> Callable[[Any], None]:
    """A function ``step(batch)`` that costs about ``cost_ms`` milliseconds of the given kind."""
    seconds = cost_ms / 1000.0
    if kind == "sleep":
        return lambda batch: time.sleep(seconds)
    if kind == "busy":

        def spin(batch: Any) -> None:
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass

        return spin
    a = torch.randn(256, 256, device=device)
    for _ in range(3):
        a @ a
    _sync(device)
    began = time.perf_counter()
    for _ in range(10):
        a @ a
    _sync(device)
    one = (time.perf_counter() - began) / 10
    repeats = max(1, round(seconds / one)) if one > 0 else 1

    def matmul(batch: Any) -> None:
        for _ in range(repeats):
            a @ a
        _sync(device)

    return matmul


def _to_device(batch: Any, device: torch.device, non_blocking: bool) -> Any:
    if device.type == "cpu":
        return batch
    if isinstance(batch, (list, tuple)):
        return [t.to(device, non_blocking=non_blocking) for t in batch]
    return batch.to(device, non_blocking=non_blocking)


def measure(setting: LoaderSetting, config: BenchConfig) -> LoaderResult:
    """Run the consumer loop for ``config.epochs`` x ``config.batches`` batches under ``setting``."""
    from torch.utils.data import DataLoader

    from ..data import DeviceStream, Trajectories

    device = torch.device(config.device)
    step = simulated_step(config.step, config.step_ms, device)
    total_batches = config.batches
    wait = 0.0
    first = 0.0
    samples = 0
    began = time.perf_counter()
    if setting.kind == "device-stream":
        # Same generation count as the DataLoader batches, which run to their largest warmup.
        warmup = config.warmup if isinstance(config.warmup, int) else config.warmup[1]
        stream = DeviceStream(config.rule, config.shape, config.generations, config.batch_size, warmup=warmup,
                              seed=config.seed, device=device)
        for epoch in range(config.epochs):
            for j in range(total_batches):
                t0 = time.perf_counter()
                batch = stream.batch(epoch * total_batches + j)
                _sync(device)  # count the generation's device time as input time
                waited = time.perf_counter() - t0
                wait += waited
                if epoch == 0 and j == 0:
                    first = waited
                step(batch)
                samples += config.batch_size
    else:
        dataset = Trajectories(config.rule, config.shape, config.generations, length=total_batches * config.batch_size,
                               warmup=config.warmup, seed=config.seed)
        options: dict[str, Any] = {}
        if setting.num_workers:
            options = {"prefetch_factor": setting.prefetch_factor or 2,
                       "persistent_workers": setting.persistent_workers,
                       "multiprocessing_context": "fork"}
        warnings.filterwarnings("ignore", message="This DataLoader will create")  # more workers than cores: measured on purpose
        loader = DataLoader(dataset, batch_size=config.batch_size, shuffle=False, num_workers=setting.num_workers,
                            pin_memory=setting.pin_memory and torch.cuda.is_available(), **options)
        for epoch in range(config.epochs):
            t0 = time.perf_counter()
            iterator = iter(loader)  # starts (non-persistent) workers: an input cost
            wait += time.perf_counter() - t0
            for j in range(total_batches):
                t0 = time.perf_counter()
                batch = _to_device(next(iterator), device, setting.pin_memory)
                waited = time.perf_counter() - t0
                wait += waited
                if epoch == 0 and j == 0:
                    first = waited
                step(batch)
                samples += config.batch_size
            del iterator
        del loader
    seconds = time.perf_counter() - began
    return LoaderResult(setting, samples, seconds, wait, first)


def bench(
    config: BenchConfig,
    settings: list[LoaderSetting] | None = None,
    on_result: Callable[[LoaderResult], None] | None = None,
) -> list[LoaderResult]:
    """Measure every setting in turn (``default_settings()`` when none are given)."""
    results = []
    for setting in settings or default_settings():
        result = measure(setting, config)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def verdict(results: list[LoaderResult], config: BenchConfig) -> list[str]:
    """Sentences saying which setting wins and why, from the measured figures."""
    if not results:
        return []
    best = max(results, key=lambda r: r.samples_per_second)
    by_label = {r.setting.label: r for r in results}
    lines = [
        f"Winner: {best.setting.label}, {best.samples_per_second:,.0f} samples/s; the consumer waited "
        f"{best.wait_fraction:.0%} of the time."
    ]
    close = [r.setting.label for r in results if r is not best and r.samples_per_second >= 0.95 * best.samples_per_second]
    if close:
        lines.append(f"Within 5% of the winner (a tie at this run length): {', '.join(close)}.")
    step_bound = config.batch_size / (config.step_ms / 1000.0) if config.step_ms > 0 else math.inf
    lines.append(f"A {config.step_ms:g} ms {config.step} step alone allows at most {step_bound:,.0f} samples/s.")
    serial = by_label.get("DataLoader workers=0")
    if serial is not None:
        lines.append(
            f"With num_workers=0 generation and the step run one after the other: the consumer waits "
            f"{serial.wait_fraction:.0%} of the time ({serial.samples_per_second:,.0f} samples/s)."
        )
    workers = [r for r in results if r.setting.kind == "dataloader" and r.setting.num_workers]
    if workers:
        fastest = max(workers, key=lambda r: r.samples_per_second)
        lines.append(
            f"Workers overlap generation with the step: the best worker setting ({fastest.setting.label}) waits "
            f"{fastest.wait_fraction:.0%}."
        )
        counts = sorted({r.setting.num_workers for r in workers})
        plain = {n: by_label.get(f"DataLoader workers={n} prefetch=2") for n in counts}
        plain = {n: r for n, r in plain.items() if r is not None}
        if len(plain) > 1:
            cpus = os.cpu_count() or 1
            figures = ", ".join(f"{n}: {r.samples_per_second:,.0f}" for n, r in plain.items())
            lines.append(f"samples/s by num_workers ({figures}); this machine has {cpus} CPUs, and workers beyond "
                         f"the free cores compete with each other and with the consumer.")
        for n in counts:
            base, kept = by_label.get(f"DataLoader workers={n} prefetch=2"), by_label.get(f"DataLoader workers={n} prefetch=2 persistent")
            if base is not None and kept is not None:
                lines.append(
                    f"persistent_workers (workers={n}): {kept.samples_per_second:,.0f} vs {base.samples_per_second:,.0f} "
                    f"samples/s: workers start once, not once per epoch ({config.epochs} epochs here)."
                )
                break
        base, deep = by_label.get("DataLoader workers=2 prefetch=2"), by_label.get("DataLoader workers=2 prefetch=4")
        if base is not None and deep is not None:
            lines.append(
                f"prefetch_factor 4 vs 2: {deep.samples_per_second:,.0f} vs {base.samples_per_second:,.0f} samples/s: "
                f"a deeper queue absorbs jitter but cannot beat the workers' throughput."
            )
    if not torch.cuda.is_available():
        lines.append("pin_memory has no effect here: there is no accelerator to copy to.")
    stream = by_label.get("DeviceStream")
    if stream is not None:
        lines.append(
            f"DeviceStream generates each batch in the consumer with the torch engine "
            f"({stream.wait_seconds / max(1, stream.samples) * config.batch_size * 1e3:,.1f} ms per batch on {config.device}): "
            f"no workers, no pickling, no copies; it waits {stream.wait_fraction:.0%}"
            + (", and on an accelerator its kernels queue behind the step, so the host never waits." if config.device == "cpu"
               else ".")
        )
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        cpus = os.cpu_count() or 1
        if config.device == "cpu" and torch.get_num_threads() > 1 and load > cpus:
            lines.append(
                f"Note: load average {load:.1f} on {cpus} CPUs: torch's {torch.get_num_threads()} OpenMP threads wait for "
                f"each other on a busy machine, which slows DeviceStream on the CPU; try --threads 1."
            )
    return lines
