"""``tensorca info``: describe a pattern file (name, author, rule, topology, size, population)."""

from __future__ import annotations

import argparse

from .. import io as pattern_io
from ..families import family_of
from . import _args
from ._console import rows


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``info`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("info", help="describe a pattern file")
    p.add_argument("file", help="pattern file, or a built-in pattern's name (tensorca patterns)")
    p.add_argument("--rules-dir", metavar="DIR", help="folder of Golly .rule files for a rule named in the file")
    p.set_defaults(func=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    """Print the file's facts as ``key  value`` lines under its name."""
    pattern = pattern_io.load(_args.pattern_input(args.file), rules_dir=args.rules_dir)
    lines: list[tuple[str, str]] = []
    if pattern.name:
        lines.append(("name", pattern.name))
    if pattern.author:
        lines.append(("author", pattern.author))
    rule = pattern.rule
    owner = family_of(rule) if rule else None
    lines.append(("rule", f"{rule.canonical()} ({owner.name if owner else rule.family}, {rule.n_states} states)" if rule
                  else "not given (B3/S23 is used)"))
    lines.append(("topology", str(pattern.topology)))
    height, width = pattern.shape  # a tree-backed pattern answers without materialising its cells
    lines.append(("size", f"{width} x {height} (W x H)"))
    lines.append(("population", str(pattern.population)))
    lines.append(("origin", f"x={pattern.origin[0]} y={pattern.origin[1]}"))
    lines.append(("generation", str(pattern.generation)))
    lines.extend(("comment", comment) for comment in pattern.comments)
    rows(lines, title=args.file)  # plain text: this command stays fast without rich
    return 0
