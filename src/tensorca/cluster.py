"""Dask clients for the dask engine and the distributed soup census: join a cluster, start one, or none.

:func:`connect` yields a ``dask.distributed.Client``: the one given, one joined at a scheduler's
address (``tcp://host:8786``), or a ``LocalCluster`` of ``workers`` processes (one thread each) on
127.0.0.1 that is shut down when the block ends; or None (Dask's local scheduler, or no Dask at
all). While a Client is open, dask computations (the dask engine's, zarr stores') run on it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
from collections.abc import Iterator
from typing import Any

from .errors import MissingDependencyError, TensorcaError, UsageError

#: The command that adds dask, distributed and zarr.
DASK_INSTALL = "pip install 'tensorca[dask]'"
#: Most local worker processes accepted.
MAX_WORKERS = 1024
_ADDRESS = re.compile(r"^(?:(tcp|tls|inproc|ucx|ws|wss)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")


class ClusterError(TensorcaError, ConnectionError):
    """A dask scheduler that cannot be reached, or a local cluster that cannot start."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise MissingDependencyError(f"a dask cluster needs dask.distributed, which is not installed here ({exc})",
                                     package="distributed", install=DASK_INSTALL) from exc
    return distributed


def check_workers(workers: Any) -> int | None:
    """``workers`` as an int in 1..MAX_WORKERS, or None; :class:`UsageError` otherwise."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"workers must be an integer in 1..{MAX_WORKERS}, got {workers!r}")
    return workers


def check_address(address: Any) -> str:
    """A scheduler address ``[protocol://]host:port``; :class:`UsageError` for anything else."""
    if not isinstance(address, str) or not _ADDRESS.match(address.strip()):
        raise UsageError(f"scheduler address must look like tcp://host:8786, got {address!r}")
    port = int(address.strip().rsplit(":", 1)[1])
    if not 1 <= port <= 65535:
        raise UsageError(f"scheduler port must lie in 1..65535, got {port} in {address!r}")
    return address.strip()


def has_dashboard() -> bool:
    """True when Bokeh is installed, so a local cluster serves Dask's dashboard."""
    return importlib.util.find_spec("bokeh") is not None


@contextlib.contextmanager
def connect(workers: int | None = None, scheduler: str | None = None, client: Any = None, *,
            memory_limit: str | int | None = None, timeout: float = 10.0, heap_malloc: bool = False) -> Iterator[Any]:
    """The Client to run on: ``client`` itself, one at ``scheduler``, a new local cluster of ``workers``
    processes (``memory_limit`` each, e.g. ``"2GiB"``), or None when none of them is given.

    ``heap_malloc``: local workers keep glibc's malloc thresholds (many medium arrays, as a soup census
    makes; see :func:`_glibc_malloc`) instead of Dask's, which return memory to the system sooner."""
    workers = check_workers(workers)
    given = [name for name, value in (("workers", workers), ("scheduler", scheduler), ("client", client))
             if value is not None]
    if len(given) > 1:
        raise UsageError(f"give one of workers, scheduler and client, not {' and '.join(given)}")
    if client is not None:
        yield client
        return
    if scheduler is not None:
        address = check_address(scheduler)
        distributed = _distributed()
        try:
            joined = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the dask scheduler at {address} within {timeout:g} s "
                               f"({type(exc).__name__}: {exc}); is `dask scheduler` running there?") from exc
        with joined:
            yield joined
        return
    if workers is None:
        yield None
        return
    distributed = _distributed()
    try:
        with _glibc_malloc() if heap_malloc else contextlib.nullcontext():
            # ":0": a free port for the scheduler's HTTP server (and dashboard, with Bokeh); the default
            # 8787 makes a second cluster on this machine warn that the port is taken.
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=":0",
                                               memory_limit=memory_limit if memory_limit is not None else "auto")
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot start a local cluster of {workers} worker processes ({exc})") from exc
    with cluster, distributed.Client(cluster) as local:
        yield local


@contextlib.contextmanager
def _glibc_malloc() -> Iterator[None]:
    """Local workers keep glibc's own malloc thresholds.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also fixes glibc's mmap
    threshold at 128 KiB: every soup plane and chunk buffer is then a fresh mmap, zeroed page by page.
    A soup census spent 40% of its time in the kernel that way (20 s of system time in 50 s); without
    it, as in a plain process, under 1 s.
    """
    import dask

    key = "distributed.nanny.pre-spawn-environ"
    environ = {k: v for k, v in (dask.config.get(key, None) or {}).items() if k != "MALLOC_TRIM_THRESHOLD_"}
    with dask.config.set({key: environ}):
        yield


def describe(client: Any) -> str:
    """``"4 workers at tcp://127.0.0.1:40123"`` (and the dashboard's address when there is one)."""
    if client is None:
        return "dask's local scheduler"
    info = client.scheduler_info()
    workers = len(info.get("workers", {}))
    text = f"{workers} worker{'s' * (workers != 1)} at {client.scheduler.address}"
    link = getattr(client, "dashboard_link", None) if has_dashboard() else None
    return f"{text}, dashboard {link}" if link else text
