"""Rule-table speed: the torch tree engine against Golly's RuleLoader (``bgolly``) on one WireWorld soup.

Usage::

    python benchmarks/bench_ruletable.py --bgolly /tmp/bgolly --size 1024 --generations 200

Both run the same random WireWorld soup (states 0..3, uniform) on a ``size x size`` torus for
``--generations`` generations. bgolly's time is the wall time of ``bgolly -a RuleLoader`` for
``generations`` minus that for 0 generations (process start and file reading); tensorca's is the
best of ``--repeats`` runs of ``tensorca.run(..., backend="torch")`` after one warm-up. The final
grids are compared cell for cell (populations and the hash of the grid cropped to its live cells),
so the figures are for the same computation. Prints one JSON line per engine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import tensorca

RULES = Path(__file__).resolve().parent.parent / "src" / "tensorca" / "data" / "rules"


def cropped_digest(cells: np.ndarray) -> tuple[int, str]:
    """Population and sha256 of ``cells`` cropped to its non-zero cells (placement-independent)."""
    nz = np.argwhere(cells)
    if not len(nz):
        return 0, ""
    (y0, x0), (y1, x1) = nz.min(0), nz.max(0)
    crop = np.ascontiguousarray(cells[y0 : y1 + 1, x0 : x1 + 1], dtype=np.uint8)
    return int((crop != 0).sum()), hashlib.sha256(crop.tobytes()).hexdigest()


def run_bgolly(bgolly: str, pattern: Path, generations: int, out: Path) -> float:
    """Wall seconds of one ``bgolly -a RuleLoader`` run writing its result to ``out``."""
    start = time.perf_counter()
    subprocess.run([bgolly, "-a", "RuleLoader", "-s", f"{RULES}/", "-m", str(generations), "-q", "-q",
                    "-o", str(out), str(pattern)], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bgolly", default="/tmp/bgolly")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--generations", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    n, gens = args.size, args.generations
    rule = f"WireWorld:T{n},{n}"
    soup = np.random.default_rng(args.seed).integers(0, 4, size=(n, n), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        pattern = Path(tmp) / "soup.rle"
        tensorca.save(pattern, tensorca.Pattern(soup, tensorca.parse_rule("WireWorld"),
                                                tensorca.parse_topology(f"T{n},{n}")))
        load_s = run_bgolly(args.bgolly, pattern, 0, Path(tmp) / "zero.rle")
        golly_s = run_bgolly(args.bgolly, pattern, gens, Path(tmp) / "final.rle") - load_s
        golly_final = np.asarray(tensorca.load(Path(tmp) / "final.rle", rules_dir=RULES).cells)
    cells = torch.from_numpy(soup[None]).to(args.device)
    tensorca.run(cells, rule, generations=2, backend="torch")  # warm-up: builds the step, pages in
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        final = tensorca.run(cells, rule, generations=gens, backend="torch")
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    final_np = final[0].cpu().numpy()
    same = cropped_digest(final_np) == cropped_digest(golly_final)
    updates = n * n * gens
    load = os.getloadavg()[0]
    for engine, seconds in (("bgolly RuleLoader", golly_s), (f"tensorca torch ({args.device})", best)):
        print(json.dumps({"engine": engine, "size": n, "generations": gens, "seconds": round(seconds, 4),
                          "cups": round(updates / seconds), "identical": same, "load_average": load,
                          "torch_threads": torch.get_num_threads()}))
    print(json.dumps({"speedup_vs_bgolly": round(golly_s / best, 2), "identical": same}))


if __name__ == "__main__":
    main()
