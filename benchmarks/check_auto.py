"""Does ``backend="auto"`` pick the measured-fastest engine? Ten representative configurations.

For each configuration every engine that supports the rule is timed end to end through
``tensorca.run(..., backend=name)`` (median of ``--repeats`` after one warm-up call, so imports
and kernel compilation are excluded for every engine alike), then ``tensorca.explain`` says what
``auto`` picks in this same warm process. Reported: the pick, the measured best, and the ratio
time(pick) / time(best) (1.00 = auto picked the fastest).

    PYTHONPATH=src .venv/bin/python benchmarks/check_auto.py [--repeats 5] [--json out.json]
        [--busy N] [--only TEXT]

``--busy N`` keeps N other processes spinning for the whole run (one per core: the loaded
machine of issue 16, where torch's OpenMP threads collapse); ``--only TEXT`` runs the
configurations whose label contains TEXT (e.g. ``--only "x 64^2"``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

import tensorca
from tensorca.costmodel import may_run
from tensorca.engines import engine_info, engine_infos, get_engine
from tensorca.engines.registry import devices_here
from tensorca.rules.spec import resolve

#: Every engine ``auto`` may pick on this machine's CPU, from the registry.
ENGINES = tuple(i.name for i in engine_infos() if i.auto and "cpu" in devices_here(i))


PATTERNS = "src/tensorca/data/patterns"


def soup(batch, h, w, n_states=2, seed=0):
    grid = (np.random.default_rng(seed).random((batch, h, w)) < 0.35).astype(np.uint8)
    return grid if batch > 1 else grid[0]


CONFIGS = [
    ("tiny 16^2 Life, 1 gen", lambda: (soup(1, 16, 16), "B3/S23", 1)),
    ("64^2 Life, 200 gens", lambda: (soup(1, 64, 64), "B3/S23", 200)),
    ("1024^2 Life, 20 gens", lambda: (soup(1, 1024, 1024), "B3/S23", 20)),
    ("256 x 64^2 Life batch, 50 gens", lambda: (soup(256, 64, 64), "B3/S23", 50)),
    ("4096 x 64^2 Life batch, 100 gens", lambda: (soup(4096, 64, 64), "B3/S23", 100)),
    ("32^2 Hensel B2-a/S12, 3 gens", lambda: (soup(1, 32, 32), "B2-a/S12", 3)),
    ("1024^2 Hensel B2-a/S12, 10 gens", lambda: (soup(1, 1024, 1024), "B2-a/S12", 10)),
    ("512^2 Generations 345/2/4, 20 gens", lambda: (soup(1, 512, 512), "345/2/4", 20)),
    ("16 x 128^2 LtL R5 (Bosco), 10 gens", lambda: (soup(16, 128, 128), "R5,C0,M1,S34..58,B34..45,NM", 10)),
    ("Gosper gun, unbounded plane, 300 gens", lambda: (tensorca.load(f"{PATTERNS}/gosper_gun.rle"), None, 300)),
    ("R-pentomino, unbounded plane, 30 gens", lambda: (tensorca.load(f"{PATTERNS}/r_pentomino.rle"), None, 30)),
]


def measure(state, rule, gens, backend, repeats):
    tensorca.run(state, rule, gens, backend=backend)  # warm-up: imports, compilation, caches
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        tensorca.run(state, rule, gens, backend=backend)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--busy", type=int, default=0, help="spin this many other processes meanwhile")
    parser.add_argument("--only", help="run only the configurations whose label contains this")
    args = parser.parse_args()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        return _check(args)
    finally:
        for p in spinners:
            p.kill()


def _check(args: argparse.Namespace) -> int:
    configs = [c for c in CONFIGS if not args.only or args.only in c[0]]
    for name in ENGINES:  # load every engine first: auto then decides in a warm process
        get_engine(name)
    results, hits = [], 0
    for label, make in configs:
        state, rule, gens = make()
        rule_value, _ = resolve(rule, fallback=getattr(state, "rule", None))
        topo = getattr(state, "topology", None) or tensorca.Topology.torus(state.shape[-1], state.shape[-2])
        check = topo if topo.bounded else tensorca.Topology.plane(1, 1)
        times = {}
        for name in ENGINES:
            if get_engine(name).supports(rule_value, check) and may_run(engine_info(name), rule_value, check):
                times[name] = measure(state, rule, gens, name, args.repeats)
        pick = tensorca.explain(state, rule, gens).engine
        if pick not in times:
            times[pick] = measure(state, rule, gens, pick, args.repeats)
        best = min(times, key=times.get)
        ratio = times[pick] / times[best]
        hits += pick == best or ratio <= 1.05
        results.append({"config": label, "auto": pick, "best": best, "ratio": ratio,
                        "times_ms": {k: v * 1e3 for k, v in times.items()}})
        cells = "  ".join(f"{k} {v * 1e3:.3g}" for k, v in sorted(times.items(), key=lambda kv: kv[1]))
        print(f"{label:40s} auto={pick:12s} best={best:12s} ratio={ratio:5.2f}   [{cells} ms]", flush=True)
    worst = max(r["ratio"] for r in results)
    print(f"auto picked the fastest (within 5%) in {hits} of {len(configs)} configurations"
          f"{f' with {args.busy} busy processes' if args.busy else ''}; worst ratio {worst:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"hits": hits, "busy": args.busy, "configs": results}, fh, indent=1)
    return 0 if hits >= len(configs) - 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
