"""Perceptual colormaps for float cells (Lenia, neural CA), computed here: no matplotlib needed.

A colormap is a table of RGB rows built by linear interpolation between a few anchor colours
(close to matplotlib's tables of the same names; viridis and magma are perceptually uniform and
readable in grey and by colour-blind readers). A value ``v`` in ``[0, 1]`` takes row
``round(v * (rows - 1))``; NaN draws as 0. Discrete states take their :func:`palette` (a rule file's
``@COLORS``, Golly's defaults, else 0 dark, 1 bright, decay fading); :func:`colours_for` picks the table.

Every colour a picture uses is defined here, with nothing to simulate: a notebook's picture of a
:class:`~tensorca.Pattern` (:mod:`tensorca.view.display`) and the animations of :mod:`.frames` share them.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ..errors import GridError, UsageError
from ..families.rule_table.loader import rule_colours

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Rule

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


#: Dead cells, live cells, grid lines.
BACKGROUND = (16, 16, 24)
LIVE = (255, 214, 80)
GRID = (48, 48, 64)


def palette(n_states: int, rule: Rule | None = None) -> np.ndarray:
    """``(n_states, 3)`` uint8 colours: 0 dark, 1 bright; decaying states fade from orange to dim red.

    With a ``rule`` that Golly colours itself (a rule file's ``@COLORS`` and RuleLoader's
    red-to-yellow defaults; the Super algorithm's History/Super colours), Golly's colours.
    """
    if n_states < 2:
        raise GridError(f"a palette needs at least 2 states, got {n_states}")
    golly = rule_colours(rule) if rule is not None else None
    if golly is not None:
        golly = (golly + [LIVE] * n_states)[:n_states]
        return np.array(golly, dtype=np.uint8)
    colours = [BACKGROUND, LIVE]
    dying = n_states - 2
    for k in range(dying):
        t = (k + 1) / (dying + 1)
        colours.append((int(230 - 150 * t), int(110 - 90 * t), int(40 + 40 * t)))
    return np.array(colours, dtype=np.uint8)


def colours_for(n_states: int, rule: Rule | None = None, colormap_name: str = "viridis") -> np.ndarray:
    """The colour table pictures of a run use: the rule's :func:`palette` for discrete states; for a
    continuous rule (or ``n_states == 0``, no discrete states) the ``(255, 3)`` colormap ``colormap_name``."""
    if n_states < 1 or (rule is not None and not rule.state_space.discrete):
        return colormap(colormap_name)
    return palette(max(n_states, 2), rule)
