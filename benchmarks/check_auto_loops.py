"""Repeated short runs under ``backend="auto"``: how far from the best engine in hindsight?

A notebook that steps a grid a generation a call runs the same short job thousands of times in one
process. Priced alone, each run is cheapest on NumPy, because a fast engine's framework import and
kernel load cost more than one run saves; ``auto`` therefore rents, then buys
(``costmodel._rent_or_buy``). This script measures that for a few loops: each loop runs in a new
process (so framework imports and kernel loads count, as they do for a user) once under ``auto``
and once per engine named fixed, timing ``tensorca.run(grid, rule, 1)`` called ``runs`` times
after ``import tensorca``. Reported: each total, the best fixed engine, and ``auto / best`` (the
ski-rental bound is 2, as the model prices the engines).

    PYTHONPATH=src .venv/bin/python benchmarks/check_auto_loops.py [--engines numpy,bitpack-cpu]
        [--loop 1024:1000] [--loop 256:2000] [--json out.json]

``--loop SIZE:RUNS`` (repeatable) is a SIZE^2 B3/S23 torus stepped RUNS times. Kernels already
compiled on disk stay so (``$TENSORCA_CACHE_DIR``): the loops measure a warm machine's new process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

#: What each new process runs: the loop, timed after ``import tensorca``; prints seconds and the
#: engine ``auto`` would pick at the end.
_LOOP = """
import sys, time
import tensorca
size, runs, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
grid = tensorca.random_soup(size, size, seed=1)
rule = tensorca.parse_rule("B3/S23")
began = time.perf_counter()
for _ in range(runs):
    grid = tensorca.run(grid, rule, 1, backend=backend)
seconds = time.perf_counter() - began
print(seconds, tensorca.explain(grid, rule, 1).engine if backend == "auto" else backend)
"""

DEFAULT_LOOPS = ("1024:1000", "1024:200", "256:2000")


def run_loop(size: int, runs: int, backend: str) -> tuple[float, str]:
    """``(seconds, engine at the end)`` of one loop in a new process."""
    done = subprocess.run([sys.executable, "-c", _LOOP, str(size), str(runs), backend],
                          capture_output=True, text=True, check=True)
    seconds, engine = done.stdout.split()
    return float(seconds), engine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="numpy,bitpack-cpu", help="fixed engines to compare (comma-separated)")
    parser.add_argument("--loop", action="append", help="SIZE:RUNS (repeatable); default " + " ".join(DEFAULT_LOOPS))
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    engines = [name for name in args.engines.split(",") if name]
    results = []
    worst = 0.0
    for text in args.loop or DEFAULT_LOOPS:
        size, runs = (int(part) for part in text.split(":"))
        fixed = {name: run_loop(size, runs, name)[0] for name in engines}
        auto, picked = run_loop(size, runs, "auto")
        best = min(fixed, key=fixed.__getitem__)
        ratio = auto / fixed[best]
        worst = max(worst, ratio)
        results.append({"size": size, "runs": runs, "auto": auto, "auto_ends_on": picked, "fixed": fixed,
                        "best": best, "ratio": ratio})
        times = "  ".join(f"{name} {seconds:.2f} s" for name, seconds in fixed.items())
        print(f"{size}^2 x {runs} one-generation runs: auto {auto:.2f} s (ends on {picked})  {times}  "
              f"best {best}  auto/best {ratio:.2f}")
    print(f"worst auto/best {worst:.2f} (the rent-then-buy bound: 2, as the model prices the engines)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
