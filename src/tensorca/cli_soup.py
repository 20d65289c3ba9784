"""``tensorca soup``: random 16x16 soups to stability, census of the ash, soups per second."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from .analysis import NAMES
from .search.soups import soup_search

out = Console()
err = Console(stderr=True)


def add_parser(subparsers) -> None:
    """Register ``soup`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser("soup", help="run random 16x16 soups to stability and census the ash (apgcodes)")
    p.add_argument("--count", type=int, default=1000, help="number of soups (default 1000)")
    p.add_argument("--rule", default="B3/S23", help="any two-state rule (default B3/S23)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--density", type=float, default=0.5, help="soup density (default 0.5)")
    p.add_argument("--max-gens", type=int, default=20000, help="give up on a soup after this many generations")
    p.add_argument("--batch", type=int, default=256, help="soups per engine batch (default 256)")
    p.add_argument("--backend", default="auto", help="engine name, or auto for the fastest that supports the rule")
    p.add_argument("--device", default=None, help="device for torch/GPU engines (default: cuda when available)")
    p.add_argument("--top", type=int, default=20, help="rows of the census table (default 20)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_soup)


def cmd_soup(args: argparse.Namespace) -> int:
    show = not args.no_progress and sys.stderr.isatty() and args.count > 0
    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        with Progress("soups", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err, transient=True) as bar:
            task = bar.add_task("soups", total=args.count)
            result = soup_search(
                args.count, args.rule, seed=args.seed, density=args.density, max_gens=args.max_gens,
                batch=args.batch, backend=args.backend, device=args.device,
                progress=lambda done, _total: bar.update(task, completed=done),
            )
    else:
        result = soup_search(
            args.count, args.rule, seed=args.seed, density=args.density, max_gens=args.max_gens,
            batch=args.batch, backend=args.backend, device=args.device,
        )
    total = result.objects
    table = Table(title=f"{result.rule}: census of {result.soups:,} soups (16x16, density {args.density}, seed {args.seed})")
    table.add_column("rank", justify="right")
    table.add_column("apgcode")
    table.add_column("name")
    table.add_column("count", justify="right")
    table.add_column("frequency", justify="right")
    for rank, (code, n) in enumerate(list(result.counts.items())[: args.top], 1):
        name = NAMES.get(code, "") if result.rule == "B3/S23" else ""
        table.add_row(str(rank), code, name, f"{n:,}", f"{n / total:.4%}" if total else "-")
    out.print(table)
    summary = Table(show_header=False)
    summary.add_row("objects", f"{total:,} ({len(result.counts):,} kinds)")
    summary.add_row("escaped spaceships", f"{result.escaped:,} (counted above)")
    summary.add_row("not stable by --max-gens", f"{result.unstable:,}")
    summary.add_row("engine", f"{result.engine} ({result.device})")
    summary.add_row("generations", f"{result.generations:,} ({result.generations / max(result.soups, 1):,.0f} per soup)")
    summary.add_row("time", f"{result.seconds:.2f} s")
    summary.add_row("soups/s", f"{result.soups_per_second:,.1f}")
    out.print(summary)
    return 0
