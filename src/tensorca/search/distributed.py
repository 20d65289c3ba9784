"""A soup census over many workers: apgsearch's soups, cut into tasks, merged exactly.

Soup ``i`` of root ``seed`` is a pure function of ``(seed, i)`` (:mod:`tensorca.search.hashsoup`,
apgsearch's ``hashsoup``), and a soup's census does not depend on which soups share its batch. So
``count`` soups split into tasks of consecutive indices (:func:`plan_tasks`: 10,000 soups a task, or
fewer so that each worker gets several when ``count`` is small), each task runs
:func:`~tensorca.search.soups.soup_search` on its soups wherever a worker is free, and the merge
adds the counts and keeps, per apgcode, the ten lowest soup indices: the same census and the same
samples for 1 worker or 64.

Where tasks run (:func:`tensorca.cluster.connect`): a ``LocalCluster`` of ``workers`` processes on
127.0.0.1, a running cluster at ``scheduler``, a ``client`` of the caller's, or (none of these) one
after another in this process. Tasks are submitted as pure functions with deterministic keys, so a
task whose worker dies is run again by the scheduler on another worker. Ctrl-C cancels the tasks
still pending and raises :class:`CensusInterrupted` carrying the census of the tasks finished.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import hashlib
import importlib.util
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from .._version import __version__
from ..cluster import connect, describe
from ..cpu_load import numba_threads
from ..errors import RuleError, UsageError
from ..rules.spec import resolve
from .hashsoup import check_seed, hashsoups
from .soups import SAMPLES, SearchInterrupted, soup_search

#: Soups per task when there are enough of them.
TASK_SOUPS = 10_000
#: Tasks per worker at least, when ``count`` is small (work left for the workers that finish early).
#: Each task ends with a tail of its longest-lived soups running in mostly empty lane groups (about
#: 1 s here), which matters since the lane tiers made soups 2-3x cheaper: 4000 soups on 2 workers
#: ran at 449 soups/s as 2 tasks of 2000 (8.9 and 8.4 s), 380 as 4 of 1000 (4.9-5.3 s each), 236 as
#: 8 of 500 (load 1.1-2.0). (With the slower per-chunk path, 3000 soups on 2 workers ran in 20.7 s
#: as 16 tasks and 21.8 s as 8.) Large counts still run as many tasks of TASK_SOUPS.
TASKS_PER_WORKER = 1
FORMAT = "tensorca-census/1"


@dataclasses.dataclass
class TaskResult:
    """The census of soups ``start .. stop - 1``: ``samples`` holds global soup indices; ``phases``
    the task's seconds by :data:`.soups.PHASES`."""

    start: int
    stop: int
    counts: dict[str, int]
    samples: dict[str, list[int]]
    generations: int
    unstable: int
    escaped: int
    seconds: float
    engine: str
    phases: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def soups(self) -> int:
        return self.stop - self.start


@dataclasses.dataclass
class SoupCensus:
    """A census of apgsearch soups ``0 .. soups - 1`` (fewer if ``interrupted``) of root ``seed``.

    ``counts``: apgcode -> objects, most common first; ``samples``: apgcode -> up to ten soup indices
    (the lowest); ``task_seconds``: wall time of each task on its worker (the per-task cost);
    ``phases``: the tasks' seconds by :data:`.soups.PHASES`, summed over tasks (worker time, as
    ``task_seconds``).
    """

    seed: str
    rule: str
    counts: dict[str, int]
    samples: dict[str, list[int]]
    soups: int
    requested: int
    generations: int
    unstable: int
    escaped: int
    seconds: float
    tasks: int
    task_seconds: list[float]
    engines: list[str]
    where: str
    interrupted: bool = False
    symmetry: str = "C1"
    phases: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def objects(self) -> int:
        return sum(self.counts.values())

    @property
    def soups_per_second(self) -> float:
        return self.soups / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data: enough to repeat the census (seed, rule, count) and to compare two."""
        return {"format": FORMAT, "soup_ids": "apgsearch-hashsoup", "rule": self.rule, "seed": self.seed,
                "symmetry": self.symmetry, "soup_size": 16, "soups": self.soups, "requested": self.requested,
                "interrupted": self.interrupted, "objects": self.objects, "counts": self.counts,
                "samples": self.samples, "escaped": self.escaped, "unstable": self.unstable,
                "generations": self.generations, "engines": self.engines, "where": self.where,
                "tasks": self.tasks, "task_seconds": self.task_seconds, "seconds": self.seconds,
                "phases": self.phases}

    def haul(self, version: str | None = None) -> Any:
        """The census as a Catagolue haul (:class:`tensorca.io.haul.Haul`; ``.text()`` writes it)."""
        from ..io.haul import Haul, catagolue_rule

        return Haul(root=self.seed, rule=catagolue_rule(self.rule), symmetry=self.symmetry, num_soups=self.soups,
                    census=dict(self.counts), samples={k: [str(i) for i in v] for k, v in self.samples.items()},
                    version=version or f"tensorca-{__version__}")


class CensusInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`soup_census`: ``result`` is the census of the soups finished before it."""

    def __init__(self, result: SoupCensus):
        super().__init__(f"soup census interrupted with {result.soups} of {result.requested} soups censused")
        self.result = result


def plan_tasks(count: int, workers: int = 1, task_soups: int | None = None) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` covering soups ``0 .. count - 1``: ``task_soups`` each (default
    :data:`TASK_SOUPS`, or fewer so that every worker gets :data:`TASKS_PER_WORKER` tasks)."""
    if task_soups is None:
        task_soups = min(TASK_SOUPS, max(1, math.ceil(count / (TASKS_PER_WORKER * max(1, workers)))))
    return [(start, min(count, start + task_soups)) for start in range(0, count, task_soups)]


@contextlib.contextmanager
def _one_numba_thread(enabled: bool) -> Iterator[None]:
    """Numba on one thread for this task (its worker's other threads run other tasks)."""
    if not enabled or importlib.util.find_spec("numba") is None:
        yield
        return
    from .._numba import numba

    with numba_threads(numba, 1):
        yield


def census_task(seed: str, start: int, stop: int, rule: str, max_gens: int, batch: int, backend: str,
                single_thread: bool = True, progress: Callable[[int, int], None] | None = None) -> TaskResult:
    """Census soups ``start .. stop - 1`` of root ``seed`` (a pure function of its arguments)."""
    began = time.perf_counter()
    grids = hashsoups(seed, start, stop)
    with _one_numba_thread(single_thread):
        found = soup_search(len(grids), rule, grids=grids, max_gens=max_gens, batch=batch, backend=backend,
                            progress=progress)
    return _task_result(found, start, stop, time.perf_counter() - began)


def _task_result(found: Any, start: int, stop: int, seconds: float) -> TaskResult:
    samples = {code: [start + i for i in kept] for code, kept in found.samples.items()}
    return TaskResult(start, stop, dict(found.counts), samples, found.generations, found.unstable, found.escaped,
                      seconds, found.engine, dict(found.phases))


def merge(results: list[TaskResult], *, seed: str, rule: str, requested: int, seconds: float, where: str,
          interrupted: bool = False) -> SoupCensus:
    """The exact union of task censuses: counts added, the ten lowest soup indices kept per apgcode."""
    counts: Counter = Counter()
    samples: dict[str, list[int]] = {}
    for result in results:
        counts.update(result.counts)
        for code, kept in result.samples.items():
            merged = samples.setdefault(code, [])
            for index in kept:
                bisect.insort(merged, index)
            del merged[SAMPLES:]
    ordered = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    phases: Counter = Counter()
    for result in results:
        phases.update(result.phases)
    return SoupCensus(
        seed=seed, rule=rule, counts=ordered, samples={k: samples[k] for k in sorted(samples)},
        soups=sum(r.soups for r in results), requested=requested,
        generations=sum(r.generations for r in results), unstable=sum(r.unstable for r in results),
        escaped=sum(r.escaped for r in results), seconds=seconds, tasks=len(results),
        task_seconds=[r.seconds for r in sorted(results, key=lambda r: r.start)],
        engines=sorted({r.engine for r in results}), where=where, interrupted=interrupted, phases=dict(phases))


def default_seed() -> str:
    """A fresh root in apgsearch's style: ``k_`` and twelve characters of a random hash."""
    import secrets

    return "k_" + hashlib.sha256(secrets.token_bytes(16)).hexdigest()[:12]


def soup_census(
    count: int,
    seed: str | int | None = None,
    rule: str = "B3/S23",
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    task_soups: int | None = None,
    max_gens: int = 20000,
    batch: int = 256,
    backend: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    timeout: float = 10.0,
    memory_limit: str | int | None = None,
    announce: Callable[[str], None] | None = None,
) -> SoupCensus:
    """Census apgsearch's soups ``0 .. count - 1`` of root ``seed`` under a two-state ``rule``.

    ``seed``: apgsearch's root string (e.g. ``"k_abc123"``; default: drawn, and reported in the
    result). Where the tasks run: ``workers=K`` starts a LocalCluster of K processes on 127.0.0.1,
    ``scheduler="tcp://host:8786"`` joins a cluster, ``client=`` uses the caller's Client; none of
    them: in this process, task after task. ``task_soups``: soups per task (default
    :func:`plan_tasks`). ``progress(done, count)`` after each task (in this process: each soup).
    The census is the same wherever it runs. ``announce(where)`` is called once the workers are
    ready (where: their count, address and dashboard). Ctrl-C raises :class:`CensusInterrupted` with
    the census of the tasks finished.
    """
    seed = default_seed() if seed is None else check_seed(seed)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise UsageError(f"soup count must be a non-negative integer, got {count!r}")
    if task_soups is not None and (isinstance(task_soups, bool) or not isinstance(task_soups, int) or task_soups < 1):
        raise UsageError(f"task_soups must be a positive integer, got {task_soups!r}")
    rule_value = resolve(rule)[0]
    if rule_value.n_states != 2:
        raise RuleError(f"soup search needs a two-state rule; this one has {rule_value.n_states} states",
                        rule_value.canonical())
    if not isinstance(backend, str):
        raise UsageError(f"backend must be an engine name (a string, sent to the workers), "
                         f"got {type(backend).__name__}")
    options = dict(rule=rule_value.canonical(), max_gens=max_gens, batch=batch, backend=backend)
    began = time.perf_counter()
    with connect(workers, scheduler, client, memory_limit=memory_limit, timeout=timeout, heap_malloc=True) as joined:
        if announce is not None:
            announce(describe(joined) if joined is not None else "this process")
        if joined is None:
            # one process: tasks as large as allowed (no worker waits for another; each task has a tail)
            return _in_process(seed, count, plan_tasks(count, 1, task_soups or TASK_SOUPS), options, progress,
                               began)
        size = max(1, len(joined.scheduler_info().get("workers", {})))
        return _on_cluster(joined, seed, count, plan_tasks(count, size, task_soups), options, progress, began)


def _in_process(seed: str, count: int, tasks: list[tuple[int, int]], options: dict, progress: Any,
                began: float) -> SoupCensus:
    """Every task here, one after another (no dask needed)."""
    done: list[TaskResult] = []
    where = "this process"
    for start, stop in tasks:
        report = None if progress is None else (lambda n, _t, base=start: progress(base + n, count))
        try:
            done.append(census_task(seed, start, stop, single_thread=False, progress=report, **options))
        except KeyboardInterrupt as stop_:  # the soups of this task finished before Ctrl-C count too
            if isinstance(stop_, SearchInterrupted):
                done.append(_task_result(stop_.result, start, start + stop_.result.soups, 0.0))  # soups finished
            result = merge(done, seed=seed, rule=options["rule"], requested=count,
                           seconds=time.perf_counter() - began, where=where, interrupted=True)
            raise CensusInterrupted(result) from None
    return merge(done, seed=seed, rule=options["rule"], requested=count, seconds=time.perf_counter() - began,
                 where=where)


def _on_cluster(client: Any, seed: str, count: int, tasks: list[tuple[int, int]], options: dict, progress: Any,
                began: float) -> SoupCensus:
    """Every task as a pure future on ``client``; results merged as they arrive."""
    from distributed import as_completed

    token = hashlib.sha256(repr((seed, sorted(options.items()))).encode()).hexdigest()[:16]
    futures = [client.submit(census_task, seed, start, stop, key=f"tensorca-soups-{token}-{start}-{stop}", pure=True,
                             **options) for start, stop in tasks]
    done: list[TaskResult] = []
    where = describe(client)
    try:
        with client.as_current():  # as_completed asks for the current Client (the caller's may not be the default)
            finished = as_completed(futures)
        for future in finished:
            done.append(future.result())
            if progress is not None:
                progress(sum(r.soups for r in done), count)
    except KeyboardInterrupt:
        client.cancel([f for f in futures if not f.done()])
        result = merge(done, seed=seed, rule=options["rule"], requested=count, seconds=time.perf_counter() - began,
                       where=where, interrupted=True)
        raise CensusInterrupted(result) from None
    return merge(done, seed=seed, rule=options["rule"], requested=count, seconds=time.perf_counter() - began,
                 where=where)
