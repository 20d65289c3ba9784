"""How many CPU cores are free right now, and capping a run's threads to them.

A multi-threaded CPU kernel whose threads meet at a barrier every generation (torch's OpenMP
loops, Numba's ``prange``) collapses when another process holds a core: each barrier waits for
the thread that lost its core. Measured here: a torch run of 4096 64x64 grids went from 6 s to
39 s with one busy process per core. Running on the cores actually free avoids most of it.

"Free" is read from the kernel's instantaneous count of runnable threads (``/proc/loadavg``'s
fourth field), minus this process's own runnable threads (``/proc/self/task/*/stat``), so our own
spinning worker threads never count as load. The answer is cached for :data:`TTL_S` seconds. Off
Linux, every core in the affinity mask counts as free.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Seconds a free-core count stays valid (reading it costs tens of microseconds).
TTL_S = 0.5

_cache: list[float] = [-1.0, 0.0]  # [time read, free cores]


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def _runnable_elsewhere() -> int | None:
    """Runnable threads of other processes now, or None where /proc cannot tell."""
    try:
        with open("/proc/loadavg") as fh:
            runnable = int(fh.read().split()[3].split("/")[0])
        own = 0
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/stat") as fh:
                    # The state letter follows the ")" closing the thread's name.
                    own += fh.read().rsplit(")", 1)[1].split()[0] == "R"
            except OSError:  # the thread ended meanwhile
                continue
    except (OSError, ValueError, IndexError):
        return None
    return max(0, runnable - max(own, 1))


def free_cores() -> int:
    """Cores not busy with other processes now (at least 1; cached for :data:`TTL_S`)."""
    now = time.monotonic()
    if now - _cache[0] < TTL_S:
        return int(_cache[1])
    cores = usable_cores()
    busy = _runnable_elsewhere()
    free = cores if busy is None else max(1, cores - busy)
    _cache[0], _cache[1] = now, float(free)
    return free


@contextmanager
def torch_threads_capped(torch: Any) -> Iterator[int]:
    """Run the block with torch's intra-op threads capped to :func:`free_cores` (restored after);
    yields the thread count used."""
    before = torch.get_num_threads()
    wanted = min(before, free_cores())
    if wanted != before:
        torch.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        if wanted != before:
            torch.set_num_threads(before)


@contextmanager
def numba_threads_capped(numba: Any) -> Iterator[int]:
    """Run the block with Numba's threads (this thread's setting) capped to :func:`free_cores`."""
    before = numba.get_num_threads()
    wanted = min(before, free_cores())
    if wanted != before:
        numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        if wanted != before:
            numba.set_num_threads(before)


__all__ = ["free_cores", "numba_threads_capped", "torch_threads_capped", "usable_cores"]
