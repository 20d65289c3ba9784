"""Generations rules: tensorca (``auto``, ``bitpack-cpu``, ``torch``) against Golly's Generations algorithm.

    flock /tmp/tensorca-bench.lock .venv/bin/python benchmarks/bench_generations.py [--bgolly /tmp/bgolly]

One soup per rule (``--size``^2 torus, ``--density`` of the cells in state 1, the rest 0), written
as RLE with the rule's ``:T`` suffix for ``bgolly`` (built from Golly's source under /tmp, not
committed). bgolly's time is the wall time of ``bgolly -a Generations -m G`` minus that of
``-m 0`` (reading the pattern and writing the result), best of ``--repeats``; tensorca's is the
best wall time of ``tensorca.run(cells, rule, G, backend=...)`` on a NumPy grid after one warm-up
call (packing and unpacking included, compiling not). The final states are compared (both
cropped to their live cells: Golly's RLE does not keep the torus origin). Prints one JSON line per
(rule, engine), then a Markdown table with the load averages.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bench_ruletable import cropped_digest  # noqa: E402  (the benchmarks folder is the script's)

import tensorca  # noqa: E402

#: Star Wars, Brian's Brain, Belzhab (8 states), a 25-state rule from Golly's Generations patterns.
RULES = ("345/2/4", "/2/3", "23/23/8", "45678/2478/25")


def bgolly_seconds(bgolly: str, pattern: Path, generations: int, out: Path) -> float:
    """Wall seconds of one ``bgolly -a Generations`` run writing its result to ``out``."""
    start = time.perf_counter()
    subprocess.run([bgolly, "-a", "Generations", "-m", str(generations), "-q", "-q", "-o", str(out), str(pattern)],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def golly(bgolly: str, soup: np.ndarray, rule: str, generations: int, repeats: int) -> tuple[float, np.ndarray]:
    """bgolly's best stepping time (s) and its final grid."""
    n = soup.shape[0]
    parsed = tensorca.parse_rule(rule)
    with tempfile.TemporaryDirectory() as tmp:
        pattern = Path(tmp) / "soup.rle"
        tensorca.save(pattern, tensorca.Pattern(soup, parsed, tensorca.parse_topology(f"T{n},{n}")))
        load = min(bgolly_seconds(bgolly, pattern, 0, Path(tmp) / "zero.rle") for _ in range(repeats))
        run = min(bgolly_seconds(bgolly, pattern, generations, Path(tmp) / "final.rle") for _ in range(repeats))
        final = np.asarray(tensorca.load(Path(tmp) / "final.rle").cells)
    return max(run - load, 1e-9), final


def tensorca_seconds(soup: np.ndarray, rule: str, generations: int, backend: str,
                     repeats: int) -> tuple[float, np.ndarray]:
    """Best wall time of ``tensorca.run`` on ``backend`` after a warm-up call, and its result."""
    n = soup.shape[0]
    spec = f"{rule}:T{n},{n}"
    tensorca.run(soup, spec, 2, backend=backend)
    best, final = float("inf"), soup
    for _ in range(repeats):
        start = time.perf_counter()
        final = tensorca.run(soup, spec, generations, backend=backend)
        best = min(best, time.perf_counter() - start)
    return best, np.asarray(final)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bgolly", default="/tmp/bgolly")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--generations", type=int, default=200)
    parser.add_argument("--density", type=float, default=0.4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", nargs="+", default=list(RULES))
    parser.add_argument("--engines", nargs="+", default=["bitpack-cpu", "torch", "auto"])
    args = parser.parse_args(argv)
    n, gens = args.size, args.generations
    updates = n * n * gens
    rows = []
    for rule in args.rules:
        soup = (np.random.default_rng(args.seed).random((n, n)) < args.density).astype(np.uint8)
        golly_s, golly_final = golly(args.bgolly, soup, rule, gens, args.repeats)
        want = cropped_digest(golly_final)
        line = {"rule": rule, "engine": "bgolly Generations", "seconds": round(golly_s, 4),
                "cups": round(updates / golly_s)}
        print(json.dumps(line), flush=True)
        for backend in args.engines:
            try:
                seconds, final = tensorca_seconds(soup, rule, gens, backend, args.repeats)
            except tensorca.errors.TensorcaError as exc:
                print(json.dumps({"rule": rule, "engine": backend, "error": str(exc)}), flush=True)
                continue
            same = cropped_digest(final) == want
            label = backend
            if backend == "auto":  # what auto runs now (the engines timed before are imported and compiled)
                label = f"auto ({tensorca.explain(soup, f'{rule}:T{n},{n}', gens).engine})"
            line = {"rule": rule, "engine": label, "seconds": round(seconds, 4), "cups": round(updates / seconds),
                    "vs_golly": round(golly_s / seconds, 2), "identical": same}
            print(json.dumps(line), flush=True)
            rows.append((rule, label, updates / seconds, updates / golly_s, same))
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"\n{n}^2 torus, {args.density:.0%} soup (state 1), {gens} generations, best of {args.repeats}; "
          f"load averages {load}; {os.cpu_count()} CPUs\n")
    print("| rule | Golly Generations | tensorca engine | tensorca | tensorca / Golly | same final state |")
    print("|---|---|---|---|---|---|")
    for rule, label, rate, golly_rate, same in rows:
        print(f"| {rule} | {golly_rate / 1e6:.0f} M/s | {label} | {rate / 1e6:,.0f} M/s | "
              f"{rate / golly_rate:.1f}x | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
