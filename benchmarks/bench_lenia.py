"""Lenia steps per second on a 512x512 torus with Orbium's rule: tensorca's torch engine side by side with a
jitted JAX FFT step (the way CAX computes Lenia) and the NumPy reference, in one process.

    python benchmarks/bench_lenia.py [--size 512] [--steps 200] [--repeats 5] [--threads N]

JAX is optional (``pip install "jax[cpu]"``); without it the JAX rows are skipped with a message. The JAX
step is this file's own float32 implementation of Chan's equations (kernel built here from his formulas,
``rfft2`` of the grid times the precomputed kernel spectrum, ``irfft2``, growth, clip), ``jax.jit`` of a
``lax.fori_loop`` over the steps, timed to ``block_until_ready``. It is first checked against tensorca's
torch engine (maximum difference after ``--check-steps`` steps must stay below 1e-3).

Rows: the torch engine's raw step (``TorchEngine.step_function``) under ``torch.no_grad`` with 1 thread and
with ``--threads`` (default: torch's own count), and ``tensorca.run(..., backend="torch")`` (which caps torch's
threads to the cores free at the time, see ``tensorca.cpu_load``); torch float64; the NumPy reference; CUDA
when torch sees it. Each figure is the median of ``--repeats`` timed runs after a warm-up run; the rows take
turns (round-robin), so a change in load during the benchmark falls on all of them alike. Two rates are
printed: steps per wall-clock second and steps per second of this process's CPU time (``time.process_time``,
all threads). On a shared machine the wall rate moves with the other processes' load (printed with the
figures); the CPU rate of a one-thread row is the steadier comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import tensorca
from tensorca.engines import get_engine
from tensorca.lenia import creature
from tensorca.topology import Topology


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def timed(runs: dict[str, tuple[Callable[[int], object], int]], repeats: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) steps/s of each ``run(steps)`` (which must block until its result is ready).

    The runs take turns (one timed run of each per round, after one warm-up round), so a change in
    the machine's load falls on all of them alike rather than on whichever ran last."""
    for run, steps in runs.values():
        run(max(1, steps // 10))  # warm-up: kernel spectra, JIT compilation, allocator
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (run, steps) in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run(steps)
            rates[name].append((steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)))
    return {name: (statistics.median(r[0] for r in got), statistics.median(r[1] for r in got))
            for name, got in rates.items()}


# -- an independent Lenia in JAX ------------------------------------------------------------------

def chan_kernel(R: int, b: tuple[float, ...], kn: int, shape: tuple[int, int]) -> np.ndarray:
    """Chan's kernel on an ``(H, W)`` torus, centred at ``[0, 0]`` (offsets wrap), float64, sum 1."""
    dy = np.fft.fftfreq(shape[0], 1.0 / shape[0])[:, None]  # 0, 1, ..., -2, -1: torus offsets
    dx = np.fft.fftfreq(shape[1], 1.0 / shape[1])[None, :]
    r = np.sqrt(dy**2 + dx**2) / R
    shells = len(b) * r
    q = np.clip(shells % 1, 1e-12, 1 - 1e-12)
    core = {1: (4 * q * (1 - q)) ** 4, 2: np.exp(4 - 1 / (q * (1 - q))), 3: ((q >= 0.25) & (q <= 0.75)) * 1.0,
            4: ((q >= 0.25) & (q <= 0.75)) + (q < 0.25) * 0.5}[kn]
    peaks = np.asarray(b, dtype=np.float64)[np.minimum(shells.astype(int), len(b) - 1)]
    kernel = np.where(r < 1, peaks * core, 0.0)
    return kernel / kernel.sum()


def jax_lenia(R: int, T: float, b: tuple[float, ...], m: float, s: float, kn: int, gn: int,
              shape: tuple[int, int]) -> Callable[[object, int], object] | None:
    """``run(A, n)``: ``n`` jitted float32 JAX Lenia steps of an ``(H, W)`` grid, or None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    spectrum = jnp.asarray(np.fft.rfft2(chan_kernel(R, b, kn, shape)).astype(np.complex64))

    def step(_: int, A: jnp.ndarray) -> jnp.ndarray:
        U = jnp.fft.irfft2(jnp.fft.rfft2(A) * spectrum, s=shape)
        if gn == 1:
            G = jnp.maximum(0.0, 1 - (U - m) ** 2 / (9 * s * s)) ** 4 * 2 - 1
        elif gn == 2:
            G = jnp.exp(-((U - m) ** 2) / (2 * s * s)) * 2 - 1
        else:
            G = (jnp.abs(U - m) <= s) * 2.0 - 1
        return jnp.clip(A + G / T, 0.0, 1.0)

    loop = jax.jit(lambda A, n: jax.lax.fori_loop(0, n, step, A), static_argnums=1)
    return lambda A, n: loop(A, n).block_until_ready()


# -- the benchmark -----------------------------------------------------------------------------

def orbium_field(size: int) -> tuple[np.ndarray, object]:
    """A ``(size, size)`` float32 torus tiled with Orbia every 64 cells (so the grid is not empty), and the rule."""
    orbium = creature("O2u")
    grid = np.zeros((size, size), dtype=np.float32)
    h, w = orbium.cells.shape
    for y in range(0, size - h, 64):
        for x in range(0, size - w, 64):
            grid[y : y + h, x : x + w] = orbium.cells
    return grid, orbium.rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="torch threads for the multi-thread row")
    parser.add_argument("--check-steps", type=int, default=200)
    args = parser.parse_args()
    threads = args.threads or torch.get_num_threads()
    grid, rule = orbium_field(args.size)
    topology = Topology.torus(args.size, args.size)
    engine, reference = get_engine("torch"), get_engine("numpy")
    print(f"Lenia {rule.canonical()} on a {args.size}x{args.size} torus (Orbia every 64 cells), {args.steps} steps, "
          f"median of {args.repeats}; torch {torch.__version__}, {os.cpu_count()} CPUs; load average {load()}")

    jax_run = jax_lenia(rule.R, float(rule.T), tuple(float(f) for f in rule.b), float(rule.m), float(rule.s),
                        rule.kn, rule.gn, (args.size, args.size))
    runs: dict[str, tuple[Callable[[int], object], int]] = {}
    if jax_run is None:
        print("JAX not installed (pip install 'jax[cpu]'): JAX rows skipped")
    else:
        import jax
        import jax.numpy as jnp

        start = jnp.asarray(grid)
        ours = tensorca.run(torch.from_numpy(grid), rule, args.check_steps, backend="torch")
        theirs = np.asarray(jax_run(start, args.check_steps))
        diff = float(np.abs(ours.numpy() - theirs).max())
        mass = float(theirs.sum())
        verdict = "agree" if diff <= 1e-3 else "DISAGREE"
        print(f"check: JAX {jax.__version__} ({jax.devices()[0].platform}) vs tensorca torch float32 after "
              f"{args.check_steps} steps: max |difference| {diff:.2e} (mass {mass:.1f}) -> {verdict} to 1e-3")
        if diff > 1e-3:
            raise SystemExit(1)
        runs["JAX jit fori_loop float32"] = (lambda n: jax_run(start, n), args.steps)

    cells = torch.from_numpy(grid)[None].contiguous()
    step = engine.step_function(rule, topology, "cpu")

    def raw(n: int, nthreads: int) -> torch.Tensor:
        before = torch.get_num_threads()
        torch.set_num_threads(nthreads)
        try:
            out = cells
            with torch.no_grad():
                for _ in range(n):
                    out = step(out)
            return out
        finally:
            torch.set_num_threads(before)

    for nthreads in sorted({1, threads}):
        runs[f"torch step, {nthreads} thread{'s' * (nthreads > 1)}"] = (lambda n, t=nthreads: raw(n, t), args.steps)
    runs["tensorca.run(backend='torch')"] = (lambda n: tensorca.run(cells, rule, n, backend="torch"), args.steps)
    cells64 = cells.double()
    runs["tensorca.run torch float64"] = (lambda n: tensorca.run(cells64, rule, n, backend="torch"),
                                          max(10, args.steps // 4))
    runs["numpy reference (float64 arithmetic)"] = (lambda n: reference.advance(grid[None], rule, topology, n),
                                                    max(10, args.steps // 8))
    if torch.cuda.is_available():
        gpu = cells.cuda()

        def on_gpu(n: int) -> None:
            engine.advance(gpu, rule, topology, n)
            torch.cuda.synchronize()

        runs["torch cuda float32"] = (on_gpu, args.steps * 10)
    rows = [(name, *rates) for name, rates in timed(runs, args.repeats).items()]
    base = rows[0][1:] if jax_run is not None else None
    print(f"{'':40s} {'steps/s':>9s} {'steps/CPU-s':>12s}" + ("   vs JAX (wall, CPU)" if base else ""))
    for name, wall, cpu in rows:
        ratio = f"   {wall / base[0]:5.2f}x {cpu / base[1]:5.2f}x" if base else ""
        print(f"{name:40s} {wall:9.1f} {cpu:12.1f}{ratio}")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
