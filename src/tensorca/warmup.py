"""Compiling kernels ahead of use: ``tensorca warmup``, and the worker behind background compiles.

A :class:`WarmJob` is one small run that makes Numba compile (or load from its on-disk cache,
:mod:`tensorca.cache_dirs`) the kernels a real run of that kind will call: an engine on a grid
shape, HashLife, or the soup search. :func:`warm_all` runs a list of them in worker processes, one
a free core, each worker importing tensorca once and running its share
(``python -m tensorca.warmup JOB_JSON...``); compiled kernels land in the cache, where every later
process finds them. :data:`COMMON` is what ``tensorca warmup`` compiles: each rule family's
fast kernels for its sample rule, HashLife and the soup search. The background compiles of
``auto`` (:mod:`tensorca.background`) run one job the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from .cpu_load import assumed_free, usable_cores
from .errors import UsageError
from .warm_jobs import KINDS, LOCK_ENV, WarmJob, start_worker, worker_command  # noqa: F401 (re-exported)

#: Generations of the long run an engine job also makes (past every "short call" threshold).
LONG_RUN = 256


def _generic(rule: str, what: str, shapes: Sequence[tuple[int, int, int, str]]) -> list[WarmJob]:
    """bitpack-cpu's generic kernels (the rule as data: one compile serves every rule of its kind)
    on each ``(B, H, W, topology)``, whose kernel variants differ (bands, whole grids, planes)."""
    return [WarmJob("engine", rule, "bitpack-cpu", (b, h, w), topology, 8,
                    f"{what} on bitpack-cpu, {'' if b == 1 else f'{b} x '}{w}x{h} {topology} (generic)", "generic")
            for b, h, w, topology in shapes]


def _family_jobs() -> list[WarmJob]:
    """Each CPU engine's kernels for the shapes ``auto`` gives it, per rule family's sample rule."""
    life = "B3/S23"
    jobs = [
        WarmJob("engine", life, "bitpack-cpu", (1, 1024, 1024), "torus", 8, "Life on bitpack-cpu (large grids)"),
        WarmJob("engine", life, "bitpack-cpu", (1, 256, 256), "plane", 8, "Life on bitpack-cpu (planes)"),
        WarmJob("engine", life, "bitpack-cpu", (64, 64, 64), "torus", 8, "Life on bitpack-cpu (batches)"),
        *_generic("B36/S23", "any B/S rule", ((1, 1024, 1024, "torus"), (1, 256, 256, "torus"),
                                                 (1, 256, 256, "plane"), (64, 64, 64, "torus"))),
        *_generic("B2ce3ai/S23k", "any Hensel or MAP rule", ((1, 1024, 1024, "torus"), (1, 256, 256, "plane"))),
        *_generic("23/3/3", "any Generations rule", ((1, 1024, 1024, "torus"), (1, 256, 256, "plane"))),
        WarmJob("engine", "R5,C0,M1,S34..58,B34..45,NM", "ltl-cpu", (1, 512, 512), "torus", 4,
                "Larger than Life on ltl-cpu"),
        WarmJob("engine", "R7,C0,M1,S4..10,B6..9,NN", "ltl-cpu", (1, 512, 512), "torus", 4,
                "von Neumann LtL on ltl-cpu"),
    ]
    return jobs


def common_jobs() -> list[WarmJob]:
    """What ``tensorca warmup`` compiles: the engine jobs of the families, HashLife and the soup
    search; jobs whose engine is not installed here are left out."""
    from .engines.registry import engine_info, missing

    jobs = []
    for job in _family_jobs():
        try:
            if missing(engine_info(job.engine)):
                continue
        except Exception:  # noqa: BLE001 - an engine absent from the registry is simply not warmed
            continue
        jobs.append(job)
    if not missing(engine_info("hashlife")):
        jobs.append(WarmJob("hashlife", "B3/S23", generations=1 << 20, label="HashLife"))
    jobs.append(WarmJob("soups", "B3/S23", generations=64, label="soup search and census (B3/S23)"))
    return jobs


def demo_jobs() -> list[WarmJob]:
    """What ``make demo`` compiles before its table (the engines ``auto`` picks for its runs once
    warm): Life on bitpack-cpu for its soups and growing planes, and HashLife; none without Numba."""
    from .engines.registry import engine_info, missing

    if missing(engine_info("bitpack-cpu")):
        return []
    return [
        WarmJob("engine", "B3/S23", "bitpack-cpu", (1, 1024, 1024), "torus", 8, "Life on bitpack-cpu (large grids)"),
        WarmJob("engine", "B3/S23", "bitpack-cpu", (1, 256, 256), "torus", 8, "Life on bitpack-cpu (tori)"),
        WarmJob("engine", "B3/S23", "bitpack-cpu", (1, 256, 256), "plane", 8, "Life on bitpack-cpu (planes)"),
        WarmJob("hashlife", "B3/S23", generations=1 << 20, label="HashLife"),
    ]


def warm(job: WarmJob) -> None:
    """Run ``job`` here (compiling what it needs, or loading it from the cache)."""
    if job.kind == "engine":
        if not job.kernels:
            _warm_engine(job)
            return
        from .engines.bitpack.choice import KERNELS_ENV

        before = os.environ.get(KERNELS_ENV)
        os.environ[KERNELS_ENV] = job.kernels
        try:
            _warm_engine(job)
        finally:
            if before is None:
                os.environ.pop(KERNELS_ENV, None)
            else:
                os.environ[KERNELS_ENV] = before
    elif job.kind == "hashlife":
        from . import io
        from .data import pattern_path
        from .simulate import run

        final = run(io.load(pattern_path("gosper_gun.rle")), generations=job.generations, backend="hashlife")
        _ = final.population  # the tree's population kernel, which ``tensorca run`` reports
    else:
        from .search.soups import soup_search

        soup_search(job.generations, job.rule, seed="warmup", batch=max(16, job.generations))


def _warm_engine(job: WarmJob) -> None:
    from .engines import get_engine
    from .random_grids import random_soup
    from .rules.spec import parse_rule
    from .topology import Topology

    rule = parse_rule(job.rule)
    batch, height, width = job.shape
    topology = Topology.torus(width, height) if job.topology == "torus" else Topology.plane(width, height)
    cells = random_soup(height, width, density=0.5, seed=0, batch=batch, n_states=max(2, rule.n_states))
    engine = get_engine(job.engine)
    # The CPU engines pick kernel variants by the work of a call (a short run stays on one thread)
    # and by the free cores (a busy machine, a background compile among its loads, gets the
    # single-thread ones): compile those of a short and a long run, on an idle and a busy machine.
    for generations in sorted({job.generations, LONG_RUN}):
        engine.advance(cells, rule, topology, generations)
        if engine.array_module == "numpy" and usable_cores() > 1:
            with assumed_free(1):
                engine.advance(cells, rule, topology, generations)


# -- worker processes ------------------------------------------------------------------------------


def split(jobs: Sequence[WarmJob], workers: int) -> list[list[WarmJob]]:
    """``jobs`` dealt round-robin into ``workers`` lists (none empty)."""
    shares: list[list[WarmJob]] = [[] for _ in range(max(1, min(workers, len(jobs))))]
    for i, job in enumerate(jobs):
        shares[i % len(shares)].append(job)
    return shares


def warm_all(jobs: Sequence[WarmJob], workers: int | None = None,
             on_done: Callable[[WarmJob, float, str], None] | None = None) -> dict[str, float]:
    """Run ``jobs`` in ``workers`` processes (default: the free cores); ``on_done(job, seconds,
    error)`` as each finishes (``error`` "" when it went well). Returns seconds per job label."""
    from .cpu_load import free_cores

    workers = max(1, workers if workers is not None else free_cores())
    seconds: dict[str, float] = {}
    failures: list[str] = []
    lock = threading.Lock()

    def follow(proc: subprocess.Popen, share: list[WarmJob]) -> None:
        """Report each of ``share``'s jobs as its worker finishes it (workers run side by side)."""
        assert proc.stdout is not None
        for job, line in zip(share, proc.stdout, strict=False):
            report = json.loads(line)
            with lock:
                seconds[job.describe()] = float(report["seconds"])
                if on_done is not None:
                    on_done(job, float(report["seconds"]), str(report.get("error", "")))
        proc.wait()
        if proc.returncode != 0:
            lines = (proc.stderr.read() if proc.stderr else "").strip().splitlines()
            failures.append(f"exit {proc.returncode}: {lines[-1] if lines else ''}")

    followers = [threading.Thread(target=follow, args=(start_worker(share), share), daemon=True)
                 for share in split(jobs, workers)]
    for thread in followers:
        thread.start()
    for thread in followers:
        thread.join()
    if failures:
        raise UsageError(f"a warm-up worker failed ({failures[0]})")
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    """Worker entry point: run each job given as JSON, printing ``{"label", "seconds", "error"}`` a
    line; then remove the lock file named by :data:`LOCK_ENV`, if any."""
    try:
        _run_jobs(sys.argv[1:] if argv is None else argv)
    finally:
        if os.environ.get(LOCK_ENV):
            try:
                os.unlink(os.environ[LOCK_ENV])
            except OSError:
                pass
    return 0


def _run_jobs(texts: Sequence[str]) -> None:
    for text in texts:
        job = WarmJob.from_json(text)
        began = time.perf_counter()
        error = ""
        try:
            warm(job)
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which decides
            error = f"{type(exc).__name__}: {exc}"
        print(json.dumps({"label": job.describe(), "seconds": time.perf_counter() - began, "error": error}),
              flush=True)


if __name__ == "__main__":  # pragma: no cover - run as a worker process
    sys.exit(main())
