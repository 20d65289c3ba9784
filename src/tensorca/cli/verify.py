"""``tensorca verify``: every engine bit for bit against the NumPy reference, as a table.

On a base install (only the reference engine) :func:`tensorca.verify.verify` raises
:class:`~tensorca.errors.MissingDependencyError` naming the extras that add engines: one line, exit 2,
instead of an empty table.
"""

from __future__ import annotations

import argparse
import sys

from rich import box
from rich.table import Table

from . import _args
from ._console import err, say, wide


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``verify`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("verify", help="check every engine bit for bit against the NumPy reference")
    p.add_argument("--device", type=_args.devices, default=None,
                   help="cpu, cuda or all (default: every device each engine has here)")
    p.add_argument("--engines", help="comma-separated engine names (default: every available engine)")
    p.add_argument("--family", help="comma-separated rule families (default: all)")
    p.add_argument("--grids", type=_args.integer(0, 10**6), default=20, help="random grids per row (default 20)")
    p.add_argument("--gens", type=_args.integer(0, 10**6), default=16, help="generations per grid (default 16)")
    p.add_argument("--seed", type=_args.integer(0, 2**63 - 1), default=0, help="random seed (default 0)")
    p.add_argument("--no-control", action="store_true", help="skip the zero-padding negative control")
    p.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    from ..verify import FAMILIES, VerifyRow, verify

    def on_row(row: VerifyRow) -> None:
        if row.skipped is None and sys.stderr.isatty():
            err.print(f"  {row.engine} {row.device} {row.family} {row.topology}: {row.identical}/{row.grids}",
                      highlight=False)

    report = verify(args.engines.split(",") if args.engines else None, args.device, grids=args.grids,
                    generations=args.gens, seed=args.seed,
                    families=args.family.split(",") if args.family else FAMILIES,
                    control=not args.no_control, on_row=on_row)
    wide(120).print(report_table(args, report))
    print_notes(report)
    return 0 if report.ok else 1


def report_table(args: argparse.Namespace, report) -> Table:
    """One row per engine, device, family and topology that ran; failures in bold red."""
    table = Table(title=f"tensorca verify: {args.grids} random grids per row, {args.gens} generations, "
                        f"seed {args.seed}, against the NumPy reference", box=box.SIMPLE_HEAD)
    for column in ("engine", "device", "family", "topology", "grids", "identical"):
        table.add_column(column, justify="right" if column in ("grids", "identical") else "left", no_wrap=True)
    table.add_column("first mismatch", no_wrap=True)
    for row in report.rows:
        if row.skipped is not None:
            continue
        cell = row.first_cell or "-"
        if row.control:
            cell = f"caught: {cell}" if row.passed else "NOT CAUGHT"
        table.add_row(row.engine, row.device, row.family, row.topology, str(row.grids), str(row.identical), cell,
                      style=None if row.passed else "bold red")
    return table


def print_notes(report) -> None:
    """Failures and the control described; what each engine skipped; the verdict."""
    from ..verify import describe

    for row in report.rows:
        if row.skipped is None and (row.control or not row.passed):
            say(f"{row.engine} {row.device} {row.family} {row.topology}: {describe(row)}")
    skipped: dict[tuple[str, str], dict[str, list[str]]] = {}  # (engine, device) -> family -> topologies
    for row in report.rows:
        if row.skipped is not None:
            skipped.setdefault((row.engine, row.device), {}).setdefault(row.family, []).append(row.topology)
    n_topologies = len({row.topology for row in report.rows if not row.control})
    for (engine, device), families in skipped.items():
        parts = [family if len(set(tops)) >= n_topologies else f"{family} on {'/'.join(dict.fromkeys(tops))}"
                 for family, tops in families.items()]
        say(f"{engine} on {device} does not support (skipped): {'; '.join(parts)}")
    if not report.ok:
        say(f"FAILED: {len(report.failures())} row(s) above")
        return
    tolerances = {row.tolerance for row in report.rows if row.skipped is None and not row.control} - {None}
    verdict = ("all engines bit-identical to the reference" if not tolerances else
               f"all engines match the reference (bit for bit; continuous rules within {max(tolerances):g})")
    controls = any(row.control for row in report.rows if row.skipped is None)
    say(verdict + ("; the zero-padding control was caught" if controls else "; no negative control run"))
