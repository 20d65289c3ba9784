"""Where bitpack-gpu's batch layouts change over on a CUDA device: the two thresholds of
:class:`~tensorca.engines.bitpack.gpu.BitpackGpu` that are counted, not yet measured.

- ``LANES_MIN_BATCH``: from how many grids lane-per-grid (32 grids a word) beats row-packed grids
  (each grid its own words; small grids one program each in ``whole_kernel``). Timed end to end
  through the engine, packing and unpacking included, since that is what a user's batch pays.
- ``lanes_whole_min_groups``: from how many groups of 32 grids (per multiprocessor) running all
  generations in one launch (``lanes_whole_kernel``, one program a group) beats one generation a
  launch over tiles (``lanes_step_kernel``). Timed on lane words, the kernels alone.

B3/S23 on tori, 50% soups, ``--gens`` generations::

    python benchmarks/gpu_layouts.py --device cuda [--sides 64,16] [--json layouts.json]

One JSON line per batch as it is measured (the JSON file is rewritten after each, so a run cut
short by a time limit keeps its rows), then the thresholds the figures suggest (:func:`suggest`).
``--device cpu`` runs the same path in Triton's interpreter at toy sizes (a smoke test: its
figures mean nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bitpack import RULE, measure_rate, soup  # noqa: E402

from tensorca.topology import Topology  # noqa: E402

#: Batch sizes around the counted thresholds: LANES_MIN_BATCH = 24, and whole groups from a quarter
#: of an H200's 132 multiprocessors (33 groups, 1056 grids).
BATCHES = (4, 8, 16, 24, 32, 64, 128, 256, 512, 1024, 2048, 4096)
SIDES = (64, 16)


def sweep(device: str = "cuda", sides=SIDES, batches=BATCHES, gens: int = 256,
          progress: Path | None = None) -> dict:
    """Rates (cell updates a second) for each side and batch: ``rows`` and ``lanes`` end to end,
    ``lanes_step`` and ``lanes_whole`` on lane words. ``progress``: rewritten after every batch."""
    import torch
    import triton

    from tensorca.engines.bitpack.gpu import LANES_MIN_BATCH, BitpackGpu, BitpackGpuEngine, _multiprocessors
    from tensorca.engines.bitpack.pack import pack_lanes_torch

    dev = torch.device(device)
    cuda = dev.type == "cuda"
    result = {
        "device": torch.cuda.get_device_name(dev) if cuda else "cpu (Triton interpreter)",
        "sms": _multiprocessors(dev),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "gens": gens,
        "lanes_min_batch_now": LANES_MIN_BATCH,
        "lanes_whole_min_groups_now": BitpackGpu().lanes_whole_min_groups,
        "rows": [],
    }
    rows_engine = BitpackGpuEngine(BitpackGpu(lanes_min_batch=None))
    lanes_engine = BitpackGpuEngine(BitpackGpu(lanes_min_batch=1, lanes_max_width=1 << 30))
    lanes = BitpackGpu()
    for side in sides:
        torus = Topology.torus(side, side)
        for batch in batches:
            cells = torch.from_numpy(soup((batch, side, side), seed=batch)).to(dev)
            work = batch * side * side * gens
            row = {"side": side, "batch": batch, "groups": -(-batch // 32)}
            for key, engine in (("rows", rows_engine), ("lanes", lanes_engine)):
                measure_rate(row, key, lambda e=engine, c=cells, t=torus: e.advance(c, RULE, t, gens), work, cuda, 3)
            words = pack_lanes_torch(cells)
            for mode in ("step", "whole"):
                measure_rate(row, f"lanes_{mode}", lambda w=words, m=mode: lanes.advance_lanes(w, RULE, True, gens, m),
                             work, cuda, 3)
            result["rows"].append(row)
            print(json.dumps(row), flush=True)
            if progress is not None:
                progress.write_text(json.dumps(result, indent=1))
    return result


def _from_where(rows: list[dict], key: str, better: str, worse: str) -> int | None:
    """The smallest ``rows[i][key]`` from which ``better`` is at least ``worse`` in that row and every
    later one (rows in increasing ``key``); None when the last row has ``worse`` ahead or no figure."""
    found = None
    for row in reversed(rows):
        b, w = row.get(better), row.get(worse)
        if not (isinstance(b, (int, float)) and isinstance(w, (int, float)) and b >= w):
            break
        found = row[key]
    return found


def suggest(result: dict) -> dict[int, dict]:
    """Per side: ``lanes_min_batch`` (the smallest batch from which lanes end to end is at least rows
    end to end, at that batch and every larger one measured) and ``lanes_whole_min_groups`` (the
    same for lanes_whole against lanes_step, in groups per multiprocessor); None where the other
    layout or kernel still wins at the largest batch."""
    out = {}
    for side in sorted({row["side"] for row in result["rows"]}, reverse=True):
        rows = sorted((row for row in result["rows"] if row["side"] == side), key=lambda row: row["batch"])
        groups = _from_where(rows, "groups", "lanes_whole", "lanes_step")
        out[side] = {"lanes_min_batch": _from_where(rows, "batch", "lanes", "rows"),
                     "lanes_whole_min_groups": None if groups is None else groups / max(1, result["sms"])}
    return out


def markdown(result: dict) -> str:
    """The rates as a table (G cell updates a second) and the suggested thresholds."""
    def giga(value) -> str:
        return f"{value / 1e9:,.1f}" if isinstance(value, (int, float)) else "-"

    lines = [f"Batches of B3/S23 tori, {result['gens']} generations, G cell updates/s (`gpu_layouts.py`); "
             f"{result['sms']} multiprocessors", "",
             "| grids | groups of 32 | rows, end to end | lanes, end to end | lanes / rows | "
             "lanes_step_kernel | lanes_whole_kernel | whole / step |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def ratio(a, b) -> str:
        return f"{a / b:.2f}" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 else "-"

    for row in result["rows"]:
        lines.append(f"| {row['batch']} x {row['side']}^2 | {row['groups']} | {giga(row.get('rows'))} | "
                     f"{giga(row.get('lanes'))} | {ratio(row.get('lanes'), row.get('rows'))} | "
                     f"{giga(row.get('lanes_step'))} | {giga(row.get('lanes_whole'))} | "
                     f"{ratio(row.get('lanes_whole'), row.get('lanes_step'))} |")
    lines.append("")
    for side, found in suggest(result).items():
        batch, groups = found["lanes_min_batch"], found["lanes_whole_min_groups"]
        lanes = f"lanes win from {batch} grids" if batch else "rows win at the largest batch"
        whole = (f"the whole-group kernel wins from {groups:.3f} groups a multiprocessor" if groups is not None
                 else "the one-generation kernel wins at the largest batch")
        lines.append(f"- {side}^2: {lanes} (LANES_MIN_BATCH now {result['lanes_min_batch_now']}); {whole} "
                     f"(lanes_whole_min_groups now {result['lanes_whole_min_groups_now']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--sides", default=",".join(map(str, SIDES)))
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)))
    parser.add_argument("--gens", type=int, default=256)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    result = sweep(args.device, [int(s) for s in args.sides.split(",")],
                   [int(b) for b in args.batches.split(",")], args.gens, args.json)
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
