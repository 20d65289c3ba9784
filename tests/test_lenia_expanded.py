"""Expanded (multi-channel, multi-kernel) Lenia against an independent implementation of Chan's
LeniaNDKC equations, and its reductions to plain Lenia."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tensorca
from tensorca.errors import UsageError
from tensorca.lenia import creature
from tensorca.lenia.expanded import ExpandedLenia, Kernel, numpy_step, torch_step

torch = pytest.importorskip("torch")

PARAMS = [
    {"R": 10, "T": 10, "b": "1,1/2", "m": 0.2, "s": 0.03, "h": 1, "r": 0.8, "c": [0, 1], "kn": 1, "gn": 1},
    {"R": 10, "T": 10, "b": "1", "m": 0.15, "s": 0.02, "h": 0.5, "r": 1, "c": [1, 0], "kn": 1},
    {"R": 10, "T": 10, "b": "1", "m": 0.15, "s": 0.02, "h": 2, "r": 0.6, "c": [1, 1], "kn": 1},
    {"R": 10, "T": 10, "b": "1/3,1", "m": 0.3, "s": 0.05, "h": 1, "r": 1, "c": [0, 0], "kn": 1},
]


def chan_expanded(cells: np.ndarray, params: list[dict], steps: int) -> np.ndarray:
    """Chan's way, written from LeniaNDKC's equations: centred kernels, complex FFT, fftshift, sum of h."""
    cells = cells.copy()
    size = cells.shape[-1]
    mid = size // 2
    y, x = np.mgrid[0:size, 0:size]
    dist = np.sqrt((x - mid) ** 2 + (y - mid) ** 2) / params[0]["R"]
    ffts = []
    for p in params:
        peaks = np.array([float(Fraction(b)) for b in p["b"].split(",")])
        br = len(peaks) * dist / p["r"]
        peak = peaks[np.minimum(br.astype(int), len(peaks) - 1)]
        kernel = (dist < p["r"]) * (4 * (br % 1) * (1 - br % 1)) ** 4 * peak
        ffts.append(np.fft.fft2(kernel / kernel.sum()))
    dt = 1 / params[0]["T"]
    for _ in range(steps):
        change = np.zeros_like(cells)
        weight = np.zeros(cells.shape[0])
        for p, kfft in zip(params, ffts, strict=True):
            c0, c1 = p["c"]
            u = np.fft.fftshift(np.real(np.fft.ifft2(kfft * np.fft.fft2(cells[c0]))))
            change[c1] += dt * p["h"] * (np.maximum(0, 1 - (u - p["m"]) ** 2 / (9 * p["s"] ** 2)) ** 4 * 2 - 1)
            weight[c1] += p["h"]
        cells = np.clip(cells + change / np.where(weight > 0, weight, 1)[:, None, None], 0, 1)
    return cells


def test_matches_chan_equations_on_three_channels():
    world = ExpandedLenia.from_chan(PARAMS, channels=3)
    start = np.random.default_rng(0).random((3, 48, 48)) * 0.6
    want = chan_expanded(start, PARAMS, 20)
    got = start[None]
    for _ in range(20):
        got = numpy_step(got, world)
    assert np.abs(got[0] - want).max() < 1e-9
    assert np.array_equal(got[0, 2], start[2])  # no kernel writes channel 2
    cache: dict = {}
    t = torch.from_numpy(start[None])
    for _ in range(20):
        t = torch_step(t, world, cache)
    assert np.abs(t[0].numpy() - want).max() < 1e-9
    t32 = torch.from_numpy(start[None].astype(np.float32))
    for _ in range(20):
        t32 = torch_step(t32, world, cache)
    assert t32.dtype == torch.float32 and np.abs(t32[0].numpy() - want).max() < 1e-2


def test_one_kernel_one_channel_is_plain_lenia_and_h_normalises():
    orbium = creature("O2u")
    grid = np.zeros((2, 1, 64, 64))
    grid[:, 0, 5:25, 5:25] = orbium.cells
    single = ExpandedLenia(13, 10, 1, (Kernel(0.15, 0.015),))
    doubled = ExpandedLenia(13, 10, 1, (Kernel(0.15, 0.015, h=1), Kernel(0.15, 0.015, h=3)))
    a, b = grid, grid
    for _ in range(10):
        a, b = numpy_step(a, single), numpy_step(b, doubled)
    want = tensorca.run(grid[:, 0], orbium.rule, 10, backend="numpy")
    assert np.abs(a[:, 0] - want).max() < 1e-12 and np.abs(b[:, 0] - want).max() < 1e-12


def test_differentiable_and_checked():
    world = ExpandedLenia.from_chan(PARAMS[:2], channels=2)
    start = torch.rand(1, 2, 12, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 0.4 + 0.3
    start.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: torch_step(a, world), (start,))
    with pytest.raises(UsageError, match="channels"):
        ExpandedLenia(10, 10, 1, (Kernel(0.1, 0.01, source=1),))
    with pytest.raises(UsageError, match=r"\(B, 2, H, W\)"):
        numpy_step(np.zeros((1, 3, 8, 8)), world)
