"""Background compiles: ``auto`` starts on the engine that is ready and has the fast one compiled
meanwhile, in a worker process (:mod:`tensorca.warm_jobs` starts it, :mod:`tensorca.warmup` runs
it), so neither this run nor the next waits.

A compile runs in its own process, not a thread: Numba's compiler is mostly Python and would hold
the GIL against the run; a process uses the other core, gives its compiler memory back when it
exits, and writes the kernels to the on-disk cache (:mod:`tensorca.cache_dirs`), where this process
(and every later one) loads them in a fraction of a second. The worker runs in its own session, so
a compile started by a short command still finishes after the command exits and the next command
finds the kernels ready. One background compile runs at a time on a machine (a lock file each, in
the cache): more would take the cores from the run they are meant to speed up.

``TENSORCA_BACKGROUND_COMPILE=0`` turns background compiles off (``auto`` then pays a compile in
the foreground only when its rent-or-buy account says so, as before).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
from pathlib import Path

from .cache_dirs import cache_changed, cache_root
from .warm_jobs import WarmJob, start_worker

#: The switch: "0" (or "false", "no", "off") turns background compiles off.
ENV = "TENSORCA_BACKGROUND_COMPILE"
#: A lock older than this is a crashed worker's, not a compile in progress.
STALE_AFTER_S = 600.0

_lock = threading.Lock()
_RUNNING: dict[str, Compile] = {}


def enabled() -> bool:
    """Whether background compiles may start (the environment variable :data:`ENV`)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


class Compile:
    """One background compile of ``job``: :meth:`done` polls it, never blocks."""

    def __init__(self, job: WarmJob, process: subprocess.Popen, lock: Path | None):
        self.job = job
        self.process = process
        self.lock = lock
        self.started = time.perf_counter()
        self.error = ""
        self._finished = False

    def done(self) -> bool:
        """True once the worker exited (its kernels are in the cache unless :attr:`error`)."""
        if self._finished:
            return True
        if self.process.poll() is None:
            return False
        self._finished = True
        out, err = self.process.communicate()
        if self.process.returncode != 0:
            self.error = ((err or "").strip().splitlines() or ["failed"])[-1]
        elif '"error": ""' not in (out or ""):
            self.error = (out or "").strip() or "failed"
        _release(self.lock)  # the worker removes it as it exits; this covers a worker that was killed
        cache_changed()  # kernel states read from the cache may have changed
        return True

    @property
    def ok(self) -> bool:
        """Finished without an error."""
        return self.done() and not self.error

    def seconds(self) -> float:
        """Seconds since the compile started (in this process's view)."""
        return time.perf_counter() - self.started


def _key(job: WarmJob) -> str:
    return hashlib.sha256(job.to_json().encode()).hexdigest()[:20]


def _lock_path(job: WarmJob) -> Path:
    return cache_root() / "compiling" / f"{_key(job)}.lock"


def _take(lock: Path) -> bool:
    """Create ``lock`` (False while any live lock exists: one background compile at a time on this
    machine, whoever started it, so that compiles never crowd out the runs they are for)."""
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        now = time.time()
        if any(now - other.stat().st_mtime < STALE_AFTER_S for other in lock.parent.glob("*.lock")):
            return False
        lock.write_text(str(os.getpid()))
        return True
    except OSError:
        return False


def _release(lock: Path | None) -> None:
    if lock is not None:
        try:
            lock.unlink()
        except OSError:
            pass


def start(job: WarmJob) -> Compile | None:
    """Start compiling ``job`` in the background (once per process; None when disabled, or when
    another process is compiling it already)."""
    if not enabled():
        return None
    key = _key(job)
    with _lock:
        running = _RUNNING.get(key)
        if running is not None:
            return running
        lock = _lock_path(job)
        if not _take(lock):
            return None
        try:
            process = start_worker([job], detach=True, lock=lock)
        except OSError:
            _release(lock)
            return None
        compile_ = Compile(job, process, lock)
        _RUNNING[key] = compile_
        return compile_


def running(job: WarmJob) -> Compile | None:
    """The background compile of ``job`` this process started, if any."""
    with _lock:
        return _RUNNING.get(_key(job))


__all__ = ["ENV", "Compile", "enabled", "running", "start"]
