"""``tensorca info``: describe a pattern file (name, author, rule, topology, size, population)."""

from __future__ import annotations

import argparse

from rich.table import Table

from .. import io as pattern_io
from . import _args
from ._console import out


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``info`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("info", help="describe a pattern file")
    p.add_argument("file", help="pattern file, or the name of a bundled pattern such as gosper_gun.rle")
    p.add_argument("--rules-dir", metavar="DIR", help="folder of Golly .rule files for a rule named in the file")
    p.set_defaults(func=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    pattern = pattern_io.load(_args.pattern_input(args.file), rules_dir=args.rules_dir)
    table = Table(title=args.file, show_header=False)
    if pattern.name:
        table.add_row("name", pattern.name)
    if pattern.author:
        table.add_row("author", pattern.author)
    rule = pattern.rule
    table.add_row("rule", f"{rule.canonical()} ({rule.family}, {rule.n_states} states)" if rule
                  else "not given (B3/S23 is used)")
    table.add_row("topology", str(pattern.topology))
    height, width = pattern.shape  # a tree-backed pattern answers without materialising its cells
    table.add_row("size", f"{width} x {height} (W x H)")
    table.add_row("population", str(pattern.population))
    table.add_row("origin", f"x={pattern.origin[0]} y={pattern.origin[1]}")
    table.add_row("generation", str(pattern.generation))
    for comment in pattern.comments:
        table.add_row("comment", comment)
    out.print(table)
    return 0
