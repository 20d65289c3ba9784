"""``tensorca soup``: random 16x16 soups to stability, census of the ash, soups per second.

Without ``--seed`` a seed is drawn and printed, so every census can be repeated. Ctrl-C stops the
search and still prints (and writes with ``--json``) the census of the soups finished so far.
"""

from __future__ import annotations

import argparse
import json
import secrets
from typing import Any

from rich.table import Table

from ..analysis import NAMES
from ..atomic import write_bytes_atomic
from ..search.soups import SearchInterrupted, SoupSearchResult, soup_search
from . import _args
from ._console import progress_bar, say, wide


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``soup`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("soup", help="run random 16x16 soups to stability and census the ash (apgcodes)")
    p.add_argument("--count", type=_args.integer(0), default=1000, help="number of soups (default 1000)")
    p.add_argument("--rule", default="B3/S23", help="any two-state rule (default B3/S23)")
    p.add_argument("--seed", type=_args.integer(0, 2**63 - 1), default=None,
                   help="random seed (default: drawn and printed)")
    p.add_argument("--density", type=_args.number(0.0, 1.0), default=0.5, help="soup density (default 0.5)")
    p.add_argument("--max-gens", type=_args.integer(1), default=20000,
                   help="give up on a soup after this many generations (default 20000)")
    p.add_argument("--batch", type=_args.integer(1, 2**20), default=256, help="soups per engine batch (default 256)")
    p.add_argument("--backend", default="auto", help="engine name, or auto for the fastest that supports the rule")
    p.add_argument("--device", type=_args.device, default=None,
                   help="device for torch/GPU engines (default: cuda when available)")
    p.add_argument("--top", type=_args.integer(0), default=20, help="rows of the census table (default 20)")
    p.add_argument("--json", metavar="FILE.json", help="write the census (every apgcode and count) as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_soup)


def cmd_soup(args: argparse.Namespace) -> int:
    _args.check_output(args.json, "json", "--json")
    seed = secrets.randbits(32) if args.seed is None else args.seed
    options = dict(seed=seed, density=args.density, max_gens=args.max_gens, batch=args.batch,
                   backend=args.backend, device=args.device)
    with progress_bar(not args.no_progress, args.count, "soups") as progress:
        try:
            result = soup_search(args.count, args.rule, progress=progress, **options)
        except SearchInterrupted as stop:  # Ctrl-C: the census of the soups finished so far
            result = stop.result
    report(args, seed, result)
    if args.json:
        write_bytes_atomic(args.json, json.dumps(census_json(result, seed, args.density), indent=1).encode())
        say(f"wrote {args.json}")
    if result.interrupted:
        say(f"tensorca: interrupted; the census above covers the {result.soups:,} of {args.count:,} soups "
            f"finished (seed {seed})", stderr=True)
        return 130
    return 0


def report(args: argparse.Namespace, seed: int, result: SoupSearchResult) -> None:
    """Print the census table (most common first) and the summary."""
    total = result.objects
    done = "partial census" if result.interrupted else "census"
    title = f"{result.rule}: {done} of {result.soups:,} soups (16x16, density {args.density:g}, seed {seed})"
    table = Table(title=title, min_width=min(len(title), 120))
    table.add_column("rank", justify="right")
    table.add_column("apgcode", overflow="fold")
    table.add_column("name")
    table.add_column("count", justify="right")
    table.add_column("frequency", justify="right")
    for rank, (code, n) in enumerate(list(result.counts.items())[: args.top], 1):
        name = NAMES.get(code, "") if result.rule == "B3/S23" else ""
        table.add_row(str(rank), code, name, f"{n:,}", f"{n / total:.4%}" if total else "-")
    console = wide(120)
    console.print(table)
    summary = Table(show_header=False)
    summary.add_row("seed", str(seed))
    summary.add_row("objects", f"{total:,} ({len(result.counts):,} kinds)")
    summary.add_row("escaped spaceships", f"{result.escaped:,} (counted above)")
    summary.add_row("not stable by --max-gens", f"{result.unstable:,}")
    summary.add_row("engine", f"{result.engine} ({result.device})")
    per_soup = result.generations / max(result.soups, 1)
    summary.add_row("generations", f"{result.generations:,} ({per_soup:,.0f} per soup)")
    summary.add_row("time", f"{result.seconds:.2f} s")
    summary.add_row("soups/s", f"{result.soups_per_second:,.1f}")
    console.print(summary)


def census_json(result: SoupSearchResult, seed: int, density: float) -> dict[str, Any]:
    """The census as JSON-ready data: enough to repeat the search and to merge censuses."""
    return {"format": "tensorca-census/1", "rule": result.rule, "seed": seed, "density": density,
            "soup_size": 16, "soups": result.soups, "interrupted": result.interrupted, "objects": result.objects,
            "counts": result.counts,
            "escaped": result.escaped, "unstable": result.unstable, "generations": result.generations,
            "engine": result.engine, "device": result.device, "seconds": result.seconds}
