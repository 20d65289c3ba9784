"""``tensorca render``: pictures and animations of a run (GIF, MP4, PNG) and a population plot."""

from __future__ import annotations

import argparse
import os

from .. import io as pattern_io
from ..errors import UsageError
from ..render import frame_stream, write_gif, write_mp4, write_png, write_population_plot
from . import _args
from ._console import say
from .run import check_backend

#: Output option -> the kind of file it writes (see ``_args.EXTENSIONS``).
OUTPUTS = {"gif": "gif", "mp4": "mp4", "png": "png", "plot": "plot"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``render`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("render", help="draw a run as a GIF, MP4 or PNG, and plot its population")
    p.add_argument("file", help="pattern file (RLE, .cells, Life 1.05/1.06, .mc, optionally gzipped), "
                                "or a built-in pattern's name (tensorca patterns)")
    p.add_argument("--rules-dir", metavar="DIR", help="folder of Golly .rule files for a rule named in the file")
    p.add_argument("--gens", type=_args.integer(0), default=100, help="generations to run (default 100)")
    p.add_argument("--rule", help="rule string (default: the file's, else B3/S23)")
    p.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF")
    p.add_argument("--mp4", metavar="OUT.mp4", help="write an H.264 MP4 (needs imageio-ffmpeg)")
    p.add_argument("--png", metavar="OUT.png", help="write the last generation as a PNG")
    p.add_argument("--plot", metavar="OUT.png", help="write a population-over-time plot (.png, .svg or .pdf; "
                                                     "needs matplotlib)")
    p.add_argument("--scale", type=_args.integer(1, 64), default=4, help="pixels per cell (default 4)")
    p.add_argument("--every", type=_args.integer(1), default=1, help="draw every N-th generation (default 1)")
    p.add_argument("--duration", type=_args.integer(1, 60_000), default=100,
                   help="GIF milliseconds per frame (default 100)")
    p.add_argument("--fps", type=_args.number(0.0, 1000.0, low_open=True), default=10.0,
                   help="MP4 frames per second (default 10)")
    p.add_argument("--grid", action="store_true", help="draw grid lines between cells (scale >= 4)")
    p.add_argument("--backend", default="numpy", help="engine to run on (default numpy)")
    p.set_defaults(func=cmd_render)


def check_outputs(args: argparse.Namespace) -> None:
    """At least one output; each with its own extension, in a writable folder, and no two the same."""
    given = {option: getattr(args, option) for option in OUTPUTS if getattr(args, option)}
    if not given:
        raise UsageError("say what to write: --gif OUT.gif, --mp4 OUT.mp4, --png OUT.png and/or --plot OUT.png")
    for option, path in given.items():
        _args.check_output(path, OUTPUTS[option], f"--{option}")
    paths = [os.path.abspath(path) for path in given.values()]
    if len(set(paths)) < len(paths):
        raise UsageError("two outputs name the same file; give each of --gif/--mp4/--png/--plot its own")


def cmd_render(args: argparse.Namespace) -> int:
    check_outputs(args)
    check_backend(args.backend, None)
    pattern = pattern_io.load(_args.pattern_input(args.file), rules_dir=args.rules_dir)
    stream = frame_stream(pattern, args.rule, args.gens, args.every, args.backend)  # one frame in memory at a time
    height, width = stream.shape
    pixels = f"{width * args.scale}x{height * args.scale} pixels"
    if args.gif:
        n = write_gif(args.gif, stream, args.scale, args.duration, args.grid)
        say(f"wrote {args.gif}: {n} frames, {pixels}, {args.duration} ms each")
    if args.mp4:
        w, h = write_mp4(args.mp4, stream, args.scale, args.fps, args.grid)
        say(f"wrote {args.mp4}: {len(stream)} frames, {w}x{h} pixels, {args.fps:g} fps")
    if args.png:
        write_png(args.png, stream.last(), stream.n_states, args.scale, args.grid)
        say(f"wrote {args.png}: generation {stream.generations[-1]}, {pixels}")
    if args.plot:
        write_population_plot(args.plot, stream.populations, title=f"{os.path.basename(args.file)}: population")
        say(f"wrote {args.plot}: population of generations 0..{args.gens}")
    return 0
