"""``tensorca bench``: CUPS per engine and device, the breakdown, crossovers; ``--calibrate`` for auto."""

from __future__ import annotations

import argparse
import json
import sys

from rich import box
from rich.console import Console
from rich.table import Table

out = Console()
err = Console(stderr=True)


def add_parser(subparsers) -> None:
    """Register ``bench`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser("bench", help="measure cell updates per second per engine and device; where the GPU wins")
    p.add_argument("--quick", action="store_true", help="a short sweep (under a minute on a 2-core CPU)")
    p.add_argument("--engines", help="comma-separated engine names (default: all)")
    p.add_argument("--device", default=None, help="cpu, cuda or all (default: every device each engine has)")
    p.add_argument("--rule", default="B3/S23", help="rule to measure (default B3/S23)")
    p.add_argument("--budget", type=float, default=None, help="seconds per engine/device for the grid sweep")
    p.add_argument("--compile", action="store_true", default=None, help="also measure torch.compile (slow on CPU)")
    p.add_argument("--json", metavar="FILE", help="write every measurement as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="plot CUPS against cells per generation, crossovers marked")
    p.add_argument("--calibrate", action="store_true",
                   help="fit the cost model of backend=auto to these measurements and save it in the user cache")
    p.set_defaults(func=cmd_bench)


def _si(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}".rstrip()


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.1f} us"


def cmd_bench(args: argparse.Namespace) -> int:
    from .benchmark import bench
    from .engines import engine_names
    from .errors import TensorcaError

    engines = args.engines.split(",") if args.engines else None
    unknown = [name for name in engines or [] if name not in engine_names()]
    if unknown:
        raise TensorcaError(f"unknown engine {unknown[0]!r}; available: {', '.join(engine_names())}")
    devices = None if args.device in (None, "all") else args.device.split(",")

    def on_row(row) -> None:
        if sys.stderr.isatty():
            err.print(f"  {row.engine}@{row.device} {row.sweep} {row.batch}x{row.height}x{row.width} "
                      f"x{row.generations}: {_si(row.cups, 'CUPS')}", highlight=False)

    report = bench(engines, devices, quick=args.quick, rule=args.rule, budget_s=args.budget, compile=args.compile,
                   on_row=on_row)
    if not any(s.available for s in report.engines):
        raise TensorcaError("no engine could be measured here")
    console = out if out.is_terminal else Console(width=160)
    table = Table(title=f"tensorca bench: {report.rule}, torus, CUPS (median after warm-up)", box=box.SIMPLE_HEAD)
    sizes = sorted({(r.batch, r.height) for r in report.rows if r.sweep in ("grid", "batch") and r.variant == "eager"},
                   key=lambda bh: (bh[0] > 1, bh[0] * bh[1] * bh[1]))
    table.add_column("engine@device", no_wrap=True)
    for batch, side in sizes:
        table.add_column(f"{side}^2" if batch == 1 else f"{batch}x{side}^2", justify="right", no_wrap=True)
    for s in report.engines:
        if not s.available:
            continue
        key = f"{s.engine}@{s.device}"
        cells = {(r.batch, r.height): r.cups for r in report.rows
                 if f"{r.engine}@{r.device}" == key and r.sweep in ("grid", "batch") and r.variant == "eager"}
        best = {bh: max((r.cups for r in report.rows if (r.batch, r.height) == bh and r.sweep in ("grid", "batch")
                         and r.variant == "eager"), default=0) for bh in sizes}
        table.add_row(key, *[("[bold]" + _si(cells[bh]) + "[/bold]" if cells.get(bh) == best[bh] else _si(cells[bh]))
                             if bh in cells else "-" for bh in sizes])
    console.print(table)
    breakdown = Table(title="breakdown", box=box.SIMPLE_HEAD)
    for column in ("engine@device", "call", "per gen", "cell/call", "steady", "at cells",
                   "H2D", "D2H", "compile", "compile x", "graphs x"):
        breakdown.add_column(column, justify="left" if column == "engine@device" else "right", no_wrap=True)
    for s in report.engines:
        if not s.available:
            continue
        breakdown.add_row(f"{s.engine}@{s.device}", _us(s.call_s), _us(s.gen_s),
                          "-" if s.call_cell_s is None else f"{s.call_cell_s * 1e9:.2f} ns",
                          _si(s.steady_cups), _si(s.steady_cells), _si(s.h2d_Bps, "B/s"), _si(s.d2h_Bps, "B/s"),
                          "-" if s.compile_first_s is None else f"{s.compile_first_s:.1f} s",
                          "-" if s.compile_speedup is None else f"{s.compile_speedup:.2f}x",
                          "-" if s.graphs_speedup is None else f"{s.graphs_speedup:.2f}x")
    console.print(breakdown)
    for s in report.engines:
        if not s.available:
            console.print(f"{s.engine}: not measured ({s.reason})", highlight=False)
    for c in report.crossovers:
        console.print(f"crossover ({c['sweep']} sweep): {c['from']} -> {c['to']} between {c['between'][0]:,} and "
                      f"{c['between'][1]:,} cells per generation", highlight=False)
    console.print(f"{report.seconds:.1f} s", highlight=False)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report.to_json(), fh, indent=1)
        console.print(f"wrote {args.json}", highlight=False)
    if args.plot:
        from .benchmark.plot import plot

        plot(report, args.plot)
        console.print(f"wrote {args.plot}", highlight=False)
    if args.calibrate:
        from .benchmark.calibrate import family_factors, fit
        from .costmodel import save_calibration

        values = fit(report)
        if not args.quick:
            for key, extra in family_factors(list(values)).items():
                values[key].update(extra)
        path = save_calibration(values, meta={"machine": report.machine, "rule": report.rule, "quick": report.quick})
        console.print(f"calibrated {', '.join(sorted(values))}; saved {path}", highlight=False)
    return 0
