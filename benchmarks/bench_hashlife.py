"""HashLife against Golly's bgolly on the same patterns and generation counts.

Usage::

    python benchmarks/bench_hashlife.py [--bgolly /tmp/bgolly] [--golly /tmp/golly] [--repeat 3]
                                        [--max-mb 500] [--eventful 1048576]

bgolly is built from Golly's source (not committed)::

    cd /tmp/golly && g++ -O3 -DZLIB -Igollybase gollybase/*.cpp cmdline/bgolly.cpp -lz -o /tmp/bgolly

and run as ``bgolly -a HashLife -M <max-mb> -m <gens> <pattern>`` (wall time of the whole
process: it reads, runs and prints the population; both sides get the same memory budget,
500 MB by default, tensorca's default). tensorca's time is split into ``build`` (the tree from
the pattern's dense cells) and ``step`` (``Universe.step`` plus the exact population), after a
warm-up that loads the compiled functions; Python start-up and imports are not counted. Each
time is the best of ``--repeat`` runs. Populations are compared; the ratios are tensorca's time
over bgolly's (below 1: tensorca is faster). ``--eventful GENS`` also runs every pattern of
Golly's ``Patterns/HashLife/Eventful`` folder to GENS on both (an oracle check of populations).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np

import tensorca
from tensorca.hashlife import Universe

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "hashlife"
#: (name, path relative to tests/data/hashlife or to Golly's Patterns folder, generations).
CASES = [
    ("Gosper gun", "data:gosper_gun.rle", 10**9),
    ("Gosper breeder", "data:breeder.rle", 2**30),
    ("metacatacryst", "golly:HashLife/Eventful/metacatacryst.mc", 2**20),
    ("switch-engine breeder", "data:switch_engine_breeder.rle", 2**40),
]


def _path(spec: str, golly: Path) -> Path:
    """The pattern file of a ``data:``/``golly:`` spec."""
    kind, rel = spec.split(":", 1)
    return DATA / rel if kind == "data" else golly / "Patterns" / rel


def time_tensorca(path: Path, gens: int, repeat: int, max_bytes: int) -> dict:
    """Best build and step times (s) and the population of ``path`` after ``gens``."""
    pattern = tensorca.load(path)
    best_build = best_step = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        u = Universe.from_cells(pattern.cells, pattern.rule or "B3/S23", origin=pattern.origin, max_bytes=max_bytes)
        t1 = time.perf_counter()
        u.step(gens)
        pop = u.population
        t2 = time.perf_counter()
        best_build, best_step = min(best_build, t1 - t0), min(best_step, t2 - t1)
    return {"build_s": best_build, "step_s": best_step, "population": pop, "stats": u.stats()}


def time_bgolly(bgolly: str, path: Path, gens: int, repeat: int, max_mb: int) -> dict:
    """Best wall time (s) of ``bgolly -a HashLife -M max_mb -m gens path`` and the population
    it prints."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run([bgolly, "-a", "HashLife", "-M", str(max_mb), "-m", str(gens), str(path)],
                              capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - t0)
        out = proc.stdout
    last = out.strip().splitlines()[-1]
    return {"s": best, "population": int(last.split(":")[1].replace(",", ""))}


def warm_up() -> None:
    """Load (or compile) the compiled functions once, outside the timings."""
    glider = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], np.uint8)
    assert Universe.from_cells(glider).step(1000).population == 5
    Universe.from_cells(glider).to_cells()


def run_case(name: str, path: Path, gens: int, args: argparse.Namespace) -> dict:
    """Time one case on both sides, print its row, return it."""
    tc = time_tensorca(path, gens, args.repeat, args.max_mb * 2**20)
    have_bgolly = Path(args.bgolly).exists()
    bg = time_bgolly(args.bgolly, path, gens, args.repeat, args.max_mb) if have_bgolly else None
    bg_s = bg["s"] if bg else float("nan")
    ok = bg is None or bg["population"] == tc["population"]
    print(f"{name:<26} {gens:>14} {tc['build_s']:>8.3f} {tc['step_s']:>8.3f} {bg_s:>8.3f} "
          f"{tc['step_s'] / bg_s:>8.2f} {(tc['build_s'] + tc['step_s']) / bg_s:>8.2f}  {ok}", flush=True)
    return {"pattern": name, "generations": gens, **tc, "bgolly": bg, "population_ok": ok}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bgolly", default=os.environ.get("BGOLLY", "/tmp/bgolly"))
    parser.add_argument("--golly", type=Path, default=Path("/tmp/golly"),
                        help="Golly source tree (for its Patterns folder)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-mb", type=int, default=500, help="memory budget of both sides (MB)")
    parser.add_argument("--eventful", type=int, help="also run Golly's HashLife/Eventful patterns to this generation")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}  load average before: {os.getloadavg()}")
    warm_up()
    cases = [(name, _path(spec, args.golly), gens) for name, spec, gens in CASES]
    if args.eventful is not None:
        folder = args.golly / "Patterns" / "HashLife" / "Eventful"
        cases += [(p.stem, p, args.eventful) for p in sorted(folder.glob("*.mc"))]
    columns = ("build s", "step s", "bgolly s", "step/bg", "total/bg")
    print(f"{'pattern':<26} {'gens':>14} " + " ".join(f"{c:>8}" for c in columns) + "  pop ok")
    rows = []
    for name, path, gens in cases:
        if not path.exists():
            print(f"{name:<26} skipped: {path} not found")
            continue
        rows.append(run_case(name, path, gens, args))
    print(f"load average after: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
