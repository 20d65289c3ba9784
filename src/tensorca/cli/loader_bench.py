"""``tensorca loader-bench``: DataLoader settings against ``DeviceStream``, printed as a rich table.

torch is imported only when the command runs. Every number is checked at parse time: a thread
count of 0, ``--step-ms inf`` or ``--workers 99999`` end in one usage line, not in a traceback or
thousands of worker processes.
"""

from __future__ import annotations

import argparse
import os
import platform

from rich import box
from rich.table import Table

from . import _args
from ._console import out, say, wide

#: The most DataLoader workers one setting may start (processes, each with its own torch).
MAX_WORKERS = max(16, 4 * (os.cpu_count() or 1))


def warmup(text: str) -> int | tuple[int, int]:
    """An argparse type: ``N`` or ``LO..HI`` generations before ``x_t`` (drawn per item)."""
    one = _args.integer(0, 10**6)
    if ".." not in text:
        return one(text)
    lo, hi = (one(part) for part in text.split("..", 1))
    if lo > hi:
        raise argparse.ArgumentTypeError(f"{text!r}: LO must not exceed HI")
    return lo, hi


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``loader-bench`` to the ``tensorca`` sub-parsers (its ``func`` takes ``args``, returns the exit code)."""
    p = subparsers.add_parser(
        "loader-bench",
        help="measure DataLoader settings against DeviceStream (samples/s, time waiting for input)",
        description="Feeds a consumer with a simulated training step from DataLoader(Trajectories) under "
                    "several worker settings and from DeviceStream; reports samples/s and the fraction of "
                    "time the consumer waits for input.",
    )
    p.add_argument("--rule", default="B3/S23", help="rule (default B3/S23)")
    p.add_argument("--size", type=_args.grid_size, default=(64, 64), metavar="WxH", help="grid size (default 64x64)")
    p.add_argument("--batch-size", type=_args.integer(1, 2**20), default=64, help="samples per batch (default 64)")
    p.add_argument("--gens", type=_args.integer(0, 10**6), default=1,
                   help="generations between x_t and x_t+k (default 1)")
    p.add_argument("--warmup", type=warmup, default=(0, 16),
                   help="generations before x_t: N or LO..HI drawn per item (default 0..16)")
    p.add_argument("--step", choices=("sleep", "busy", "matmul"), default="sleep",
                   help="simulated training step: sleep (accelerator busy, host idle), busy (host spins), "
                        "matmul (on --device) (default sleep)")
    p.add_argument("--step-ms", type=_args.number(0.0, 60_000.0), default=10.0,
                   help="cost of one training step in ms (default 10)")
    p.add_argument("--batches", type=_args.integer(1, 10**7), default=40, help="batches per epoch (default 40)")
    p.add_argument("--epochs", type=_args.integer(1, 10**4), default=2,
                   help="epochs (workers restart per epoch unless persistent; default 2)")
    p.add_argument("--workers", type=_args.int_list(0, MAX_WORKERS),
                   help=f"comma-separated num_workers to compare, each 0..{MAX_WORKERS} (default 0,1,2,4)")
    p.add_argument("--device", type=_args.device, default="cpu",
                   help="where batches go and DeviceStream runs: cpu, cuda, cuda:N (default cpu)")
    p.add_argument("--threads", type=_args.integer(1, 4096), default=None,
                   help="torch.set_num_threads in the consumer (default: torch's)")
    p.add_argument("--seed", type=_args.integer(0, 2**63 - 1), default=0, help="data seed (default 0)")
    p.add_argument("--quick", action="store_true", help="fewer settings and batches (a few seconds)")
    p.set_defaults(func=cmd_loader_bench)


def settings(args: argparse.Namespace) -> list:
    """The input settings to compare: the defaults, narrowed or extended by ``--workers``."""
    from ..benchmark.loader import LoaderSetting, default_settings

    chosen = default_settings(args.quick)
    if args.workers:
        wanted = args.workers
        chosen = [s for s in chosen if s.kind != "dataloader" or s.num_workers in wanted]
        have = {s.num_workers for s in chosen if s.kind == "dataloader"}
        extra = [LoaderSetting(num_workers=w, prefetch_factor=2 if w else None) for w in wanted if w not in have]
        chosen = sorted(extra + chosen, key=lambda s: (s.kind != "dataloader", s.num_workers))
    return chosen


def cmd_loader_bench(args: argparse.Namespace) -> int:
    import torch

    from ..arrays import check_device
    from ..benchmark.loader import BenchConfig, LoaderResult, bench, verdict

    check_device(args.device)  # a missing GPU is one line here, not a failure inside a worker
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    height, width = args.size
    batches = min(args.batches, 6) if args.quick else args.batches
    config = BenchConfig(rule=args.rule, shape=(height, width), batch_size=args.batch_size, generations=args.gens,
                         warmup=args.warmup, step=args.step, step_ms=args.step_ms, batches=batches,
                         epochs=args.epochs, seed=args.seed, device=args.device)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    say(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"{torch.get_num_threads()} torch thread(s), load average {load:.2f}")

    def on_result(result: LoaderResult) -> None:
        if out.is_terminal:
            say(f"  {result.setting.label}: {result.samples_per_second:,.0f} samples/s")

    results = bench(config, settings(args), on_result)
    console = wide(130)
    console.print(results_table(args, config, results))
    for line in verdict(results, config):
        console.print(line, highlight=False)
    return 0


def results_table(args: argparse.Namespace, config, results: list) -> Table:
    """One row per setting; the fastest in bold green."""
    shown = config.warmup if isinstance(config.warmup, int) else f"{config.warmup[0]}..{config.warmup[1]}"
    height, width = config.shape
    title = (f"loader-bench: {config.rule} {width}x{height}, batch {config.batch_size}, gens {config.generations}, "
             f"warmup {shown}, {config.step} step {config.step_ms:g} ms, {config.epochs} x {config.batches} "
             f"batches, device {config.device}")
    table = Table(title=title, box=box.SIMPLE_HEAD)
    for column, justify in (("input", "left"), ("samples/s", "right"), ("waiting", "right"),
                            ("first batch", "right"), ("total", "right")):
        table.add_column(column, justify=justify, no_wrap=True)
    best = max(results, key=lambda r: r.samples_per_second)
    for r in results:
        table.add_row(r.setting.label, f"{r.samples_per_second:,.0f}", f"{r.wait_fraction:.0%}",
                      f"{r.first_batch_seconds * 1e3:,.0f} ms", f"{r.seconds:.2f} s",
                      style="bold green" if r is best else None)
    return table
