"""``tensorca soup``: random 16x16 soups to stability, census of the ash, soups per second.

Soup ``i`` of ``--seed S`` is apgsearch's soup ``i`` of the root string ``S`` (SHA-256 of root +
index, :mod:`tensorca.search.hashsoup`; an integer seed is its decimal string) wherever it runs, so
the census of a seed is the same in every mode:

- by default, in this process (the engine's own threads), with an integer ``--seed`` and any ``--density``;
- with ``--workers K``, ``--scheduler ADDR`` or ``--haul F``: in tasks on a dask cluster
  (:mod:`tensorca.search.distributed`): K local worker processes on 127.0.0.1, or a running cluster
  at ``ADDR``; ``--seed`` may be any root string, the density is apgsearch's 0.5, and ``--haul``
  writes Catagolue's haul format (nothing is uploaded).

Without ``--seed`` a seed is drawn and printed, so every census can be repeated. Ctrl-C stops the
search and still prints (and writes with ``--json``/``--haul``) the census of the soups finished so far.
"""

from __future__ import annotations

import argparse
import json
import secrets
from typing import Any

from rich.table import Table

from ..analysis import NAMES
from ..atomic import write_bytes_atomic
from ..errors import UsageError
from ..search.distributed import CensusInterrupted, SoupCensus, default_seed, soup_census
from ..search.hashsoup import check_seed
from ..search.soups import SearchInterrupted, SoupSearchResult, soup_search
from . import _args
from ._console import progress_bar, say, wide


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``soup`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("soup", help="run random 16x16 soups to stability and census the ash (apgcodes)")
    p.add_argument("--count", type=_args.integer(0), default=1000, help="number of soups (default 1000)")
    p.add_argument("--rule", default="B3/S23", help="any two-state rule (default B3/S23)")
    p.add_argument("--seed", default=None,
                   help="random seed: an integer (default: drawn and printed), the same soups with or without "
                        "--workers; with --workers, --scheduler or --haul also apgsearch's root string (e.g. k_abc123)")
    p.add_argument("--density", type=_args.number(0.0, 1.0), default=None,
                   help="soup density (default 0.5; apgsearch's soups have 0.5)")
    p.add_argument("--max-gens", type=_args.integer(1), default=20000,
                   help="give up on a soup after this many generations (default 20000)")
    p.add_argument("--batch", type=_args.integer(1, 2**20), default=256, help="soups per engine batch (default 256)")
    p.add_argument("--backend", default="auto", help="engine name, or auto for the fastest that supports the rule")
    p.add_argument("--device", type=_args.device, default=None,
                   help="device for torch/GPU engines (default: cuda when available)")
    p.add_argument("--workers", type=_args.integer(1, 1024), default=None,
                   help="census apgsearch's soups on a local dask cluster of this many worker processes")
    p.add_argument("--scheduler", metavar="ADDR", default=None,
                   help="census apgsearch's soups on the dask cluster at ADDR (tcp://host:8786)")
    p.add_argument("--task-soups", type=_args.integer(1), default=None,
                   help="soups per dask task (default 10000, fewer when --count is small)")
    p.add_argument("--top", type=_args.integer(0), default=20, help="rows of the census table (default 20)")
    p.add_argument("--json", metavar="FILE.json", help="write the census (every apgcode and count) as JSON")
    p.add_argument("--haul", metavar="FILE", help="write the census in Catagolue's haul format (apgsearch's soups)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_soup)


def cmd_soup(args: argparse.Namespace) -> int:
    _args.check_output(args.json, "json", "--json")
    if distributed(args):
        return cmd_census(args)
    if args.task_soups is not None:
        raise UsageError("--task-soups applies to a distributed census (--workers, --scheduler or --haul)")
    seed = secrets.randbits(32) if args.seed is None else integer_seed(args.seed)
    density = 0.5 if args.density is None else args.density
    options = dict(seed=seed, density=density, max_gens=args.max_gens, batch=args.batch,
                   backend=args.backend, device=args.device)
    with progress_bar(not args.no_progress, args.count, "soups") as progress:
        try:
            result = soup_search(args.count, args.rule, progress=progress, **options)
        except SearchInterrupted as stop:  # Ctrl-C: the census of the soups finished so far
            result = stop.result
    report(args, seed, result, density)
    if args.json:
        write_bytes_atomic(args.json, json.dumps(census_json(result, seed, density), indent=1).encode())
        say(f"wrote {args.json}")
    if result.interrupted:
        say(f"tensorca: interrupted; the census above covers the {result.soups:,} of {args.count:,} soups "
            f"finished (seed {seed})", stderr=True)
        return 130
    return 0


def distributed(args: argparse.Namespace) -> bool:
    """True for a census of apgsearch's soups (on dask workers, or with a haul to write)."""
    return args.workers is not None or args.scheduler is not None or args.haul is not None


def integer_seed(text: str) -> int:
    """``--seed`` of a census in this process: a whole number in 0..2**63-1 (apgsearch's root strings
    need --workers)."""
    try:
        return _args.integer(0, 2**63 - 1)(text)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"argument --seed: {exc} (a root string such as k_abc123 names apgsearch's soups: "
                         "add --workers N, --scheduler ADDR or --haul FILE)") from None


def cmd_census(args: argparse.Namespace) -> int:
    """apgsearch's soups of root ``--seed``, censused in tasks (locally, or on dask workers)."""
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers (a local cluster) or --scheduler (a running one), not both")
    if args.density not in (None, 0.5) or args.device is not None:
        raise UsageError("apgsearch's soups have density 0.5 and run on each worker's CPU: "
                         "--density and --device do not apply with --workers, --scheduler or --haul")
    _args.check_output(args.haul, "haul", "--haul")
    seed = default_seed() if args.seed is None else check_seed(args.seed)
    options = dict(workers=args.workers, scheduler=args.scheduler, task_soups=args.task_soups,
                   max_gens=args.max_gens, batch=args.batch, backend=args.backend)
    with progress_bar(not args.no_progress, args.count, "soups") as progress:
        try:
            census = soup_census(args.count, seed, args.rule, progress=progress,
                                 announce=lambda where: say(f"census of {args.count:,} soups on {where}"), **options)
        except CensusInterrupted as stop:  # Ctrl-C: the futures are cancelled; the finished tasks' census
            census = stop.result
    report_census(args, census)
    if args.json:
        write_bytes_atomic(args.json, json.dumps(census.to_json(), indent=1).encode())
        say(f"wrote {args.json}")
    if args.haul:
        write_bytes_atomic(args.haul, census.haul().text().encode())
        say(f"wrote {args.haul} (Catagolue haul format, not uploaded)")
    if census.interrupted:
        say(f"tensorca: interrupted; the census above covers the {census.soups:,} of {args.count:,} soups "
            f"finished (seed {census.seed})", stderr=True)
        return 130
    return 0


def census_table(args: argparse.Namespace, rule: str, counts: dict[str, int], title: str) -> Table:
    """The census, most common first (``--top`` rows)."""
    total = sum(counts.values())
    table = Table(title=title, min_width=min(len(title), 120))
    table.add_column("rank", justify="right")
    table.add_column("apgcode", overflow="fold")
    table.add_column("name")
    table.add_column("count", justify="right")
    table.add_column("frequency", justify="right")
    for rank, (code, n) in enumerate(list(counts.items())[: args.top], 1):
        name = NAMES.get(code, "") if rule == "B3/S23" else ""
        table.add_row(str(rank), code, name, f"{n:,}", f"{n / total:.4%}" if total else "-")
    return table


def report(args: argparse.Namespace, seed: int, result: SoupSearchResult, density: float) -> None:
    """Print the census table (most common first) and the summary."""
    total = result.objects
    done = "partial census" if result.interrupted else "census"
    title = f"{result.rule}: {done} of {result.soups:,} soups (16x16, density {density:g}, seed {seed})"
    console = wide(120)
    console.print(census_table(args, result.rule, result.counts, title))
    summary = Table(show_header=False)
    summary.add_row("seed", str(seed))
    summary.add_row("objects", f"{total:,} ({len(result.counts):,} kinds)")
    summary.add_row("escaped spaceships", f"{result.escaped:,} (counted above)")
    summary.add_row("not stable by --max-gens", f"{result.unstable:,}")
    summary.add_row("engine", f"{result.engine} ({result.device})")
    per_soup = result.generations / max(result.soups, 1)
    summary.add_row("generations", f"{result.generations:,} ({per_soup:,.0f} per soup)")
    summary.add_row("time", f"{result.seconds:.2f} s")
    if result.phases:
        summary.add_row("where the time went", time_spent(result.phases, result.seconds))
    summary.add_row("soups/s", f"{result.soups_per_second:,.1f}")
    console.print(summary)


#: How :func:`time_spent` names each of :data:`tensorca.search.soups.PHASES`.
PHASE_NAMES = {"stepping": "stepping", "census": "censuses", "bands": "guard bands"}


def time_spent(phases: dict[str, float], total: float) -> str:
    """``phases`` (seconds by phase) and the rest of ``total`` as one line of seconds and shares, e.g.
    ``stepping 0.61 s 42%, censuses 0.25 s 17%, guard bands 0.20 s 14%, rest 0.39 s 27%``."""
    rest = max(0.0, total - sum(phases.values()))
    parts = [(PHASE_NAMES.get(name, name), seconds) for name, seconds in phases.items()] + [("rest", rest)]
    return ", ".join(f"{name} {seconds:.2f} s" + (f" {seconds / total:.0%}" if total > 0 else "")
                     for name, seconds in parts)


def report_census(args: argparse.Namespace, census: SoupCensus) -> None:
    """Print a distributed census: the table, then seed, workers, tasks and speed."""
    done = "partial census" if census.interrupted else "census"
    title = f"{census.rule}: {done} of {census.soups:,} apgsearch soups (C1, seed {census.seed})"
    console = wide(120)
    console.print(census_table(args, census.rule, census.counts, title))
    summary = Table(show_header=False)
    summary.add_row("seed (root)", census.seed)
    summary.add_row("objects", f"{census.objects:,} ({len(census.counts):,} kinds)")
    summary.add_row("escaped spaceships", f"{census.escaped:,} (counted above)")
    summary.add_row("not stable by --max-gens", f"{census.unstable:,}")
    summary.add_row("ran on", f"{census.where}; engine {', '.join(census.engines) or '-'}")
    if census.task_seconds:
        mean = sum(census.task_seconds) / len(census.task_seconds)
        summary.add_row("tasks", f"{census.tasks} (mean {mean:.2f} s, longest {max(census.task_seconds):.2f} s)")
    per_soup = census.generations / max(census.soups, 1)
    summary.add_row("generations", f"{census.generations:,} ({per_soup:,.0f} per soup)")
    summary.add_row("time", f"{census.seconds:.2f} s")
    if census.phases:  # worker time, summed over the tasks
        summary.add_row("where the tasks' time went", time_spent(census.phases, sum(census.task_seconds)))
    summary.add_row("soups/s", f"{census.soups_per_second:,.1f}")
    console.print(summary)


def census_json(result: SoupSearchResult, seed: int, density: float) -> dict[str, Any]:
    """The census as JSON-ready data: enough to repeat the search and to merge censuses."""
    return {"format": "tensorca-census/1", "rule": result.rule, "seed": seed, "density": density,
            "soup_size": 16, "soups": result.soups, "interrupted": result.interrupted, "objects": result.objects,
            "counts": result.counts, "samples": result.samples,
            "escaped": result.escaped, "unstable": result.unstable, "generations": result.generations,
            "engine": result.engine, "device": result.device, "seconds": result.seconds, "phases": result.phases}
