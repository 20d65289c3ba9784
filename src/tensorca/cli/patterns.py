"""``tensorca patterns``: list the built-in pattern library (run or load any of them by name)."""

from __future__ import annotations

import argparse

from ._console import say


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``patterns`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser(
        "patterns", help="list the built-in patterns (run any of them by name)",
        description="List the built-in patterns. Any of them runs by name (tensorca run gosper-glider-gun "
                    "--gens 300) or loads in Python (tensorca.load('glider')); names match case-insensitively, "
                    "with _, - and spaces alike. A file of the same name in the current folder wins.")
    p.add_argument("--paths", action="store_true", help="add each pattern's file path")
    p.set_defaults(func=cmd_patterns)


def cmd_patterns(args: argparse.Namespace) -> int:
    """Print one line per pattern: name, rule, size, population, description (plain text, no rich)."""
    from .. import io as pattern_io
    from ..data import library

    header = ("name", "rule", "size", "cells", "description")
    lines = [header + (("path",) if args.paths else ())]
    for entry in library().values():
        pattern = pattern_io.load(entry.path)
        height, width = pattern.shape
        rule = pattern.rule.canonical() if pattern.rule else "B3/S23"
        line = (entry.name, rule, f"{width}x{height}", str(pattern.population), entry.description)
        lines.append(line + ((entry.path,) if args.paths else ()))
    padded = len(header) - 1  # description (and path) ragged: padding them would only add blanks
    widths = [max(len(line[i]) for line in lines) for i in range(padded)]
    say("\n".join("  ".join([*(cell.ljust(w) for cell, w in zip(line[:padded], widths, strict=True)),
                             *line[padded:]]).rstrip() for line in lines))
    return 0
