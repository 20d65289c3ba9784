"""Pattern loading against python-lifelib, on the same files in the same run.

Usage::

    python benchmarks/bench_loaders.py --golly /tmp/golly --lifelib-python /tmp/peers/bin/python [--repeat 7]

python-lifelib is not a tensorca dependency: install it in its own environment
(``python -m venv /tmp/peers && /tmp/peers/bin/pip install python-lifelib``; its first
``load_rules('b3s23')`` compiles lifelib, minutes) and point ``--lifelib-python`` at it. Golly's
``Patterns`` folder supplies the files (``fetch`` jimblandy/golly, ``git archive HEAD Patterns``).

Both sides are timed warm, in their own process: ``tensorca.load(path)`` here, after one warm-up
load (Numba's compiled functions loaded); ``lifetree.load(path)`` in lifelib's process after its
own warm-up. Each time is the best of ``--repeat``. Populations are compared (tensorca's from its
pattern, lifelib's ``population``). The ratio is tensorca's time over lifelib's (below 1: tensorca
is faster). lifelib cannot read Life 1.05; such a file gets tensorca's time only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import tensorca

#: (name, path under Golly's Patterns folder).
CASES = [
    ("metapixel-galaxy.mc.gz", "HashLife/Metacell/metapixel-galaxy.mc.gz"),
    ("metacatacryst.mc", "HashLife/Eventful/metacatacryst.mc"),
    ("wedge-grow.mc", "HashLife/Eventful/wedge-grow.mc"),
    ("switch-engine-breeder.rle", "Life/Breeders/switch-engine-breeder.rle"),
    ("billiard-table.rle", "Life/Oscillators/billiard-table.rle"),
    ("breeder.lif (Life 1.05)", "Life/Breeders/breeder.lif"),
]

LIFELIB_TIMER = r"""
import json, sys, time, lifelib
paths, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
lt = lifelib.load_rules("b3s23").lifetree(memory=1000)
out = {}
for path in paths:
    if path.endswith(".lif"):
        continue
    lt.load(path)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter(); p = lt.load(path); best = min(best, time.perf_counter() - t)
    out[path] = [best, int(p.population)]
print(json.dumps(out))
"""


def _population(pattern: tensorca.Pattern) -> int:
    return int(pattern.tree.population) if pattern.tree is not None else int((pattern.cells != 0).sum())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golly", type=Path, required=True, help="a Golly folder holding Patterns/")
    parser.add_argument("--lifelib-python", help="a Python that imports lifelib (omit: tensorca's times only)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    paths = {name: str(args.golly / "Patterns" / rel) for name, rel in CASES}
    peer: dict[str, list] = {}
    if args.lifelib_python:
        done = subprocess.run([args.lifelib_python, "-c", LIFELIB_TIMER, json.dumps(list(paths.values())),
                               str(args.repeat)], capture_output=True, text=True, check=True)
        peer = json.loads(done.stdout.strip().splitlines()[-1])
    rows = []
    print(f"{'file':28s} {'tensorca ms':>12s} {'lifelib ms':>11s} {'ratio':>7s}  population")
    for name, path in paths.items():
        tensorca.load(path)
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            pattern = tensorca.load(path)
            best = min(best, time.perf_counter() - start)
        population = _population(pattern)
        theirs = peer.get(path)
        if theirs is not None and theirs[1] != population:
            raise SystemExit(f"{name}: population {population} here, {theirs[1]} in lifelib")
        ratio = best / theirs[0] if theirs else None
        rows.append({"file": name, "tensorca_s": best, "lifelib_s": theirs[0] if theirs else None,
                     "ratio": ratio, "population": population})
        print(f"{name:28s} {best * 1e3:12.2f} {theirs[0] * 1e3 if theirs else float('nan'):11.2f} "
              f"{ratio if ratio else float('nan'):7.2f}  {population}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
