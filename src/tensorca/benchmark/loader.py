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
from collections.abc import Callable
from typing import Any

import torch

from ..arrays import check_device
from ..errors import UsageError
from ..rules.spec import resolve

STEP_KINDS = ("sleep", "busy", "matmul")


@dataclasses.dataclass(frozen=True)
class LoaderSetting:
    """One way of feeding the consumer: a DataLoader configuration, or ``DeviceStream``."""

    kind: str = "dataloader"  # or "device-stream"
    num_workers: int = 0
    pin_memory: bool = False
    prefetch_factor: int | None = None
    persistent_workers: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("dataloader", "device-stream"):
            raise UsageError(f"a loader setting is 'dataloader' or 'device-stream', got {self.kind!r}")
        limit = max_workers()
        if isinstance(self.num_workers, bool) or not isinstance(self.num_workers, int) \
                or not 0 <= self.num_workers <= limit:
            raise UsageError(f"num_workers must be a whole number in 0..{limit} (this machine has "
                             f"{os.cpu_count() or 1} CPUs), got {self.num_workers!r}")
        if self.prefetch_factor is not None:
            _whole(self.prefetch_factor, "prefetch_factor", 1, 1024)

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

    threads: int | None = None  # torch's intra-op threads for the run (None: leave torch's setting)

    def __post_init__(self) -> None:
        if self.step not in STEP_KINDS:
            raise UsageError(f"step must be one of {', '.join(STEP_KINDS)}, got {self.step!r}")
        if isinstance(self.step_ms, bool) or not isinstance(self.step_ms, (int, float)) \
                or not math.isfinite(self.step_ms) or not 0 <= self.step_ms <= MAX_STEP_MS:
            raise UsageError(f"step_ms must be a number of milliseconds in 0..{MAX_STEP_MS:g}, got {self.step_ms!r}")
        for name in ("batches", "epochs", "batch_size", "generations", "seed"):
            _whole(getattr(self, name), name, 0 if name in ("generations", "seed") else 1)
        if self.threads is not None:
            _whole(self.threads, "threads", 1, MAX_THREADS)
        warmup = self.warmup if isinstance(self.warmup, tuple) else (self.warmup, self.warmup)
        if len(warmup) != 2 or warmup[0] > warmup[1]:
            raise UsageError(f"warmup must be a count or a (lo, hi) pair with lo <= hi, got {self.warmup!r}")
        for value in warmup:
            _whole(value, "warmup", 0)
        if not (isinstance(self.shape, tuple) and len(self.shape) == 2):
            raise UsageError(f"shape must be (height, width), got {self.shape!r}")
        for value in self.shape:
            _whole(value, "shape", 1)
        resolve(self.rule)  # RuleError now, not in a worker later
        check_device(self.device)


#: DataLoader workers a setting may ask for per CPU (at least ``MIN_WORKER_CAP`` in all): more only
#: queue behind each other, and each is a process with its own torch.
WORKERS_PER_CPU = 4
MIN_WORKER_CAP = 16
#: The most torch threads a bench may ask for (a sanity bound, not a tuning hint).
MAX_THREADS = 4096
#: The longest simulated training step (one minute): longer ones make a run of hours.
MAX_STEP_MS = 60_000.0


def max_workers() -> int:
    """The largest ``num_workers`` a :class:`LoaderSetting` accepts: ``WORKERS_PER_CPU`` per CPU, at least 16."""
    return max(MIN_WORKER_CAP, WORKERS_PER_CPU * (os.cpu_count() or 1))


def _whole(value: Any, name: str, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int in ``minimum..maximum``; :class:`UsageError` (naming ``name``) otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum \
            or (maximum is not None and value > maximum):
        bound = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise UsageError(f"{name} must be a whole number {bound}, got {value!r}")
    return value


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
    with warnings.catch_warnings():  # more DataLoader workers than cores is measured on purpose
        warnings.filterwarnings("ignore", message="This DataLoader will create")
        return _measure(setting, config)


def _measure(setting: LoaderSetting, config: BenchConfig) -> LoaderResult:
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
    if config.threads is not None:
        torch.set_num_threads(config.threads)
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
    close = [r.setting.label for r in results
             if r is not best and r.samples_per_second >= 0.95 * best.samples_per_second]
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
    lines += _worker_lines(results, by_label, config)
    if not torch.cuda.is_available():
        lines.append("pin_memory has no effect here: there is no accelerator to copy to.")
    stream = by_label.get("DeviceStream")
    if stream is not None:
        lines += _stream_lines(stream, config)
    return lines


def _worker_lines(results: list[LoaderResult], by_label: dict[str, LoaderResult], config: BenchConfig) -> list[str]:
    """What the DataLoader worker settings show: overlap, worker count, persistence, prefetch depth."""
    workers = [r for r in results if r.setting.kind == "dataloader" and r.setting.num_workers]
    if not workers:
        return []
    fastest = max(workers, key=lambda r: r.samples_per_second)
    lines = [
        f"Workers overlap generation with the step: the best worker setting ({fastest.setting.label}) waits "
        f"{fastest.wait_fraction:.0%}."
    ]
    counts = sorted({r.setting.num_workers for r in workers})
    plain = {n: by_label.get(f"DataLoader workers={n} prefetch=2") for n in counts}
    plain = {n: r for n, r in plain.items() if r is not None}
    if len(plain) > 1:
        cpus = os.cpu_count() or 1
        figures = ", ".join(f"{n}: {r.samples_per_second:,.0f}" for n, r in plain.items())
        lines.append(f"samples/s by num_workers ({figures}); this machine has {cpus} CPUs, and workers beyond "
                     f"the free cores compete with each other and with the consumer.")
    for n in counts:
        base = by_label.get(f"DataLoader workers={n} prefetch=2")
        kept = by_label.get(f"DataLoader workers={n} prefetch=2 persistent")
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
    return lines


def _stream_lines(stream: LoaderResult, config: BenchConfig) -> list[str]:
    """What DeviceStream's figures show, and a note when a loaded CPU slows its OpenMP threads."""
    per_batch_ms = stream.wait_seconds / max(1, stream.samples) * config.batch_size * 1e3
    queued = ", and on an accelerator its kernels queue behind the step, so the host never waits."
    lines = [
        f"DeviceStream generates each batch in the consumer with the torch engine "
        f"({per_batch_ms:,.1f} ms per batch on {config.device}): "
        f"no workers, no pickling, no copies; it waits {stream.wait_fraction:.0%}"
        + (queued if config.device == "cpu" else ".")
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    cpus = os.cpu_count() or 1
    if config.device == "cpu" and torch.get_num_threads() > 1 and load > cpus:
        lines.append(
            f"Note: load average {load:.1f} on {cpus} CPUs: torch's {torch.get_num_threads()} OpenMP threads wait for "
            f"each other on a busy machine, which slows DeviceStream on the CPU; try --threads 1."
        )
    return lines
