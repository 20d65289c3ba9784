"""Colour tables for pictures: state palettes and float colormaps, both from :mod:`tensorca.render`
(one definition of every colour a picture uses).

A colormap here is :func:`tensorca.render.colormaps.colormap` with 256 rows: values in ``[0, 1]`` map to
rows ``round(v * 255)``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..errors import UsageError
from ..render.colormaps import ANCHORS
from ..render.colormaps import colormap as table
from ..render.colormaps import palette as render_palette

#: Colour of the lines between cells when a picture is zoomed in.
GRID = (48, 48, 64)


def colormap_names() -> tuple[str, ...]:
    """The names :func:`colormap` knows."""
    return tuple(ANCHORS)


@cache
def colormap(name: str = "viridis") -> np.ndarray:
    """``(256, 3)`` uint8 colours (read-only) for values ``0/255 .. 255/255`` of the colormap ``name``."""
    return table(name, 256)


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
    return render_palette(max(2, n_states), rule)
