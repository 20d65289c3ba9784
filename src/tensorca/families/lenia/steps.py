"""Lenia's kernels (``kernel_fft`` / ``growth``) for the NumPy reference and the torch engine.

One generation: ``U = K * A`` (circular convolution by FFT), ``A <- clip(A + G(U) / T, 0, 1)``
(definitions in :mod:`tensorca.families.lenia.rule`). On a plain torus the kernel is embedded in the grid
itself (:func:`~tensorca.families.lenia.rule.kernel_on_grid`). Every other bounded topology pads the grid by
``R`` as the topology says (zeros for a plane, a gather for Klein bottles, ...) and convolves the
padded ``(H + 2R, W + 2R)`` grid circularly: each interior cell then reads only cells within ``R``,
never a wrapped one, so the result is exact.

- NumPy (``numpy_step``): float64 arithmetic whatever the input; the result has the input's dtype.
- torch (``torch_build``): the input's float dtype (float32 or float64; other dtypes run in
  float32), the kernel's ``rfft2`` cached per padded shape (both dtypes) on the step's device (the
  engine keeps one step per device, and with ``compile=True`` one per grid shape);
  tensor operations only (no host synchronisation, nothing in place on the input), so autograd flows
  through any number of steps. The potential comes out of the inverse FFT already as the growth
  function's unit-width argument ``(U - m) / (c s)`` (the scale folded into the kernel's transform,
  the centre into its zero frequency). When the grid does not require grad, the growth and clip then
  run in place on the step's own temporaries (one new tensor for them instead of eight): on a 512^2
  torus the FFTs are most of a step (MKL's ``irfft2`` about twice ``rfft2``), see
  ``benchmarks/bench_lenia.py``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...engines.numpy_grid import pad  # the reference's padding: one definition of every topology
from ...rules.stepspec import StepSpec
from ...topology import Topology
from .rule import STEP_EDGE, GrowthUpdate, KernelFFT, growth, kernel_on_grid

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
        return ((potential - m).abs() <= s + STEP_EDGE).to(potential.dtype)
    d2 = (potential - m).square()
    if gn == 1:
        return torch.clamp(1 - d2 / (9 * s * s), min=0).square().square()
    return torch.exp(d2 / (-2 * s * s))


#: Growth ``gn``'s width unit: the potential is read as ``x = (U - m) / (c s)`` with ``c`` this, so the bump
#: is ``max(0, 1 - x^2)^4`` (gn 1), ``exp(-x^2)`` (gn 2) or ``|x| <= 1`` (gn 3).
_WIDTH_UNIT = {1: 3.0, 2: 2.0**0.5, 3: 1.0}


def _scaled_bump(gn: int, x: Any, edge: float = 1.0) -> Any:
    """``(G + 1) / 2`` of the scaled potential ``x = (U - m) / (c s)``, out of place (autograd-safe);
    ``edge``: where the step (gn 3) ends, ``1 + STEP_EDGE / s`` in these units."""
    import torch

    if gn == 3:
        return (x.abs() <= edge).to(x.dtype)
    if gn == 1:
        return torch.clamp(1 - x.square(), min=0).square().square()
    return torch.exp(-x.square())


def _fast_update(gn: int, grid: Any, x: Any, T: float) -> Any:
    """``clip(A + G/T, 0, 1)`` for ``gn`` 1 or 2 from ``x = (U - m) / (c s)``, this step's own scratch tensor,
    overwritten: six or seven passes and one new tensor where the out-of-place chain makes eight of each (a
    fresh tensor's allocation and first touch cost as much as the arithmetic). Not differentiable."""
    import torch

    if gn == 1:
        # sqrt(bump) = (1 - min(x^2, 1))^2 = (min(x^2, 1) - 1)^2, and min(x^2, 1) = clip(x, -1, 1)^2
        x.clamp_(-1.0, 1.0).square_().sub_(1.0).square_()
        out = torch.addcmul(grid, x, x, value=2 / T)  # A + (2/T) bump
    else:
        out = torch.add(grid, x.square_().neg_().exp_(), alpha=2 / T)
    return out.sub_(1 / T).clamp_(0.0, 1.0)


def torch_build(spec: StepSpec, topology: Topology, device: Any) -> Any:
    """``step(cells) -> cells`` for ``(B, H, W)`` float tensors on ``device`` (see the module docstring)."""
    import torch

    from ...engines.tensor import kernels as K
    perceive: KernelFFT = spec.perceive  # type: ignore[assignment]
    update: GrowthUpdate = spec.update  # type: ignore[assignment]
    radius, gn, T = perceive.R, update.gn, update.T
    # The kernel's transform carries 1 / (c s), and m / (c s) comes off the product's zero frequency
    # (a constant is all zero frequency: c * H * W there), so the inverse FFT yields x = (U - m) / (c s)
    # itself and the growth functions read a unit-width bump: two passes over the grid fewer.
    scale = 1.0 / (_WIDTH_UNIT[gn] * update.s)
    centre = update.m * scale
    edge = 1.0 + STEP_EDGE * scale  # gn 3's band edge, in units of x (see rules.lenia.STEP_EDGE)
    padding = None if simple_torus(topology) else K.padding(topology, radius, device)
    # The engine caches this step per rule and *kind* of topology (a torus of any size), so the
    # kernel's transform is built lazily per padded shape (both dtypes at once) and kept here. A
    # compiled step cannot build one (NumPy inside a trace): the engine keeps compiled steps per
    # grid shape, and the transform for this topology's shape is built below, before any trace.
    kernels: dict[tuple[int, int], tuple[torch.Tensor, torch.Tensor]] = {}

    def kernel_rfft(shape: tuple[int, int], dtype: torch.dtype) -> torch.Tensor:
        pair = kernels.get(shape)
        if pair is None:
            if len(kernels) > 8:
                kernels.clear()
            k64 = torch.fft.rfft2(torch.from_numpy(kernel_on_grid(perceive, shape) * scale).to(device))
            pair = kernels[shape] = (k64, k64.to(torch.complex64))
        return pair[0] if dtype == torch.float64 else pair[1]

    height, width = topology.shape  # built now for this size: a compiled step then only reads the dict
    kernel_rfft((height, width) if padding is None else (height + 2 * radius, width + 2 * radius), torch.float32)

    def step(cells: torch.Tensor) -> torch.Tensor:
        grid = cells if cells.dtype in (torch.float32, torch.float64) else cells.to(torch.float32)
        padded = grid if padding is None else K.pad(grid, radius, padding)
        shape = (int(padded.shape[-2]), int(padded.shape[-1]))
        # The transform is this step's own tensor: multiplied in place (autograd allows it: neither
        # rfft2's backward nor the multiply's reads it), then the zero frequency shifted (see above).
        spectrum = torch.fft.rfft2(padded).mul_(kernel_rfft(shape, grid.dtype))
        spectrum[..., 0, 0] -= centre * shape[0] * shape[1]
        x = torch.fft.irfft2(spectrum, s=shape)
        if padding is not None:
            x = x[:, radius : radius + grid.shape[1], radius : radius + grid.shape[2]]
        if gn != 3 and not (grid.requires_grad and torch.is_grad_enabled()):
            return _fast_update(gn, grid, x, T)  # nothing to differentiate: x updated in place
        # A + G/T with G = 2 bump - 1, as one fused add: (A - 1/T) + (2/T) bump
        return torch.clamp(torch.add(grid - 1 / T, _scaled_bump(gn, x, edge), alpha=2 / T), 0.0, 1.0)

    return step


