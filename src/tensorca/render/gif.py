"""Animated GIF (Pillow): one palette image per frame, durations in milliseconds, looping."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import GridError
from ..rules.base import Rule
from .frames import GRID, Frames, frames, palette, scale_cells

GRID_INDEX = 255


def _pil():
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow is a dependency
        raise GridError("writing GIF/PNG needs Pillow (pip install pillow)") from exc
    return Image


def _image(cells: np.ndarray, colours: np.ndarray, scale: int, grid: bool):
    Image = _pil()
    index = scale_cells(cells, scale, grid, GRID_INDEX)
    image = Image.frombytes("P", (index.shape[1], index.shape[0]), np.ascontiguousarray(index, dtype=np.uint8).tobytes())
    flat = np.zeros((256, 3), dtype=np.uint8)
    flat[: len(colours)] = colours
    flat[GRID_INDEX] = GRID
    image.putpalette(flat.reshape(-1).tolist())
    return image


def write_gif(path: str, run: Frames, scale: int = 4, duration: int = 100, grid: bool = False) -> int:
    """Write ``run`` as a looping GIF; ``duration`` ms per frame. Returns the number of frames given.

    Pillow merges identical consecutive frames into one (adding their durations), so a still
    life decodes to a single frame.
    """
    if duration < 1:
        raise GridError(f"frame duration must be at least 1 ms, got {duration}")
    colours = palette(max(run.n_states, 2))
    images = [_image(c, colours, scale, grid) for c in run.cells]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0, disposal=1)
    return len(images)


def write_png(path: str, cells: np.ndarray, n_states: int = 2, scale: int = 4, grid: bool = False) -> None:
    """Write one ``(H, W)`` grid of states as a PNG."""
    _image(cells, palette(max(n_states, 2)), scale, grid).convert("RGB").save(path, format="PNG")


def gif(path: str, pattern: Any, gens: int = 100, *, rule: str | Rule | None = None, every: int = 1,
        scale: int = 4, duration: int = 100, grid: bool = False, backend: str = "numpy") -> Frames:
    """Run ``pattern`` for ``gens`` generations and write every ``every``-th as a GIF at ``path``."""
    run = frames(pattern, rule, gens, every, backend)
    write_gif(path, run, scale, duration, grid)
    return run


def png(path: str, pattern: Any, gens: int = 0, *, rule: str | Rule | None = None, scale: int = 4,
        grid: bool = False, backend: str = "numpy") -> Frames:
    """Run ``pattern`` for ``gens`` generations and write the last one as a PNG at ``path``."""
    run = frames(pattern, rule, gens, max(gens, 1), backend)
    write_png(path, run.cells[-1], run.n_states, scale, grid)
    return run
