"""Animated GIF (Pillow): one palette image per frame, durations in milliseconds, looping.

Frames are encoded as they come (:mod:`.gif_stream`), so a GIF of any number of generations needs
the memory of one frame, not of the run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from ..engines.base import Engine
from ..errors import MissingDependencyError, UsageError
from ..rules.base import Rule
from .frames import GRID, FrameStream, cell_index, colours_for, frame_stream, scale_cells
from .gif_stream import save_gif

GRID_INDEX = 255


class Run(Protocol):
    """What the writers draw: frames to iterate (``(H, W)`` uint8 states, or float cells in ``[0, 1]``)
    and the rule's state count (0 for a continuous rule: a colormap colours the floats).

    :class:`~tensorca.render.frames.Frames` (in memory) and :class:`~tensorca.render.frames.FrameStream`
    (made one at a time) both are.
    """

    n_states: int

    def __iter__(self) -> Any: ...


def _pil():
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow is a dependency
        raise MissingDependencyError("writing GIF/PNG needs Pillow", package="pillow",
                                     install="pip install pillow") from exc
    return Image


def _image(cells: np.ndarray, colours: np.ndarray, scale: int, grid: bool):
    Image = _pil()
    index = scale_cells(cell_index(cells, len(colours)), scale, grid, GRID_INDEX)
    pixels = np.ascontiguousarray(index, dtype=np.uint8).tobytes()
    image = Image.frombytes("P", (index.shape[1], index.shape[0]), pixels)
    flat = np.zeros((256, 3), dtype=np.uint8)
    flat[: len(colours)] = colours
    flat[GRID_INDEX] = GRID
    image.putpalette(flat.reshape(-1).tolist())
    return image


def _check_duration(duration: Any) -> None:
    if isinstance(duration, bool) or not isinstance(duration, (int, np.integer)) or duration < 1:
        raise UsageError(f"frame duration must be a whole number of milliseconds >= 1, got {duration!r}")


def write_gif(path: str, run: Run, scale: int = 4, duration: int = 100, grid: bool = False) -> int:
    """Write ``run``'s frames as a looping GIF; ``duration`` ms per frame. Returns the number of frames given.

    Frames are encoded one at a time (memory for one frame, whatever the run's length). Identical
    consecutive frames merge into one (adding their durations), so a still life decodes to a
    single frame.
    """
    _check_duration(duration)
    colours = colours_for(run.n_states, getattr(run, "rule", None))  # @COLORS / Golly defaults / colormap
    images: Iterable[Any] = (_image(c, colours, scale, grid) for c in run)
    return save_gif(path, images, int(duration))


def write_png(path: str, cells: np.ndarray, n_states: int = 2, scale: int = 4, grid: bool = False,
              rule: Rule | None = None) -> None:
    """Write one ``(H, W)`` grid as a PNG: states in the rule's palette, float cells in ``[0, 1]`` in a colormap."""
    cells = np.asarray(cells)
    colours = colours_for(0 if cells.dtype.kind == "f" else n_states, rule)
    _image(cells, colours, scale, grid).convert("RGB").save(path, format="PNG")


def gif(path: str, pattern: Any, gens: int = 100, *, rule: str | Rule | None = None, every: int = 1,
        scale: int = 4, duration: int = 100, grid: bool = False, backend: str | Engine = "numpy") -> FrameStream:
    """Run ``pattern`` for ``gens`` generations and write every ``every``-th as a GIF at ``path``.

    Returns the :class:`FrameStream` (its ``populations`` and ``generations``; iterating it runs again).
    """
    _check_duration(duration)
    run = frame_stream(pattern, rule, gens, every, backend)
    write_gif(path, run, scale, duration, grid)
    return run


def png(path: str, pattern: Any, gens: int = 0, *, rule: str | Rule | None = None, scale: int = 4,
        grid: bool = False, backend: str | Engine = "numpy") -> FrameStream:
    """Run ``pattern`` for ``gens`` generations and write the last one as a PNG at ``path``."""
    run = frame_stream(pattern, rule, gens, max(gens, 1), backend)
    write_png(path, run.last(), run.n_states, scale, grid, run.rule)
    return run
