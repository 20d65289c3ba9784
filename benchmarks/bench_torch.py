"""Throughput of the ``torch`` engine against the ``dense-conv`` baseline, in one process.

Every case is run on every variant in the same process, on the same grid: one untimed warm-up
call (which also builds caches, compiles and captures), then ``--repeats`` timed calls of
``--gens`` generations each, interleaved across variants; the median is reported as cell updates per second (CUPS), with
``torch.cuda.synchronize()`` around each timed call on CUDA. The last column is the ratio to the
first variant (the baseline) in the same case.

Cases are ``N`` (one N x N grid), ``HxW`` or ``B:HxW`` (a batch of B grids). ``B:HxW/serial``
runs the same grids one at a time (``--serial-limit`` of them, timed per cell), the "before" of
batching.

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

import torch

from tensorca.engines import get_engine
from tensorca.engines.base import Engine
from tensorca.rules import parse_rule
from tensorca.topology import Topology


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


def variant_engine(spec: str) -> Engine:
    """``dense-conv``, ``torch``, or ``torch:opt[+opt]`` with opts index, conv, count, compile, graphs."""
    name, _, opts = spec.partition(":")
    engine = get_engine(name)
    if not opts:
        return engine
    options: dict = {}
    for opt in opts.split("+"):
        if opt in ("index", "conv", "count"):
            options["path"] = opt
        elif opt == "compile":
            options["compile"] = True
        elif opt == "graphs":
            options["cuda_graphs"] = True
        else:
            raise SystemExit(f"unknown variant option {opt!r} in {spec!r}")
    return engine.with_options(**options)  # type: ignore[attr-defined]


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
    print(f"rule {rule.canonical()}, torus, {args.gens} generations per call, median of {args.repeats}, "
          f"device {name}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    if args.markdown:
        print("| case | engine | M cell updates/s | vs first |")
        print("| --- | --- | ---: | ---: |")
    for case, spec, cups, ratio, note in rows:
        if args.markdown:
            result = f"{cups / 1e6:,.1f} | {ratio:.1f}x" if cups else f"failed: {note} |"
            print(f"| {case} | {spec} | {result} |")
        else:
            print(f"{case:28s} {spec:22s} " + (f"{cups / 1e6:14,.1f} M/s {ratio:8.1f}x" if cups else f"failed: {note}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
