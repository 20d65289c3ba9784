"""Observers of spin lattices: magnetisation and energy per site (Ising), order and energy per
site (Potts), for NumPy arrays and torch tensors alike.

Sums are taken in int64 and divided in float64 in one fixed order, so the NumPy and torch values
are the same floats. Conventions (J = 1; the sums run over nearest-neighbour bonds, each bond once;
on a torus of width or height 2 the two bonds between the same pair both count, as in the
dynamics; on a plane, bonds off the edge do not exist)::

    Ising:  E = -sum_<ij> s_i s_j - h sum_i s_i          m = sum_i s_i / N
    Potts:  E = -sum_<ij> [s_i == s_j]                   order = (q max_t N_t / N - 1) / (q - 1)

(``N_t``: sites in state ``t``; order is 1 when all agree and about 0 when states are equally
common.) Per-site values divide by ``N = H * W``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import is_tensor
from . import params
from .checks import check_ising, check_ndim, check_potts
from .ops import NumpyOps, TorchOps, ops_for


def ising_values(ops: NumpyOps | TorchOps, spins: Any, h: float, boundary: str) -> tuple[Any, Any]:
    """``(m, e)``: float64 ``(B,)`` magnetisation and energy per site of int8 spins ``(B, H, W)``."""
    size = spins.shape[-1] * spins.shape[-2]
    _, down, _, right = ops.neighbours(spins, boundary, 0)
    wide = ops.cast(spins, "int64")
    bonds = ops.cell_sum(wide * (ops.cast(down, "int64") + ops.cast(right, "int64")))
    total = ops.cell_sum(wide)
    m = ops.cast(total, "float64") / size
    e = -(ops.cast(bonds, "float64") + h * ops.cast(total, "float64")) / size
    return m, e


def potts_values(ops: NumpyOps | TorchOps, states: Any, q: int, boundary: str) -> tuple[Any, Any]:
    """``(order, e)``: float64 ``(B,)`` order parameter and energy per site of int16 states ``(B, H, W)``."""
    size = states.shape[-1] * states.shape[-2]
    _, down, _, right = ops.neighbours(states, boundary, -1)
    bonds = ops.cell_sum(ops.cast(states == down, "int64") + ops.cast(states == right, "int64"))
    most = ops.cell_sum(ops.cast(states == 0, "int64"))
    for t in range(1, q):
        most = ops.maximum(most, ops.cell_sum(ops.cast(states == t, "int64")))
    order = (q * ops.cast(most, "float64") / size - 1.0) / (q - 1)
    return order, -ops.cast(bonds, "float64") / size


def _lattice_input(cells: Any) -> tuple[Any, NumpyOps | TorchOps, bool]:
    """``cells`` batched ``(B, H, W)``, its operations, and whether it came unbatched."""
    tensor = is_tensor(cells)
    if not tensor:
        cells = np.asarray(cells)
    check_ndim(cells)
    ops = ops_for("torch", cells.device) if tensor else ops_for("numpy")
    single = cells.ndim == 2
    return (cells[None] if single else cells), ops, single


def magnetisation(spins: Any) -> Any:
    """Magnetisation per site of Ising spins: int8 +-1, ``(H, W)`` -> float64 scalar, ``(B, H, W)``
    -> float64 ``(B,)`` (a tensor on the spins' device for a tensor)."""
    cells, ops, single = _lattice_input(spins)
    check_ising(cells)
    m, _ = ising_values(ops, cells, 0.0, "torus")
    return m[0] if single else m


def energy(spins: Any, h: float = 0.0, boundary: str = "torus") -> Any:
    """Energy per site of Ising spins (J = 1, field ``h``): int8 +-1, ``(H, W)`` -> float64 scalar,
    ``(B, H, W)`` -> float64 ``(B,)``. ``boundary``: ``"torus"`` or ``"plane"``."""
    h = params.field(h)
    boundary = params.choice("boundary", boundary, params.BOUNDARIES)
    cells, ops, single = _lattice_input(spins)
    check_ising(cells)
    _, e = ising_values(ops, cells, h, boundary)
    return e[0] if single else e


def potts_order(states: Any, q: int) -> Any:
    """The Potts order parameter ``(q max_t N_t / N - 1) / (q - 1)`` of uint8 states 0..q-1:
    ``(H, W)`` -> float64 scalar, ``(B, H, W)`` -> float64 ``(B,)``."""
    q = params.potts_q(q)
    cells, ops, single = _lattice_input(states)
    check_potts(cells, q)
    order, _ = potts_values(ops, ops.cast(cells, "int16"), q, "torus")
    return order[0] if single else order


def potts_energy(states: Any, q: int, boundary: str = "torus") -> Any:
    """Energy per site ``-sum_<ij> [s_i == s_j] / N`` of uint8 Potts states 0..q-1: ``(H, W)`` ->
    float64 scalar, ``(B, H, W)`` -> float64 ``(B,)``."""
    q = params.potts_q(q)
    boundary = params.choice("boundary", boundary, params.BOUNDARIES)
    cells, ops, single = _lattice_input(states)
    check_potts(cells, q)
    _, e = potts_values(ops, ops.cast(cells, "int16"), q, boundary)
    return e[0] if single else e
