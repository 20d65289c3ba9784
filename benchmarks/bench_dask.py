"""The dask engine and the distributed soup census, measured (docs/dask.md, BENCHMARKS.md).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_dask.py engine      # 4096^2 torus, 3000x2000 plane
    PYTHONPATH=src .venv/bin/python benchmarks/bench_dask.py census --count 3000 [--workers 1,2]
    PYTHONPATH=src .venv/bin/python benchmarks/bench_dask.py outofcore --side 16384 --memory 300MiB

- ``engine``: 100 generations of B3/S23 on the issue's grids chunked by 1024, local bitpack-cpu
  against the dask engine (inner bitpack-cpu) on Dask's threads and on a LocalCluster of 2
  processes, for several k; checks the cells are equal; reports the exchange share explain predicts
  and the cells moved per exchange.
- ``census``: the same census of ``--count`` apgsearch soups on a LocalCluster of 1, 2, ... worker
  processes (cluster start excluded and included), equality of the censuses, per-task seconds.
- ``outofcore``: a ``side x side`` soup generated chunk by chunk, ``--gens`` generations written to a
  zarr store on a LocalCluster of 2 workers whose memory limit is below the grid's size; reports the
  workers' peak resident memory (``ru_maxrss``) against the grid's bytes, and checks a sample of the
  result against a local run.

Every figure comes with the load averages (``os.getloadavg``) at its start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import tempfile
import time

import numpy as np


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def timed(fn, repeats: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        began = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times), out


def engine_bench(args: argparse.Namespace) -> dict:
    import dask
    from distributed import Client, LocalCluster

    import tensorca
    from tensorca.engines import get_engine
    from tensorca.rules.spec import resolve
    from tensorca.topology import Topology

    life = resolve("B3/S23")[0]
    local = get_engine("bitpack-cpu")
    results = []
    cases = [c for c in [("torus", 4096, 4096), ("plane", 2000, 3000)] if args.only in c[0]]
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        for kind, height, width in cases:
            topology = Topology(kind, width, height)
            cells = (np.random.default_rng(1).random((1, height, width)) < 0.4).astype(np.uint8)
            local.advance(cells[:, :64, :64], life, Topology.plane(64, 64), 1)  # kernels loaded
            t_local, want = timed(lambda c=cells, t=topology: local.advance(c, life, t, 100), args.repeats)
            row = {"grid": f"{kind} {width}x{height}", "local_bitpack_s": t_local, "load_before": load(), "runs": []}
            for k in (None, 1, 5, 25, 100):
                engine = get_engine("dask").with_options(chunks=1024, inner="bitpack-cpu", k=k)
                plan = engine.plan(life, topology, cells.shape, 100)
                for where in ("threads", "cluster"):
                    config = {"scheduler": "threads"} if where == "threads" else {"scheduler": client.get}
                    with dask.config.set(**config):
                        seconds, got = timed(lambda e=engine, c=cells, t=topology: tensorca.run(
                            c, life, 100, topology=t, backend=e), args.repeats)
                    row["runs"].append({"k": plan.k, "asked_k": k, "where": where, "seconds": seconds,
                                        "equal": bool(np.array_equal(got, want)),
                                        "predicted_shares": plan.shares(), "halo_cells_per_exchange": plan.halo_cells,
                                        "exchanges": -(-100 // plan.k)})
            row["load_after"] = load()
            results.append(row)
            print(json.dumps(row, indent=1))
    return {"engine": results}


def census_bench(args: argparse.Namespace) -> dict:
    from tensorca.cluster import connect
    from tensorca.search.distributed import soup_census

    rows = []
    reference = None
    for workers in [int(w) for w in args.workers.split(",")]:
        before = load()
        began = time.perf_counter()
        with connect(workers=workers, heap_malloc=True) as client:  # as soup_census starts its cluster
            started = time.perf_counter() - began
            client.run(lambda: __import__("tensorca.search.soups"))  # imports paid before the clock, as in-process
            census = soup_census(args.count, args.seed, client=client, backend=args.backend)
        total = time.perf_counter() - began
        same = reference is None or (census.counts == reference.counts and census.samples == reference.samples)
        reference = reference or census
        row = {"workers": workers, "census_s": census.seconds, "with_cluster_start_s": total,
               "cluster_start_s": started, "tasks": census.tasks, "task_s_mean": statistics.mean(census.task_seconds),
               "task_s_max": max(census.task_seconds), "soups": census.soups, "objects": census.objects,
               "same_census_as_first": same, "load_before": before, "load_after": load()}
        rows.append(row)
        print(json.dumps(row))
    base = rows[0]["census_s"]
    for row in rows:
        row["speedup_vs_first"] = base / row["census_s"]
    return {"census": rows}


def _peak_rss_kib() -> int:
    """Peak resident memory of this address space (VmHWM): ru_maxrss would keep the forking parent's peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def outofcore_bench(args: argparse.Namespace) -> dict:
    from distributed import Client, LocalCluster

    import tensorca
    from tensorca.engines import get_engine
    from tensorca.outofcore.soup import lazy_soup
    from tensorca.persist.zarr_store import open_store

    side, gens = args.side, args.gens
    folder = tempfile.mkdtemp(prefix="tensorca-ooc-", dir=args.dir)
    store = os.path.join(folder, "grid.zarr")
    row: dict = {"side": side, "cells": side * side, "grid_bytes": side * side, "gens": gens,
                 "worker_memory_limit": args.memory, "load_before": load()}
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                          memory_limit=args.memory) as cluster, Client(cluster) as client:
            client.run(lambda: __import__("tensorca.engines.dask_engine"))
            row["inner"] = args.inner
            row["worker_rss_start_MiB"] = {w: v / 1024 for w, v in client.run(_peak_rss_kib).items()}
            soup = lazy_soup(side, side, 0.5, seed=1, chunks=args.chunks)
            engine = get_engine("dask").with_options(chunks=args.chunks, inner=args.inner)
            began = time.perf_counter()
            tensorca.run(soup[0], "B3/S23", gens, backend=engine, checkpoint=store, checkpoint_every=args.every)
            row["seconds"] = time.perf_counter() - began
            peaks = client.run(_peak_rss_kib)
            row["worker_peak_rss_MiB"] = {w: v / 1024 for w, v in peaks.items()}
            row["client_peak_rss_MiB"] = _peak_rss_kib() / 1024
            row["store_bytes"] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(store) for f in fs)
            saved = open_store(store)
            row["generation"] = saved.generation
            # a corner 600x600 window, recomputed locally from the same soup on a plane-free torus check:
            # the cells within gens of the window's inside edge of a torus depend only on the soup there
            y, x, w = side // 3, side // 5, 600
            pad = gens
            window = lazy_soup(side, side, 0.5, seed=1, chunks=args.chunks)[0, y - pad : y + w + pad,
                                                                              x - pad : x + w + pad].compute()
            local = get_engine("bitpack-cpu").advance(window[None], tensorca.parse_rule("B3/S23"),
                                                      tensorca.Topology.plane(w + 2 * pad, w + 2 * pad), gens)[0]
            got = saved.grid[0, y : y + w, x : x + w].compute()
            row["window_equal"] = bool(np.array_equal(got, local[pad:-pad, pad:-pad]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row["load_after"] = load()
    limit = tensorca_bytes(args.memory)
    row["grid_over_worker_limit"] = side * side / limit
    row["max_worker_peak_over_grid"] = max(row["worker_peak_rss_MiB"].values()) * 2**20 / (side * side)
    print(json.dumps(row, indent=1))
    return {"outofcore": row}


def tensorca_bytes(text: str) -> int:
    from tensorca.cli._args import byte_size

    return byte_size(text)


def main() -> None:
    import faulthandler
    import sys

    faulthandler.dump_traceback_later(900, repeat=True, file=sys.stderr)  # a hang shows where it is
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    e = sub.add_parser("engine")
    e.add_argument("--repeats", type=int, default=3)
    e.add_argument("--only", default="", help="torus or plane")
    c = sub.add_parser("census")
    c.add_argument("--count", type=int, default=3000)
    c.add_argument("--seed", default="k_tensorca_bench")
    c.add_argument("--workers", default="1,2")
    c.add_argument("--backend", default="bitpack-cpu")
    o = sub.add_parser("outofcore")
    o.add_argument("--side", type=int, default=16384)
    o.add_argument("--gens", type=int, default=20)
    o.add_argument("--every", type=int, default=10)
    o.add_argument("--chunks", type=int, default=2048)
    o.add_argument("--memory", default="300MiB")
    o.add_argument("--dir", default=None)
    o.add_argument("--inner", default="bitpack-cpu")
    for p in (e, c, o):
        p.add_argument("--json", default=None)
    args = parser.parse_args()
    result = {"engine": engine_bench, "census": census_bench, "outofcore": outofcore_bench}[args.what](args)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
