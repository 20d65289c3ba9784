"""Cells to pictures: a palette per rule, state -> RGB, scaling, grid lines, and frame sequences.

``frame_stream(pattern, rule, gens, every)`` runs a pattern and yields its generations as ``(H, W)``
arrays on one fixed viewport (on the unbounded plane: the box that holds every frame), so an
animation does not jump; only one frame is in memory at a time, so a run of any length renders in
the memory of one frame. ``frames(...)`` is the same with every frame kept (``(F, H, W)``).
``to_rgb`` turns one frame into an ``(H*scale, W*scale, 3)`` uint8 image.

Frames hold ``uint8`` states for discrete rules, coloured by :func:`palette`, and the run's float
cells in ``[0, 1]`` for continuous rules (Lenia), coloured by a perceptual colormap
(:mod:`.colormaps`, viridis); :func:`colours_for` picks the table.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..arrays import as_cells
from ..crop import bounding_box
from ..engines.base import Engine
from ..errors import GridError, UsageError
from ..observers import Population
from ..pattern import Pattern
from ..rules.base import Rule
from ..rules.spec import resolve
from ..simulate import run
from ..topology import Topology
from .colormaps import BACKGROUND, GRID, LIVE, colours_for, float_index, palette  # noqa: F401 (re-exported)


def cell_index(cells: np.ndarray, rows: int) -> np.ndarray:
    """Rows of a colour table of ``rows`` colours: states as they are (``uint8``), float cells in
    ``[0, 1]`` scaled to ``0..rows-1`` (a colormap)."""
    cells = np.asarray(cells)
    return float_index(cells, rows) if cells.dtype.kind == "f" else cells.astype(np.uint8, copy=False)


def to_rgb(cells: np.ndarray, colours: np.ndarray, scale: int = 1, grid: bool = False) -> np.ndarray:
    """``(H, W)`` cells -> ``(H*scale, W*scale, 3)`` uint8; ``grid`` draws cell borders (scale >= 4).

    Integer states index ``colours`` (a palette); float cells in ``[0, 1]`` read it as a colormap,
    value ``v`` at row ``round(v * (len(colours) - 1))`` (:func:`colours_for` gives either table).
    """
    colours = np.asarray(colours, dtype=np.uint8)
    index = scale_cells(cell_index(cells, len(colours)), scale, grid, len(colours))
    return np.vstack([colours, np.array([GRID], np.uint8)])[index]


#: Most pixels one picture may have (768 MiB of RGB): past it, a scale or a grid is a mistake, not a picture.
MAX_PIXELS = 1 << 28


def scale_cells(cells: np.ndarray, scale: int = 1, grid: bool = False, grid_index: int = 255) -> np.ndarray:
    """``(H, W)`` colour indices -> ``(H*scale, W*scale)``; grid lines get ``grid_index``.
    :class:`UsageError` for a picture of more than :data:`MAX_PIXELS`, before it is made."""
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
        raise UsageError(f"scale must be a positive integer, got {scale!r}")
    height, width = np.shape(cells)[:2]
    pixels = height * width * int(scale) ** 2
    if pixels > MAX_PIXELS:
        largest = int((MAX_PIXELS // max(1, height * width)) ** 0.5)
        fix = (f"use a scale of at most {largest}" if largest >= 1 else
               "render a window of the grid (crop it) instead")
        raise UsageError(f"a {width * scale} x {height * scale} picture ({pixels:,} pixels) of a {width} x {height} "
                         f"grid at scale {scale} is over the limit of {MAX_PIXELS:,} pixels; {fix}")
    cells = np.asarray(cells, dtype=np.uint8 if grid_index <= 255 else np.uint16)
    out = np.repeat(np.repeat(cells, scale, axis=0), scale, axis=1)
    if grid and scale >= 4:
        out[::scale, :] = grid_index
        out[:, ::scale] = grid_index
    return out


@dataclass
class Frames:
    """A run as pictures, held in memory: ``cells`` ``(F, H, W)`` uint8 states (float cells for a
    continuous rule), the generation of each, the rule's number of states (0 for a continuous rule),
    and the population (for float cells the mass) of every generation ``0..gens``."""

    cells: np.ndarray
    generations: list[int]
    n_states: int
    populations: list[int] | list[float]
    rule: Rule | None = None  # for colours_for(n_states, rule)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self.cells)

    def __len__(self) -> int:
        return len(self.cells)

    def last(self) -> np.ndarray:
        """The last frame, ``(H, W)``."""
        return self.cells[-1]

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)`` of every frame."""
        return int(self.cells.shape[1]), int(self.cells.shape[2])


class FrameStream:
    """A run as pictures, made while they are written: one ``(H, W)`` frame in memory at a time
    (``uint8`` states, or float cells for a continuous rule).

    ``generations`` (the generation of each frame), ``n_states``, ``populations`` (every generation
    ``0..gens``; mass for float cells) and ``shape`` ``(H, W)`` are known before the first frame: a first pass runs the
    pattern once, keeping only populations and bounding boxes. Each iteration runs it again from
    the start, so the stream can be written to several files.
    """

    def __init__(self, start: Any, rule: Rule, gens: int, every: int, backend: str | Engine,
                 topology: Topology | None = None) -> None:
        self._start = start
        self._rule = rule
        self.rule = rule  # colours_for(n_states, rule): Golly's colours, or a colormap for floats
        self._topology = topology  # an array's, when not the torus of its shape
        self._every = every
        self._backend = backend
        self.n_states = rule.n_states
        self.generations = list(range(0, gens + 1, every))
        self.populations, self._viewport = _survey(self._advance, start, gens, every)
        self.shape = self._viewport[2:] if self._viewport is not None else _grid_shape(start)

    def __len__(self) -> int:
        return len(self.generations)

    def __iter__(self) -> Iterator[np.ndarray]:
        current = self._start
        yield self._picture(current)
        for _ in self.generations[1:]:
            current = self._advance(current, self._every)
            yield self._picture(current)

    def _advance(self, state: Any, generations: int, observe: Population | None = None) -> Any:
        return run(state, self._rule, generations, backend=self._backend, topology=self._topology, observe=observe)

    def _picture(self, state: Any) -> np.ndarray:
        if not isinstance(state, Pattern):
            return _as_frame(np.asarray(state))
        if self._viewport is None:
            return _place_bounded(state)
        return _place_in_viewport(state, self._viewport)

    def last(self) -> np.ndarray:
        """The last frame, ``(H, W)`` (runs the pattern to the end, keeping one frame)."""
        return collections.deque(self, maxlen=1)[0]  # there is always generation 0

    def collect(self) -> Frames:
        """Every frame in memory, as :class:`Frames`."""
        return Frames(np.stack(list(self)), self.generations, self.n_states, self.populations, self._rule)


def frame_stream(pattern: Any, rule: str | Rule | None = None, gens: int = 100, every: int = 1,
                 backend: str | Engine = "numpy") -> FrameStream:
    """Generations ``0, every, 2*every, ... <= gens`` of ``pattern`` on one fixed viewport, made one at a time.

    ``pattern``: a :class:`Pattern` (unbounded or bounded topology) or an ``(H, W)`` array (a
    torus of its shape). A topology suffix on ``rule`` (``"B3/S23:T40,30"``) sets the topology.
    On the unbounded plane the viewport is the box that holds every frame, plus one dead cell
    around it, so an animation does not jump.
    """
    for name, value, least in (("gens", gens, 0), ("every", every, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise UsageError(f"{name} must be an integer >= {least}, got {value!r}")
    if isinstance(pattern, Pattern):
        rule_value, topology = resolve(rule, fallback=pattern.rule)
        if topology is not None:
            pattern = replace(pattern, topology=topology)
        return FrameStream(pattern, rule_value, int(gens), int(every), backend)
    arr = np.asarray(pattern)
    if arr.ndim != 2:
        raise GridError(f"render takes one (H, W) grid, got shape {arr.shape}")
    rule_value, topology = resolve(rule, shape=arr.shape)
    cells = as_cells(arr, not rule_value.state_space.discrete, rule_value.canonical())
    return FrameStream(cells, rule_value, int(gens), int(every), backend, topology)


def frames(pattern: Any, rule: str | Rule | None = None, gens: int = 100, every: int = 1,
           backend: str | Engine = "numpy") -> Frames:
    """:func:`frame_stream`, every frame in memory: ``(F, H, W)``. For long runs write the stream."""
    return frame_stream(pattern, rule, gens, every, backend).collect()


Viewport = tuple[int, int, int, int]
"""``(x0, y0, H, W)``: the top-left cell of a frame on the unbounded plane and the frame's size."""


def _grid_shape(state: Any) -> tuple[int, int]:
    if isinstance(state, Pattern):
        return state.topology.shape
    return int(state.shape[0]), int(state.shape[1])


def _survey(advance: Callable[..., Any], start: Any, gens: int, every: int) -> tuple[list[int], Viewport | None]:
    """The population (mass for float cells) of every generation ``0..gens`` and, on the unbounded
    plane, the viewport."""
    unbounded = isinstance(start, Pattern) and not start.topology.bounded
    cells = np.asarray(start.cells if isinstance(start, Pattern) else start)
    populations = [float(cells.sum(dtype=np.float64)) if cells.dtype.kind == "f" else int(np.count_nonzero(cells))]
    boxes = [start.bounding_box()] if unbounded else []
    current, done = start, 0
    while done < gens:
        k = min(every, gens - done)
        observer = Population(every=1)
        current = advance(current, k, observer)
        populations.extend(observer.values[1:, 0].tolist())  # int counts, or float64 mass
        done += k
        if unbounded and done % every == 0:
            boxes.append(current.bounding_box())
    return populations, (_viewport(boxes) if unbounded else None)


def _viewport(boxes: list[tuple[int, int, int, int] | None], border: int = 1) -> Viewport:
    """The box ``(x0, y0, H, W)`` around every ``(x, y, w, h)`` box, ``border`` cells wider; ``(0, 0, 1, 1)``
    when every frame is empty."""
    found = [b for b in boxes if b is not None]
    if not found:
        return (0, 0, 1, 1)
    x0 = min(b[0] for b in found) - border
    y0 = min(b[1] for b in found) - border
    x1 = max(b[0] + b[2] for b in found) + border
    y1 = max(b[1] + b[3] for b in found) + border
    return (x0, y0, y1 - y0, x1 - x0)


def _as_frame(cells: np.ndarray) -> np.ndarray:
    """A frame as pictures take it: float cells as they are, states as ``uint8``."""
    return cells if cells.dtype.kind == "f" else cells.astype(np.uint8, copy=False)


def _place_bounded(p: Pattern) -> np.ndarray:
    height, width = p.topology.shape
    out = np.zeros((height, width), dtype=_as_frame(p.cells).dtype)
    h, w = min(p.cells.shape[0], height), min(p.cells.shape[1], width)
    out[:h, :w] = p.cells[:h, :w]
    return out


def _place_in_viewport(p: Pattern, viewport: Viewport) -> np.ndarray:
    """``p``'s live cells drawn on the ``(H, W)`` frame whose top-left cell is ``(x0, y0)``."""
    x0, y0, height, width = viewport
    out = np.zeros((height, width), dtype=_as_frame(p.cells).dtype)
    box = bounding_box(p.cells)
    if box is not None:
        top, bottom, left, right = box
        oy, ox = p.origin[1] + top - y0, p.origin[0] + left - x0
        out[oy : oy + bottom - top, ox : ox + right - left] = p.cells[top:bottom, left:right]
    return out
