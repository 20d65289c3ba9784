"""HashLife against Golly's bgolly on the same patterns and generation counts.

Usage::

    python benchmarks/bench_hashlife.py [--bgolly /tmp/bgolly] [--golly /tmp/golly] [--repeat 3]
                                        [--max-mb 500] [--eventful 1048576]
                                        [--heldout] [--heldout-limit 20] [--api] [--load]

bgolly is built from Golly's source (not committed)::

    cd /tmp/golly && g++ -O3 -DZLIB -Igollybase gollybase/*.cpp cmdline/bgolly.cpp -lz -o /tmp/bgolly

and run as ``bgolly -a HashLife -M <max-mb> -m <gens> <pattern>`` (wall time of the whole process:
it reads, runs and prints the population; both sides get the same memory budget, 500 MB by default,
tensorca's default). tensorca's time is split into ``build`` (the tree from the pattern's dense
cells, or a copy of the tree a macrocell file was read into) and ``step`` (``Universe.step`` plus
the exact population), after a warm-up that loads the compiled functions; Python start-up and
imports are not counted. Each time is the best of ``--repeat`` runs. Populations are compared; the
ratios are tensorca's time over bgolly's (below 1: tensorca is faster). ``--eventful GENS`` also
runs every pattern of Golly's ``Patterns/HashLife/Eventful`` folder to GENS on both (an oracle check
of populations).

``--heldout`` is the held-out oracle check: every two-state pattern file of Golly's
``Patterns/HashLife`` (Eventful, Constructions, Metacell: B3/S23 and Hensel rules, macrocell and
RLE), read by tensorca as a tree (no dense cells), run to 2^10, 2^15, 2^20, 2^25 and 2^30
generations by ``tensorca.run`` (auto) and by bgolly; a pattern stops climbing once bgolly takes
more than ``--heldout-limit`` seconds. Populations must match.

``--api`` times the issue's headline cases end to end: ``tensorca.run(pattern, gens)`` in a warm
process (auto chooses; the pattern loaded once), the command line ``tensorca run FILE --gens G``
in a fresh process (imports, Numba's start-up and cache loads included), and bgolly's wall time.

``--load`` reads ``metapixel-galaxy.mc.gz`` (30720^2 cells) in a fresh process: seconds and the
peak RSS over a process that only imported tensorca and warmed HashLife.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
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
        if pattern.tree_backed:  # a macrocell file is read as a tree already: build = a copy of it
            u = pattern.tree.copy(max_bytes=max_bytes)
        else:
            u = Universe.from_cells(pattern.cells, pattern.rule or "B3/S23", origin=pattern.origin,
                                    max_bytes=max_bytes)
        t1 = time.perf_counter()
        u.step(gens)
        pop = u.population
        t2 = time.perf_counter()
        best_build, best_step = min(best_build, t1 - t0), min(best_step, t2 - t1)
    return {"build_s": best_build, "step_s": best_step, "population": pop, "stats": u.stats()}


def time_bgolly(bgolly: str, path: Path, gens: int, repeat: int, max_mb: int, timeout: float | None = None) -> dict:
    """Best wall time (s) of ``bgolly -a HashLife -M max_mb -m gens path`` and the population
    it prints."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run([bgolly, "-a", "HashLife", "-M", str(max_mb), "-m", str(gens), str(path)],
                              capture_output=True, text=True, check=True, timeout=timeout)
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


HELDOUT_GENS = (2**10, 2**15, 2**20, 2**25, 2**30)


def heldout(args: argparse.Namespace) -> list[dict]:
    """Golly's ``Patterns/HashLife`` files: populations by tensorca.run and bgolly, climbing
    generation counts while bgolly stays within ``--heldout-limit`` seconds."""
    folder = args.golly / "Patterns" / "HashLife"
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    print(f"{'pattern':<44} {'gens':>12} {'tensorca s':>10} {'bgolly s':>9} {'ratio':>7}  population  ok")
    rows = []
    for path in files:
        pattern = tensorca.load(path)
        for gens in HELDOUT_GENS:
            try:
                bg = time_bgolly(args.bgolly, path, gens, 1, args.max_mb, timeout=4 * args.heldout_limit)
            except subprocess.TimeoutExpired:
                print(f"{path.relative_to(folder)!s:<44} {gens:>12} bgolly over {4 * args.heldout_limit} s: stop")
                break
            t0 = time.perf_counter()
            out = tensorca.run(pattern, generations=gens, max_bytes=args.max_mb * 2**20)
            pop = out.population
            seconds = time.perf_counter() - t0
            ok = pop == bg["population"]
            print(f"{path.relative_to(folder)!s:<44} {gens:>12} {seconds:>10.3f} {bg['s']:>9.3f} "
                  f"{seconds / bg['s']:>7.2f}  {pop}  {ok}", flush=True)
            rows.append({"pattern": str(path.relative_to(folder)), "generations": gens, "tensorca_s": seconds,
                         "bgolly_s": bg["s"], "population": pop, "bgolly_population": bg["population"], "ok": ok})
            if bg["s"] > args.heldout_limit:
                break
    bad = [r for r in rows if not r["ok"]]
    print(f"held-out: {len(rows)} runs, {len(rows) - len(bad)} populations equal to bgolly's" +
          (f"; MISMATCH: {bad}" if bad else ""))
    return rows


API_CASES = [("Gosper gun", "data:gosper_gun.rle", "1e9", 10**9), ("Gosper breeder", "data:breeder.rle", "2^30", 2**30)]


def api_and_cli(args: argparse.Namespace) -> list[dict]:
    """tensorca.run in a warm process, the CLI in a fresh one, bgolly: best of ``--repeat``."""
    rows = []
    print(f"{'case':<16} {'run() s':>9} {'CLI s':>8} {'bgolly s':>9} {'run/bg':>7} {'CLI/bg':>7}  population")
    for name, spec, text, gens in API_CASES:
        path = _path(spec, args.golly)
        pattern = tensorca.load(path)
        best_run = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            pop = tensorca.run(pattern, generations=gens).population
            best_run = min(best_run, time.perf_counter() - t0)
        best_cli = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "tensorca", "run", str(path), "--gens", text, "--no-progress"],
                                  capture_output=True, text=True, check=True)
            best_cli = min(best_cli, time.perf_counter() - t0)
            assert str(pop) in proc.stdout, proc.stdout
        bg = time_bgolly(args.bgolly, path, gens, args.repeat, args.max_mb)
        assert bg["population"] == pop
        print(f"{name:<16} {best_run:>9.4f} {best_cli:>8.3f} {bg['s']:>9.3f} {best_run / bg['s']:>7.2f} "
              f"{best_cli / bg['s']:>7.2f}  {pop}", flush=True)
        rows.append({"case": name, "generations": gens, "run_s": best_run, "cli_s": best_cli, "bgolly_s": bg["s"],
                     "population": pop})
    return rows


LOAD_SCRIPT = """
import resource, sys, time
import numpy as np, tensorca
from tensorca.hashlife import Universe
Universe.from_cells(np.ones((3, 3), np.uint8)).step(5).population
tensorca.io.loads("[M2]\\n*$\\n4 1 0 0 0\\n").bounding_box()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
p = tensorca.load(sys.argv[1])
box, pop = p.bounding_box(), p.population
t1 = time.perf_counter()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{t1 - t0:.3f} {(after - before) / 1024:.1f} {after / 1024:.0f} {p.tree_backed} {box[2]}x{box[3]} {pop}")
"""


def load_check(args: argparse.Namespace) -> dict:
    """metapixel-galaxy.mc.gz read as a tree in a fresh process: seconds, RSS added, peak RSS."""
    path = args.golly / "Patterns" / "HashLife" / "Metacell" / "metapixel-galaxy.mc.gz"
    best = None
    for _ in range(args.repeat):
        proc = subprocess.run([sys.executable, "-c", LOAD_SCRIPT, str(path)], capture_output=True, text=True,
                              check=True)
        fields = proc.stdout.split()
        if best is None or float(fields[0]) < float(best[0]):
            best = fields
    t0 = time.perf_counter()
    cold = subprocess.run([sys.executable, "-c", "import sys, tensorca; p = tensorca.load(sys.argv[1]); "
                           "print(p.population)", str(path)], capture_output=True, text=True, check=True)
    cold_s = time.perf_counter() - t0
    print(f"metapixel-galaxy.mc.gz: load {best[0]} s (+{best[1]} MB RSS, peak {best[2]} MB with Numba warm), "
          f"tree-backed {best[3]}, box {best[4]}, population {best[5]}; whole fresh process "
          f"(python, imports, Numba start-up, load, population) {cold_s:.2f} s -> {cold.stdout.strip()}")
    return {"load_s": float(best[0]), "added_mb": float(best[1]), "peak_mb": float(best[2]), "box": best[4],
            "fresh_process_s": cold_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bgolly", default=os.environ.get("BGOLLY", "/tmp/bgolly"))
    parser.add_argument("--golly", type=Path, default=Path("/tmp/golly"),
                        help="Golly source tree (for its Patterns folder)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-mb", type=int, default=500, help="memory budget of both sides (MB)")
    parser.add_argument("--eventful", type=int, help="also run Golly's HashLife/Eventful patterns to this generation")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--heldout", action="store_true", help="Golly's Patterns/HashLife files against bgolly")
    parser.add_argument("--heldout-limit", type=float, default=20.0,
                        help="stop a held-out pattern's climb once bgolly takes longer than this (s)")
    parser.add_argument("--api", action="store_true", help="time tensorca.run and the CLI on the headline cases")
    parser.add_argument("--load", action="store_true", help="read metapixel-galaxy.mc.gz in a fresh process")
    parser.add_argument("--only", action="store_true", help="skip the core table (with --heldout/--api/--load)")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}  load average before: {os.getloadavg()}")
    warm_up()
    extra: dict = {}
    if args.load:
        extra["load"] = load_check(args)
    if args.api:
        extra["api"] = api_and_cli(args)
    if args.heldout:
        extra["heldout"] = heldout(args)
    if args.only:
        print(f"load average after: {os.getloadavg()}")
        if args.json:
            args.json.write_text(json.dumps(extra, indent=1, default=str))
        return
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
        args.json.write_text(json.dumps({"core": rows, **extra}, indent=1, default=str))


if __name__ == "__main__":
    main()
