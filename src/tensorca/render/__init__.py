"""Pictures and animations of runs: GIF (Pillow), PNG, MP4 (imageio-ffmpeg), population plots.

    import tensorca.render
    tensorca.render.gif("gun.gif", tensorca.load("gosper_gun.rle"), gens=120, scale=4, duration=50)
    tensorca.render.png("gun.png", pattern, gens=100)
    tensorca.render.mp4("gun.mp4", pattern, gens=300, fps=30)

Colours: state 0 dark, state 1 bright; Generations' decaying states fade from orange to dim red;
a rule file's ``@COLORS`` when it has them. Float cells (Lenia) use a perceptual colormap (viridis,
computed in :mod:`.colormaps`).

The public names are imported on first use (PEP 562): the colours (:mod:`.colormaps`), which a
notebook's picture of a pattern uses, import no simulator; :mod:`.frames` (which runs patterns) and
the writers are imported when first named.
"""

from __future__ import annotations

import sys
from typing import Any

from .. import _lazy

#: Where each public name lives: ``name -> module`` (relative to this package).
_LAZY: dict[str, str] = {
    **dict.fromkeys(("colormap", "colours_for", "palette"), ".colormaps"),
    **dict.fromkeys(("Frames", "FrameStream", "frame_stream", "frames", "to_rgb"), ".frames"),
    **dict.fromkeys(("gif", "png", "write_gif", "write_png"), ".gif"),
    **dict.fromkeys(("mp4", "write_mp4"), ".mp4"),
    "write_population_plot": ".plot",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept; else a submodule (``render.frames``)."""
    return _lazy.attribute(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


sys.modules[__name__].__class__ = _lazy.Package  # render.frames, .gif, .mp4: the functions, not the modules


__all__ = [
    "FrameStream", "Frames", "colormap", "colours_for", "frame_stream", "frames", "gif", "mp4", "palette", "png",
    "to_rgb", "write_gif", "write_mp4", "write_png", "write_population_plot",
]
