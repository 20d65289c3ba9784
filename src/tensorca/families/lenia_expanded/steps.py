"""Expanded Lenia's kernels: the NumPy reference (float64 FFT) and the torch step, and the engines' entry
points for its step-spec kinds (:data:`~tensorca.families.lenia_expanded.rule.KINDS`), registered by the
family's declaration."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...engines.numpy_grid import pad
from ...errors import UsageError
from ...rules.stepspec import StepSpec
from ...topology import Topology
from ..lenia.rule import growth
from ..lenia.steps import growth_of
from .rule import ExpandedLenia, channel_scale


def _check(cells: Any, world: ExpandedLenia) -> None:
    if cells.ndim != 4 or cells.shape[1] != world.channels:
        raise UsageError(f"expanded Lenia takes (B, {world.channels}, H, W) cells, got {tuple(cells.shape)}")


@functools.lru_cache(maxsize=16)  # the kernels depend only on the world and the grid's shape
def _kernel_spectra(world: ExpandedLenia, shape: tuple[int, int]) -> np.ndarray:
    """``(K, H, W // 2 + 1)`` complex128: ``rfft2`` of each kernel placed on the torus."""
    return np.fft.rfft2(np.stack([world.kernel_grid(i, shape) for i in range(len(world.kernels))]))


def _padding(topology: Topology | None, world: ExpandedLenia) -> int:
    """Cells to pad each side by: none on a plain torus (the kernels wrap with the grid), else the reach."""
    return 0 if topology is None or (topology.kind == "torus" and topology.simple) else world.reach


def numpy_step(cells: np.ndarray, world: ExpandedLenia, topology: Topology | None = None) -> np.ndarray:
    """One generation of ``(B, C, H, W)`` cells (float64 arithmetic, the input's float dtype out) on
    ``topology`` (None: the torus of the grid's shape)."""

    _check(cells, world)
    a = np.asarray(cells, dtype=np.float64)
    batch, channels, height, width = a.shape
    radius = _padding(topology, world)
    padded = a
    if radius:
        flat = pad(a.reshape(batch * channels, height, width), radius, topology)  # type: ignore[arg-type]
        padded = flat.reshape(batch, channels, *flat.shape[-2:])
    shape = (int(padded.shape[-2]), int(padded.shape[-1]))
    spectra = np.fft.rfft2(padded)
    kernels = _kernel_spectra(world, shape)
    change = np.zeros_like(a)
    for i, k in enumerate(world.kernels):
        potential = np.fft.irfft2(spectra[:, k.source] * kernels[i], s=shape)
        potential = potential[:, radius : radius + height, radius : radius + width]
        change[:, k.target] += k.h * growth(world.growth_update(i), potential) / world.T
    out = np.clip(a + change * channel_scale(world)[None, :, None, None], 0, 1)
    return out.astype(cells.dtype if np.issubdtype(cells.dtype, np.floating) else np.float64)


def _torch_tables(world: ExpandedLenia, shape: tuple[int, int], dtype: Any, device: Any) -> tuple:
    """The kernels' transforms, the channel scale and the target indices, on ``device`` in ``dtype``."""
    import torch

    kernels = np.stack([world.kernel_grid(i, shape) for i in range(len(world.kernels))])
    return (torch.fft.rfft2(torch.from_numpy(kernels).to(device, dtype)),
            torch.from_numpy(channel_scale(world)).to(device, dtype).view(1, -1, 1, 1),
            torch.tensor([k.target for k in world.kernels], device=device))


def _torch_generation(cells: Any, padded: Any, world: ExpandedLenia, tables: tuple, radius: int) -> Any:
    """One generation from ``cells`` ``(B, C, H, W)`` and the same padded by ``radius`` (tensor ops only)."""
    import torch


    kernel_rfft, scale, targets = tables
    shape = (int(padded.shape[-2]), int(padded.shape[-1]))
    height, width = int(cells.shape[-2]), int(cells.shape[-1])
    sources = [k.source for k in world.kernels]
    potential = torch.fft.irfft2(torch.fft.rfft2(padded[:, sources]) * kernel_rfft, s=shape)  # (B, K, H', W')
    if radius:
        potential = potential[..., radius : radius + height, radius : radius + width]
    change = torch.zeros_like(cells)
    for i, k in enumerate(world.kernels):
        g = growth_of(world.gn, potential[:, i], k.m, k.s)
        change = change.index_add(1, targets[i : i + 1], (k.h / world.T * g)[:, None])
    return torch.clamp(cells + change * scale, 0.0, 1.0)


def torch_step(cells: Any, world: ExpandedLenia, _cache: dict | None = None) -> Any:
    """One generation of a ``(B, C, H, W)`` float tensor on its torus and device (differentiable, no host sync).

    ``_cache`` (a dict kept by the caller) holds the kernels' transforms between calls.
    """
    _check(cells, world)
    shape = (int(cells.shape[-2]), int(cells.shape[-1]))
    cache = _cache if _cache is not None else {}
    key = (world, shape, cells.dtype, str(cells.device))
    if key not in cache:  # moved to the device once: the loop only launches tensor operations
        cache[key] = _torch_tables(world, shape, cells.dtype, cells.device)
    return _torch_generation(cells, cells, world, cache[key], 0)


# -- the engines' kernels (tensorca.run) -------------------------------------------------------------


def engine_numpy_step(cells: np.ndarray, spec: StepSpec, topology: Topology) -> np.ndarray:
    """The NumPy reference's step for ``kernel_fft_channels``: ``(B, C, H, W)`` cells on ``topology``."""
    return numpy_step(cells, spec.perceive.world, topology)  # type: ignore[union-attr]


def engine_torch_build(spec: StepSpec, topology: Topology, device: Any) -> Any:
    """The torch engine's ``step(cells)`` for ``(B, C, H, W)`` float tensors on ``device`` and ``topology``.

    The kernels' transforms are built here for the topology's (padded) shape in float32 and float64,
    so the step (also when compiled) only launches tensor operations; another shape gets its own.
    """
    import torch

    from ...engines.tensor import kernels as K
    world: ExpandedLenia = spec.perceive.world  # type: ignore[union-attr]
    radius = _padding(topology, world)
    padding = K.padding(topology, radius, device) if radius else None
    tables: dict[tuple[tuple[int, int], Any], tuple] = {}

    def tables_for(shape: tuple[int, int], dtype: Any) -> tuple:
        found = tables.get((shape, dtype))
        if found is None:
            if len(tables) > 8:
                tables.clear()
            found = tables[(shape, dtype)] = _torch_tables(world, shape, dtype, device)
        return found

    height, width = topology.shape
    for dtype in (torch.float32, torch.float64):
        tables_for((height + 2 * radius, width + 2 * radius), dtype)

    def step(cells: torch.Tensor) -> torch.Tensor:
        grid = cells if cells.dtype in (torch.float32, torch.float64) else cells.to(torch.float32)
        padded = grid
        if padding is not None:
            batch, channels, h, w = grid.shape
            flat = K.pad(grid.reshape(batch * channels, h, w), radius, padding)
            padded = flat.reshape(batch, channels, h + 2 * radius, w + 2 * radius)
        shape = (int(padded.shape[-2]), int(padded.shape[-1]))
        return _torch_generation(grid, padded, world, tables_for(shape, grid.dtype), radius)

    return step




__all__ = ["engine_numpy_step", "engine_torch_build", "numpy_step", "torch_step"]
