"""An animated GIF written frame by frame: memory for one frame and the one before it, not the run.

Pillow's ``save(save_all=True, append_images=...)`` keeps every frame until it writes the file
(``GifImagePlugin._write_multiple_frames``), which for a long run of a large pattern is gigabytes.
This writer takes the same steps per frame with Pillow's own GIF helpers and writes each frame
as soon as the next different one arrives (a frame's duration grows while identical frames
follow it, so it cannot be written earlier). The bytes equal Pillow's ``save_all`` output (the
render tests compare them). Where a Pillow version lacks those helpers, frames are collected and
Pillow writes them: the same file, without the memory bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

_HELPERS = ("_normalize_mode", "_normalize_palette", "_getbbox", "_get_global_header", "_write_frame_data")


class _Frame(NamedTuple):
    image: Any  # PIL.Image.Image
    bbox: tuple[int, int, int, int] | None  # None: the first frame, written with the global header
    info: dict[str, Any]


def _plugin() -> Any:
    from PIL import GifImagePlugin

    return GifImagePlugin if all(hasattr(GifImagePlugin, name) for name in _HELPERS) else None


def save_gif(path: str, images: Iterable[Any], duration: int, loop: int = 0) -> int:
    """Write palette images ``images`` (at least one) as a looping GIF, ``duration`` ms each, disposal 1.

    Returns the number of images given. Identical consecutive frames merge into one whose
    duration is their sum, as Pillow does.
    """
    stream = iter(images)
    first = next(stream)
    plugin = _plugin()
    if plugin is None:  # pragma: no cover - Pillow without the helpers: its own writer
        rest = list(stream)
        first.save(path, format="GIF", save_all=True, append_images=rest, duration=duration, loop=loop, disposal=1)
        return 1 + len(rest)
    base: dict[str, Any] = {"duration": duration, "loop": loop, "disposal": 1, "optimize": True}
    pending: _Frame | None = None
    previous: Any = None
    count = 0
    with open(path, "wb") as fp:
        for image in itertools.chain([first], stream):
            count += 1
            made = _next_frame(plugin, image, previous, pending, base, count == 1)
            if made is None:
                continue  # identical to the one before: its duration was added to the pending frame
            if pending is not None:
                _write(plugin, fp, pending)
            pending, previous = made
        if pending is not None and pending.bbox is not None:
            _write(plugin, fp, pending)
            fp.write(b";")
            return count
    # One distinct frame: Pillow writes a single image with the summed duration.
    total = pending.info.get("duration") if pending is not None else duration
    first.save(path, format="GIF", save_all=True, duration=total, loop=loop, disposal=1)
    return count


def _next_frame(plugin: Any, image: Any, previous: Any, pending: _Frame | None, base: dict[str, Any],
                is_first: bool) -> tuple[_Frame, Any] | None:
    """One frame as Pillow prepares it (palette, delta box, transparency) and the palette image it
    came from (the next frame's reference), or None when it repeats the one before."""
    frame = plugin._normalize_mode(image.copy())
    if is_first:
        for key, value in frame.info.items():
            if key != "transparency" and isinstance(key, str):
                base.setdefault(key, value)
    info = base.copy()
    if "transparency" in frame.info:
        info.setdefault("transparency", frame.info["transparency"])
    frame = plugin._normalize_palette(frame, None, info)
    diff = None
    bbox = None
    if pending is not None and previous is not None:
        delta, bbox = plugin._getbbox(previous, frame)
        if not bbox:
            if info.get("duration"):
                pending.info["duration"] = pending.info.get("duration", 0) + info["duration"]
            return None
        diff = _unchanged_as_transparent(frame, delta, info)
    return _Frame(diff or frame, bbox, info), frame


def _unchanged_as_transparent(frame: Any, delta: Any, info: dict[str, Any]) -> Any:
    """Pillow's optimisation: pixels equal to the previous frame become the transparent index."""
    from PIL import ImageChops

    if not info.get("optimize") or frame.mode == "1":
        return None
    if "transparency" not in info:
        try:
            info["transparency"] = frame.palette._new_color_index(frame)
        except ValueError:
            pass
    if "transparency" not in info:
        return None
    if delta.mode == "RGBA":
        r, g, b, a = delta.split()
        delta = ImageChops.lighter(ImageChops.lighter(r, g), ImageChops.lighter(b, a))
    unchanged = delta.point([255, *(0,) * 255], "1")
    diff = frame.copy()
    diff.paste(info["transparency"], mask=unchanged)
    return diff


def _write(plugin: Any, fp: Any, frame: _Frame) -> None:
    image = frame.image
    if not frame.bbox:
        for block in plugin._get_global_header(image, frame.info):
            fp.write(block)
        offset = (0, 0)
    else:
        frame.info["include_color_table"] = True
        if frame.bbox != (0, 0, *image.size):
            image = image.crop(frame.bbox)
        offset = frame.bbox[:2]
    plugin._write_frame_data(fp, image, offset, frame.info)
