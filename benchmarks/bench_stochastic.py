"""Noisy against deterministic B3/S23 on bitpack-cpu: wall and CPU seconds, kernels warm, best of 3.

    .venv/bin/python benchmarks/bench_stochastic.py [--side 4096] [--gens 100] [--before FILE]

From a 50% soup on a torus of side x side; the noisy rules are the issue's (births 0.9, survivals
0.99), survivals only, and alpha-asynchronous updating with alpha = 0.5. The ratio is deterministic
time over noisy time (the issue asks for >= 0.3 at 4096^2).

``--before FILE``: also time the noisy rules with another version of ``engines/bitpack/noise.py`` (say
``git show HEAD:src/tensorca/engines/bitpack/noise.py > /tmp/before.py``), loaded in its place in
this process, the two versions taking turns in each round (the same load for both); the cells of
the two must be equal.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

import numpy as np

import tensorca
from tensorca.engines.bitpack import noise as bitpack_noise
RULES = ("B3/S23", "B3/S23:pb=0.9,ps=0.99", "B3/S23:ps=0.99", "B3/S23:async=0.5")


def _load_before(path: str) -> types.ModuleType:
    """``engines/bitpack/noise.py`` from ``path``, as a module of the same package (its relative imports),
    its kernels compiled afresh (``cache=False``: nothing of it goes into the kernel cache)."""
    name = "tensorca.engines.bitpack._noise_before"
    module = types.ModuleType(name)
    module.__package__ = "tensorca.engines"
    module.__file__ = path
    sys.modules[name] = module
    source = Path(path).read_text().replace("cache=True", "cache=False")
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=4096)
    parser.add_argument("--gens", type=int, default=100)
    parser.add_argument("--before", help="another engines/bitpack/noise.py to time against this one")
    args = parser.parse_args()
    grid = (np.random.default_rng(1).random((args.side, args.side)) < 0.5).astype(np.uint8)
    versions = {"": bitpack_noise.advance_noisy}
    if args.before:
        versions = {"before ": _load_before(args.before).advance_noisy, "": bitpack_noise.advance_noisy}
    base = None
    for rule in RULES:
        best, outs = {}, {}
        for _ in range(3):
            for label, advance in versions.items() if rule != RULES[0] else [("", versions[""])]:
                bitpack_noise.advance_noisy = advance
                tensorca.run(grid[:512, :512], rule, 4, backend="bitpack-cpu")  # compile or load the kernels
                wall, cpu = time.perf_counter(), time.process_time()
                outs[label] = tensorca.run(grid, rule, args.gens, backend="bitpack-cpu", seed=1)
                took = (time.perf_counter() - wall, time.process_time() - cpu)
                best[label] = min(best.get(label, took), took)
        bitpack_noise.advance_noisy = versions[""]
        if len(outs) > 1:
            assert np.array_equal(outs["before "], outs[""]), f"{rule}: the two versions' cells differ"
        for label in best:
            took = best[label]
            base = base or took
            rate = args.side**2 * args.gens / took[0] / 1e9
            print(f"{label + rule:31s} wall {took[0]:.3f} s  cpu {took[1]:.3f} s  {rate:6.1f} G cells/s  "
                  f"ratio {base[0] / took[0]:.2f} (cpu {base[1] / took[1]:.2f})  "
                  f"final density {outs[label].mean():.3f}")


if __name__ == "__main__":
    main()
