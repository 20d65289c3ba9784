"""MP4 (H.264 through imageio-ffmpeg): frames padded to multiples of 16 pixels for the codec."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import GridError
from ..rules.base import Rule
from .frames import BACKGROUND, Frames, frames, palette, to_rgb

BLOCK = 16


def pad_to_block(image: np.ndarray, block: int = BLOCK) -> np.ndarray:
    """Pad ``(H, W, 3)`` on the bottom/right with the background colour to multiples of ``block``."""
    h, w, _ = image.shape
    H, W = -(-h // block) * block, -(-w // block) * block
    out = np.empty((H, W, 3), dtype=np.uint8)
    out[:] = BACKGROUND
    out[:h, :w] = image
    return out


def write_mp4(path: str, run: Frames, scale: int = 4, fps: float = 10.0, grid: bool = False) -> tuple[int, int]:
    """Write ``run`` as an H.264 MP4 (yuv420p); returns the padded ``(width, height)``."""
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise GridError("writing MP4 needs imageio-ffmpeg (pip install 'tensorca[render]')") from exc
    if fps <= 0:
        raise GridError(f"fps must be positive, got {fps}")
    colours = palette(max(run.n_states, 2))
    images = [pad_to_block(to_rgb(c, colours, scale, grid)) for c in run.cells]
    height, width = images[0].shape[:2]
    writer = imageio_ffmpeg.write_frames(
        path, (width, height), fps=fps, codec="libx264", pix_fmt_out="yuv420p", macro_block_size=1,
        ffmpeg_log_level="error",
    )
    writer.send(None)
    for image in images:
        writer.send(np.ascontiguousarray(image).tobytes())
    writer.close()
    return width, height


def mp4(path: str, pattern: Any, gens: int = 100, *, rule: str | Rule | None = None, every: int = 1,
        scale: int = 4, fps: float = 10.0, grid: bool = False, backend: str = "numpy") -> Frames:
    """Run ``pattern`` and write every ``every``-th generation as an MP4 at ``path``."""
    run = frames(pattern, rule, gens, every, backend)
    write_mp4(path, run, scale, fps, grid)
    return run
