"""MkDocs hook: the command-line reference page, ``cli.md``, generated from ``tensorca``'s own parser.

Built at every ``mkdocs build`` from :func:`tensorca.cli.build_parser` (every subcommand loaded), so
it always says what the installed command accepts: ``tensorca --help``, then each subcommand's
one-line summary and its full ``--help`` (usage, arguments, options and their defaults).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PAGE = "cli.md"
#: The width the help text is wrapped to (argparse would use the terminal's).
WIDTH = 100


def _fixed_width(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` wrap its help at :data:`WIDTH` columns, whatever the terminal."""
    formatter: Callable[..., argparse.HelpFormatter] = parser.formatter_class
    parser.formatter_class = lambda prog: formatter(prog, width=WIDTH)  # type: ignore[assignment]


def reference() -> str:
    """The page's Markdown: the top-level help, then a section per subcommand in ``--help`` order."""
    from tensorca.cli import COMMANDS, build_parser

    parser = build_parser()
    _fixed_width(parser)
    (subparsers,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [
        "# Command-line reference",
        "",
        "Generated from the argument parser of the installed `tensorca` command when the site is built;",
        "`tensorca COMMAND --help` prints the same. Errors print one line, `tensorca: error: ...`, and exit",
        "with status 2.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
    ]
    for name, _module, summary in COMMANDS:
        sub = subparsers.choices[name].load()
        _fixed_width(sub)
        lines += ["", f"## tensorca {name}", "", summary[:1].upper() + summary[1:] + ".", "",
                  "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated :data:`PAGE` to the site."""
    files.append(File.generated(config, PAGE, content=reference()))
    return files
