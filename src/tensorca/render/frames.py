"""Cells to pictures: a palette per rule, state -> RGB, scaling, grid lines, and frame sequences.

``frames(pattern, rule, gens, every)`` runs a pattern and returns its generations as ``(H, W)``
state arrays on one fixed viewport (on the unbounded plane: the box that holds every frame), so an
animation does not jump. ``to_rgb`` turns one into an ``(H*scale, W*scale, 3)`` uint8 image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import GridError
from ..pattern import Pattern
from ..rules.base import Rule
from ..simulate import resolve_rule, run

#: Dead cells, live cells, grid lines.
BACKGROUND = (16, 16, 24)
LIVE = (255, 214, 80)
GRID = (48, 48, 64)


def palette(n_states: int) -> np.ndarray:
    """``(n_states, 3)`` uint8 colours: 0 dark, 1 bright; decaying states fade from orange to dim red."""
    if n_states < 2:
        raise GridError(f"a palette needs at least 2 states, got {n_states}")
    colours = [BACKGROUND, LIVE]
    dying = n_states - 2
    for k in range(dying):
        t = (k + 1) / (dying + 1)
        colours.append((int(230 - 150 * t), int(110 - 90 * t), int(40 + 40 * t)))
    return np.array(colours, dtype=np.uint8)


def to_rgb(cells: np.ndarray, colours: np.ndarray, scale: int = 1, grid: bool = False) -> np.ndarray:
    """``(H, W)`` states -> ``(H*scale, W*scale, 3)`` uint8; ``grid`` draws cell borders (scale >= 4)."""
    index = scale_cells(cells, scale, grid, len(colours))
    return np.vstack([colours, np.array([GRID], np.uint8)])[index]


def scale_cells(cells: np.ndarray, scale: int = 1, grid: bool = False, grid_index: int = 255) -> np.ndarray:
    """``(H, W)`` states -> ``(H*scale, W*scale)`` palette indices; grid lines get ``grid_index``."""
    if scale < 1:
        raise GridError(f"scale must be a positive integer, got {scale}")
    cells = np.asarray(cells, dtype=np.uint8)
    out = np.repeat(np.repeat(cells, scale, axis=0), scale, axis=1)
    if grid and scale >= 4:
        out[::scale, :] = grid_index
        out[:, ::scale] = grid_index
    return out


@dataclass
class Frames:
    """A run as pictures: ``cells`` ``(F, H, W)`` uint8 states, the generation of each, the rule's states."""

    cells: np.ndarray
    generations: list[int]
    n_states: int
    populations: list[int]


def frames(pattern: Any, rule: str | Rule | None = None, gens: int = 100, every: int = 1, backend: str = "numpy") -> Frames:
    """Generations ``0, every, 2*every, ... <= gens`` of ``pattern`` on one fixed viewport.

    ``pattern``: a :class:`Pattern` (unbounded or bounded topology) or an ``(H, W)`` array (a
    torus of its shape). Populations are recorded for every generation (for plots).
    """
    if gens < 0 or every < 1:
        raise GridError(f"need gens >= 0 and every >= 1, got gens={gens}, every={every}")
    if not isinstance(pattern, Pattern):
        arr = np.asarray(pattern, dtype=np.uint8)
        if arr.ndim != 2:
            raise GridError(f"render takes one (H, W) grid, got shape {arr.shape}")
        rule_value, _ = resolve_rule(rule)
        states = [arr]
        populations = [int(np.count_nonzero(arr))]
        current = arr
        for gen in range(1, gens + 1):
            current = run(current, rule_value, 1, backend=backend)
            populations.append(int(np.count_nonzero(current)))
            if gen % every == 0:
                states.append(current)
        shown = list(range(0, gens + 1, every))
        return Frames(np.stack(states), shown, rule_value.n_states, populations)
    rule_value, _ = resolve_rule(rule, fallback=pattern.rule)
    snapshots: list[Pattern] = [pattern]
    populations = [pattern.population]
    current = pattern
    for gen in range(1, gens + 1):
        current = run(current, rule_value, 1, backend=backend)
        populations.append(current.population)
        if gen % every == 0:
            snapshots.append(current)
    shown = list(range(0, gens + 1, every))
    if pattern.topology.bounded:
        stack = np.stack([_place_bounded(s) for s in snapshots])
    else:
        stack = _common_viewport(snapshots)
    return Frames(stack, shown, rule_value.n_states, populations)


def _place_bounded(p: Pattern) -> np.ndarray:
    height, width = p.topology.shape
    out = np.zeros((height, width), dtype=np.uint8)
    h, w = min(p.cells.shape[0], height), min(p.cells.shape[1], width)
    out[:h, :w] = p.cells[:h, :w]
    return out


def _common_viewport(snapshots: list[Pattern], border: int = 1) -> np.ndarray:
    boxes = [s.bounding_box() for s in snapshots]
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return np.zeros((len(snapshots), 1, 1), dtype=np.uint8)
    x0 = min(b[0] for b in boxes) - border
    y0 = min(b[1] for b in boxes) - border
    x1 = max(b[0] + b[2] for b in boxes) + border
    y1 = max(b[1] + b[3] for b in boxes) + border
    out = np.zeros((len(snapshots), y1 - y0, x1 - x0), dtype=np.uint8)
    for k, s in enumerate(snapshots):
        h, w = s.cells.shape
        if h and w:
            ox, oy = s.origin[0] - x0, s.origin[1] - y0
            out[k, oy : oy + h, ox : ox + w] = s.cells
    return out
