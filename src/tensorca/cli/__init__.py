"""The ``tensorca`` command: thin argument parsing over the public API, printing with rich.

One module per subcommand (``run``, ``info``, ``rule``, ``render``, ``soup``, ``bench``,
``loader-bench``, ``verify``, ``view``), each with ``register(subparsers)`` and its command function.
:func:`main` is the one error handler: every user error (a :class:`~tensorca.errors.TensorcaError`,
a usage mistake, an unreadable or unwritable path, memory exhausted) prints ONE line
``tensorca: error: ...`` on stderr and returns 2; Ctrl-C returns 130. Never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from ..errors import TensorcaError, UsageError
from . import bench, info, loader_bench, render, rule, run, soup, verify, view
from ._console import say, tensorca_warnings

#: The subcommand modules, in ``--help`` order.
COMMANDS = (run, info, rule, render, soup, verify, bench, loader_bench, view)


def version() -> str:
    """The installed distribution's version, else the package's ``__version__`` (a source tree)."""
    from importlib import metadata

    try:
        return metadata.version("tensorca")
    except metadata.PackageNotFoundError:
        from .. import __version__

        return __version__


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line like every other error, not nine."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    """The ``tensorca`` parser with every subcommand registered (``args.func(args) -> int``)."""
    parser = Parser(prog="tensorca", description="Cellular automata with Golly's semantics on NumPy and PyTorch.")
    parser.add_argument("--version", action="version", version=f"tensorca {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help and --version print and exit 0
            return done.code if isinstance(done.code, int) else 0
        with tensorca_warnings():
            return args.func(args)
    except KeyboardInterrupt:
        say("tensorca: interrupted", stderr=True)
        return 130
    except Exception as exc:  # narrowed by _message: anything but a user error is re-raised
        message = _message(exc)
        if message is None:
            raise
        say(f"tensorca: error: {message}", stderr=True)
        return 2


def _message(exc: Exception) -> str | None:
    """The one line for a user error, or None for anything else (a bug: its traceback is wanted)."""
    if isinstance(exc, MemoryError) and not isinstance(exc, TensorcaError):
        detail = f" ({exc})" if str(exc) else ""
        return f"out of memory{detail}; use a smaller grid or batch, or give run a --max-bytes budget"
    if isinstance(exc, (TensorcaError, ValueError)):  # ValueError: a bad value not yet typed below
        return " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc) or type(exc).__name__
        return f"{reason}: {exc.filename}" if exc.filename else reason
    return None
