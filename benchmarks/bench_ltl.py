"""Larger than Life against Golly's own algorithm: ``ltl-cpu`` (and ``auto``'s pick, and torch) vs
``bgolly -a "Larger than Life"`` on the same soup for the same generations, with ratios.

    flock /tmp/tensorca-bench.lock .venv/bin/python benchmarks/bench_ltl.py [--bgolly /tmp/bgolly] [--quick]

A 1024^2 torus, 40% soup (``np.random.default_rng(0)``, as ``bench_bitpack.py --tables``), written
as RLE with the rule and ``:T1024,1024`` for bgolly (built from Golly's source under /tmp, not
committed). bgolly's rate is ``cells * generations / (wall(-m G) - wall(-m 0))`` (reading the
pattern and starting up subtracted), best of 2; tensorca's is the best of 3 ``advance`` calls after
a warm-up (kernels loaded), ``tensorca.run(backend="auto")`` once. bgolly's final pattern (the
bounding box of its live cells) is read back and compared cell for cell with the same box of
tensorca's (``match``), so the rates are for the same work.

Golly's ``ltlalgo`` steps only the bounding box of live cells (on a torus, the whole grid while
the soup is alive anywhere); rules whose soup dies out cost it almost nothing, so each row also
prints the final population. The floor column is the per-cell work of the count kernel
(:mod:`tensorca.engines.ltl.sums`) in vector passes over a row.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bench_bitpack import best_of  # noqa: E402  (the benchmarks folder is the script's)

import tensorca  # noqa: E402
from tensorca.crop import crop  # noqa: E402
from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.ltl.cpu import neighbourhood_plan  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

#: (label, rule, generations): the issue's three rules, plus a circle (row spans) for context.
RULES = (
    ("R5 Moore (Bosco)", "R5,C0,M1,S34..58,B34..45,NM", 400),
    ("R10 Moore (Bugsmovie)", "R10,C0,M1,S123..212,B123..170,NM", 400),
    ("R7 von Neumann", "R7,C0,M1,S30..50,B30..40,NN", 100),
    ("R7 von Neumann, Bosco's fractions", "R7,C0,M1,S32..54,B32..42,NN", 100),
    ("R5 circular", "R5,C0,M1,S30..50,B28..38,NC", 100),
    ("R7 von Neumann, soup dies at once", "R7,C0,M1,S1..20,B1..10,NN", 1000),
)


#: bgolly wall-time differences below this are start-up noise (the run cost it nothing measurable).
NOISE_S = 0.02


def bgolly_run(bgolly: str, cells: np.ndarray, rule: str, gens: int) -> tuple[float, np.ndarray] | None:
    """``(cell updates per second, final pattern)`` of bgolly's Larger than Life algorithm on
    ``cells`` as a torus (``inf`` when it took no measurable time: a soup that died at once); None
    when bgolly is missing or fails. bgolly writes the bounding box of
    the live cells (in the grid's own rectangle, no offset): compare it with :func:`crop`'s."""
    if not Path(bgolly).exists():
        return None
    h, w = cells.shape
    with tempfile.TemporaryDirectory() as tmp:
        start, final = Path(tmp) / "soup.rle", Path(tmp) / "final.rle"
        tensorca.save(start, tensorca.Pattern(cells, parse_rule(rule), tensorca.parse_topology(f"T{w},{h}")))

        def wall(m: int) -> float:
            best = float("inf")
            for _ in range(2):
                t0 = time.perf_counter()
                proc = subprocess.run([bgolly, "-a", "Larger than Life", "-q", "-q", "-m", str(m), "-o", str(final),
                                       str(start)], capture_output=True, text=True)
                best = min(best, time.perf_counter() - t0)
                if proc.returncode != 0:
                    raise RuntimeError(proc.stderr or proc.stdout)
            return best

        try:
            t0 = wall(0)
            tg = wall(gens)
        except RuntimeError as exc:
            print(f"bgolly failed: {exc}", file=sys.stderr)
            return None
        # a soup that dies at once costs bgolly no more than reading it: no rate to speak of
        rate = h * w * gens / (tg - t0) if tg - t0 > NOISE_S else float("inf")
        return rate, crop(tensorca.load(final).cells)[0]


def torch_advance(cells: np.ndarray, rule, topology: Topology, gens: int):
    import torch

    return get_engine("torch").advance(torch.from_numpy(cells), rule, topology, gens)


def floor_passes(text: str) -> str:
    """The count kernel's vector passes per output row (a pass: one load/op/store sweep of a row)."""
    spec = parse_rule(text).compile()
    plan = neighbourhood_plan(spec.perceive)
    lanes = f"{np.dtype(plan.count_dtype).name} counts"
    w = 2 * spec.perceive.radius + 1
    if plan.shape == "moore":  # alive, doublings and partial sums in uint8, then count + verdict
        window = 1 + (w.bit_length() - 1) + bin(w).count("1") - 1
        return f"{window} uint8 window passes + 1 count/verdict pass ({lanes})"
    if plan.shape == "diamond":
        return f"2 diagonal rows + 1 ten-load pass + verdict ({lanes})"
    return f"prefix scan + {len(plan.runs)} run passes + verdict ({lanes})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bgolly", default="/tmp/bgolly")
    parser.add_argument("--side", type=int, default=1024)
    parser.add_argument("--quick", action="store_true", help="a quarter of the generations")
    parser.add_argument("--torch", action="store_true", help="also time the torch engine (20 generations, CPU)")
    args = parser.parse_args()
    import numba

    side = args.side
    cells = (np.random.default_rng(0).random((1, side, side)) < 0.4).astype(np.uint8)
    topology = Topology.torus(side, side)
    engine = get_engine("ltl-cpu")
    print(f"# Larger than Life: ltl-cpu vs bgolly -a 'Larger than Life', {side}^2 torus, 40% soup, "
          f"threads {numba.config.NUMBA_NUM_THREADS}, cpu count {os.cpu_count()}")
    print(f"# load average before: {os.getloadavg()}")
    header = f"{'rule':36s} {'gens':>5s} {'Golly':>10s} {'ltl-cpu':>10s} {'ratio':>7s} {'auto':>16s}"
    header += f" {'torch':>9s}" if args.torch else ""
    print(header + f" {'final pop':>10s} {'vs Golly':>8s}  floor")
    for label, text, gens in RULES:
        gens = max(4, gens // 4) if args.quick else gens
        rule = parse_rule(text)
        engine.advance(cells, rule, topology, 2)  # load the kernels
        ours = engine.advance(cells, rule, topology, gens)
        t_ours = best_of(lambda r=rule, g=gens: engine.advance(cells, r, topology, g), 3)
        rate = cells.size * gens / t_ours
        choice = tensorca.explain(cells, rule, gens, topology=topology).engine
        t_auto = best_of(lambda r=rule, g=gens: tensorca.run(cells, r, g, topology=topology), 1)
        golly = bgolly_run(args.bgolly, cells[0], text, gens)
        g_rate = golly[0] if golly else float("nan")
        same = "-" if golly is None else ("match" if np.array_equal(golly[1], crop(ours[0])[0]) else "MISMATCH")
        measured = g_rate != float("inf")
        golly_text = f"{g_rate / 1e6:8.0f} M" if measured else "~0 s"
        ratio_text = f"{rate / g_rate:6.1f}x" if measured else "-"
        line = (f"{label:36s} {gens:5d} {golly_text:>10s} {rate / 1e9:8.2f} G {ratio_text:>7s} "
                f"{choice:>9s} {cells.size * gens / t_auto / 1e9:4.2f} G")
        if args.torch:
            torch_advance(cells, rule, topology, 1)  # warm-up: kernels, threads, allocator
            t_torch = best_of(lambda r=rule: torch_advance(cells, r, topology, 20), 1)
            line += f" {cells.size * 20 / t_torch / 1e6:7.0f} M"
        print(line + f" {int(np.count_nonzero(ours)):10d} {same:>8s}  {floor_passes(text)}", flush=True)
    print(f"# load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
