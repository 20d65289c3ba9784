"""Lenia steps per second: Orbium's rule on a 512x512 torus, the torch engine (float32 and float64) and
the NumPy reference, on the CPU (and CUDA when torch sees it).

    python benchmarks/bench_lenia.py [--size 512] [--steps 200] [--threads N]

Each figure is the median of ``--repeats`` timed runs of ``--steps`` generations after one warm-up
run (which builds and caches the kernel's transform). The load average is printed with the
figures: this machine may be shared. The issue's yardstick: a jitted JAX FFT step (CAX's way)
runs about 1,200 steps/s on this machine's CPU (JAX is not installed here to re-measure).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

from tensorca.engines import get_engine
from tensorca.lenia import creature
from tensorca.topology import Topology


def timed(advance, cells, steps: int, repeats: int, sync=lambda: None) -> float:
    """Median steps/s of ``advance(cells, steps)`` over ``repeats`` runs (after one warm-up)."""
    advance(cells, 1)
    sync()
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        advance(cells, steps)
        sync()
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    orbium = creature("O2u")
    rule, topology = orbium.rule, Topology.torus(args.size, args.size)
    grid = np.zeros((1, args.size, args.size))
    for y in range(0, args.size - 20, 64):  # a field of Orbia, so the grid is not empty
        for x in range(0, args.size - 20, 64):
            grid[0, y : y + 20, x : x + 20] = orbium.cells
    print(f"Lenia {rule.canonical()} on a {args.size}x{args.size} torus, {args.steps} steps, "
          f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    engine, reference = get_engine("torch"), get_engine("numpy")
    rows = []
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        for dtype in (torch.float32, torch.float64):
            cells = torch.from_numpy(grid).to(device, dtype)
            steps = args.steps * (10 if device == "cuda" else 1)
            rate = timed(lambda c, n: engine.advance(c, rule, topology, n), cells, steps, args.repeats, sync)
            rows.append((f"torch {device} {str(dtype).replace('torch.', '')}", rate))
    rate = timed(lambda c, n: reference.advance(c, rule, topology, n), grid.astype(np.float32),
                 max(10, args.steps // 4), args.repeats)
    rows.append(("numpy cpu float64 arithmetic (reference)", rate))
    for name, rate in rows:
        print(f"{name:42s} {rate:10.1f} steps/s  ({rate * args.size * args.size / 1e6:8.1f} M cell updates/s)")


if __name__ == "__main__":
    main()
