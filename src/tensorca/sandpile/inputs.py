"""User grids in, checked heights out, and results back in the user's array type.

Heights are non-negative integers: any NumPy or torch integer dtype is accepted (bool and floats are
not: a grain count is not a truth value or a measurement), computed on as int64 and returned in the
input's dtype, which always holds a stable height (``threshold - 1`` at most).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import is_tensor
from ..errors import GridError
from .model import MAX_HEIGHT


@dataclass(frozen=True)
class Heights:
    """A checked grid: ``cells`` is ``(B, H, W)`` int64 (NumPy, or a torch tensor on the input's
    device); ``batched`` says whether the user passed ``(B, H, W)`` or ``(H, W)``; ``dtype`` is the
    input's dtype; ``grains`` the total of each grid, ``(B,)`` Python ints."""

    cells: Any
    batched: bool
    dtype: Any
    grains: tuple[int, ...]


def _dtype_error(name: str) -> GridError:
    return GridError(f"sandpile heights must be an integer dtype (grains per cell), got {name}; "
                     "convert with .astype(np.int64) (or .long() for a tensor)")


def check_heights(grid: Any, threshold: int) -> Heights:
    """``grid`` (``(H, W)`` or ``(B, H, W)``, NumPy or torch, any integer dtype) as :class:`Heights`.

    :class:`GridError` for a float, bool or other non-integer dtype, a wrong number of dimensions, an
    empty grid, a negative height, a height above :data:`MAX_HEIGHT`, or a dtype too small to hold
    the stable heights ``0..threshold-1`` that come back.
    """
    tensor = is_tensor(grid)
    if tensor:
        import torch

        dtype = grid.dtype
        if dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
            raise _dtype_error(str(dtype).replace("torch.", ""))
        top = torch.iinfo(dtype).max
    else:
        grid = np.asarray(grid)
        dtype = grid.dtype
        if dtype == np.bool_ or not np.issubdtype(dtype, np.integer):
            raise _dtype_error(str(dtype))
        top = np.iinfo(dtype).max
    if threshold - 1 > top:
        raise GridError(f"a {str(dtype).replace('torch.', '')} grid cannot hold stable heights up to {threshold - 1} "
                        f"(threshold {threshold}); use a wider integer dtype")
    if grid.ndim not in (2, 3):
        raise GridError(f"a sandpile grid is (H, W) or (B, H, W), got shape {tuple(grid.shape)}")
    if any(side == 0 for side in grid.shape):
        raise GridError(f"a sandpile grid must not be empty, got shape {tuple(grid.shape)}")
    low, high = (int(grid.min()), int(grid.max()))
    if low < 0:
        where = tuple(int(i) for i in np.unravel_index(int(_argmin(grid)), tuple(grid.shape)))
        raise GridError(f"sandpile heights must be non-negative; cell {where} holds {low}")
    if high > MAX_HEIGHT:
        raise GridError(f"sandpile heights must be at most {MAX_HEIGHT} grains a cell, got {high}")
    batched = grid.ndim == 3
    cells = grid.to(torch.int64) if tensor else grid.astype(np.int64)
    if not batched:
        cells = cells[None]
    grains = tuple(int(total) for total in cells.reshape(cells.shape[0], -1).sum(1).tolist())
    return Heights(cells, batched, dtype, grains)


def _argmin(grid: Any) -> int:
    return int(grid.flatten().argmin()) if is_tensor(grid) else int(np.argmin(grid))


def restore(cells: Any, heights: Heights, like: Any, keep_dtype: bool = True) -> Any:
    """``cells`` (``(B, H, W)`` int64, NumPy or torch) back in the user's form: NumPy or a tensor on
    the input's device as ``like`` is, the batch axis dropped when the input had none, and the
    input's dtype when ``keep_dtype`` (topple counts stay int64)."""
    if is_tensor(like):
        import torch

        out = cells if is_tensor(cells) else torch.from_numpy(np.ascontiguousarray(cells))
        out = out.to(like.device)
        if keep_dtype:
            out = out.to(heights.dtype)
    else:
        out = cells.detach().cpu().numpy() if is_tensor(cells) else np.asarray(cells)
        if keep_dtype:
            out = out.astype(heights.dtype, copy=False)
    return out if heights.batched else out[0]
