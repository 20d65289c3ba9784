"""The ``tensorca`` command: thin argument parsing over the public API, printing with rich.

Every user error prints one line ``tensorca: error: ...`` and exits with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from typing import Iterator, Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from . import cli_bench, cli_loader_bench, cli_render, cli_soup
from . import io as pattern_io
from .engines import engine_names
from .errors import TensorcaError
from .pattern import Pattern
from .rules import parse_spec
from .simulate import ProgressCallback, resolve_rule, run
from .random_grids import parse_size, random_soup
from .topology import Topology, parse_topology

out = Console()
err = Console(stderr=True)


@contextmanager
def progress_bar(enabled: bool, total: int) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr (only when it is a terminal and ``enabled``)."""
    if not enabled or total == 0 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("generations", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task("run", total=total)
        yield lambda done, _total: bar.update(task, completed=done)


def cmd_run(args: argparse.Namespace) -> int:
    from .simulate import Interrupted, Population, explain

    if args.resume is not None:
        if args.file is not None or args.soup is not None:
            raise TensorcaError("--resume continues a checkpoint; do not also give a FILE or --soup")
    elif (args.file is None) == (args.soup is None):
        raise TensorcaError("give either a pattern FILE or --soup WIDTHxHEIGHT (or --resume CHECKPOINT)")
    if args.checkpoint_every is not None and args.checkpoint is None and args.resume is None:
        raise TensorcaError("--checkpoint-every needs --checkpoint FILE")
    start_generation = 0
    state: Pattern | np.ndarray
    if args.resume is not None:
        from . import checkpoint as checkpoint_io

        saved = checkpoint_io.load(args.resume)
        state = saved.state
        rule_value = saved.rule
        if args.rule is not None and resolve_rule(args.rule)[0].canonical() != saved.rule.canonical():
            raise TensorcaError(f"--rule {args.rule} differs from the checkpoint's rule {saved.rule.canonical()}")
        topology = saved.topology
        rule_arg = saved.rule
        start_generation = saved.generation if not isinstance(state, Pattern) else 0
        label = f"{os.path.basename(args.resume)} (resumed at generation {saved.generation})"
    elif args.file is not None:
        rule_value, _ = resolve_rule(args.rule)
        rule_arg = args.rule
        state = pattern_io.load(args.file)
        topology = args.topology
        label = os.path.basename(args.file)
    else:
        rule_value, _ = resolve_rule(args.rule)
        rule_arg = args.rule
        height, width = parse_size(args.soup)
        state = random_soup(height, width, args.density, args.seed, args.batch, n_states=rule_value.n_states)
        topology = _soup_topology(args.topology, height, width)
        label = f"soup {width}x{height}, density {args.density}, seed {args.seed}"
        label += f", batch {args.batch}" if args.batch else ""
    checkpoint = args.checkpoint or (args.resume if args.checkpoint_every is not None else None)
    if args.explain:
        every = args.checkpoint_every
        calls = len(range(0, args.gens, every)) if every else 1
        choice = explain(state, rule_arg, args.gens, topology=topology, device=args.device, calls=max(calls, 1))
        out.print(choice.describe(), highlight=False, markup=False)
        if args.backend != "auto":
            out.print(f"(--backend {args.backend} given: running that engine instead)", highlight=False)
    observer = Population(every=args.population_every) if args.population else None
    max_bytes = _parse_bytes(args.max_bytes) if args.max_bytes else None
    with progress_bar(not args.no_progress, args.gens) as progress:
        began = time.perf_counter()
        try:
            result = run(state, rule_arg, args.gens, backend=args.backend, topology=topology, device=args.device,
                         progress=progress, max_bytes=max_bytes, observe=observer, checkpoint=checkpoint,
                         checkpoint_every=args.checkpoint_every, start_generation=start_generation)
        except Interrupted as stop:
            err.print(f"tensorca: interrupted; generation {stop.generation} saved to {stop.path} "
                      f"(continue with: tensorca run --resume {stop.path} --gens N)", markup=False, highlight=False)
            return 130
        seconds = time.perf_counter() - began

    summary = Table(title=label, show_header=False)
    if isinstance(result, Pattern):
        final = result
        box = result.bounding_box()
        summary.add_row("rule", result.rule.canonical() if result.rule else rule_value.canonical())
        summary.add_row("topology", str(result.topology))
        summary.add_row("generation", str(result.generation))
        summary.add_row("population", str(result.population))
        summary.add_row("bounding box", "empty" if box is None else f"x={box[0]} y={box[1]} {box[2]}x{box[3]}")
        cells_per_generation = result.cells.size if result.topology.bounded else None
    else:
        grids = result if result.ndim == 3 else result[None]
        shown_topology = topology if isinstance(topology, Topology) else Topology.torus(grids.shape[2], grids.shape[1])
        final = Pattern(cells=grids[0], rule=rule_value, topology=shown_topology)
        populations = [int(p) for p in np.count_nonzero(grids, axis=(1, 2))]
        summary.add_row("rule", rule_value.canonical())
        summary.add_row("topology", str(shown_topology))
        summary.add_row("generations", str(args.gens) if not start_generation else f"{start_generation + args.gens} ({args.gens} run here)")
        summary.add_row("population", " ".join(map(str, populations[:8])) + (" ..." if len(populations) > 8 else ""))
        cells_per_generation = result.size
    summary.add_row("backend", _backend_label(args, state, rule_arg, topology))
    summary.add_row("time", f"{seconds:.3f} s")
    if args.gens and seconds > 0:
        summary.add_row("generations/s", f"{args.gens / seconds:,.1f}")
        if cells_per_generation is not None:
            summary.add_row("cell updates/s", f"{cells_per_generation * args.gens / seconds:,.0f}")
    out.print(summary)
    if args.out:
        pattern_io.save(args.out, final)
        batched = not isinstance(result, Pattern) and result.ndim == 3 and result.shape[0] > 1
        out.print(f"wrote {args.out}" + (" (the first grid of the batch)" if batched else ""))
    if checkpoint is not None:
        out.print(f"checkpoint {checkpoint} (generation {start_generation + args.gens if not isinstance(result, Pattern) else result.generation})")
    if observer is not None:
        observer.to_csv(args.population)
        out.print(f"wrote {args.population} ({len(observer.generations)} samples)")
    return 0


def _backend_label(args: argparse.Namespace, state, rule, topology) -> str:
    if args.backend != "auto":
        return args.backend
    from .simulate import explain

    try:
        choice = explain(state, rule, args.gens, topology=topology, device=args.device)
    except TensorcaError:
        return "auto"
    return f"auto: {choice.engine} ({choice.device})"


def _parse_bytes(text: str) -> int:
    """``"64M"``, ``"2GiB"``, ``"100000"`` -> bytes."""
    units = {"": 1, "k": 1 << 10, "kb": 10**3, "kib": 1 << 10, "m": 1 << 20, "mb": 10**6, "mib": 1 << 20,
             "g": 1 << 30, "gb": 10**9, "gib": 1 << 30, "t": 1 << 40, "tb": 10**12, "tib": 1 << 40}
    raw = text.strip().lower().replace(" ", "")
    number = raw.rstrip("kmgtib")
    unit = raw[len(number):]
    try:
        value = float(number)
    except ValueError:
        raise TensorcaError(f"--max-bytes {text!r} is not a size such as 512M or 2G") from None
    if unit not in units or value <= 0:
        raise TensorcaError(f"--max-bytes {text!r} is not a size such as 512M or 2G")
    return int(value * units[unit])


def _soup_topology(topology: str | None, height: int, width: int) -> Topology:
    """A soup's topology: its own size as a torus by default; ``T``/``P`` pick the kind."""
    if topology is None or topology.strip().lower() in ("t", "torus"):
        return Topology.torus(width, height)
    if topology.strip().lower() in ("p", "plane"):
        return Topology.plane(width, height)
    return parse_topology(topology)


def cmd_info(args: argparse.Namespace) -> int:
    pattern = pattern_io.load(args.file)
    table = Table(title=args.file, show_header=False)
    if pattern.name:
        table.add_row("name", pattern.name)
    if pattern.author:
        table.add_row("author", pattern.author)
    rule = pattern.rule
    table.add_row("rule", f"{rule.canonical()} ({rule.family}, {rule.n_states} states)" if rule else "not given (B3/S23 is used)")
    table.add_row("topology", str(pattern.topology))
    table.add_row("size", f"{pattern.cells.shape[1]} x {pattern.cells.shape[0]} (W x H)")
    table.add_row("population", str(pattern.population))
    table.add_row("origin", f"x={pattern.origin[0]} y={pattern.origin[1]}")
    table.add_row("generation", str(pattern.generation))
    for comment in pattern.comments:
        table.add_row("comment", comment)
    out.print(table)
    return 0


def cmd_rule(args: argparse.Namespace) -> int:
    rule, topology = parse_spec(args.text)
    table = Table(show_header=False)
    table.add_row("canonical", rule.canonical() + (topology.suffix() if topology else ""))
    table.add_row("family", rule.family)
    table.add_row("states", str(rule.n_states))
    if topology is not None:
        table.add_row("topology", str(topology))
    out.print(table)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from rich import box

    from .verify import FAMILIES, VerifyRow, describe, verify

    devices = None if args.device in (None, "all") else [args.device]
    engines = args.engines.split(",") if args.engines else None
    families = args.family.split(",") if args.family else None

    def on_row(row: VerifyRow) -> None:
        if row.skipped is None and sys.stderr.isatty():
            err.print(f"  {row.engine} {row.device} {row.family} {row.topology}: {row.identical}/{row.grids}", highlight=False)

    report = verify(engines, devices, grids=args.grids, generations=args.gens, seed=args.seed,
                    families=families or FAMILIES, control=not args.no_control, on_row=on_row)
    table = Table(title=f"tensorca verify: {args.grids} random grids per row, {args.gens} generations, "
                        f"seed {args.seed}, against the NumPy reference", box=box.SIMPLE_HEAD)
    for column in ("engine", "device", "family", "topology", "grids", "identical"):
        table.add_column(column, justify="right" if column in ("grids", "identical") else "left", no_wrap=True)
    table.add_column("first mismatch", no_wrap=True)
    skipped: dict[tuple[str, str], dict[str, list[str]]] = {}  # (engine, device) -> family -> topologies
    for row in report.rows:
        if row.skipped is not None:
            skipped.setdefault((row.engine, row.device), {}).setdefault(row.family, []).append(row.topology)
            continue
        style = None if row.passed else "bold red"
        cell = row.first_cell or "-"
        if row.control:
            cell = f"caught: {cell}" if row.passed else "NOT CAUGHT"
        table.add_row(row.engine, row.device, row.family, row.topology, str(row.grids), str(row.identical), cell,
                      style=style)
    (out if out.is_terminal else Console(width=120)).print(table)
    for row in report.rows:
        if row.skipped is None and (row.control or not row.passed):
            out.print(f"{row.engine} {row.device} {row.family} {row.topology}: {describe(row)}", highlight=False)
    n_topologies = len({row.topology for row in report.rows if not row.control})
    for (engine, device), families_skipped in skipped.items():
        parts = [family if len(set(tops)) >= n_topologies else f"{family} on {'/'.join(dict.fromkeys(tops))}"
                 for family, tops in families_skipped.items()]
        out.print(f"{engine} on {device} does not support (skipped): {'; '.join(parts)}", highlight=False)
    out.print("all engines bit-identical to the reference; the zero-padding control was caught"
              if report.ok else f"FAILED: {len(report.failures())} row(s) above", highlight=False)
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tensorca", description="Cellular automata with Golly's semantics on NumPy and PyTorch.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_run = sub.add_parser("run", help="run a pattern file or a random soup")
    p_run.add_argument("file", nargs="?", help="pattern file (RLE, .cells, Life 1.05/1.06, optionally gzipped)")
    p_run.add_argument("--gens", type=int, required=True, help="generations to run")
    p_run.add_argument("--rule", help="rule string, e.g. B36/S23 or 345/2/4:T128,128 (default: the file's, else B3/S23)")
    p_run.add_argument("--topology", help="Golly suffix such as :T256,256 or :P64,64 (soups: T or P for their own size)")
    p_run.add_argument("--backend", default="auto",
                       help=f"engine name ({', '.join(engine_names())}), or auto (default): the predicted fastest")
    p_run.add_argument("--device", default=None, help="device for torch/GPU engines (default: auto's choice, or cpu)")
    p_run.add_argument("--explain", action="store_true", help="print auto's choice and every engine's predicted cost")
    p_run.add_argument("--out", help="write the final pattern here (.rle, .cells, .lif, optionally .gz)")
    p_run.add_argument("--soup", metavar="WxH", help="start from a random soup of this size instead of a file")
    p_run.add_argument("--density", type=float, default=0.5, help="soup density (default 0.5)")
    p_run.add_argument("--seed", type=int, default=None, help="soup random seed")
    p_run.add_argument("--batch", type=int, default=None, help="run this many soups at once as a (B, H, W) batch")
    p_run.add_argument("--no-progress", action="store_true", help="no progress bar")
    p_run.add_argument("--max-bytes", help="memory budget for the engine (e.g. 512M, 2G); larger batches run in chunks")
    p_run.add_argument("--checkpoint", metavar="FILE.npz", help="write the state here atomically (every N with --checkpoint-every, at the end, on Ctrl-C)")
    p_run.add_argument("--checkpoint-every", type=int, metavar="N", help="checkpoint every N generations")
    p_run.add_argument("--resume", metavar="FILE.npz", help="continue a checkpoint for --gens more generations")
    p_run.add_argument("--population", metavar="FILE.csv", help="write the population per generation (see --population-every)")
    p_run.add_argument("--population-every", type=int, default=1, metavar="K", help="sample the population every K generations (default 1)")
    p_run.set_defaults(func=cmd_run)

    p_info = sub.add_parser("info", help="describe a pattern file")
    p_info.add_argument("file")
    p_info.set_defaults(func=cmd_info)

    p_rule = sub.add_parser("rule", help="print a rule's canonical form and family")
    p_rule.add_argument("text")
    p_rule.set_defaults(func=cmd_rule)

    p_verify = sub.add_parser("verify", help="check every engine bit for bit against the NumPy reference")
    p_verify.add_argument("--device", default=None, help="cpu, cuda or all (default: every device each engine has here)")
    p_verify.add_argument("--engines", help="comma-separated engine names (default: every available engine)")
    p_verify.add_argument("--family", help="comma-separated rule families (default: all)")
    p_verify.add_argument("--grids", type=int, default=20, help="random grids per row (default 20)")
    p_verify.add_argument("--gens", type=int, default=16, help="generations per grid (default 16)")
    p_verify.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p_verify.add_argument("--no-control", action="store_true", help="skip the zero-padding negative control")
    p_verify.set_defaults(func=cmd_verify)

    # Commands that live in their own modules register themselves.
    for module in (cli_render, cli_soup, cli_loader_bench, cli_bench):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (TensorcaError, OSError, ValueError) as exc:
        message = str(exc) if not isinstance(exc, OSError) else f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        err.print(f"tensorca: error: {message}", markup=False, highlight=False, soft_wrap=True)
        return 2
    except MemoryError as exc:  # NumPy or torch could not allocate: say so in one line
        err.print(f"tensorca: error: out of memory ({exc}); use a smaller grid, batch or --max-bytes",
                  markup=False, highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        err.print("tensorca: interrupted", markup=False)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
