"""Lenia's kernels (``kernel_fft`` / ``growth``) for the NumPy reference and the torch engine.

One generation: ``U = K * A`` (circular convolution by FFT), ``A <- clip(A + G(U) / T, 0, 1)``
(definitions in :mod:`tensorca.rules.lenia`). On a plain torus the kernel is embedded in the grid
itself (:func:`~tensorca.rules.lenia.kernel_on_grid`). Every other bounded topology pads the grid by
``R`` as the topology says (zeros for a plane, a gather for Klein bottles, ...) and convolves the
padded ``(H + 2R, W + 2R)`` grid circularly: each interior cell then reads only cells within ``R``,
never a wrapped one, so the result is exact.

- NumPy (``numpy_step``): float64 arithmetic whatever the input; the result has the input's dtype.
- torch (``torch_build``): the input's float dtype (float32 or float64; other dtypes run in
  float32), the kernel's ``rfft2`` cached per padded shape (both dtypes) on the step's device;
  tensor operations only (no host synchronisation, nothing in place on the input), so autograd flows
  through any number of steps.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..rules.lenia import GrowthUpdate, KernelFFT, growth, kernel_on_grid
from ..rules.stepspec import StepSpec
from ..topology import Topology
from .steps import register_step

KINDS = ("kernel_fft", "growth")


def simple_torus(topology: Topology) -> bool:
    """True for a plain torus: the kernel wraps with the grid, no padding needed."""
    return topology.kind == "torus" and topology.simple


@functools.lru_cache(maxsize=32)
def _kernel_rfft(perceive: KernelFFT, shape: tuple[int, int]) -> np.ndarray:
    """``rfft2`` of the kernel embedded in an ``(H, W)`` torus, complex128 ``(H, W // 2 + 1)``."""
    return np.fft.rfft2(kernel_on_grid(perceive, shape))


def numpy_potential(cells: np.ndarray, perceive: KernelFFT, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` float64 ``K * A`` of ``(B, H, W)`` cells on ``topology``."""
    from .numpy_reference import pad  # the reference's padding: one definition of every topology

    grid = np.asarray(cells, dtype=np.float64)
    radius = perceive.R
    padded = grid if simple_torus(topology) else pad(grid, radius, topology)
    shape = (int(padded.shape[1]), int(padded.shape[2]))
    potential = np.fft.irfft2(np.fft.rfft2(padded) * _kernel_rfft(perceive, shape), s=shape)
    if padded is grid:
        return potential
    return potential[:, radius : radius + grid.shape[1], radius : radius + grid.shape[2]]


def numpy_step(cells: np.ndarray, spec: StepSpec, topology: Topology) -> np.ndarray:
    """One Lenia generation of ``(B, H, W)`` float cells (float64 arithmetic, the input's dtype out)."""
    update: GrowthUpdate = spec.update  # type: ignore[assignment]
    grid = np.asarray(cells, dtype=np.float64)
    potential = numpy_potential(grid, spec.perceive, topology)  # type: ignore[arg-type]
    out = np.clip(grid + growth(update, potential) / update.T, 0.0, 1.0)
    dtype = cells.dtype if np.issubdtype(cells.dtype, np.floating) else np.float64
    return out.astype(dtype, copy=False)


def growth_of(gn: int, potential: Any, m: Any, s: Any) -> Any:
    """Growth function ``gn`` of a tensor with ``m``, ``s`` floats or tensors (differentiable in all three)."""
    return growth_bump(gn, potential, m, s) * 2 - 1


def growth_bump(gn: int, potential: Any, m: Any, s: Any) -> Any:
    """``(G + 1) / 2`` in [0, 1]: the bump of growth function ``gn`` (squares, not ``** 4``: fewer passes)."""
    import torch

    if gn == 3:
        return ((potential - m).abs() <= s).to(potential.dtype)
    d2 = (potential - m).square()
    if gn == 1:
        return torch.clamp(1 - d2 / (9 * s * s), min=0).square().square()
    return torch.exp(d2 / (-2 * s * s))


def torch_build(spec: StepSpec, topology: Topology, device: Any) -> Any:
    """``step(cells) -> cells`` for ``(B, H, W)`` float tensors on ``device`` (see the module docstring)."""
    import torch

    from . import torch_kernels as K

    perceive: KernelFFT = spec.perceive  # type: ignore[assignment]
    update: GrowthUpdate = spec.update  # type: ignore[assignment]
    radius = perceive.R
    padding = None if simple_torus(topology) else K.padding(topology, radius, device)
    # The engine caches this step per rule and *kind* of topology (a torus of any size), so the
    # kernel's transform is built lazily per padded shape (both dtypes at once) and kept here.
    kernels: dict[tuple[int, int], tuple[torch.Tensor, torch.Tensor]] = {}

    def kernel_rfft(shape: tuple[int, int], dtype: torch.dtype) -> torch.Tensor:
        pair = kernels.get(shape)
        if pair is None:
            if len(kernels) > 8:
                kernels.clear()
            k64 = torch.fft.rfft2(torch.from_numpy(kernel_on_grid(perceive, shape)).to(device))
            pair = kernels[shape] = (k64, k64.to(torch.complex64))
        return pair[0] if dtype == torch.float64 else pair[1]

    height, width = topology.shape  # built now for this size: a compiled step then only reads the dict
    kernel_rfft((height, width) if padding is None else (height + 2 * radius, width + 2 * radius), torch.float32)

    def step(cells: torch.Tensor) -> torch.Tensor:
        grid = cells if cells.dtype in (torch.float32, torch.float64) else cells.to(torch.float32)
        padded = grid if padding is None else K.pad(grid, radius, padding)
        shape = (int(padded.shape[-2]), int(padded.shape[-1]))
        potential = torch.fft.irfft2(torch.fft.rfft2(padded) * kernel_rfft(shape, grid.dtype), s=shape)
        if padding is not None:
            potential = potential[:, radius : radius + grid.shape[1], radius : radius + grid.shape[2]]
        # A + G/T with G = 2 bump - 1, as one fused add: (A - 1/T) + (2/T) bump
        bump = growth_bump(update.gn, potential, update.m, update.s)
        return torch.clamp(torch.add(grid - 1 / update.T, bump, alpha=2 / update.T), 0.0, 1.0)

    return step


register_step("numpy", KINDS, "tensorca.engines.lenia_steps:numpy_step")
register_step("torch", KINDS, "tensorca.engines.lenia_steps:torch_build")
