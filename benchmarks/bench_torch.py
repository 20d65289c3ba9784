"""Throughput of the ``torch`` engine against the ``dense-conv`` baseline, in one process.

Every case is run on every variant in the same process, on the same grid: one untimed warm-up
call (which also builds caches, compiles and captures), then ``--repeats`` timed calls of
``--gens`` generations each, interleaved across variants; the median is reported as cell updates per second (CUPS), with
``torch.cuda.synchronize()`` around each timed call on CUDA. The last column is the ratio to the
first variant (the baseline) in the same case.

Cases are ``N`` (one N x N grid), ``HxW`` or ``B:HxW`` (a batch of B grids). ``B:HxW/serial``
runs the same grids one at a time (``--serial-limit`` of them, timed per cell), the "before" of
batching.

``--ceiling`` adds each variant's counted bytes a cell a generation (``torch_traffic.py``) and the
measured rate as a share of its ceiling, the device's copy bandwidth (measured here) over those
bytes: how far a variant is from the memory traffic it cannot avoid.

Examples::

    PYTHONPATH=src python benchmarks/bench_torch.py --device cpu --case 1024 --gens 20
    PYTHONPATH=src python benchmarks/bench_torch.py --device cuda --case 8192 --case 4096:64x64 \\
        --case 4096:64x64/serial --variants dense-conv,torch,torch:conv,torch:graphs --markdown
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from torch_traffic import copy_bandwidth, count_variant, variant_engine  # noqa: E402

from tensorca.engines.base import Engine  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402


@dataclass
class Case:
    batch: int
    height: int
    width: int
    serial: bool = False

    @classmethod
    def parse(cls, text: str) -> Case:
        serial = text.endswith("/serial")
        body = text[: -len("/serial")] if serial else text
        batch, _, size = body.rpartition(":")
        h, _, w = size.partition("x")
        return cls(int(batch) if batch else 1, int(h), int(w or h), serial)

    def __str__(self) -> str:
        size = f"{self.height}x{self.width}"
        return (f"{self.batch} x {size}" if self.batch > 1 else size) + (" one at a time" if self.serial else "")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def make_grids(case: Case, device: torch.device, serial_limit: int, seed: int) -> list[torch.Tensor]:
    """The case's start grids (density 0.3): one batch, or single grids for a /serial case."""
    gen = torch.Generator().manual_seed(seed)
    count = min(case.batch, serial_limit) if case.serial else case.batch
    cells = (torch.rand((count, case.height, case.width), generator=gen) < 0.3).to(torch.uint8).to(device)
    return [cells[i : i + 1].clone() for i in range(count)] if case.serial else [cells]


def time_once(engine: Engine, grids: list[torch.Tensor], rule, topology: Topology, gens: int,
              device: torch.device) -> float:
    """Seconds for one call of ``gens`` generations on every grid, device work included."""
    sync(device)
    began = time.perf_counter()
    for grid in grids:
        engine.advance(grid, rule, topology, gens)
    sync(device)
    return time.perf_counter() - began


def time_case(engines: dict[str, Engine], case: Case, rule, device: torch.device, gens: int, repeats: int,
              serial_limit: int, seed: int) -> dict[str, float | str]:
    """Median CUPS of every engine on ``case``; the repeats are interleaved across engines so
    that noise from other work on the machine falls on all of them alike."""
    grids = make_grids(case, device, serial_limit, seed)
    topology = Topology.torus(case.width, case.height)
    cells = sum(int(g.numel()) for g in grids) * gens
    times: dict[str, list[float]] = {}
    result: dict[str, float | str] = {}
    for spec, engine in engines.items():
        try:
            for grid in grids[:2]:
                engine.advance(grid, rule, topology, gens)  # warm-up: caches, compilation, capture
            times[spec] = []
        except (RuntimeError, torch.cuda.OutOfMemoryError) as exc:  # e.g. out of memory at 16384^2
            result[spec] = str(exc).splitlines()[0][:60]
            if device.type == "cuda":
                torch.cuda.empty_cache()
    for _ in range(repeats):
        for spec in times:
            times[spec].append(time_once(engines[spec], grids, rule, topology, gens, device))
    for spec, seconds in times.items():
        result[spec] = cells / statistics.median(seconds)
    return {spec: result[spec] for spec in engines}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rule", default="B3/S23")
    parser.add_argument("--case", action="append", help="N, HxW or B:HxW, optionally /serial (repeatable)")
    parser.add_argument("--variants", default="dense-conv,torch", help="comma-separated; the first is the baseline")
    parser.add_argument("--gens", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--serial-limit", type=int, default=64, help="grids timed one at a time in /serial cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--ceiling", action="store_true",
                        help="add each variant's counted bytes a cell, and its rate as a share of "
                             "copy bandwidth / bytes")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("bench_torch: CUDA is not available here", file=sys.stderr)
        return 2
    rule = parse_rule(args.rule)
    cases = [Case.parse(c) for c in (args.case or ["1024"])]
    variants = args.variants.split(",")
    engines = {spec: variant_engine(spec) for spec in variants}
    rows = []
    for case in cases:
        measured = time_case(engines, case, rule, device, args.gens, args.repeats, args.serial_limit, args.seed)
        base = next((v for v in measured.values() if isinstance(v, float)), None)
        for spec, value in measured.items():
            if isinstance(value, float):
                rows.append((str(case), spec, value, value / base if base else float("nan"), ""))
                print(f"  {case!s:28s} {spec:22s} {value / 1e6:12,.1f} M cell updates/s", file=sys.stderr, flush=True)
            else:
                rows.append((str(case), spec, None, None, value))
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    traffic = {}
    for spec in variants if args.ceiling else ():
        try:  # compiled variants get the one-pass floor: counting their kernels would compile them again
            traffic[spec] = count_variant(spec, rule, device, compile_kernels=False)
        except Exception as exc:  # noqa: BLE001 - the timings above must still be printed
            print(f"bench_torch: could not count {spec}'s traffic: {type(exc).__name__}: {exc}", file=sys.stderr)
    bandwidth = copy_bandwidth(device) if args.ceiling else None
    print(f"rule {rule.canonical()}, torus, {args.gens} generations per call, median of {args.repeats}, "
          f"device {name}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads"
          + (f", copy bandwidth {bandwidth / 1e12:.2f} TB/s (read + write)" if bandwidth else ""))
    extra = " B/cell | of ceiling |" if args.ceiling else ""
    if args.markdown:
        print("| case | engine | M cell updates/s | vs first |" + extra)
        print("| --- | --- | ---: | ---: |" + (" ---: | ---: |" if args.ceiling else ""))
    for case, spec, cups, ratio, note in rows:
        share = ""
        if spec in traffic and cups:
            fraction = cups / traffic[spec].ceiling(bandwidth)
            share = f" {traffic[spec].moved()} | {fraction:.{0 if fraction >= 0.1 else 1}%} |"
        elif args.ceiling:
            share = " | |"
        if args.markdown:
            result = f"{cups / 1e6:,.1f} | {ratio:.1f}x" if cups else f"failed: {note} |"
            print(f"| {case} | {spec} | {result} |" + share)
        else:
            print(f"{case:28s} {spec:22s} " + (f"{cups / 1e6:14,.1f} M/s {ratio:8.1f}x" if cups else f"failed: {note}")
                  + share.replace("|", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
