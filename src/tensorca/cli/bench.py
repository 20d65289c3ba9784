"""``tensorca bench``: CUPS per engine and device, the breakdown, crossovers; ``--calibrate`` for auto."""

from __future__ import annotations

import argparse
import json
import sys
import warnings

from rich import box
from rich.table import Table

from ..atomic import write_bytes_atomic
from ..errors import TensorcaError, UsageError
from . import _args
from ._console import err, say, wide


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("bench", help="measure cell updates per second per engine and device; where the GPU wins")
    p.add_argument("--quick", action="store_true", help="a short sweep (under a minute on a 2-core CPU)")
    p.add_argument("--engines", help="comma-separated engine names (default: all)")
    p.add_argument("--device", type=_args.devices, default=None,
                   help="cpu, cuda, a comma-separated list, or all (default: every device each engine has)")
    p.add_argument("--rule", default="B3/S23", help="rule to measure (default B3/S23)")
    p.add_argument("--budget", type=_args.number(0.0, 86400.0, low_open=True), default=None,
                   help="seconds per engine/device for the grid sweep")
    p.add_argument("--compile", action="store_true", default=None, help="also measure torch.compile (slow on CPU)")
    p.add_argument("--json", metavar="FILE.json", help="write every measurement as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="plot CUPS against cells per generation, crossovers marked")
    p.add_argument("--calibrate", action="store_true",
                   help="fit the cost model of backend=auto to these measurements and save it in the user cache")
    p.add_argument("--runs", type=_args.integer(1, 100), default=None, metavar="N",
                   help="--calibrate: sweeps to take the median of (default 3); a warning says when they disagree")
    p.add_argument("--systems", nargs="?", const="all", metavar="NAMES",
                   help="measure the CA beyond rules instead (noisy-life, margolus, sandpile, spins, flow-lenia; "
                        "comma-separated, default all), each against a baseline in the same run")
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
    from ..benchmark import bench
    from ..engines import engine_names

    if args.systems is not None:
        return cmd_bench_systems(args)

    engines = args.engines.split(",") if args.engines else None
    unknown = [name for name in engines or [] if name not in engine_names()]
    if unknown:
        raise UsageError(f"unknown engine {unknown[0]!r}; available: {', '.join(engine_names())}")
    if args.runs is not None and not args.calibrate:
        raise UsageError("--runs needs --calibrate")
    _args.check_output(args.json, "json", "--json")
    _args.check_output(args.plot, "plot", "--plot")

    def on_row(row) -> None:
        if sys.stderr.isatty():
            err.print(f"  {row.engine}@{row.device} {row.sweep} {row.batch}x{row.height}x{row.width} "
                      f"x{row.generations}: {_si(row.cups, 'CUPS')}", markup=False, highlight=False)

    report = bench(engines, args.device, quick=args.quick, rule=args.rule, budget_s=args.budget,
                   compile=args.compile, on_row=on_row)
    if not any(s.available for s in report.engines):
        raise TensorcaError("no engine could be measured here")
    print_report(report)
    write_outputs(args, report)
    if args.calibrate:
        save_calibration(args, report, on_row)
    return 0


def print_report(report) -> None:
    """The CUPS table (best per size in bold), the breakdown, what was not measured, crossovers.

    The lines of text are printed without markup: rich would take the ``[torch]`` of a reason's
    ``pip install 'tensorca[torch]'`` for a style tag and drop it (as it would a GPU's ``[...]``).
    """
    console = wide(160)
    console.print(_cups_table(report))
    console.print(_breakdown_table(report))
    for s in report.engines:
        if not s.available:
            console.print(f"{s.engine}: not measured ({s.reason})", markup=False, highlight=False,
                          soft_wrap=True)  # the install command on one line, never broken
    for c in report.crossovers:
        console.print(f"crossover ({c['sweep']} sweep): {c['from']} -> {c['to']} between {c['between'][0]:,} and "
                      f"{c['between'][1]:,} cells per generation", markup=False, highlight=False)
    console.print(f"{report.seconds:.1f} s on {machine_line(report.machine)}", markup=False, highlight=False)


def machine_line(machine: dict) -> str:
    """Where the figures come from, in one line: CPU model and count, GPU, library versions, and
    the vector width the Numba kernels were compiled for."""
    parts = [f"{machine.get('cpu') or 'CPU'}, {machine.get('cpus')} CPUs"]
    if machine.get("gpu"):
        parts.append(machine["gpu"])
    parts += [f"{name} {machine[name]}" for name in ("numpy", "numba", "torch") if machine.get(name)]
    if machine.get("numba_vectors"):
        parts.append(f"Numba vectors: {machine['numba_vectors']}")
    return "; ".join(parts)


def _cups_table(report) -> Table:
    rows = [r for r in report.rows if r.sweep in ("grid", "batch") and r.variant == "eager"]
    sizes = sorted({(r.batch, r.height) for r in rows}, key=lambda bh: (bh[0] > 1, bh[0] * bh[1] * bh[1]))
    best = {bh: max((r.cups for r in rows if (r.batch, r.height) == bh), default=0) for bh in sizes}
    table = Table(title=f"tensorca bench: {report.rule}, torus, CUPS (median after warm-up)", box=box.SIMPLE_HEAD)
    table.add_column("engine@device", no_wrap=True)
    for batch, side in sizes:
        table.add_column(f"{side}^2" if batch == 1 else f"{batch}x{side}^2", justify="right", no_wrap=True)
    for s in report.engines:
        if not s.available:
            continue
        key = f"{s.engine}@{s.device}"
        cells = {(r.batch, r.height): r.cups for r in rows if f"{r.engine}@{r.device}" == key}
        table.add_row(key, *[("[bold]" + _si(cells[bh]) + "[/bold]" if cells.get(bh) == best[bh] else _si(cells[bh]))
                             if bh in cells else "-" for bh in sizes])
    return table


def _breakdown_table(report) -> Table:
    table = Table(title="breakdown", box=box.SIMPLE_HEAD)
    for column in ("engine@device", "call", "per gen", "cell/call", "steady", "at cells",
                   "H2D", "D2H", "kernels jit", "compile", "compile x", "graphs x"):
        table.add_column(column, justify="left" if column == "engine@device" else "right", no_wrap=True)
    for s in report.engines:
        if not s.available:
            continue
        table.add_row(f"{s.engine}@{s.device}", _us(s.call_s), _us(s.gen_s),
                      "-" if s.call_cell_s is None else f"{s.call_cell_s * 1e9:.2f} ns",
                      _si(s.steady_cups), _si(s.steady_cells), _si(s.h2d_Bps, "B/s"), _si(s.d2h_Bps, "B/s"),
                      "-" if not s.kernel_compile_s else f"{s.kernel_compile_s:.1f} s",
                      "-" if s.compile_first_s is None else f"{s.compile_first_s:.1f} s",
                      "-" if s.compile_speedup is None else f"{s.compile_speedup:.2f}x",
                      "-" if s.graphs_speedup is None else f"{s.graphs_speedup:.2f}x")
    return table


def write_outputs(args: argparse.Namespace, report) -> None:
    """``--json`` and ``--plot``."""
    if args.json:
        write_bytes_atomic(args.json, json.dumps(report.to_json(), indent=1).encode())
        say(f"wrote {args.json}")
    if args.plot:
        from ..benchmark.plot import plot

        plot(report, args.plot)
        say(f"wrote {args.plot}")


def save_calibration(args: argparse.Namespace, report, on_row) -> None:
    """``--calibrate``: more sweeps (``--runs`` in all), the median of each fitted cost, saved; one
    warning line when the runs disagree (a busy machine), since auto would then choose on noise."""
    from ..benchmark.calibrate import RUNS, NoisyCalibrationWarning, calibrate
    from ..costmodel import save_calibration as save

    runs = args.runs or RUNS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoisyCalibrationWarning)  # said below, in one line
        result = calibrate(report, runs=runs, devices=args.device, budget_s=args.budget, on_row=on_row)
    if result.noisy:
        say(f"tensorca: warning: the {runs} calibration runs disagree (is the machine busy?): "
            f"{'; '.join(result.noisy)}; the medians are saved, rerun on an idle machine to trust them", stderr=True)
    meta = {"machine": report.machine, "rule": report.rule, "quick": report.quick, "runs": runs,
            "noisy": result.noisy}
    path = save(result.values, meta=meta)
    say(f"calibrated {', '.join(sorted(result.values))} (median of {runs} runs); saved {path}")


def cmd_bench_systems(args: argparse.Namespace) -> int:
    """``--systems``: one table of the systems beyond rules, each backend against its baseline."""
    from ..benchmark.measure import machine
    from ..benchmark.systems import bench_systems

    clash = [flag for flag, value in (("--engines", args.engines), ("--rule", args.rule != "B3/S23" or None),
                                      ("--budget", args.budget), ("--compile", args.compile),
                                      ("--plot", args.plot), ("--calibrate", args.calibrate or None),
                                      ("--runs", args.runs)) if value]
    if clash:
        raise UsageError(f"{clash[0]} does not apply to --systems (it measures the rule sweep)")
    _args.check_output(args.json, "json", "--json")
    names = None if args.systems == "all" else [n.strip() for n in args.systems.split(",") if n.strip()]
    devices = tuple(args.device) if args.device else ("cpu", "cuda")

    def on_row(row) -> None:
        if sys.stderr.isatty():
            err.print(f"  {row.system} on {row.backend}@{row.device}: "
                      f"{'-' if row.seconds is None else f'{row.seconds:.4f} s'}", markup=False, highlight=False)

    import time

    began = time.perf_counter()
    rows = bench_systems(names, quick=args.quick, devices=devices, on_row=on_row)
    table = Table(title="tensorca bench --systems: median seconds after a warm-up, ratio to the baseline row "
                        "measured in the same run", box=box.SIMPLE_HEAD)
    for column in ("system", "backend@device", "size", "seconds", "rate", "vs baseline"):
        table.add_column(column, justify="left" if column in ("system", "backend@device", "size") else "right",
                         no_wrap=column != "system")
    for row in rows:
        rate = "-" if row.rate is None else _si(row.rate, row.unit.split("/")[0] + "/s")
        versus = row.reason or ("baseline" if not row.baseline else
                                "-" if row.ratio is None else f"{row.ratio:.3g}x {row.baseline}")
        table.add_row(row.system, f"{row.backend}@{row.device}", row.size,
                      "-" if row.seconds is None else f"{row.seconds:.4f}", rate, versus)
    console = wide(200)
    console.print(table)
    info = machine()
    console.print(f"{time.perf_counter() - began:.1f} s on {machine_line(info)}", markup=False, highlight=False)
    if args.json:
        payload = {"machine": info, "quick": bool(args.quick), "rows": [r.to_json() for r in rows]}
        write_bytes_atomic(args.json, json.dumps(payload, indent=1).encode())
        say(f"wrote {args.json}")
    return 0
