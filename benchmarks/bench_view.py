"""Time the notebook picture (``tensorca.view.to_png``) and the viewer's packed frame on 4096^2 grids.

The issue's bar: ``Pattern._repr_png_`` of a 4096 x 4096 soup in under 150 ms. Each case: one
untimed warm-up, then the median of ``--repeats`` calls timed with ``time.perf_counter``.
Cases: a dense soup (density 0.5: every 4x4 block has a live cell, the picture is uniform),
a sparse soup (0.05: about half the pixels on, the least compressible picture), 7 states
(Generations), floats in [0, 1] (Lenia, a colormap), and the 16x16 glider zoomed with grid lines.

    PYTHONPATH=src python benchmarks/bench_view.py [--size 4096] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from tensorca.pattern import Pattern
from tensorca.random_grids import random_soup
from tensorca.view import Frame, pack, pattern_png, to_png


def median_ms(call: Callable[[], object], repeats: int) -> tuple[float, object]:
    result = call()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, result


def cases(size: int) -> dict[str, tuple[np.ndarray, int]]:
    rng = np.random.default_rng(0)
    glider = np.zeros((16, 16), np.uint8)
    glider[0, 1] = glider[1, 2] = glider[2, 0] = glider[2, 1] = glider[2, 2] = 1
    return {
        f"soup {size}^2 density 0.5": (random_soup(size, size, 0.5, seed=1), 2),
        f"soup {size}^2 density 0.05": (random_soup(size, size, 0.05, seed=2), 2),
        f"7 states {size}^2": (rng.integers(0, 7, (size, size), dtype=np.uint8), 7),
        f"float {size}^2": (rng.random((size, size), dtype=np.float32), 0),
        "glider 16^2 (zoomed, grid)": (glider, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'case':32} {'to_png ms':>10} {'PNG bytes':>10} {'pack ms':>8} {'frame bytes':>12}")
    for name, (cells, n_states) in cases(args.size).items():
        frame = Frame(cells, 0, int(np.count_nonzero(cells)))
        n = max(n_states, 2)
        png_ms, png = median_ms(lambda c=cells, n=n: to_png(c, n_states=n), args.repeats)
        pack_ms, packed = median_ms(lambda f=frame: pack(f), args.repeats)
        print(f"{name:32} {png_ms:10.1f} {len(png):10,} {pack_ms:8.1f} {len(packed):12,}")
    soup = Pattern(random_soup(args.size, args.size, 0.5, seed=1))
    png_ms, png = median_ms(lambda: pattern_png(soup), args.repeats)
    print(f"{'Pattern._repr_png_ soup (0.5)':32} {png_ms:10.1f} {len(png):10,}")


if __name__ == "__main__":
    main()
