"""Batches of small grids against one big grid with the same cell count, on bitpack-cpu (issue 16).

One process, one soup per shape, B3/S23 tori. For each workload: end-to-end ``tensorca.run``
(packing included) with ``backend="bitpack-cpu"``, and the same with the row layout forced (what
batches ran on before the lane-per-grid path), best of ``--repeats``. The ratio that matters is a
batch's rate over the one big grid's rate in the same run.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_batches.py [--gens 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from bench_bitpack import best_of  # noqa: E402  (the benchmarks folder is the script's)

import tensorca
from tensorca._numba import VECTORS
from tensorca.engines import get_engine
from tensorca.engines.bitpack import lanes as bitpack_lanes
from tensorca.engines.bitpack import tiles as bitpack_tiles
from tensorca.engines.bitpack.circuit import rule_table
from tensorca.rules import parse_rule

WORKLOADS = [(1, 4096), (4096, 64), (256, 64), (16384, 16), (1024, 128)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gens", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tiled", action="store_true", help="also time one big grid as 64 lane tiles")
    args = parser.parse_args()
    rule = parse_rule("B3/S23")
    engine = get_engine("bitpack-cpu")
    print(f"load average {os.getloadavg()}; Numba vectors: {VECTORS}")
    rates = {}
    for batch, side in WORKLOADS:
        cells = (np.random.default_rng(0).random((batch, side, side)) < 0.5).astype(np.uint8)
        grid = cells if batch > 1 else cells[0]
        tensorca.run(grid, rule, 2, backend="bitpack-cpu")  # compile / load the kernels
        cell_gens = batch * side * side * args.gens
        seconds = best_of(lambda grid=grid: tensorca.run(grid, rule, args.gens, backend="bitpack-cpu"), args.repeats)
        rates[(batch, side)] = cell_gens / seconds
        line = f"{batch:6d} x {side:4d}^2: {cell_gens / seconds / 1e9:7.1f} G/s end-to-end"
        if bitpack_lanes.use_lanes(cells.shape):
            topology = tensorca.Topology.torus(side, side)
            saved = bitpack_lanes.use_lanes
            try:  # the row layout, as before the lane path
                import tensorca.engines.bitpack.cpu as cpu

                cpu.use_lanes = lambda shape: False
                row = best_of(lambda c=cells, t=topology: engine.advance(c, rule, t, args.gens), args.repeats)
            finally:
                cpu.use_lanes = saved
            line += f"   (row layout {cell_gens / row / 1e9:6.1f} G/s: lanes x{row / seconds:.1f})"
        if args.tiled and batch == 1:
            table = rule_table(rule)
            bitpack_tiles.advance_tiled(cells[:, :256, :256], table, True, 2)
            tiled = best_of(lambda c=cells, t=table: bitpack_tiles.advance_tiled(c, t, True, args.gens), args.repeats)
            line += f"   (64 lane tiles {cell_gens / tiled / 1e9:6.1f} G/s)"
        print(line, flush=True)
    big = rates[(1, 4096)]
    for (batch, side), rate in rates.items():
        if batch > 1:
            print(f"{batch} x {side}^2 at {rate / big:.2f}x the rate of one 4096^2 grid")
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
