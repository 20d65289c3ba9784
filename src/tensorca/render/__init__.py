"""Pictures and animations of runs: GIF (Pillow), PNG, MP4 (imageio-ffmpeg), population plots.

    import tensorca.render
    tensorca.render.gif("gun.gif", tensorca.load("gosper_gun.rle"), gens=120, scale=4, duration=50)
    tensorca.render.png("gun.png", pattern, gens=100)
    tensorca.render.mp4("gun.mp4", pattern, gens=300, fps=30)

Colours: state 0 dark, state 1 bright; Generations' decaying states fade from orange to dim red;
a rule file's ``@COLORS`` when it has them. Float cells (Lenia) use a perceptual colormap (viridis,
computed in :mod:`.colormaps`).
"""

from .colormaps import colormap
from .frames import Frames, FrameStream, colours_for, frame_stream, frames, palette, to_rgb
from .gif import gif, png, write_gif, write_png
from .mp4 import mp4, write_mp4
from .plot import write_population_plot

__all__ = [
    "FrameStream", "Frames", "colormap", "colours_for", "frame_stream", "frames", "gif", "mp4", "palette", "png",
    "to_rgb", "write_gif", "write_mp4", "write_png", "write_population_plot",
]
