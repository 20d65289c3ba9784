"""Golly's results for emulated Margolus rules on tensorca's own soups: tests/data/margolus/golden.jsonl.

Usage (needs a built bgolly and Golly's Rules folder; nothing of Golly's is written to the repository):

    python scripts/make_margolus_golden.py --bgolly /tmp/bgolly --rules /path/to/golly/Rules

Each case is a random native block soup (seeded), encoded in Golly's emulated states
(:func:`tensorca.margolus.encode`), written as RLE with the rule ``<Golly's emulated rule>`` and
run by ``bgolly -a RuleLoader -s <Rules> -m <generations> -o out.rle in.rle``. The case keeps the
input RLE, the command and the sha256 of Golly's final grid (on a torus or plane: the whole grid;
on the unbounded plane: the box of non-zero cells, which an emulated pattern never leaves).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import tensorca
from tensorca.margolus import encode, parse_block_rule

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "margolus" / "golden.jsonl"

#: (case name, Golly rule, native rule, topology suffix or "" for unbounded, (H, W), phase, generations, soup)
CASES = [
    ("bbm_torus", "BBM-Margolus-emulated", "BBM", "T32,24", (24, 32), (0, 0), 300, "sparse"),
    ("bbm_plane", "BBM-Margolus-emulated", "BBM", "P30,22", (22, 30), (1, 1), 300, "sparse"),
    ("bbm_unbounded_hole", "BBM-Margolus-emulated", "BBM", "", (26, 34), (1, 0), 300, "hole"),
    ("critters_torus", "CrittersMargolus_emulated", "Critters", "T40,40", (40, 40), (0, 0), 500, "square"),
    ("critters_unbounded", "CrittersMargolus_emulated", "Critters", "", (30, 28), (0, 1), 400, "dense"),
    ("hpp_torus", "HPPMargolus_emulated", "HPP", "T48,32", (32, 48), (1, 1), 500, "dense"),
    ("hpp_unbounded_strip", "HPPMargolus_emulated", "HPP", "", (20, 24), (0, 0), 200, "strip"),
    ("tron_torus", "TripATronMargolus_emulated", "Tron", "T20,20", (20, 20), (0, 0), 200, "sparse"),
    ("tmgas_unbounded", "TMGasMargolus_emulated", "TMGas", "", (36, 40), (0, 0), 400, "gas"),
    ("sand_unbounded", "Sand-Margolus-emulated", "Sand", "", (40, 30), (0, 0), 300, "sand"),
    ("dla_unbounded", "DLA-Margolus-emulated", "DLA", "", (40, 40), (1, 1), 300, "dla"),
]


def soup(kind: str, shape: tuple[int, int], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, present)``: native states and the cells on the grid, for soup ``kind``."""
    h, w = shape
    present = np.ones(shape, dtype=bool)
    if kind == "sparse":
        cells = (rng.random(shape) < 0.12).astype(np.uint8)
    elif kind == "dense":
        cells = (rng.random(shape) < 0.5).astype(np.uint8)
    elif kind == "square":  # a random square in empty space, as in Golly's CrittersCircle
        cells = np.zeros(shape, np.uint8)
        cells[12:28, 12:28] = rng.random((16, 16)) < 0.5
    elif kind == "hole":  # a 6x8 hole of off-grid cells inside the region
        cells = (rng.random(shape) < 0.12).astype(np.uint8)
        present[9:15, 12:20] = False
    elif kind == "strip":  # a one-cell-wide strip of grid sticking out: Golly's emulation quirk
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        present[:, -3:] = False
        present[8:14, -3] = True
    elif kind == "gas":  # walls around, gas particles of the even phase inside, a wall bar
        cells = np.where(rng.random(shape) < 0.3, 2, 0).astype(np.uint8)
        cells[0, :] = cells[-1, :] = cells[:, 0] = cells[:, -1] = 1
        cells[10:26, 18:20] = 1
    elif kind == "sand":  # sand grains, a wood shelf, a source, empty bottom half
        cells = np.where(rng.random(shape) < 0.35, 1, 0).astype(np.uint8)
        cells[h // 2:, :] = 0
        cells[h // 2 + 4, 4:16] = 2
        cells[1, w // 2] = 3
    elif kind == "dla":  # gas with one stuck seed in the middle
        cells = (rng.random(shape) < 0.15).astype(np.uint8)
        cells[h // 2, w // 2] = 2
    else:
        raise ValueError(kind)
    return np.where(present, cells, 0).astype(np.uint8), present


def sha256(grid: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(grid, dtype=np.uint8).tobytes()).hexdigest()


def nonzero_box(grid: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(grid)
    return grid[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bgolly", required=True)
    parser.add_argument("--rules", required=True, help="Golly's Rules folder")
    parser.add_argument("--golly-version", default="jimblandy/golly 5c412348 (2025-07-03)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, golly_rule, native, suffix, shape, phase, generations, kind) in enumerate(CASES):
            rule = parse_block_rule(native)
            cells, present = soup(kind, shape, np.random.default_rng(4000 + index))
            assert cells.max() < rule.n_states
            grid = encode(cells, present, phase)
            rule_text = golly_rule + (f":{suffix}" if suffix else "")
            pattern = tensorca.Pattern(cells=grid, rule=None, origin=(0, 0))
            body = tensorca.dumps(pattern, "rle").split("\n", 1)[1]
            rle = f"x = {shape[1]}, y = {shape[0]}, rule = {rule_text}\n{body}"
            src, out = Path(tmp) / f"{name}.rle", Path(tmp) / f"{name}_out.rle"
            src.write_text(rle)
            command = [args.bgolly, "-q", "-q", "-a", "RuleLoader", "-s", args.rules.rstrip("/") + "/",
                       "-m", str(generations), "-o", str(out), str(src)]
            subprocess.run(command, check=True, capture_output=True)
            # Golly's output names a rule tensorca may not find here: read its cells without the rule.
            rest = out.read_text().split("\n", 1)[1]
            cells_out = np.asarray(tensorca.loads("x = 0, y = 0\n" + rest).cells)
            if suffix:
                full = np.zeros(shape, np.uint8)
                full[: cells_out.shape[0], : cells_out.shape[1]] = cells_out
                final_grid = full
            else:
                final_grid = nonzero_box(cells_out)
            rows.append({
                "name": name, "rule": rule_text, "native": native, "generations": generations,
                "initial_rle": rle, "final_sha256": sha256(final_grid), "final_shape": list(final_grid.shape),
                "final_population": int(np.count_nonzero(final_grid)),
                "bgolly": f"bgolly -a RuleLoader -s <Golly>/Rules/ -m {generations} -o out.rle in.rle",
                "golly": args.golly_version,
            })
            print(name, rows[-1]["final_sha256"][:12], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
