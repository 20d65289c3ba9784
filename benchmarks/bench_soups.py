"""Soup census throughput against the big-grid kernel, measured in the same run.

Issue 16 asks for >= 10 soups/s per G CUPS of bitpack-cpu's big-grid rate. This times, in one
process and one after the other:

- ``soup_search`` of ``--count`` B3/S23 soups (seed ``--seed``) with the first tiers in lanes
  (the default on bitpack-cpu) and with the generic per-chunk path the lanes replace;
- bitpack-cpu on one 4096^2 torus soup (40 %) for ``--gens`` generations, end to end, before and
  after everything else (the best of the two counts: a low reading would flatter the ratio);

and prints soups/s, the ratio to the big-grid G CUPS, and whether both census paths agree.
``--workers N`` also times apgsearch's soups (``soup_census``, root ``k_bench``) in this process
and on a LocalCluster of N worker processes started beforehand as ``soup_census(workers=N)``
starts them, each warmed (neither is timed): the census using every core, as the big grid does::

    .venv/bin/python benchmarks/bench_soups.py [--count 1000] [--generic-count N] [--workers 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tensorca.engines import get_engine  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.search import soups  # noqa: E402
from tensorca.topology import Topology  # noqa: E402


def big_grid_rate(side: int, gens: int) -> float:
    """bitpack-cpu cell updates per second on one ``side``^2 torus soup (best of 2 after a warm-up)."""
    cells = (np.random.default_rng(1).random((1, side, side)) < 0.4).astype(np.uint8)
    engine, rule, torus = get_engine("bitpack-cpu"), parse_rule("B3/S23"), Topology.torus(side, side)
    engine.advance(cells, rule, torus, 2)
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        engine.advance(cells, rule, torus, gens)
        best = min(best, time.perf_counter() - t0)
    return side * side * gens / best


def census_rate(count: int, seed: int, lanes: bool) -> tuple[float, soups.SoupSearchResult]:
    """Soups per second of ``soup_search`` on bitpack-cpu, with or without the lane tiers."""
    keep = soups.lane_module_for
    if not lanes:
        soups.lane_module_for = lambda rule: None
    try:
        soups.soup_search(50, "B3/S23", seed=seed + 1, backend="bitpack-cpu")  # compile and warm caches
        t0 = time.perf_counter()
        result = soups.soup_search(count, "B3/S23", seed=seed, backend="bitpack-cpu")
        return count / (time.perf_counter() - t0), result
    finally:
        soups.lane_module_for = keep


def _warm_worker() -> None:
    """Load every kernel a census uses in this process (run on each worker before timing)."""
    from tensorca.search.distributed import soup_census

    soup_census(200, "k_warm", backend="bitpack-cpu")


def cluster_rates(count: int, workers: int) -> dict:
    """soups/s of ``soup_census`` in this process and on ``workers`` local processes (same soups),
    the cluster started as ``soup_census(workers=N)`` starts it (:func:`tensorca.cluster.connect`)
    and every worker warmed beforehand (neither is timed)."""
    from tensorca.cluster import connect
    from tensorca.search.distributed import soup_census

    _warm_worker()
    t0 = time.perf_counter()
    alone = soup_census(count, "k_bench", backend="bitpack-cpu")
    alone_rate = count / (time.perf_counter() - t0)
    with connect(workers, heap_malloc=True) as client:
        client.run(_warm_worker)
        t0 = time.perf_counter()
        spread = soup_census(count, "k_bench", client=client, backend="bitpack-cpu")
        spread_rate = count / (time.perf_counter() - t0)
    return {"census_in_process_soups_per_s": alone_rate, f"census_{workers}_workers_soups_per_s": spread_rate,
            "census_same": alone.counts == spread.counts, "workers": workers,
            "task_seconds": spread.task_seconds}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gens", type=int, default=100, help="generations of the 4096^2 big-grid run")
    parser.add_argument("--workers", type=int, default=0, help="also time soup_census on this many processes")
    parser.add_argument("--generic-count", type=int, default=None,
                        help="soups for the generic path's comparison (default: --count; 0 skips it)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    cups_before = big_grid_rate(4096, args.gens)
    lanes_rate, lanes = census_rate(args.count, args.seed, lanes=True)
    generic_count = args.count if args.generic_count is None else args.generic_count
    if generic_count:
        generic_rate, generic = census_rate(generic_count, args.seed, lanes=False)
        if generic_count != args.count:
            _, lanes_part = census_rate(generic_count, args.seed, lanes=True)
            same = lanes_part.counts == generic.counts
        else:
            same = lanes.counts == generic.counts
    else:
        generic_rate, same = float("nan"), None
    spread = cluster_rates(args.count, args.workers) if args.workers else {}
    # the best big-grid rate of two measurements, before and after the census runs (the machine is
    # shared: one low reading would flatter the ratios)
    cups = max(cups_before, big_grid_rate(4096, args.gens))
    gcups = cups / 1e9
    result = {
        "count": args.count, "seed": args.seed, "load": os.getloadavg(),
        "lanes_soups_per_s": lanes_rate, "generic_soups_per_s": generic_rate,
        "big_grid_gcups": gcups, "big_grid_gcups_before": cups_before / 1e9,
        "soups_per_s_per_gcups": lanes_rate / gcups,
        "generic_count": generic_count, "same_census": same, "objects": lanes.objects,
        "unstable": lanes.unstable, "promoted": lanes.promoted, **spread,
    }
    print(f"soup census, {args.count} B3/S23 soups (seed {args.seed}), load {os.getloadavg()[0]:.2f}")
    print(f"  lanes    {lanes_rate:8.1f} soups/s  ({lanes.objects} objects, {lanes.promoted} promoted, "
          f"{lanes.unstable} unstable)")
    print(f"  generic  {generic_rate:8.1f} soups/s  ({generic_count} soups; same census: {same})")
    print(f"  bitpack-cpu 4096^2 x {args.gens}: {gcups:.1f} G CUPS (best of before and after the census; "
          f"{cups_before / 1e9:.1f} before)")
    print(f"  ratio    {result['soups_per_s_per_gcups']:.2f} soups/s per G CUPS (issue 16 target: 10)")
    if args.workers:
        rate = spread[f"census_{args.workers}_workers_soups_per_s"]
        result[f"census_{args.workers}_workers_per_gcups"] = rate / gcups
        print(f"  soup_census in process {spread['census_in_process_soups_per_s']:.1f} soups/s, "
              f"{args.workers} workers {rate:.1f} soups/s (same census: {spread['census_same']}; tasks "
              f"{', '.join(f'{t:.1f}' for t in spread['task_seconds'])} s); "
              f"ratio {rate / gcups:.2f} soups/s per G CUPS")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
