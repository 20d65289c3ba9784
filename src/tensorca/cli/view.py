"""``tensorca view``: watch a pattern or a random soup evolve in the browser (a local page)."""

from __future__ import annotations

import argparse
import secrets

from .. import io as pattern_io
from ..errors import UsageError
from ..random_grids import random_soup
from ..rules.spec import resolve
from . import _args
from ._start import soup_topology


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``view`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("view", help="watch a pattern or soup in the browser (served on 127.0.0.1)")
    p.add_argument("file", nargs="?", help="pattern file, or a built-in pattern's name (tensorca patterns)")
    p.add_argument("--rules-dir", metavar="DIR", help="folder of Golly .rule files for a rule named in the file")
    p.add_argument("--soup", type=_args.grid_size, metavar="WxH", help="start from a random soup of this size")
    p.add_argument("--density", type=_args.number(0.0, 1.0), default=0.5, help="soup density (default 0.5)")
    p.add_argument("--seed", type=_args.integer(0, 2**63 - 1), default=None, help="soup seed (default: drawn)")
    p.add_argument("--rule", help="rule string (default: the file's, else B3/S23)")
    p.add_argument("--topology", help="soups: T or P for their own size, or a Golly suffix such as :T256,256")
    p.add_argument("--backend", default="auto", help="engine name, or auto (default)")
    p.add_argument("--port", type=_args.integer(0, 65535), default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="only print the URL; do not open a browser")
    p.set_defaults(func=cmd_view)


def cmd_view(args: argparse.Namespace) -> int:
    from ..view.server import serve
    from ..view.source import from_pattern

    if (args.file is None) == (args.soup is None):
        raise UsageError("give either a pattern FILE or --soup WIDTHxHEIGHT")
    if args.file is not None:
        pattern = pattern_io.load(_args.pattern_input(args.file), rules_dir=args.rules_dir)
        source = from_pattern(pattern, args.rule, args.backend, title=args.file)
    else:
        height, width = args.soup
        given = None if args.topology is None else soup_topology(args.topology, height, width)
        rule, topology = resolve(args.rule, given)
        seed = secrets.randbits(32) if args.seed is None else args.seed  # in the title: the view can be repeated
        cells = random_soup(height, width, args.density, seed, n_states=rule.n_states)
        title = f"soup {width}x{height}, density {args.density:g}, seed {seed}"
        source = from_pattern(cells, rule, args.backend, topology=topology, title=title)
    return serve(source, port=args.port, open_browser=not args.no_browser)
