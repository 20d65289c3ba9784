"""``tensorca render``: pictures and animations of a run (GIF, MP4, PNG) and a population plot."""

from __future__ import annotations

import argparse

from rich.console import Console

from . import io as pattern_io
from .errors import TensorcaError
from .render import frames, write_gif, write_mp4, write_png, write_population_plot

out = Console()


def add_parser(subparsers) -> None:
    """Register ``render`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser("render", help="draw a run as a GIF, MP4 or PNG, and plot its population")
    p.add_argument("file", help="pattern file (RLE, .cells, Life 1.05/1.06, optionally gzipped)")
    p.add_argument("--gens", type=int, default=100, help="generations to run (default 100)")
    p.add_argument("--rule", help="rule string (default: the file's, else B3/S23)")
    p.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF")
    p.add_argument("--mp4", metavar="OUT.mp4", help="write an H.264 MP4 (needs imageio-ffmpeg)")
    p.add_argument("--png", metavar="OUT.png", help="write the last generation as a PNG")
    p.add_argument("--plot", metavar="OUT.png", help="write a population-over-time plot (needs matplotlib)")
    p.add_argument("--scale", type=int, default=4, help="pixels per cell (default 4)")
    p.add_argument("--every", type=int, default=1, help="draw every N-th generation (default 1)")
    p.add_argument("--duration", type=int, default=100, help="GIF milliseconds per frame (default 100)")
    p.add_argument("--fps", type=float, default=10.0, help="MP4 frames per second (default 10)")
    p.add_argument("--grid", action="store_true", help="draw grid lines between cells (scale >= 4)")
    p.add_argument("--backend", default="numpy", help="engine to run on (default numpy)")
    p.set_defaults(func=cmd_render)


def cmd_render(args: argparse.Namespace) -> int:
    if not (args.gif or args.mp4 or args.png or args.plot):
        raise TensorcaError("say what to write: --gif OUT.gif, --mp4 OUT.mp4, --png OUT.png and/or --plot OUT.png")
    if args.gens < 0 or args.every < 1 or args.scale < 1:
        raise TensorcaError("--gens must be >= 0, --every and --scale >= 1")
    pattern = pattern_io.load(args.file)
    run = frames(pattern, args.rule, args.gens, args.every, args.backend)
    height, width = run.cells.shape[1:]
    if args.gif:
        n = write_gif(args.gif, run, args.scale, args.duration, args.grid)
        out.print(f"wrote {args.gif}: {n} frames, {width * args.scale}x{height * args.scale} pixels, {args.duration} ms each")
    if args.mp4:
        w, h = write_mp4(args.mp4, run, args.scale, args.fps, args.grid)
        out.print(f"wrote {args.mp4}: {len(run.cells)} frames, {w}x{h} pixels, {args.fps:g} fps")
    if args.png:
        write_png(args.png, run.cells[-1], run.n_states, args.scale, args.grid)
        out.print(f"wrote {args.png}: generation {run.generations[-1]}, {width * args.scale}x{height * args.scale} pixels")
    if args.plot:
        write_population_plot(args.plot, run.populations, title=f"{args.file}: population")
        out.print(f"wrote {args.plot}: population of generations 0..{args.gens}")
    return 0
