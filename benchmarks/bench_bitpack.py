"""Benchmark the bit-packed engines: cell updates per second (CUPS) against the NumPy reference and
the ``dense-conv`` baseline, measured in the same run, with the floors counted from the kernels.

CPU (default)::

    .venv/bin/python benchmarks/bench_bitpack.py            # 256^2, 1024^2, 4096^2, batch of 64^2
    .venv/bin/python benchmarks/bench_bitpack.py --quick    # shorter runs

GPU (a CUDA machine with Triton)::

    python benchmarks/bench_bitpack.py --device cuda        # sweep gens/launch x grid size, 16384^2 incl.

Table rules (Life as a MAP string, Hensel letters, a random MAP) against numpy, torch and Golly's
QuickLife (``bgolly``, built from Golly's source under /tmp, not committed)::

    .venv/bin/python benchmarks/bench_bitpack.py --tables [--bgolly /tmp/bgolly]

Skipping what has settled (bitpack-cpu's column kernels with and without skipping, the row
kernels they replaced, QuickLife; B3/S23 for 1000, 4000 and 10000 generations, the --tables rules, and
the overhead on fresh soups)::

    .venv/bin/python benchmarks/bench_bitpack.py --settle [--bgolly /tmp/bgolly]

One big soup (B3/S23 torus, 40%: 4096^2 and 1024^2, 100 and 1000 generations, end to end): the
engine's tiled path with several generations per parallel region, the same one generation per
region, and QuickLife on the same soup, with the tiled kernel's operation-count floor::

    .venv/bin/python benchmarks/bench_bitpack.py --big [--json out.json] [--bgolly /tmp/bgolly]

Rule B3/S23 on a torus, random soup of density 0.5 (the kernels do the same work on any state).
``packed`` times the engine's multi-generation loop on packed words (the grid stays packed
between generations, as in ``advance``); ``end-to-end`` adds packing and unpacking the bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.bitpack.circuit import kernel_op_count, rule_expression  # noqa: E402
from tensorca.engines.bitpack.pack import n_words, pack  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

RULE = parse_rule("B3/S23")


def timed(fn, repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def device_seconds(fn, cuda: bool, repeats: int = 5) -> float:
    """Median seconds of ``fn()`` on the device between CUDA events, after a warm-up run (which
    compiles); one untimed-warm-up wall-clock run where ``cuda`` is False (the interpreter's smoke
    test)."""
    if not cuda:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    import torch

    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def measure_rate(row: dict, key: str, fn, cell_gens: int, cuda: bool, repeats: int = 5) -> None:
    """``row[key]`` = cell updates a second of ``fn`` (``cell_gens`` of them), or the error it raised
    (a tile that does not fit, memory at 16384^2, say) so that one failure costs one figure."""
    try:
        row[key] = cell_gens / device_seconds(fn, cuda, repeats)
    except Exception as exc:
        row[key] = f"error: {type(exc).__name__}: {exc}"[:200]


def soup(shape, seed=0) -> np.ndarray:
    return (np.random.default_rng(seed).random(shape) < 0.5).astype(np.uint8)


def dense_conv_engine():
    """The ``dense-conv`` engine, or a local float32-conv stand-in with the same recipe."""
    try:
        return get_engine("dense-conv"), "dense-conv"
    except Exception:  # pragma: no cover - only before the engine lands
        import torch
        import torch.nn.functional as F

        class LocalConv:
            def advance(self, cells, rule, topology, generations):
                kernel = torch.ones((1, 1, 3, 3), dtype=torch.float32, device=cells.device)
                kernel[0, 0, 1, 1] = 0
                grid = (cells == 1).to(torch.float32)[:, None]
                for _ in range(generations):
                    n = F.conv2d(F.pad(grid, (1, 1, 1, 1), mode="circular"), kernel)
                    grid = ((n == 3) | ((grid == 1) & (n == 2))).to(torch.float32)
                return grid[:, 0].to(torch.uint8)

        return LocalConv(), "local float32 conv"


def cpu_bench(quick: bool) -> dict:
    import numba
    import torch

    from tensorca.engines.bitpack.cpu import advance_packed

    cpu = get_engine("bitpack-cpu")
    ref = get_engine("numpy")
    conv, conv_name = dense_conv_engine()
    repeats = 3 if quick else 5
    # (label, batch, side, generations for bitpack, for numpy, for dense-conv)
    cases = [
        ("256^2", 1, 256, 2000, 20, 50),
        ("1024^2", 1, 1024, 400, 3, 5),
        ("4096^2", 1, 4096, 40 if quick else 100, 1, 1),
        ("1024 x 64^2", 1024, 64, 200, 1, 2),
    ]
    rows = []
    for label, batch, side, g_bp, g_ref, g_conv in cases:
        cells = soup((batch, side, side))
        topology = Topology.torus(side, side)
        n_cells = batch * side * side
        words = pack(cells, 64)
        t_packed = timed(lambda w=words, s=side, g=g_bp: advance_packed(w, s, RULE, True, g), repeats)
        t_e2e = timed(lambda c=cells, t=topology, g=g_bp: cpu.advance(c, RULE, t, g), max(1, repeats // 2))
        t_ref = timed(lambda c=cells, t=topology, g=g_ref: ref.advance(c, RULE, t, g), 1 if side >= 1024 else 2)
        tensor = torch.from_numpy(cells)
        t_conv = timed(lambda c=tensor, t=topology, g=g_conv: conv.advance(c, RULE, t, g), 1 if side >= 1024 else 2)
        row = {
            "grid": label,
            "bitpack_packed": n_cells * g_bp / t_packed,
            "bitpack_end_to_end": n_cells * g_bp / t_e2e,
            "numpy": n_cells * g_ref / t_ref,
            "dense_conv": n_cells * g_conv / t_conv,
            "gens": {"bitpack": g_bp, "numpy": g_ref, "dense_conv": g_conv},
            "bytes_per_gen": 2 * batch * side * n_words(side, 64) * 8,
        }
        row["x_numpy"] = row["bitpack_packed"] / row["numpy"]
        row["x_dense_conv"] = row["bitpack_packed"] / row["dense_conv"]
        rows.append(row)
        print(
            f"{label:>12}  bitpack-cpu {row['bitpack_packed'] / 1e9:8.2f} G "
            f"(end-to-end {row['bitpack_end_to_end'] / 1e9:7.2f} G)"
            f"  numpy {row['numpy'] / 1e6:8.1f} M  {conv_name} {row['dense_conv'] / 1e6:8.1f} M"
            f"  x{row['x_numpy']:,.0f} numpy  x{row['x_dense_conv']:,.0f} dense-conv",
            flush=True,
        )
    ops = kernel_op_count(rule_expression(RULE.birth, RULE.survival))
    return {
        "device": "cpu",
        "threads": numba.get_num_threads(),
        "torch_threads": torch.get_num_threads(),
        "baseline": conv_name,
        "ops_per_word": ops,
        "rows": rows,
    }


#: Batches the GPU sweep times in both layouts (row-packed and lane-per-grid): (grids, side).
GPU_BATCHES = [(4096, 64), (16384, 16), (256, 256)]


def gpu_bench(quick: bool, sizes: list[int], gens_list: list[int], batches=GPU_BATCHES, device: str = "cuda",
              total_gens: int | None = None, progress: Path | None = None) -> dict:
    """bitpack-gpu on ``device``: kernels on packed words (every launch configuration) and the engine
    end to end (packing included), for single grids of ``sizes`` and the ``batches``; batches also
    lane-per-grid. ``device="cpu"`` runs the same path in Triton's interpreter (a smoke test).
    ``progress``: a JSON file rewritten after every grid (so a run cut short by a time limit still
    leaves its rows)."""
    import torch
    import triton

    from tensorca.engines.bitpack.gpu import BitpackGpu, BitpackGpuEngine
    from tensorca.engines.bitpack.pack import pack_lanes_torch, pack_torch

    dev = torch.device(device)
    cuda = dev.type == "cuda"
    conv, conv_name = dense_conv_engine()
    ops = kernel_op_count(rule_expression(RULE.birth, RULE.survival))

    def measure(row, key, fn, cell_gens, repeats=5):
        measure_rate(row, key, fn, cell_gens, cuda, repeats)

    result = {
        "device": torch.cuda.get_device_name(dev) if cuda else "cpu (Triton interpreter)",
        "sms": torch.cuda.get_device_properties(dev).multi_processor_count if cuda else 0,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "baseline": conv_name,
        "ops_per_word": ops,
        "rows": [],
    }
    rows = result["rows"]
    for batch, side in [(1, s) for s in sizes] + list(batches):
        cells = torch.from_numpy(soup((batch, side, side))).to(dev)
        words = pack_torch(cells)
        n_cells = batch * side * side
        gens = total_gens or (64 if side >= 16384 else 256)
        row = {"grid": f"{batch} x {side}^2" if batch > 1 else f"{side}^2", "batch": batch, "gens": gens,
               "cells": n_cells}
        for g in gens_list:
            if g == 1:  # taller tiles put more of a grid on the interior path (16384^2: 87% of
                # 32x32 tiles, 93% of 64x16, 95% of 128x8) at the same cost a word
                tiles = [(32, 32), (64, 16), (128, 8)]
            else:
                tiles = [(32, 32)] if quick else [(32, 32), (64, 16)]
            for br, bw in tiles:
                launch = BitpackGpu(gens_per_launch=g, block_rows=br, block_words=bw)
                mode = "step" if g == 1 else "multi"
                measure(row, f"g{g}_{br}x{bw}", lambda k=launch, w=words, s=side, n=gens, m=mode:
                        k.advance_packed(w, s, RULE, True, n, mode=m), n_cells * gens)
        # 8 warps to a 32x32 tile: 4 words a thread, half the registers (benchmarks/gpu_static.py)
        eight_warps = BitpackGpu(num_warps=8)
        measure(row, "g1_32x32_w8", lambda k=eight_warps, w=words, s=side, n=gens:
                k.advance_packed(w, s, RULE, True, n, mode="step"), n_cells * gens)
        # every tile the edge way (wrapped, masked): what the interior tiles' path gains
        measure(row, "g1_32x32_edges", lambda w=words, s=side, n=gens:
                BitpackGpu(interior=False).advance_packed(w, s, RULE, True, n, mode="step"), n_cells * gens)
        # the same kernel on a plane: what the torus's wrapped columns cost (Triton 3.6 converts
        # layouts through shared memory around them in the row kernels: benchmarks/gpu_static.py)
        measure(row, "g1_32x32_plane", lambda w=words, s=side, n=gens:
                BitpackGpu().advance_packed(w, s, RULE, False, n, mode="step"), n_cells * gens)
        if BitpackGpu().runs_whole(side, int(words.shape[2]), "whole"):  # the grid fits one program
            measure(row, "whole", lambda w=words, s=side, n=gens: BitpackGpu().advance_packed(w, s, RULE, True, n,
                                                                                            mode="whole"),
                    n_cells * gens)
        if n_cells <= 1 << 26:
            if cuda:  # CUDA-graph replay of one-generation launches (launch overhead off the critical path)
                try:
                    step = BitpackGpu()
                    static_in = words.clone()
                    graph_gens = 32
                    torch.cuda.synchronize()
                    stream = torch.cuda.Stream()
                    stream.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(stream):
                        step.advance_packed(static_in, side, RULE, True, graph_gens, mode="step")  # warm-up/compile
                    torch.cuda.current_stream().wait_stream(stream)
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        static_out = step.advance_packed(static_in, side, RULE, True, graph_gens, mode="step")
                    reps = max(1, gens // graph_gens)
                    t = device_seconds(lambda g=graph, r=reps: [g.replay() for _ in range(r)], cuda)
                    row["graph_step"] = n_cells * graph_gens * reps / t
                    del static_out
                except Exception as exc:
                    row["graph_step"] = f"error: {type(exc).__name__}: {exc}"[:200]
        if batch > 1:  # lane-per-grid: 32 grids a word, the kernels alone, then packing included
            lanes = pack_lanes_torch(cells)
            for mode in ("step", "whole"):
                for launcher, suffix in ((BitpackGpu(), ""), (eight_warps, "_w8")):
                    measure(row, f"lanes_{mode}{suffix}", lambda w=lanes, n=gens, m=mode, k=launcher:
                            k.advance_lanes(w, RULE, True, n, mode=m), n_cells * gens)
            measure(row, "lanes_step_edges", lambda w=lanes, n=gens:
                    BitpackGpu(interior=False).advance_lanes(w, RULE, True, n, mode="step"), n_cells * gens)
            measure(row, "lanes_whole_plane", lambda w=lanes, n=gens:
                    BitpackGpu().advance_lanes(w, RULE, False, n, mode="whole"), n_cells * gens)
        torus = Topology.torus(side, side)
        engine = BitpackGpuEngine()
        measure(row, "engine", lambda e=engine, c=cells, t=torus, n=gens: e.advance(c, RULE, t, n), n_cells * gens, 3)
        row["engine_layout"] = "lanes" if engine.launcher.uses_lanes(batch, side) else "rows"
        # floor: one read + one write of every cell's bit per generation (no padding); ops per word
        row["bytes_per_gen"] = 2 * n_cells // 8
        if cuda and (side <= 4096 or batch == 1):
            g_conv = 4 if side >= 8192 else 16
            measure(row, "dense_conv", lambda c=cells, t=torus, g=g_conv: conv.advance(c, RULE, t, g),
                    n_cells * g_conv, 3)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if progress is not None:
            progress.write_text(json.dumps(result, indent=2))
    return result


LIFE_MAP = "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"


def random_map(seed: int = 0) -> str:
    """A seeded random MAP rule (512 fair coin flips; B0 cleared so QuickLife need not alternate)."""
    import base64

    table = (np.random.default_rng(seed).random(512) < 0.5).astype(np.uint8)
    table[0] = 0
    return "MAP" + base64.b64encode(np.packbits(table).tobytes()).decode()[:86]


def rle(cells: np.ndarray, rule: str) -> str:
    """``(H, W)`` 0/1 cells as an RLE pattern (for bgolly); lines break between runs only."""
    tokens = []
    for row in cells:
        runs, x = [], 0
        while x < len(row):
            end = x
            while end < len(row) and row[end] == row[x]:
                end += 1
            runs.append((str(end - x) if end - x > 1 else "") + ("o" if row[x] else "b"))
            x = end
        if runs and runs[-1].endswith("b"):
            runs.pop()
        tokens += runs + ["$"]
    tokens[-1] = "!"
    lines, line = [], ""
    for token in tokens:
        if len(line) + len(token) > 70:
            lines.append(line)
            line = ""
        line += token
    lines.append(line)
    body = "\n".join(lines)
    return f"x = {cells.shape[1]}, y = {cells.shape[0]}, rule = {rule}\n{body}\n"


def bgolly_rate(bgolly: str, cells: np.ndarray, rule: str, gens: int) -> float | None:
    """QuickLife cell updates per second on ``cells`` as a torus: wall time of ``-m gens`` minus
    ``-m 0`` (reading the pattern), best of 2. None when bgolly is missing or fails."""
    import tempfile

    if not Path(bgolly).exists():
        return None
    h, w = cells.shape
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "soup.rle"
        path.write_text(rle(cells, f"{rule}:T{w},{h}"))

        def wall(m: int) -> float:
            best = float("inf")
            for _ in range(2):
                t0 = time.perf_counter()
                proc = subprocess.run([bgolly, "-a", "QuickLife", "-q", "-q", "-m", str(m), str(path)],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    raise RuntimeError(proc.stderr)
                best = min(best, time.perf_counter() - t0)
            return best

        try:
            return h * w * gens / max(wall(gens) - wall(0), 1e-9)
        except RuntimeError:
            return None


def best_of(fn, repeats: int) -> float:
    """Shortest wall time of ``fn()`` over ``repeats`` runs (a shared machine's noise only adds)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def table_bench(quick: bool, bgolly: str) -> dict:
    """Table rules on a 1024^2 torus, 40% soup: bitpack-cpu (packed loop, best of 5), numpy,
    torch and bgolly's QuickLife (best of 2), same soup and generations for bitpack-cpu and
    QuickLife."""
    import numba
    import torch

    from tensorca.engines.bitpack.bdd import kernel_ops
    from tensorca.engines.bitpack.cpu import advance_packed

    side, gens = 1024, 200 if quick else 1000
    cells = (np.random.default_rng(0).random((1, side, side)) < 0.4).astype(np.uint8)
    topology = Topology.torus(side, side)
    words = pack(cells, 64)
    ref, dense = get_engine("numpy"), get_engine("torch")
    rules = [("B3/S23", "B3/S23"), ("MAP B3/S23", LIFE_MAP), ("B2-a/S12", "B2-a/S12"),
             ("B3/S2-i34q", "B3/S2-i34q"), ("random MAP", random_map(0))]
    rows = []
    tensor = torch.from_numpy(cells)
    for label, text in rules:
        rule = parse_rule(text)
        advance_packed(words, side, rule, True, gens)  # compile and warm up
        t_bp = best_of(lambda r=rule: advance_packed(words, side, r, True, gens), 5)
        t_np = timed(lambda r=rule: ref.advance(cells, r, topology, 2), 1)
        t_torch = timed(lambda r=rule: dense.advance(tensor, r, topology, 5), 1)
        golly = bgolly_rate(bgolly, cells[0], text, gens)
        row = {
            "rule": label, "ops_per_word": kernel_ops(rule.table),
            "bitpack_cpu": side * side * gens / t_bp, "numpy": side * side * 2 / t_np,
            "torch": side * side * 5 / t_torch, "quicklife": golly,
        }
        row["x_quicklife"] = row["bitpack_cpu"] / golly if golly else None
        rows.append(row)
        ratio = f"x{row['x_quicklife']:.1f}" if golly else "n/a"
        quick_rate = f"{golly / 1e9:6.2f} G" if golly else "   n/a"
        print(f"{label:>12}  ops/word {row['ops_per_word']:3d}  bitpack-cpu {row['bitpack_cpu'] / 1e9:6.2f} G  "
              f"numpy {row['numpy'] / 1e6:6.1f} M  torch {row['torch'] / 1e6:7.1f} M  "
              f"QuickLife {quick_rate}  bitpack/QuickLife {ratio}", flush=True)
    return {"device": "cpu", "threads": numba.get_num_threads(), "gens": gens, "rows": rows,
            "load_before": os.getloadavg()}


def row_kernels(words: np.ndarray, side: int, rule, gens: int) -> np.ndarray:
    """The row-major kernels bitpack-cpu ran before the column kernels, on the launch path it
    chose for one grid (all generations in one task up to SMALL_GRID_WORDS words, else strips)."""
    import numba

    from tensorca.engines.bitpack import cpu as bc
    from tensorca.engines.bitpack.pack import last_word_mask

    module, lut = bc.table_kernels_for(bc.rule_table(rule))
    n, height, wp = words.shape
    rs, mask = np.uint64(side - (wp - 1) * 64 - 1), np.uint64(last_word_mask(side, 64))
    src, dst = words.copy(), np.empty_like(words)
    if height * wp <= bc.SMALL_GRID_WORDS:
        module.run_whole(src, dst, True, rs, mask, gens, lut)
        return dst if gens % 2 else src
    strip = max(16, -(-height // (4 * numba.get_num_threads())))
    for _ in range(gens):
        module.step_strips(src, dst, True, rs, mask, strip, lut)
        src, dst = dst, src
    return src


def settle_bench(quick: bool, bgolly: str) -> dict:
    """1024^2 torus, 40% soup (seed 0), wall clock, best of 5: bitpack-cpu as ``advance_packed``
    runs it (column kernels skipping what has settled, bands of rows on the free cores), the same
    on one thread (``1t``), the column kernels computing every word on one thread (``dense``), the
    row kernels they replaced (``rows``, one thread at this size), and bgolly's QuickLife on the
    same soup and generations (best of 2); last, a 128^2 soup in the middle of an empty 1024^2 torus.
    Then the overhead of skipping on fresh soups (20 generations, 5 seeds, one thread)."""
    import numba

    from tensorca.cpu_load import free_cores
    from tensorca.engines.bitpack import cpu as bc
    from tensorca.engines.bitpack.pack import last_word_mask

    side = 1024
    cells = (np.random.default_rng(0).random((1, side, side)) < 0.4).astype(np.uint8)
    rs, mask = np.uint64(63), np.uint64(last_word_mask(side, 64))
    threads = numba.get_num_threads()
    longer = [("B3/S23", "B3/S23", 4000)] + ([] if quick else [("B3/S23", "B3/S23", 10000)])
    cases = [("B3/S23", "B3/S23", 1000), *longer, ("MAP B3/S23", LIFE_MAP, 1000),
             ("B2-a/S12", "B2-a/S12", 1000), ("B3/S2-i34q", "B3/S2-i34q", 1000), ("random MAP", random_map(0), 1000)]
    repeats = 3 if quick else 5
    rows = []
    patch = np.zeros_like(cells)  # a 128^2 soup in an empty grid, as on the unbounded plane's margins
    patch[0, 448:576, 448:576] = cells[0, :128, :128]
    cases.append(("128^2 in 1024^2", "B3/S23", 1000))
    for label, text, gens in cases:
        start = patch if label.startswith("128^2") else cells
        words = pack(start, 64)
        rule = parse_rule(text)
        module, lut = bc.table_kernels_for(bc.rule_table(rule))

        def columns(skip, n_threads, m=module, lt=lut, g=gens, w=words):
            numba.set_num_threads(n_threads)
            try:
                return bc._advance_columns(m, lt, w, True, rs, mask, g, skip=skip)
            finally:
                numba.set_num_threads(threads)

        assert np.array_equal(columns(True, threads), row_kernels(words, side, rule, gens)), label  # compiles too
        columns(True, 1), columns(False, 1)
        free = free_cores()
        t_skip = best_of(lambda: columns(True, threads), repeats)
        t_skip1 = best_of(lambda: columns(True, 1), repeats)
        t_dense1 = best_of(lambda: columns(False, 1), repeats)
        t_rows = best_of(lambda r=rule, g=gens, w=words: row_kernels(w, side, r, g), repeats)
        golly = bgolly_rate(bgolly, start[0], text, gens)
        work = side * side * gens
        row = {"rule": label, "gens": gens, "skip": work / t_skip, "skip_1t": work / t_skip1,
               "dense_1t": work / t_dense1, "rows": work / t_rows, "quicklife": golly,
               "free_cores": free, "load": os.getloadavg()}
        rows.append(row)
        g = golly or float("nan")
        print(f"{label:>12} {gens:5d} gens  skip {row['skip'] / 1e9:5.1f} G ({free} free cores)  "
              f"1t: skip {row['skip_1t'] / 1e9:5.1f} G  dense {row['dense_1t'] / 1e9:5.1f} G  "
              f"rows {row['rows'] / 1e9:5.1f} G  QuickLife {g / 1e9:5.2f} G  |  skip/QL x{row['skip'] / g:4.1f}  "
              f"1t skip/QL x{row['skip_1t'] / g:4.1f}  skip/dense x{row['skip_1t'] / row['dense_1t']:.2f}  "
              f"skip/rows x{row['skip_1t'] / row['rows']:.2f}  (load {row['load'][0]:.2f})", flush=True)
    # overhead on fresh soups: nothing has settled, so skipping only costs
    rule = parse_rule("B3/S23")
    module, lut = bc.table_kernels_for(bc.rule_table(rule))
    ratios = []
    numba.set_num_threads(1)
    try:
        for seed in range(5):
            fresh = pack((np.random.default_rng(100 + seed).random((1, side, side)) < 0.4).astype(np.uint8), 64)
            t_skip = best_of(lambda f=fresh: bc._advance_columns(module, lut, f, True, rs, mask, 20, skip=True), 7)
            t_dense = best_of(lambda f=fresh: bc._advance_columns(module, lut, f, True, rs, mask, 20, skip=False), 7)
            ratios.append(t_skip / t_dense)
    finally:
        numba.set_num_threads(threads)
    overhead = statistics.median(ratios) - 1
    print(f"fresh 40% soups, 20 generations, one thread: skip time / dense time - 1 = {overhead * 100:+.1f}% "
          f"(5 seeds: {', '.join(f'{r:.3f}' for r in ratios)})", flush=True)
    return {"device": "cpu", "threads": threads, "rows": rows, "fresh_overhead": overhead, "fresh_ratios": ratios}


def tiled_floor(table: bytes) -> dict:
    """Bitwise operations per word of the tiled blocked kernel (:mod:`.bitpack_lanes`) and the G
    cell-updates/s per core they allow at the nominal clock, with four 256-bit logic operations a
    cycle (AVX2, four words each; loads and stores not counted). A count circuit per pass of four
    output rows: six row sums (5 each), each pair's own two rows added once (7), each output adds its
    outer row (8, 9 when the rule reads t3) and runs the rule (:func:`.bitpack_lanes.pair_rule`,
    ``~x & y`` counted as two though AVX2 does it in one); other tables: their circuit per word."""
    from tensorca.engines.bitpack.bdd import is_count_circuit, table_circuit
    from tensorca.engines.bitpack.circuit import PLANE_COUNTS, op_count
    from tensorca.engines.bitpack.lanes import pair_rule

    circuit = table_circuit(table)
    rule = op_count(circuit.result) + sum(op_count(line.split("=", 1)[1]) for line in circuit.lines)
    if is_count_circuit(circuit):
        expression, _ = pair_rule(table)
        ops = (6 * 5 + 2 * 7 + 4 * (8 + ("t3" in expression) + op_count(expression))) / 4
    else:
        counts = circuit.inputs & {"t0", "t1", "t2", "t3"}
        ops = rule + (sum(op_count(line.split("=", 1)[1]) for line in PLANE_COUNTS) if counts else 0)
    try:
        mhz = max(float(line.split(":")[1]) for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("cpu MHz"))
    except (OSError, ValueError):
        mhz = float("nan")
    cells_per_cycle = 4 * 4 * 64 / ops  # 4 ops/cycle x 4 words/op x 64 cells/word
    return {"ops_per_word": ops, "cells_per_cycle": cells_per_cycle, "mhz": mhz,
            "floor_per_core": cells_per_cycle * mhz * 1e6}


def big_bench(quick: bool, bgolly: str) -> dict:
    """One big B3/S23 torus soup (40%, seed 1): 4096^2 and 1024^2, 100 and 1000 generations, wall
    clock end to end (packing included), best of interleaved runs: the bitpack-cpu engine (64 lane
    tiles, several generations per parallel region), the same tiled path one generation per region
    (``advance_tiled(..., depth=0)``, the path before blocking), both again on one thread, and
    bgolly's QuickLife on the same soup and generations. The engine runs on the cores free at each
    call (:func:`tensorca.cpu_load.free_cores`), so the free-core counts seen are printed."""
    import numba

    from tensorca.cpu_load import free_cores
    from tensorca.engines.bitpack import tiles as bitpack_tiles
    from tensorca.engines.bitpack.circuit import rule_table

    engine = get_engine("bitpack-cpu")
    table = rule_table(RULE)
    floor = tiled_floor(table)
    threads = numba.get_num_threads()
    from tensorca._numba import VECTORS

    print(f"# tiled kernel: {floor['ops_per_word']:.1f} ops/word -> {floor['cells_per_cycle']:.1f} cells/cycle "
          f"-> {floor['floor_per_core'] / 1e9:.0f} G/s per core at {floor['mhz']:.0f} MHz (model: four 256-bit "
          f"logic ops a cycle, as on AMD Zen 2/3; AVX-512's vpternlogq and 512-bit vectors go past it)", flush=True)
    print(f"# Numba vectors: {VECTORS}", flush=True)
    rows = []
    for side in (4096, 1024):
        cells = (np.random.default_rng(1).random((1, side, side)) < 0.4).astype(np.uint8)
        topology = Topology.torus(side, side)
        engine.advance(cells, RULE, topology, 2)  # compile and warm up
        bitpack_tiles.advance_tiled(cells, table, True, 2, depth=0)
        for gens in (100,) if quick else (100, 1000):
            load_before = os.getloadavg()
            got = engine.advance(cells, RULE, topology, gens)
            assert np.array_equal(got, bitpack_tiles.advance_tiled(cells, table, True, gens, depth=0))
            runs = {
                "engine": lambda c=cells, t=topology, g=gens: engine.advance(c, RULE, t, g),
                "per_generation": lambda c=cells, g=gens: bitpack_tiles.advance_tiled(c, table, True, g, depth=0),
            }
            best = dict.fromkeys([*runs, *(f"{name}_1t" for name in runs)], float("inf"))
            free_seen = set()
            for _ in range(3 if gens <= 100 else 2):
                for name, fn in runs.items():
                    free_seen.add(free_cores())
                    best[name] = min(best[name], best_of(fn, 1))
                numba.set_num_threads(1)
                try:
                    for name, fn in runs.items():
                        best[f"{name}_1t"] = min(best[f"{name}_1t"], best_of(fn, 1))
                finally:
                    numba.set_num_threads(threads)
            golly = bgolly_rate(bgolly, cells[0], "B3/S23", gens)
            work = side * side * gens
            row = {"side": side, "gens": gens, **{name: work / t for name, t in best.items()}, "quicklife": golly,
                   "threads": threads, "free_cores_seen": sorted(free_seen), "load_before": load_before,
                   "load_after": os.getloadavg()}
            rows.append(row)
            g = golly or float("nan")
            ours, step, ours1, step1 = (row[k] / 1e9 for k in ("engine", "per_generation", "engine_1t",
                                                                "per_generation_1t"))
            print(f"{side}^2 {gens:5d} gens  engine {ours:6.1f} G  per-generation {step:6.1f} G  (1 thread: "
                  f"{ours1:5.1f} G, {step1:5.1f} G)  QuickLife {g / 1e9:5.2f} G  |  engine/QL x{ours * 1e9 / g:5.1f}  "
                  f"per-gen/QL x{step * 1e9 / g:5.1f}  engine/per-gen x{ours / step:.2f} (1 thread "
                  f"x{ours1 / step1:.2f})  free cores {sorted(free_seen)}; load {load_before[0]:.2f} -> "
                  f"{row['load_after'][0]:.2f}", flush=True)
    return {"device": "cpu", "threads": threads, "floor": floor, "rows": rows}


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except Exception:
        model = platform.processor()
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter runs")
    parser.add_argument("--sizes", default="1024,4096,16384", help="GPU: grid sides to sweep")
    parser.add_argument("--gens-per-launch", default="1,2,4,8", help="GPU: generations per launch to sweep")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--tables", action="store_true",
                        help="CPU: table rules (MAP, Hensel) at 1024^2 against numpy, torch and bgolly QuickLife")
    parser.add_argument("--settle", action="store_true",
                        help="CPU: skipping what has settled (column kernels) against rows, dense and QuickLife")
    parser.add_argument("--big", action="store_true",
                        help="CPU: one big soup (4096^2, 1024^2) end to end against the per-generation tiled path "
                             "and QuickLife")
    parser.add_argument("--bgolly", default="/tmp/bgolly", help="bgolly binary for --tables, --settle and --big")
    args = parser.parse_args(argv)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  {machine()}  load {os.getloadavg()[0]:.2f}", flush=True)
    if args.tables or args.settle or args.big:
        result = (table_bench if args.tables else settle_bench if args.settle else big_bench)(args.quick, args.bgolly)
        print(f"# load average after: {os.getloadavg()[0]:.2f}")
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
        return
    if args.device == "cpu":
        result = cpu_bench(args.quick)
    else:
        result = gpu_bench(args.quick, [int(s) for s in args.sizes.split(",")],
                           [int(g) for g in args.gens_per_launch.split(",")], progress=args.json)
    result["machine"] = machine()
    result["date"] = time.strftime("%Y-%m-%d %H:%M")
    print(f"# ops per word (B3/S23): {result['ops_per_word']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
