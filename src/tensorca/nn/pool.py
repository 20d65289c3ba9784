"""The sample pool of the growing-NCA recipe: training batches start from states the model made."""

from __future__ import annotations

import torch

from ..errors import UsageError


class SamplePool:
    """``size`` copies of ``seed`` ``(C, H, W)``; :meth:`sample` draws a batch, :meth:`commit` writes the
    batch back after training steps, so later batches start from grown (and damaged) states.
    """

    def __init__(self, seed: torch.Tensor, size: int = 1024):
        if seed.ndim != 3:
            raise UsageError(f"seed must be (C, H, W), got shape {tuple(seed.shape)}")
        if size < 1:
            raise UsageError(f"pool size must be >= 1, got {size}")
        self.seed = seed.detach().clone()
        self.states = seed.detach()[None].repeat(size, 1, 1, 1)

    def __len__(self) -> int:
        return int(self.states.shape[0])

    def sample(self, batch: int, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(indices, states)``: ``batch`` distinct pool entries, ``(batch, C, H, W)`` copies."""
        if not 1 <= batch <= len(self):
            raise UsageError(f"batch must lie in 1..{len(self)}, got {batch}")
        indices = torch.randperm(len(self), generator=generator)[:batch]
        return indices, self.states[indices].clone()

    def commit(self, indices: torch.Tensor, states: torch.Tensor) -> None:
        """Store ``states`` (detached) at ``indices``."""
        self.states[indices] = states.detach().to(self.states.dtype)
