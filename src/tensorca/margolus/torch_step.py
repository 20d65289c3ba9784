"""Block rules in PyTorch: whole-grid tensor operations, on any device, batch first.

Each step rolls the blocks' corners to (0, 0) (torus) or slices the blocks inside the grid
(plane), views the cells as ``(B, H/2, 2, W/2, 2)``, gathers the four cells of every block into
its code, looks the new block up in ``rule.new_cells()`` (a ``(n**4, 4)`` tensor on the device)
and writes it back. No host synchronisation inside the loop. Semantics are
:mod:`tensorca.margolus.reference`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .reference import check_grid
from .rules import BlockRule

__all__ = ["advance_torch"]


def _step(grid: Any, lut: Any, n: int, phase: tuple[int, int], torus: bool, keep: Any) -> Any:
    py, px = phase
    if torus:
        grid = torch.roll(grid, (-py, -px), dims=(1, 2))
        part = grid
        mask = None if keep is None else torch.roll(keep, (-py, -px), dims=(1, 2))
    else:
        height, width = grid.shape[1:]
        part = grid[:, py:py + 2 * ((height - py) // 2), px:px + 2 * ((width - px) // 2)]
        mask = None if keep is None else keep[:, py:py + part.shape[1], px:px + part.shape[2]]
    b, h, w = part.shape
    blocks = part.reshape(b, h // 2, 2, w // 2, 2).permute(0, 1, 3, 2, 4).reshape(b, h // 2, w // 2, 4).long()
    code = blocks[..., 0] + n * blocks[..., 1] + n * n * blocks[..., 2] + n**3 * blocks[..., 3]
    new = lut[code]  # (b, h/2, w/2, 4)
    if mask is not None:
        whole = mask.reshape(mask.shape[0], h // 2, 2, w // 2, 2).all(dim=4).all(dim=2)
        new = torch.where(whole[..., None], new, blocks.to(new.dtype))
    out = new.reshape(b, h // 2, w // 2, 2, 2).permute(0, 1, 3, 2, 4).reshape(b, h, w)
    if torus:
        return torch.roll(out, (py, px), dims=(1, 2))
    grid = grid.clone()
    grid[:, py:py + h, px:px + w] = out
    return grid


def advance_torch(cells: Any, rule: BlockRule, generations: int, phase: tuple[int, int], torus: bool,
                  present: Any = None) -> Any:
    """``generations`` steps of ``rule`` on ``cells`` (a ``(B, H, W)`` uint8 tensor) from ``phase``;
    a new tensor on the same device. ``present``: None or a bool tensor broadcastable to ``cells``."""
    check_grid(tuple(cells.shape), torus)
    lut = torch.tensor(np.array(rule.new_cells()), device=cells.device)
    n = rule.n_states
    keep = None
    if present is not None:
        keep = torch.as_tensor(present, dtype=torch.bool, device=cells.device)
        while keep.dim() < 3:
            keep = keep[None]
    grid = cells.to(torch.uint8)
    py, px = phase
    for s in range(generations):
        grid = _step(grid, lut, n, (py ^ (s & 1), px ^ (s & 1)), torus, keep)
    return grid.clone() if generations == 0 else grid
