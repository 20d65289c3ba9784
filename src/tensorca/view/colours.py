"""Colour tables for pictures: state palettes (from :mod:`tensorca.render.frames`) and float colormaps.

A colormap here is a ``(256, 3)`` uint8 table built from a few anchor colours by linear
interpolation, so float pictures need no matplotlib. Values in ``[0, 1]`` map to rows
``round(v * 255)``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..errors import UsageError

#: Anchor colours at evenly spaced points of [0, 1] (close to matplotlib's tables of the same names).
_ANCHORS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "viridis": ((68, 1, 84), (72, 40, 120), (62, 74, 137), (49, 104, 142), (38, 130, 142),
                (31, 158, 137), (53, 183, 121), (109, 205, 89), (180, 222, 44), (253, 231, 37)),
    "magma": ((0, 0, 4), (28, 16, 68), (79, 18, 123), (129, 37, 129), (181, 54, 122),
              (229, 80, 100), (251, 135, 97), (254, 194, 135), (252, 253, 191)),
    "gray": ((0, 0, 0), (255, 255, 255)),
}

#: Colour of the lines between cells when a picture is zoomed in.
GRID = (48, 48, 64)


def colormap_names() -> tuple[str, ...]:
    """The names :func:`colormap` knows."""
    return tuple(_ANCHORS)


@cache
def colormap(name: str = "viridis") -> np.ndarray:
    """``(256, 3)`` uint8 colours for values ``0/255 .. 255/255`` of the colormap ``name``."""
    anchors = _ANCHORS.get(name)
    if anchors is None:
        raise UsageError(f"unknown colormap {name!r}; known: {', '.join(_ANCHORS)}")
    points = np.asarray(anchors, dtype=np.float64)
    where = np.linspace(0.0, 1.0, len(points))
    t = np.linspace(0.0, 1.0, 256)
    table = np.stack([np.interp(t, where, points[:, c]) for c in range(3)], axis=1)
    table = np.round(table).astype(np.uint8)
    table.setflags(write=False)
    return table


def state_colours(n_states: int, palette: np.ndarray | None = None, rule: Any = None) -> np.ndarray:
    """``(n_states, 3)`` uint8 colours for states ``0..n_states-1``: ``palette`` when given (its first
    ``n_states`` rows), else the render palette for ``rule`` (a rule file's ``@COLORS`` or Golly's
    defaults for it; otherwise 0 dark, 1 bright, decay fading), as GIFs and MP4s are coloured."""
    if palette is not None:
        colours = np.asarray(palette)
        if colours.ndim != 2 or colours.shape[1] != 3 or len(colours) < n_states:
            raise UsageError(f"palette must be ({n_states}, 3) or longer RGB rows, got shape {colours.shape}")
        if colours.min() < 0 or colours.max() > 255:
            raise UsageError("palette colours must lie in 0..255")
        return colours[:n_states].astype(np.uint8)
    from ..render.frames import palette as render_palette  # render imports the simulator: load on use

    return render_palette(max(2, n_states), rule)
