"""``tensorca loader-bench``: DataLoader settings against ``DeviceStream``, printed as a rich table.

Wiring (in ``cli.build_parser``): ``from .cli_loader_bench import add_parser; add_parser(sub)``.
torch is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import os
import platform

from rich import box
from rich.console import Console
from rich.table import Table


def _size(text: str) -> tuple[int, int]:
    from .random_grids import parse_size

    return parse_size(text)


def _warmup(text: str) -> int | tuple[int, int]:
    if ".." in text:
        lo, hi = text.split("..", 1)
        return int(lo), int(hi)
    return int(text)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``loader-bench`` on ``subparsers`` (its ``func`` takes ``args`` and returns an exit code)."""
    p = subparsers.add_parser(
        "loader-bench",
        help="measure DataLoader settings against DeviceStream (samples/s, time waiting for input)",
        description="Feeds a consumer with a simulated training step from DataLoader(Trajectories) under "
                    "several worker settings and from DeviceStream; reports samples/s and the fraction of "
                    "time the consumer waits for input.",
    )
    p.add_argument("--rule", default="B3/S23", help="rule (default B3/S23)")
    p.add_argument("--size", default="64x64", metavar="WxH", help="grid size (default 64x64)")
    p.add_argument("--batch-size", type=int, default=64, help="samples per batch (default 64)")
    p.add_argument("--gens", type=int, default=1, help="generations between x_t and x_t+k (default 1)")
    p.add_argument("--warmup", default="0..16", help="generations before x_t: N or LO..HI drawn per item (default 0..16)")
    p.add_argument("--step", choices=("sleep", "busy", "matmul"), default="sleep",
                   help="simulated training step: sleep (accelerator busy, host idle), busy (host spins), "
                        "matmul (on --device) (default sleep)")
    p.add_argument("--step-ms", type=float, default=10.0, help="cost of one training step in ms (default 10)")
    p.add_argument("--batches", type=int, default=40, help="batches per epoch (default 40)")
    p.add_argument("--epochs", type=int, default=2, help="epochs (workers restart per epoch unless persistent; default 2)")
    p.add_argument("--workers", help="comma-separated num_workers to compare (default 0,1,2,4)")
    p.add_argument("--device", default="cpu", help="where batches go and DeviceStream runs (default cpu)")
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads in the consumer (default: torch's)")
    p.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    p.add_argument("--quick", action="store_true", help="fewer settings and batches (a few seconds)")
    p.set_defaults(func=cmd_loader_bench)


def _settings(args: argparse.Namespace):
    from .benchmark.loader import LoaderSetting, default_settings

    settings = default_settings(args.quick)
    if args.workers:
        wanted = [int(w) for w in args.workers.split(",")]
        settings = [s for s in settings if s.kind != "dataloader" or s.num_workers in wanted]
        have = {s.num_workers for s in settings if s.kind == "dataloader"}
        extra = [LoaderSetting(num_workers=w, prefetch_factor=2 if w else None) for w in wanted if w not in have]
        settings = sorted(extra + settings, key=lambda s: (s.kind != "dataloader", s.num_workers))
    return settings


def cmd_loader_bench(args: argparse.Namespace) -> int:
    import torch

    from .benchmark.loader import BenchConfig, LoaderResult, bench, verdict

    out = Console()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    height, width = _size(args.size)
    batches = min(args.batches, 6) if args.quick else args.batches
    config = BenchConfig(rule=args.rule, shape=(height, width), batch_size=args.batch_size, generations=args.gens,
                         warmup=_warmup(args.warmup), step=args.step, step_ms=args.step_ms, batches=batches,
                         epochs=args.epochs, seed=args.seed, device=args.device)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    title = (f"loader-bench: {config.rule} {width}x{height}, batch {config.batch_size}, gens {config.generations}, "
             f"warmup {args.warmup}, {config.step} step {config.step_ms:g} ms, {config.epochs} x {config.batches} "
             f"batches, device {config.device}")
    out.print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
              f"{torch.get_num_threads()} torch thread(s), load average {load:.2f}", highlight=False)

    table = Table(title=title, box=box.SIMPLE_HEAD)
    for column, justify in (("input", "left"), ("samples/s", "right"), ("waiting", "right"),
                            ("first batch", "right"), ("total", "right")):
        table.add_column(column, justify=justify, no_wrap=True)

    def on_result(result: LoaderResult) -> None:
        if out.is_terminal:
            out.print(f"  {result.setting.label}: {result.samples_per_second:,.0f} samples/s", highlight=False)

    results = bench(config, _settings(args), on_result)
    best = max(results, key=lambda r: r.samples_per_second)
    for r in results:
        table.add_row(r.setting.label, f"{r.samples_per_second:,.0f}", f"{r.wait_fraction:.0%}",
                      f"{r.first_batch_seconds * 1e3:,.0f} ms", f"{r.seconds:.2f} s",
                      style="bold green" if r is best else None)
    wide = out if out.is_terminal else Console(width=130)
    wide.print(table)
    for line in verdict(results, config):
        wide.print(line, highlight=False)
    return 0
