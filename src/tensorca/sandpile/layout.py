"""The padded grid every backend topples on, and where grains sent past each edge go.

Heights live in a ``(H + 2, W + 2)`` array with a one-cell halo, so a toppling cell adds to its
neighbours with no test for edges (Moore's diagonals included). After each sweep or wave the halo is
*folded*: each halo cell's grains go to the grid cell it stands for, or are dropped (the sink). One
rule per side says which:

- ``"sink"``: a bounded plane's edge; grains sent there are lost.
- ``"wrap"``: a torus; the halo stands for the opposite edge.
- ``"mirror"``: the halo stands for the edge cell itself, as if the grid were reflected about that
  edge. A grid that equals its own mirror image (``s == s[::-1]``) has a mirror-symmetric result
  (the stable pile and the topple counts are unique), so such a grid of even height is solved on
  its top half alone with a mirror bottom edge: :mod:`.odometer` folds the identity's piles that
  way, four times less work.

Delivering grains a sweep late is still a legal sequence of topplings, so the final pile and the
counts are those of the unpadded model. Every fold used here is symmetric (a cell's neighbours are
the cells it is a neighbour of), which :mod:`.descent` relies on.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .model import STENCILS, Sandpile

Side = Literal["sink", "wrap", "mirror"]


@dataclass(frozen=True)
class Layout:
    """One grid's padded layout: ``height`` x ``width`` cells, the pile's stencil and threshold, and
    the fold rule of each side, ``(top, bottom, left, right)``."""

    height: int
    width: int
    neighbourhood: str
    threshold: int
    sides: tuple[Side, Side, Side, Side]
    closed: bool = False

    @classmethod
    def of(cls, pile: Sandpile, height: int, width: int, mirror_bottom: bool = False,
           mirror_right: bool = False) -> Layout:
        """The layout of ``pile`` on an ``height x width`` grid, with a mirror bottom or right edge
        for a folded half (plane only)."""
        edge: Side = "wrap" if pile.kind == "torus" else "sink"
        sides = (edge, "mirror" if mirror_bottom else edge, edge, "mirror" if mirror_right else edge)
        return cls(height, width, pile.neighbourhood, pile.threshold, sides, pile.closed)

    @property
    def stencil(self) -> tuple[tuple[int, int], ...]:
        return STENCILS[self.neighbourhood]

    @property
    def padded_shape(self) -> tuple[int, int]:
        return self.height + 2, self.width + 2

    @property
    def offsets(self) -> np.ndarray:
        """``(degree,)`` int64: each neighbour's offset in the flattened padded array."""
        row = self.width + 2
        return np.array([dy * row + dx for dy, dx in self.stencil], dtype=np.int64)

    @property
    def halo(self) -> tuple[np.ndarray, np.ndarray]:
        """``(index, target)``: flat padded indices of the halo cells and of the grid cell each
        stands for (``-1``: the sink), both ``(2H + 2W + 4,)`` int64."""
        return _halo(self.height, self.width, self.sides)

    @property
    def resolve(self) -> np.ndarray:
        """``(H + 2) * (W + 2)`` int64: for every padded cell, the grid cell it is (itself inside the
        grid, a halo cell's target outside, ``-1`` for the sink)."""
        index, target = self.halo
        out = np.arange((self.height + 2) * (self.width + 2), dtype=np.int64)
        out[index] = target
        return out


def _side_index(i: int, n: int, low: Side, high: Side) -> int | None:
    """The grid index ``0..n-1`` that padded index ``i`` (``-1..n``) stands for along one axis,
    or None for the sink."""
    if 0 <= i < n:
        return i
    side = low if i < 0 else high
    if side == "sink":
        return None
    if side == "wrap":
        return i % n
    return 0 if i < 0 else n - 1  # mirror: the edge cell itself


@functools.lru_cache(maxsize=64)
def _halo(height: int, width: int, sides: tuple[Side, Side, Side, Side]) -> tuple[np.ndarray, np.ndarray]:
    top, bottom, left, right = sides
    row = width + 2
    index, target = [], []
    ring = [(y, x) for y in (-1, height) for x in range(-1, width + 1)]
    ring += [(y, x) for y in range(height) for x in (-1, width)]
    for y, x in ring:
        ty = _side_index(y, height, top, bottom)
        tx = _side_index(x, width, left, right)
        index.append((y + 1) * row + x + 1)
        target.append(-1 if ty is None or tx is None else (ty + 1) * row + tx + 1)
    out = np.array(index, dtype=np.int64), np.array(target, dtype=np.int64)
    for array in out:
        array.setflags(write=False)
    return out
