"""Perceptual colormaps for float cells (Lenia, neural CA), computed here: no matplotlib needed.

A colormap is a table of RGB rows built by linear interpolation between a few anchor colours
(close to matplotlib's tables of the same names; viridis and magma are perceptually uniform and
readable in grey and by colour-blind readers). A value ``v`` in ``[0, 1]`` takes row
``round(v * (rows - 1))``; NaN draws as 0. Discrete states keep their palette
(:func:`tensorca.render.frames.palette`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..errors import UsageError

#: Anchor colours at evenly spaced points of [0, 1].
ANCHORS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "viridis": ((68, 1, 84), (72, 40, 120), (62, 74, 137), (49, 104, 142), (38, 130, 142),
                (31, 158, 137), (53, 183, 121), (109, 205, 89), (180, 222, 44), (253, 231, 37)),
    "magma": ((0, 0, 4), (28, 16, 68), (79, 18, 123), (129, 37, 129), (181, 54, 122),
              (229, 80, 100), (251, 135, 97), (254, 194, 135), (252, 253, 191)),
    "gray": ((0, 0, 0), (255, 255, 255)),
}

#: Rows of the tables pictures use: 255, so a GIF's 256-colour palette keeps one index for grid lines.
LEVELS = 255


@cache
def colormap(name: str = "viridis", rows: int = LEVELS) -> np.ndarray:
    """``(rows, 3)`` uint8 colours of colormap ``name`` at ``rows`` evenly spaced values of [0, 1] (read-only)."""
    anchors = ANCHORS.get(name)
    if anchors is None:
        raise UsageError(f"unknown colormap {name!r}; known: {', '.join(ANCHORS)}")
    if isinstance(rows, bool) or not isinstance(rows, int) or not 2 <= rows <= 65536:
        raise UsageError(f"a colormap needs 2..65536 rows, got {rows!r}")
    points = np.asarray(anchors, dtype=np.float64)
    where = np.linspace(0.0, 1.0, len(points))
    t = np.linspace(0.0, 1.0, rows)
    table = np.round(np.stack([np.interp(t, where, points[:, c]) for c in range(3)], axis=1)).astype(np.uint8)
    table.setflags(write=False)
    return table


def float_index(cells: np.ndarray, rows: int = LEVELS) -> np.ndarray:
    """Float cells in ``[0, 1]`` -> ``uint8``/``uint16`` row indices ``0..rows-1`` (values clipped, NaN as 0)."""
    values = np.nan_to_num(np.asarray(cells, dtype=np.float64), nan=0.0, posinf=1.0, neginf=0.0)
    index = np.rint(np.clip(values, 0.0, 1.0) * (rows - 1))
    return index.astype(np.uint8 if rows <= 256 else np.uint16)
