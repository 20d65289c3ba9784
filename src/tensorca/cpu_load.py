"""How many CPU cores are free right now, and capping a run's threads to them.

A multi-threaded CPU kernel whose threads meet at a barrier every generation (torch's OpenMP
loops, Numba's ``prange``) collapses when another process holds a core: each barrier waits for
the thread that lost its core. Measured here: a torch run of 4096 64x64 grids went from 6 s to
39 s with one busy process per core. Running on the cores actually free avoids most of it.

"Free" is read from the kernel's instantaneous count of runnable threads (``/proc/loadavg``'s
fourth field), minus this process's own runnable threads (``/proc/self/task/*/stat``), so our own
spinning worker threads never count as load. The own count is read before and after the load, and
the larger one taken: an OpenMP worker that goes to sleep between the two reads would otherwise be
counted as another process's thread.

One instantaneous reading is noisy: measured right after a parallel Numba run on a quiet 2-core
machine, 2.3-2.5 % of single readings saw a runnable thread that a scan of ``/proc`` just after
no longer found, and such a reading capped the next run to one core (half the speed). So
a reading that sees load is taken again, up to :data:`SAMPLES` times :data:`SAMPLE_GAP_S` apart,
and the least load seen counts: a process that really holds a core is runnable in every reading.
Over 3 ms that made the spurious readings 0 of 1500 (0.8 % over 0.9 ms). A quiet machine costs one
reading, a loaded one 3 ms. The answer is cached for :data:`TTL_S` seconds. Off Linux, every core
in the affinity mask counts as free.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Seconds a free-core count stays valid (a reading costs tens of microseconds; one that sees load, 3 ms).
TTL_S = 0.5
#: Readings taken at most when they see load (the least load seen counts).
SAMPLES = 4
#: Seconds between two such readings.
SAMPLE_GAP_S = 0.001

_cache: list[float] = [-1.0, 0.0]  # [time read, free cores]


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def _own_runnable() -> int:
    """This process's runnable threads now (raises OSError where /proc cannot tell)."""
    own = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/stat") as fh:
                # The state letter follows the ")" closing the thread's name.
                own += fh.read().rsplit(")", 1)[1].split()[0] == "R"
        except OSError:  # the thread ended meanwhile
            continue
    return own


def _runnable_elsewhere() -> int | None:
    """Runnable threads of other processes now (one reading), or None where /proc cannot tell."""
    try:
        before = _own_runnable()
        with open("/proc/loadavg") as fh:
            runnable = int(fh.read().split()[3].split("/")[0])
        after = _own_runnable()
    except (OSError, ValueError, IndexError):
        return None
    return max(0, runnable - max(before, after, 1))


def least_load(read: Callable[[], int | None], samples: int = SAMPLES, gap_s: float = SAMPLE_GAP_S) -> int | None:
    """The least of up to ``samples`` readings of ``read`` (runnable threads elsewhere), ``gap_s``
    apart, stopping at the first that sees none; None when ``read`` cannot tell."""
    least = read()
    for _ in range(samples - 1):
        if not least:  # None (cannot tell) or 0 (quiet): another reading cannot lower it
            break
        time.sleep(gap_s)
        again = read()
        if again is None:
            break
        least = min(least, again)
    return least


#: Set (to "1") in warm-up workers (:mod:`tensorca.warmup`): every usable core counts as free, so
#: a worker compiles the kernel variants an idle run uses, not the single-thread ones its busy
#: sibling workers would otherwise make it pick.
ASSUME_IDLE_ENV = "TENSORCA_ASSUME_IDLE"


#: Set by :func:`assumed_free` for the block it runs (warm-ups compiling a busy machine's variants).
_ASSUMED: list[int] = []


@contextmanager
def assumed_free(cores: int) -> Iterator[None]:
    """Run the block as if :func:`free_cores` were ``cores`` (at least 1)."""
    _ASSUMED.append(max(1, cores))
    try:
        yield
    finally:
        _ASSUMED.pop()


def free_cores() -> int:
    """Cores not busy with other processes now (at least 1; cached for :data:`TTL_S`)."""
    if _ASSUMED:
        return _ASSUMED[-1]
    if os.environ.get(ASSUME_IDLE_ENV) == "1":
        return usable_cores()
    now = time.monotonic()
    if now - _cache[0] < TTL_S:
        return int(_cache[1])
    cores = usable_cores()
    busy = least_load(_runnable_elsewhere)
    free = cores if busy is None else max(1, cores - busy)
    _cache[0], _cache[1] = now, float(free)
    return free


@contextmanager
def _threads_set(get: Callable[[], int], set_: Callable[[int], None], wanted: int) -> Iterator[int]:
    """Run the block with a thread setting (``get``/``set_``) of ``wanted`` (at least 1), restored
    after; yields the thread count used."""
    before = get()
    wanted = max(1, wanted)
    if wanted != before:
        set_(wanted)
    try:
        yield wanted
    finally:
        if wanted != before:
            set_(before)


def _threads_at_most(get: Callable[[], int], set_: Callable[[int], None], limit: int) -> Any:
    """:func:`_threads_set` to the present setting, or ``limit`` where that is lower."""
    return _threads_set(get, set_, min(get(), limit))


def _threads_capped(get: Callable[[], int], set_: Callable[[int], None]) -> Any:
    """:func:`_threads_at_most` :func:`free_cores`, read only where the present setting is above 1
    (a soup search runs its kernels on one thread: nothing to cap, so no /proc reads or retries)."""
    return _threads_at_most(get, set_, free_cores() if get() > 1 else 1)


def torch_threads_capped(torch: Any) -> Any:
    """A context running the block with torch's intra-op threads capped to :func:`free_cores`."""
    return _threads_capped(torch.get_num_threads, torch.set_num_threads)


def torch_threads(torch: Any, threads: int) -> Any:
    """A context running the block with exactly ``threads`` torch intra-op threads."""
    return _threads_set(torch.get_num_threads, torch.set_num_threads, threads)


def numba_threads(numba: Any, limit: int) -> Any:
    """A context running the block with Numba's threads (this thread's setting) at most ``limit``."""
    return _threads_at_most(numba.get_num_threads, numba.set_num_threads, limit)


def numba_threads_capped(numba: Any) -> Any:
    """:func:`numba_threads` capped to :func:`free_cores`."""
    return _threads_capped(numba.get_num_threads, numba.set_num_threads)


__all__ = ["assumed_free", "free_cores", "least_load", "numba_threads", "numba_threads_capped", "torch_threads",
           "torch_threads_capped", "usable_cores"]
