"""Checks of the lattices a user passes: shape, dtype and values, each failure one GridError line."""

from __future__ import annotations

from typing import Any

from ..errors import GridError


def _dtype(cells: Any) -> str:
    return str(cells.dtype).replace("torch.", "")


def check_ndim(cells: Any) -> None:
    """``(H, W)`` or ``(B, H, W)`` with no empty axis."""
    if cells.ndim not in (2, 3):
        raise GridError(f"spins: a lattice is (H, W) or (B, H, W), got shape {tuple(cells.shape)}")
    if any(int(n) == 0 for n in cells.shape):
        raise GridError(f"spins: a lattice needs at least one site, got shape {tuple(cells.shape)}")


def _range(cells: Any) -> tuple[int, int]:
    return int(cells.min()), int(cells.max())


def check_ising(cells: Any) -> None:
    """int8 spins, every one -1 or +1."""
    if _dtype(cells) != "int8":
        raise GridError(f"spins: Ising spins are int8 -1/+1, got dtype {_dtype(cells)}; convert 0/1 cells "
                        "with 2 * cells.astype(np.int8) - 1")
    bad = int(((cells != 1) & (cells != -1)).sum())
    if bad:
        low, high = _range(cells)
        raise GridError(f"spins: Ising spins must be -1 or +1, got {bad} other values (range {low}..{high})")


def check_potts(cells: Any, q: int) -> None:
    """uint8 states 0..q-1."""
    if _dtype(cells) != "uint8":
        raise GridError(f"spins: Potts states are uint8 0..q-1, got dtype {_dtype(cells)}")
    _, high = _range(cells)
    if high >= q:
        raise GridError(f"spins: Potts states must lie in 0..{q - 1} for q = {q}, got a {high}")


def check_torus(shape: tuple[int, ...], boundary: str) -> None:
    """A checkerboard on a torus needs even height and width (else same-colour sites touch across the seam)."""
    h, w = int(shape[-2]), int(shape[-1])
    if boundary == "torus" and (h % 2 or w % 2):
        raise GridError(f"spins: a checkerboard on a torus needs an even height and width, got {h}x{w}; "
                        "use an even size or boundary='plane'")
