"""Recover Lenia's growth parameters ``m`` and ``s`` from a recorded trajectory, by gradient.

A trajectory of Orbium unicaudatus (Chan's ``m=0.15, s=0.015``) is recorded with
``tensorca.run`` on a 64x64 torus; a :class:`tensorca.lenia.module.LeniaModule` started at wrong
values (``m=0.16, s=0.02``) is trained with Adam to reproduce every frame from the previous one
(teacher forcing: one generation per frame, float64), and prints the recovered values.

    python -m tensorca.examples.fit_lenia           # about half a minute on a laptop CPU
    python -m tensorca.examples.fit_lenia --quick   # seconds: 4 frames, 60 iterations (a smoke test)

The last two lines are ``loss <first> -> <last>`` and
``m 0.15000 s 0.01500 (true 0.15, 0.015; rule ...)``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from tensorca.examples import require_torch, run_main

require_torch("fit_lenia", as_script=__name__ == "__main__")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tensorca  # noqa: E402
from tensorca.lenia import creature  # noqa: E402
from tensorca.lenia.module import LeniaModule  # noqa: E402

#: The wrong rule training starts from (the truth is Orbium's ``m=0.15, s=0.015``).
START = "R=13,T=10,b=[1],m=0.16,s=0.02,kn=1,gn=1"


def record(frames: int, size: int = 64) -> tuple[torch.Tensor, str]:
    """``(frames, H, W)`` float64 frames of Orbium, one generation apart, and the true rule."""
    orbium = creature("O2u")  # package data: tensorca/lenia/data/creatures.json
    grid = np.zeros((size, size))
    height, width = orbium.cells.shape
    top, left = (size - height) // 2, (size - width) // 2
    grid[top:top + height, left:left + width] = orbium.cells
    grid = tensorca.run(grid, orbium.rule, 20)  # let it settle onto its attractor
    states = [grid]
    for _ in range(frames - 1):
        states.append(tensorca.run(states[-1], orbium.rule, 1))
    return torch.from_numpy(np.stack(states)), orbium.rule.canonical()


def fit(frames: torch.Tensor, start: str, iterations: int, report: int = 50) -> tuple[LeniaModule, float, float]:
    """Fit ``m`` and ``s`` of ``start`` to ``frames``; ``(model, first loss, last loss)``."""
    model = LeniaModule(start, tuple(frames.shape[1:]), learn=("m", "s"))
    optimiser = torch.optim.Adam([model.m, model.s], lr=2e-3)
    inputs, targets = frames[:-1], frames[1:]
    first = last = float("nan")
    for iteration in range(1, iterations + 1):
        loss = ((model(inputs) - targets) ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        last = float(loss.detach())
        if iteration == 1:
            first = last
        if iteration % report == 0:
            print(f"iteration {iteration:4d}  loss {last:.3e}  m {model.m.item():.5f}  s {model.s.item():.5f}")
    return model, first, last


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), record, fit, print the result; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tensorca.examples.fit_lenia", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="4 frames and 60 iterations: seconds (a smoke test)")
    parser.add_argument("--frames", type=int, default=None, help="frames recorded (default 16, 4 with --quick)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="Adam iterations (default 400, 60 with --quick)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args(argv)
    frames_n = args.frames or (4 if args.quick else 16)
    iterations = args.iterations or (60 if args.quick else 400)
    if frames_n < 2 or iterations < 1:
        parser.error("--frames must be at least 2 and --iterations at least 1")
    if args.threads:
        torch.set_num_threads(args.threads)
    frames, truth = record(frames_n)
    model, first, last = fit(frames, START, iterations, report=10 if args.quick else 50)
    print(f"loss {first:.3e} -> {last:.3e}")
    print(f"m {model.m.item():.5f} s {model.s.item():.5f} (true 0.15, 0.015; rule {truth})")
    return 0


if __name__ == "__main__":
    run_main("fit_lenia", main)
