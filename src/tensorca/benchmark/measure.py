"""Timing that waits for the device: ``perf_counter`` around a synchronised call, CUDA events on a GPU.

Every figure is the median of ``repeats`` timed calls after ``warmup`` untimed ones (caches,
kernel compilation, lazy initialisation).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from ..errors import UsageError


def is_cuda(device: str | None) -> bool:
    return str(device or "cpu").startswith("cuda")


def synchronize(device: str | None) -> None:
    """Wait for every queued kernel on ``device`` (no-op on the CPU)."""
    if is_cuda(device):
        import torch

        torch.cuda.synchronize(device)


def time_calls(fn: Callable[[], Any], *, device: str | None = "cpu", repeats: int = 5, warmup: int = 1) -> list[float]:
    """Seconds of each of ``repeats`` calls of ``fn`` (after ``warmup`` untimed calls).

    On CUDA each call sits between two recorded events and the device is synchronised once at the
    end (so the host never stalls between calls); on the CPU, ``perf_counter`` around each call.
    """
    if repeats < 1 or warmup < 0:
        raise UsageError(f"timing needs repeats >= 1 and warmup >= 0, got repeats={repeats}, warmup={warmup}")
    for _ in range(warmup):
        fn()
    synchronize(device)
    if is_cuda(device):
        import torch

        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
        for start, stop in events:
            start.record()
            fn()
            stop.record()
        torch.cuda.synchronize(device)
        return [start.elapsed_time(stop) / 1e3 for start, stop in events]
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return times


def median_time(fn: Callable[[], Any], *, device: str | None = "cpu", repeats: int = 5, warmup: int = 1) -> float:
    """The median of :func:`time_calls`."""
    return statistics.median(time_calls(fn, device=device, repeats=repeats, warmup=warmup))


def time_once(fn: Callable[[], Any], device: str | None = "cpu") -> float:
    """Seconds of one synchronised call (used for first calls: compilation, imports)."""
    synchronize(device)
    began = time.perf_counter()
    fn()
    synchronize(device)
    return time.perf_counter() - began


def machine() -> dict:
    """Where the figures come from: CPU model and count, library versions, GPU name if any."""
    import os
    import platform

    import numpy as np

    info = {"python": platform.python_version(), "numpy": np.__version__, "cpus": os.cpu_count(),
            "cpu": platform.processor()}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    torch = sys.modules.get("torch")
    if torch is not None:
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    numba = sys.modules.get("numba")
    if numba is not None:
        info["numba"] = numba.__version__
        info["numba_threads"] = numba.get_num_threads()
    setup = sys.modules.get("tensorca._numba")
    if setup is not None:  # the vector width tensorca's kernels were compiled for
        info["numba_vectors"] = setup.VECTORS
    try:
        info["load_average"] = os.getloadavg()[0]
    except OSError:
        pass
    return info
