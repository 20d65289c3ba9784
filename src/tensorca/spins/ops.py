"""The few array operations a sweep needs, once for NumPy and once for torch.

The sweep itself (:mod:`.sweep`) is written once against this interface, so the NumPy reference
and the torch engine run the same arithmetic; what differs is only how each library spells a
roll, a 64-bit hash and a dtype. Every value a sweep compares is an integer or a float64 computed
by the same IEEE operations in the same order, so the engines agree bit for bit.

Arrays are batched ``(B, H, W)``. Draws (:meth:`draw53`) are the 53-bit integers ``k`` behind
:func:`tensorca.randomness.uniform_cells` (``u = k / 2^53``) for a batch of grids at once:
``word(y, x) >> 11`` under the key ``fmix(prefix ^ grid)``, where ``prefix`` is the key of
``(seed, generation, draw)`` before the grid is mixed in (:func:`key_prefix`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..randomness import G1, G2, K0, MASK64, _fmix_np, _fmix_torch, _shr, _signed, fmix


def key_prefix(seed: int, generation: int, draw: int) -> int:
    """``fmix(fmix(fmix(seed ^ K0) ^ generation) ^ draw)``: the stream key of randomness'
    documented function before its last step, ``key = fmix(prefix ^ grid)``."""
    key = fmix(int(seed) ^ K0)
    key = fmix(key ^ (int(generation) & MASK64))
    return fmix(key ^ (int(draw) & MASK64))


@dataclass(frozen=True)
class Part:
    """One quarter of the lattice, ``cells[..., r0::2, c0::2]``, with its hash multipliers:
    ``rows = y * G1`` for its rows and ``cols = (x + 1) * G2`` for its columns (native arrays)."""

    r0: int
    c0: int
    rows: Any
    cols: Any


class NumpyOps:
    """NumPy: hashes in uint64 (arithmetic wraps modulo 2^64)."""

    name = "numpy"

    def __init__(self) -> None:
        self.device = None

    def part(self, r0: int, c0: int, height: int, width: int) -> Part:
        ys = np.arange(r0, height, 2, dtype=np.uint64)
        xs = np.arange(c0, width, 2, dtype=np.uint64)
        with np.errstate(over="ignore"):
            return Part(r0, c0, ys * np.uint64(G1), (xs + np.uint64(1)) * np.uint64(G2))

    def grids(self, first: int, count: int) -> Any:
        return (np.arange(count, dtype=np.int64) + first).astype(np.uint64)

    def draw53(self, prefix: int, grids: Any, part: Part) -> Any:
        """int64 ``(B, rows, cols)``: ``word(y, x) >> 11`` of each grid's key over ``part``."""
        with np.errstate(over="ignore"):
            keys = _fmix_np(np.uint64(prefix) ^ grids)
            rows = _fmix_np(keys[:, None] ^ part.rows[None, :])
            words = _fmix_np(rows[:, :, None] ^ part.cols[None, None, :])
        return (words >> np.uint64(11)).astype(np.int64)

    def table(self, values: list, kind: str) -> Any:
        return np.asarray(values, dtype=np.int64 if kind == "int64" else np.float64)

    def cast(self, a: Any, kind: str) -> Any:
        return a.astype(getattr(np, kind))

    def copy_as(self, a: Any, kind: str) -> Any:
        """A new array (never a view of ``a``) of dtype ``kind``."""
        return a.astype(getattr(np, kind), copy=True)

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        return np.where(cond, a, b)

    def maximum(self, a: Any, b: Any) -> Any:
        return np.maximum(a, b)

    def zeros(self, shape: tuple[int, ...], kind: str) -> Any:
        return np.zeros(shape, getattr(np, kind))

    def neighbours(self, a: Any, boundary: str, fill: int) -> list:
        """``[up, down, left, right]``: each cell's neighbour values (``a[y-1, x]``, ``a[y+1, x]``,
        ``a[y, x-1]``, ``a[y, x+1]``); off a plane's edge they read ``fill``."""
        if boundary == "torus":
            return [np.roll(a, 1, -2), np.roll(a, -1, -2), np.roll(a, 1, -1), np.roll(a, -1, -1)]
        out = [np.full_like(a, fill) for _ in range(4)]
        out[0][..., 1:, :] = a[..., :-1, :]
        out[1][..., :-1, :] = a[..., 1:, :]
        out[2][..., :, 1:] = a[..., :, :-1]
        out[3][..., :, :-1] = a[..., :, 1:]
        return out

    def cell_sum(self, a: Any) -> Any:
        """int64 ``(B,)``: the sum over each grid's cells."""
        return a.sum(axis=(-2, -1), dtype=np.int64)

    def stack(self, items: list) -> Any:
        return np.stack(items)


class TorchOps:
    """torch on ``device``: hashes in int64 holding the same 64 bits (shifts made logical)."""

    name = "torch"

    def __init__(self, device: Any) -> None:
        import torch

        self.torch = torch
        self.device = torch.device(device)

    def part(self, r0: int, c0: int, height: int, width: int) -> Part:
        torch = self.torch
        ys = torch.arange(r0, height, 2, dtype=torch.int64, device=self.device)
        xs = torch.arange(c0, width, 2, dtype=torch.int64, device=self.device)
        return Part(r0, c0, ys * _signed(G1), (xs + 1) * _signed(G2))

    def grids(self, first: int, count: int) -> Any:
        torch = self.torch
        return torch.arange(first, first + count, dtype=torch.int64, device=self.device)

    def draw53(self, prefix: int, grids: Any, part: Part) -> Any:
        keys = _fmix_torch(grids ^ _signed(prefix))
        rows = _fmix_torch(keys[:, None] ^ part.rows[None, :])
        return _shr(_fmix_torch(rows[:, :, None] ^ part.cols[None, None, :]), 11)

    def table(self, values: list, kind: str) -> Any:
        torch = self.torch
        dtype = torch.int64 if kind == "int64" else torch.float64
        return torch.tensor(values, dtype=dtype, device=self.device)

    def cast(self, a: Any, kind: str) -> Any:
        return a.to(getattr(self.torch, kind))

    def copy_as(self, a: Any, kind: str) -> Any:
        """A new tensor (never ``a`` itself) of dtype ``kind``."""
        return a.to(getattr(self.torch, kind), copy=True)

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        return self.torch.where(cond, a, b)

    def maximum(self, a: Any, b: Any) -> Any:
        return self.torch.maximum(a, b)

    def zeros(self, shape: tuple[int, ...], kind: str) -> Any:
        return self.torch.zeros(shape, dtype=getattr(self.torch, kind), device=self.device)

    def neighbours(self, a: Any, boundary: str, fill: int) -> list:
        """As :meth:`NumpyOps.neighbours`."""
        torch = self.torch
        if boundary == "torus":
            return [torch.roll(a, 1, -2), torch.roll(a, -1, -2), torch.roll(a, 1, -1), torch.roll(a, -1, -1)]
        out = [torch.full_like(a, fill) for _ in range(4)]
        out[0][..., 1:, :] = a[..., :-1, :]
        out[1][..., :-1, :] = a[..., 1:, :]
        out[2][..., :, 1:] = a[..., :, :-1]
        out[3][..., :, :-1] = a[..., :, 1:]
        return out

    def cell_sum(self, a: Any) -> Any:
        return a.sum(dim=(-2, -1), dtype=self.torch.int64)

    def stack(self, items: list) -> Any:
        return self.torch.stack(items)


def ops_for(backend: str, device: Any = None) -> NumpyOps | TorchOps:
    """The operations of ``backend`` (``"numpy"`` or ``"torch"`` on ``device``)."""
    return NumpyOps() if backend == "numpy" else TorchOps(device if device is not None else "cpu")
