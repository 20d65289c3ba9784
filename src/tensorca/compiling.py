"""Compiles made visible and counted: every Numba compile tensorca triggers is timed, and one that
runs past :data:`ANNOUNCE_AFTER` seconds is announced once per kind of kernel.

Numba compiles a kernel the first time it is called with new argument types and keeps the result in
its on-disk cache (:mod:`tensorca.cache_dirs`), so on a new machine the first call of each
capability stalls for seconds. This module listens to Numba's ``numba:compile`` event (fired for
real compiles only, not for cache loads) and

* logs, on the ``tensorca.compile`` logger at INFO, ``compiling <what> (first use on this
  machine; cached in <dir>)`` once per kind of kernel (:func:`kernel_kind`) and process, as soon
  as a compile of that kind has run for :data:`ANNOUNCE_AFTER` seconds (the command line shows
  these records on stderr; a library user sees them with ``logging.basicConfig(level="INFO")``);
* adds every compile's wall time to a per-process total (:func:`compile_seconds`), so that
  ``bench``, ``--explain`` and run summaries report compile time apart from run time
  (:func:`measure`).

Nested compiles (a kernel compiling the kernels it calls) count once, in the outermost one. Only
tensorca's own kernels (and the modules it generates) are counted and announced: a user's own
Numba functions compile as they always did.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Iterator

#: Seconds a compile runs before it is announced (shorter ones pass silently).
ANNOUNCE_AFTER = 0.5
#: The logger compile announcements go to.
LOGGER = logging.getLogger("tensorca.compile")

#: ``(module prefix, words)``: what a user is told is compiling, by the module defining the kernel.
_KINDS = (
    ("tensorca_bitpack_cpu_", "bit-packed CPU kernels"),
    ("tensorca_bitpack_lanes_", "bit-packed lane kernels (batches, soups)"),
    ("tensorca_bitpack_gpu_", "bit-packed GPU kernels"),
    ("tensorca.hashlife", "HashLife kernels"),
    ("tensorca.analysis", "object-separation kernels (census)"),
    ("tensorca.search", "soup-search kernels"),
    ("tensorca.engines.ltl", "Larger than Life kernels"),
    ("tensorca.engines.bitpack", "bit-packed CPU kernels"),
    ("tensorca.engines.bitpack.row_packing", "bit-packed CPU kernels"),
    ("tensorca.engines.streaming", "bit-packed CPU kernels"),
    ("tensorca.margolus", "Margolus block kernels"),
)

_lock = threading.Lock()
_local = threading.local()
_total = [0.0]
_by_kind: dict[str, float] = {}
_announced: set[str] = set()
_installed = [False]


def kernel_kind(module: str) -> str:
    """What a user is told is compiling for a kernel defined in ``module`` (e.g. ``"HashLife kernels"``)."""
    for prefix, words in _KINDS:
        if module.startswith(prefix):
            return words
    return f"kernels of {module}"


def compile_seconds() -> float:
    """Wall seconds this process has spent compiling kernels so far (all threads)."""
    with _lock:
        return _total[0]


def seconds_by_kind() -> dict[str, float]:
    """Compile seconds so far per kind of kernel (:func:`kernel_kind`)."""
    with _lock:
        return dict(_by_kind)


@dataclasses.dataclass
class CompileClock:
    """Compile seconds spent while a :func:`measure` block ran (final once the block exits)."""

    start: float
    seconds: float = 0.0

    def since(self) -> float:
        """Compile seconds so far inside the block (while it runs)."""
        return compile_seconds() - self.start


@contextlib.contextmanager
def measure() -> Iterator[CompileClock]:
    """``with measure() as clock: ...`` -> ``clock.seconds``: compile time inside the block, to
    report apart from (and subtract from) the block's wall time."""
    clock = CompileClock(compile_seconds())
    try:
        yield clock
    finally:
        clock.seconds = compile_seconds() - clock.start


def _where() -> str:
    try:
        from .cache_dirs import numba_cache_dir

        return str(numba_cache_dir())
    except Exception:  # pragma: no cover - never let a message break a compile
        return "Numba's cache"


def _announce(kind: str) -> None:
    """Log the one status line of ``kind`` (once per process)."""
    with _lock:
        if kind in _announced:
            return
        _announced.add(kind)
    LOGGER.info("compiling %s (first use on this machine; cached in %s)", kind, _where(),
                extra={"compile_kind": kind})


def _started(kind: str | None) -> None:
    """A compile started (``kind`` None: not one of tensorca's kernels, as a top-level compile)."""
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    if depth:
        return
    _local.counted = kind is not None
    if kind is None:
        return
    _local.began = time.perf_counter()
    _local.kind = kind
    timer = None
    if kind not in _announced:
        timer = threading.Timer(ANNOUNCE_AFTER, _announce, (kind,))
        timer.daemon = True
        timer.start()
    _local.timer = timer


def _ended() -> None:
    _local.depth = max(0, getattr(_local, "depth", 1) - 1)
    if _local.depth or not getattr(_local, "counted", False):
        return
    seconds = time.perf_counter() - _local.began
    if _local.timer is not None:
        _local.timer.cancel()
        if seconds >= ANNOUNCE_AFTER:  # finished just as the timer fired: announce it all the same
            _announce(_local.kind)
    with _lock:
        _total[0] += seconds
        _by_kind[_local.kind] = _by_kind.get(_local.kind, 0.0) + seconds


def install() -> None:
    """Start listening to Numba's compile events (idempotent; :mod:`tensorca._numba` calls it)."""
    if _installed[0]:
        return
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):  # noqa: D401 - Numba's interface
            dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            _started(kernel_kind(module) if module.startswith("tensorca") else None)

        def on_end(self, ev):
            _ended()

    event.register("numba:compile", _Listener())
    _installed[0] = True


__all__ = ["ANNOUNCE_AFTER", "LOGGER", "CompileClock", "compile_seconds", "install", "kernel_kind", "measure",
           "seconds_by_kind"]
