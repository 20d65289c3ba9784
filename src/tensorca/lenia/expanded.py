"""Multi-channel, multi-kernel Lenia (Chan's "expanded" Lenia, ``LeniaNDKC.py``): NumPy and torch steps.

A world has ``C`` channels and kernels ``k = 0..K-1``, each reading a ``source`` channel and writing
a ``target`` channel with its own relative radius ``r``, shells ``b``, growth ``m``, ``s`` and weight
``h``. With ``dt = 1/T`` and ``D = distance / R``, kernel ``k`` is ``b[floor(B D / r)] * core(B D / r
mod 1)`` for ``D < r`` (normalised to sum 1), and one generation is, per channel ``c``::

    A_c <- clip(A_c + sum_{k: target=c} dt h_k G_k(K_k * A_source(k)) / sum_{k: target=c} h_k, 0, 1)

(a channel no kernel writes keeps its values). ``R``, ``T`` and the growth function ``gn`` are shared,
as in Chan's code (his kernel 0 carries them). States are ``(B, C, H, W)`` floats on a torus; this
module runs outside :func:`tensorca.run`, whose engines take ``(B, H, W)`` grids.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import UsageError
from ..rules.lenia import GrowthUpdate, growth, kernel_shell

__all__ = ["ExpandedLenia", "Kernel", "numpy_step", "torch_step"]


@dataclass(frozen=True)
class Kernel:
    """One kernel of an expanded world: channel ``source`` -> channel ``target``, see the module docstring."""

    m: float
    s: float
    h: float = 1.0
    r: float = 1.0
    b: tuple[float, ...] = (1.0,)
    source: int = 0
    target: int = 0
    kn: int = 1


@dataclass(frozen=True)
class ExpandedLenia:
    """An expanded Lenia world: radius ``R`` (cells), ``T``, growth function ``gn``, ``channels``, ``kernels``."""

    R: int
    T: float
    channels: int
    kernels: tuple[Kernel, ...]
    gn: int = 1

    def __post_init__(self) -> None:
        if self.R < 1 or self.T <= 0 or self.channels < 1 or not self.kernels or self.gn not in (1, 2, 3):
            raise UsageError(f"bad expanded Lenia world: R={self.R}, T={self.T}, channels={self.channels}, "
                             f"{len(self.kernels)} kernels, gn={self.gn}")
        for i, k in enumerate(self.kernels):
            if not (0 <= k.source < self.channels and 0 <= k.target < self.channels):
                raise UsageError(f"kernel {i} joins channels {k.source} -> {k.target}; the world has {self.channels}")
            if k.s <= 0 or k.h < 0 or not 0 < k.r <= 1 or k.kn not in (1, 2, 3, 4) or not k.b:
                raise UsageError(f"kernel {i} has bad parameters: {k}")

    @classmethod
    def from_chan(cls, params: list[dict[str, Any]], channels: int | None = None) -> ExpandedLenia:
        """A world from Chan's per-kernel params list (``{"R", "T", "b": "1,1/3", "m", "s", "h", "r",
        "kn", "gn", "c": [source, target]}``; ``R``, ``T``, ``gn`` read from the first)."""
        kernels = []
        for p in params:
            peaks = p.get("b", "1")
            peaks = peaks.split(",") if isinstance(peaks, str) else list(peaks)
            source, target = p.get("c", [0, 0])
            kernels.append(Kernel(float(p["m"]), float(p["s"]), float(p.get("h", 1)), float(p.get("r", 1)),
                                  tuple(float(Fraction(str(b))) for b in peaks), int(source), int(target),
                                  int(p.get("kn", 1))))
        first = params[0]
        count = channels if channels is not None else 1 + max(max(k.source, k.target) for k in kernels)
        return cls(int(first["R"]), float(first["T"]), count, tuple(kernels), int(first.get("gn", 1)))

    def kernel_grid(self, index: int, shape: tuple[int, int]) -> np.ndarray:
        """``(H, W)`` float64 kernel ``index`` embedded in an ``(H, W)`` torus (offset (dy, dx) at [dy % H, dx % W])."""
        k = self.kernels[index]
        reach = int(np.ceil(self.R * k.r))
        dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
        window = kernel_shell(np.sqrt(dy**2 + dx**2) / (self.R * k.r), k.b, k.kn)
        grid = np.zeros(shape)
        rows, cols = np.arange(-reach, reach + 1) % shape[0], np.arange(-reach, reach + 1) % shape[1]
        np.add.at(grid, (rows[:, None], cols[None, :]), window / window.sum())
        return grid

    def growth_update(self, index: int) -> GrowthUpdate:
        k = self.kernels[index]
        return GrowthUpdate(k.m, k.s, self.gn, self.T)

    def weights(self) -> np.ndarray:
        """``(C,)`` sum of ``h`` over the kernels writing each channel (0: the channel is left alone)."""
        total = np.zeros(self.channels)
        for k in self.kernels:
            total[k.target] += k.h
        return total


def _check(cells: Any, world: ExpandedLenia) -> None:
    if cells.ndim != 4 or cells.shape[1] != world.channels:
        raise UsageError(f"expanded Lenia takes (B, {world.channels}, H, W) cells, got {tuple(cells.shape)}")


def _channel_scale(world: ExpandedLenia) -> np.ndarray:
    """``(C,)`` float64: 1 / (sum of ``h`` over the kernels writing each channel), 0 where none does."""
    weight = world.weights()
    return np.where(weight > 0, 1 / np.where(weight > 0, weight, 1), 0)


@functools.lru_cache(maxsize=16)  # the kernels depend only on the world and the grid's shape
def _kernel_spectra(world: ExpandedLenia, shape: tuple[int, int]) -> np.ndarray:
    """``(K, H, W // 2 + 1)`` complex128: ``rfft2`` of each kernel placed on the torus."""
    return np.fft.rfft2(np.stack([world.kernel_grid(i, shape) for i in range(len(world.kernels))]))


def numpy_step(cells: np.ndarray, world: ExpandedLenia) -> np.ndarray:
    """One generation of ``(B, C, H, W)`` cells (float64 arithmetic, the input's float dtype out)."""
    _check(cells, world)
    a = np.asarray(cells, dtype=np.float64)
    shape = (int(a.shape[-2]), int(a.shape[-1]))
    spectra = np.fft.rfft2(a)
    kernels = _kernel_spectra(world, shape)
    change = np.zeros_like(a)
    for i, k in enumerate(world.kernels):
        potential = np.fft.irfft2(spectra[:, k.source] * kernels[i], s=shape)
        change[:, k.target] += k.h * growth(world.growth_update(i), potential) / world.T
    out = np.clip(a + change * _channel_scale(world)[None, :, None, None], 0, 1)
    return out.astype(cells.dtype if np.issubdtype(cells.dtype, np.floating) else np.float64)


def torch_step(cells: Any, world: ExpandedLenia, _cache: dict | None = None) -> Any:
    """One generation of a ``(B, C, H, W)`` float tensor on its device (differentiable, no host sync).

    ``_cache`` (a dict kept by the caller) holds the kernels' transforms between calls.
    """
    import torch

    from ..engines.lenia_steps import growth_of

    _check(cells, world)
    shape = (int(cells.shape[-2]), int(cells.shape[-1]))
    cache = _cache if _cache is not None else {}
    key = (world, shape, cells.dtype, str(cells.device))
    if key not in cache:  # moved to the device once: the loop below only launches tensor operations
        kernels = np.stack([world.kernel_grid(i, shape) for i in range(len(world.kernels))])
        cache[key] = (torch.fft.rfft2(torch.from_numpy(kernels).to(cells.device, cells.dtype)),
                      torch.from_numpy(_channel_scale(world)).to(cells.device, cells.dtype).view(1, -1, 1, 1),
                      torch.tensor([k.target for k in world.kernels], device=cells.device))
    kernel_rfft, scale, targets = cache[key]
    sources = [k.source for k in world.kernels]
    potential = torch.fft.irfft2(torch.fft.rfft2(cells[:, sources]) * kernel_rfft, s=shape)  # (B, K, H, W)
    change = torch.zeros_like(cells)
    for i, k in enumerate(world.kernels):
        g = growth_of(world.gn, potential[:, i], k.m, k.s)
        change = change.index_add(1, targets[i : i + 1], (k.h / world.T * g)[:, None])
    return torch.clamp(cells + change * scale, 0.0, 1.0)
