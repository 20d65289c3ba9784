"""Recover Lenia's growth parameters ``m`` and ``s`` from a recorded trajectory, by gradient.

A trajectory of Orbium unicaudatus (Chan's ``m=0.15, s=0.015``) is recorded with
``tensorca.run`` on a 64x64 torus; a :class:`tensorca.lenia.module.LeniaModule` started at wrong
values (``m=0.16, s=0.02``) is trained with Adam to reproduce every frame from the previous one
(teacher forcing: one generation per frame, float64), and prints the recovered values.

    python examples/fit_lenia.py              # about half a minute on a laptop CPU

The last line is ``m 0.15000 s 0.01500 (true 0.15, 0.015)``.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

import tensorca
from tensorca.lenia import creature
from tensorca.lenia.module import LeniaModule


def record(frames: int, size: int = 64) -> tuple[torch.Tensor, str]:
    """``(frames, H, W)`` float64 frames of Orbium, one generation apart, and the true rule."""
    orbium = creature("O2u")
    grid = np.zeros((size, size))
    grid[22:42, 22:42] = orbium.cells
    grid = tensorca.run(grid, orbium.rule, 20)  # let it settle onto its attractor
    states = [grid]
    for _ in range(frames - 1):
        states.append(tensorca.run(states[-1], orbium.rule, 1))
    return torch.from_numpy(np.stack(states)), orbium.rule.canonical()


def fit(frames: torch.Tensor, start: str, iterations: int) -> LeniaModule:
    model = LeniaModule(start, tuple(frames.shape[1:]), learn=("m", "s"))
    optimiser = torch.optim.Adam([model.m, model.s], lr=2e-3)
    inputs, targets = frames[:-1], frames[1:]
    for iteration in range(1, iterations + 1):
        loss = ((model(inputs) - targets) ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if iteration % 50 == 0:
            print(f"iteration {iteration:4d}  loss {float(loss):.3e}  m {float(model.m):.5f}  s {float(model.s):.5f}")
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=400)
    args = parser.parse_args()
    frames, truth = record(args.frames)
    model = fit(frames, "R=13,T=10,b=[1],m=0.16,s=0.02,kn=1,gn=1", args.iterations)
    print(f"m {float(model.m):.5f} s {float(model.s):.5f} (true 0.15, 0.015; rule {truth})")


if __name__ == "__main__":
    main()
