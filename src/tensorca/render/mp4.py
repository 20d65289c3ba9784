"""MP4 (H.264 through imageio-ffmpeg): frames padded to multiples of 16 pixels for the codec.

Frames go to ffmpeg as they are made, so memory is one frame plus the encoder's, whatever the run's length.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engines.base import Engine
from ..errors import MissingDependencyError, UsageError
from ..rules.base import Rule
from .frames import BACKGROUND, FrameStream, colours_for, frame_stream, to_rgb
from .gif import Run

BLOCK = 16


def pad_to_block(image: np.ndarray, block: int = BLOCK) -> np.ndarray:
    """Pad ``(H, W, 3)`` on the bottom/right with the background colour to multiples of ``block``."""
    h, w, _ = image.shape
    H, W = -(-h // block) * block, -(-w // block) * block
    out = np.empty((H, W, 3), dtype=np.uint8)
    out[:] = BACKGROUND
    out[:h, :w] = image
    return out


def _ffmpeg() -> Any:
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise MissingDependencyError("writing MP4 needs imageio-ffmpeg", package="imageio-ffmpeg",
                                     install="pip install 'tensorca[render]'") from exc
    return imageio_ffmpeg


def _check_fps(fps: Any) -> None:
    if isinstance(fps, bool) or not isinstance(fps, (int, float, np.integer, np.floating)) \
            or not math.isfinite(fps) or fps <= 0:
        raise UsageError(f"fps must be a positive number, got {fps!r}")


def write_mp4(path: str, run: Run, scale: int = 4, fps: float = 10.0, grid: bool = False) -> tuple[int, int]:
    """Write ``run``'s frames as an H.264 MP4 (yuv420p), one at a time; returns the padded ``(width, height)``."""
    imageio_ffmpeg = _ffmpeg()
    _check_fps(fps)
    colours = colours_for(run.n_states, getattr(run, "rule", None))  # @COLORS / Golly defaults / colormap
    writer = None
    size = (0, 0)
    try:
        for cells in run:
            image = pad_to_block(to_rgb(cells, colours, scale, grid))
            if writer is None:
                size = (image.shape[1], image.shape[0])
                writer = imageio_ffmpeg.write_frames(path, size, fps=fps, codec="libx264", pix_fmt_out="yuv420p",
                                                     macro_block_size=1, ffmpeg_log_level="error")
                writer.send(None)
            writer.send(np.ascontiguousarray(image).tobytes())
    finally:
        if writer is not None:
            writer.close()
    return size


def mp4(path: str, pattern: Any, gens: int = 100, *, rule: str | Rule | None = None, every: int = 1,
        scale: int = 4, fps: float = 10.0, grid: bool = False, backend: str | Engine = "numpy") -> FrameStream:
    """Run ``pattern`` and write every ``every``-th generation as an MP4 at ``path``."""
    _ffmpeg()
    _check_fps(fps)
    run = frame_stream(pattern, rule, gens, every, backend)
    write_mp4(path, run, scale, fps, grid)
    return run
