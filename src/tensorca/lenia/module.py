"""Lenia as a ``torch.nn.Module`` whose growth parameters ``m``, ``s`` (and ``T``) are learnable.

``run(x, rule, n, backend="torch")`` is differentiable in the cells; this module is differentiable in
the rule's growth parameters too, for fitting them to data (``examples/fit_lenia.py``). It computes
exactly the torch engine's step (:mod:`tensorca.families.lenia.steps`) on a plain torus.
"""

from __future__ import annotations

import torch
from torch import nn

from ..errors import UsageError
from ..families.lenia.rule import LeniaRule, kernel_on_grid
from ..families.lenia.steps import growth_of
from ..rules.base import Rule
from ..rules.spec import parse_rule


class LeniaModule(nn.Module):
    """One Lenia generation on an ``(H, W)`` torus, ``forward(x, steps)`` on ``(B, H, W)`` float tensors.

    ``m``, ``s``, ``T`` are float64 :class:`torch.nn.Parameter` s started at the rule's values;
    ``learn`` names those that train (the others are frozen). The kernel (radius, shells, core)
    is fixed: its ``rfft2`` is a buffer.
    """

    def __init__(self, rule: str | Rule, shape: tuple[int, int], learn: tuple[str, ...] = ("m", "s")):
        super().__init__()
        value = parse_rule(rule) if isinstance(rule, str) else rule
        if not isinstance(value, LeniaRule):
            raise UsageError(f"LeniaModule needs a Lenia rule, got {value.canonical()!r}")
        unknown = set(learn) - {"m", "s", "T"}
        if unknown:
            raise UsageError(f"learn names m, s or T, not {sorted(unknown)}")
        self.rule, self.shape, self.gn = value, tuple(shape), value.gn
        kernel = torch.from_numpy(kernel_on_grid(value.compile().perceive, self.shape))  # type: ignore[arg-type]
        self.register_buffer("kernel_rfft", torch.fft.rfft2(kernel))
        for name in ("m", "s", "T"):
            parameter = nn.Parameter(torch.tensor(float(getattr(value, name)), dtype=torch.float64))
            parameter.requires_grad_(name in learn)
            setattr(self, name, parameter)

    def step(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, H, W)`` -> the next generation (the input's float dtype)."""
        if tuple(x.shape[-2:]) != self.shape:
            raise UsageError(f"cells of shape {tuple(x.shape[-2:])}, module built for {self.shape}")
        kernel = self.kernel_rfft.to(torch.complex64 if x.dtype == torch.float32 else torch.complex128)
        potential = torch.fft.irfft2(torch.fft.rfft2(x) * kernel, s=self.shape)
        m, s, T = (p.to(x.dtype) for p in (self.m, self.s, self.T))
        return torch.clamp(x + growth_of(self.gn, potential, m, s) / T, 0.0, 1.0)

    def forward(self, x: torch.Tensor, steps: int = 1) -> torch.Tensor:
        for _ in range(steps):
            x = self.step(x)
        return x
