"""Kernels of the majority family's kinds: the NumPy reference and the torch step.

The NumPy step is ``step(cells, spec, topology) -> cells`` on ``(B, H, W)`` ``uint8``; the torch one is
``build(spec, topology, device) -> step``, ``step`` mapping a ``(B, H, W)`` ``uint8`` tensor to the next
generation with tensor operations only. Both pad through tensorca's own padding, so every topology
(torus, plane, shifted tori, Klein bottles, cross-surface, sphere) joins its edges as the built-in
families' do.
"""

from __future__ import annotations

import numpy as np

from tensorca.engines.numpy_reference import pad


def numpy_step(cells: np.ndarray, spec, topology) -> np.ndarray:
    """One generation: box sums from a 2-D prefix sum of the padded grid, then the threshold."""
    radius, at_least = spec.perceive.radius, spec.update.at_least
    _, height, width = cells.shape
    padded = pad((cells == 1).astype(np.int64), radius, topology)
    prefix = np.zeros((padded.shape[0], padded.shape[1] + 1, padded.shape[2] + 1), dtype=np.int64)
    prefix[:, 1:, 1:] = padded.cumsum(axis=1).cumsum(axis=2)
    side = 2 * radius + 1
    count = (prefix[:, side:side + height, side:side + width] - prefix[:, :height, side:side + width]
             - prefix[:, side:side + height, :width] + prefix[:, :height, :width])
    return (count >= at_least).astype(np.uint8)


def torch_build(spec, topology, device):
    """``step(cells) -> cells`` on ``device``: the same prefix sums in int64 tensors."""
    import torch

    from tensorca.engines.tensor import kernels as torch_kernels
    radius, at_least = spec.perceive.radius, spec.update.at_least
    kind = torch_kernels.padding(topology, radius, device)
    side = 2 * radius + 1

    def step(cells: torch.Tensor) -> torch.Tensor:
        _, height, width = cells.shape
        padded = torch_kernels.pad((cells == 1).to(torch.int64), radius, kind)
        prefix = torch.nn.functional.pad(padded.cumsum(1).cumsum(2), (1, 0, 1, 0))
        count = (prefix[:, side:side + height, side:side + width] - prefix[:, :height, side:side + width]
                 - prefix[:, side:side + height, :width] + prefix[:, :height, :width])
        return (count >= at_least).to(torch.uint8)

    return step
