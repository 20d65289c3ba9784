"""``tensorca warmup``: compile the common kernels now, with a progress bar, instead of at first use.

Each job (:data:`tensorca.warmup.common_jobs`: every rule family's fast engine on its sample rule,
HashLife, the soup search) runs in a worker process, one per free core; compiled kernels land in the
on-disk cache (``--where`` prints it), so every later process loads them in a fraction of a second.
Kernels already in the cache are loaded, not compiled again: a second ``warmup`` takes seconds.
"""

from __future__ import annotations

import argparse
import time

from ._console import progress_bar, say


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``warmup`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("warmup", help="compile the common kernels now (first use on this machine)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (default: the free cores)")
    p.add_argument("--only", default=None, metavar="TEXT",
                   help="only the jobs whose description contains TEXT (e.g. HashLife, 'Larger than Life')")
    p.add_argument("--list", action="store_true", help="list the jobs and exit")
    p.add_argument("--where", action="store_true", help="print where compiled kernels are cached and exit")
    p.set_defaults(func=cmd_warmup)


def cmd_warmup(args: argparse.Namespace) -> int:
    """Run the warm-up jobs; one line per job (seconds, or its error), then the total."""
    from ..cache_dirs import numba_cache_dir
    from ..errors import UsageError
    from ..warmup import common_jobs, warm_all

    if args.where:
        say(str(numba_cache_dir()))
        return 0
    jobs = common_jobs()
    if args.only is not None:
        jobs = [job for job in jobs if args.only.lower() in job.describe().lower()]
        if not jobs:
            raise UsageError(f"no warm-up job matches --only {args.only!r} (see tensorca warmup --list)")
    if args.list:
        for job in jobs:
            say(job.describe())
        return 0
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    say(f"compiling {len(jobs)} groups of kernels (cached in {numba_cache_dir()})", stderr=True)
    failed: list[str] = []
    began = time.perf_counter()
    with progress_bar(True, len(jobs), "compiling") as progress:
        finished = [0]

        def done(job, seconds: float, error: str) -> None:
            finished[0] += 1
            if progress is not None:
                progress(finished[0], len(jobs))
            if error:
                failed.append(f"{job.describe()}: {error}")
            say(f"  {job.describe():45s} {'failed' if error else f'{seconds:6.1f} s'}", stderr=True)

        warm_all(jobs, args.workers, done)
    say(f"warm-up done in {time.perf_counter() - began:.1f} s", stderr=True)
    for line in failed:
        say(f"tensorca: warning: {line}", stderr=True)
    return 1 if failed else 0
