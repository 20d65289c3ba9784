"""The ``tensorca`` command: thin argument parsing over the public API, printing plain lines and rich tables.

One module per subcommand (``run``, ``info``, ``rule``, ``render``, ``soup``, ``bench``,
``loader-bench``, ``verify``, ``view``), each with ``register(subparsers)`` and its command function.
The parser is built without importing them (:data:`COMMANDS` names each one with its one-line help):
a subcommand's module is imported, and its arguments added, only when that subcommand is parsed, so
``tensorca --version`` imports neither NumPy nor the engines nor rich.
:func:`main` is the one error handler: every user error (a :class:`~tensorca.errors.TensorcaError`,
a usage mistake, an unreadable or unwritable path, memory exhausted) prints ONE line
``tensorca: error: ...`` on stderr and returns 2; Ctrl-C returns 130. Never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import import_module
from typing import Any, NoReturn

from .._version import __version__
from ..errors import TensorcaError, UsageError
from ._console import say, tensorca_warnings
from ._status import compile_status

#: The subcommands in ``--help`` order: ``(name, module in tensorca.cli, one-line help)``. The help is
#: here so that ``tensorca --help`` lists them unimported (tests/test_startup.py checks it is the same
#: as each module's own ``add_parser(help=...)``).
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("run", "run", "run a pattern file or a random soup"),
    ("info", "info", "describe a pattern file"),
    ("patterns", "patterns", "list the built-in patterns (run any of them by name)"),
    ("rule", "rule", "print a rule's canonical form and family"),
    ("render", "render", "draw a run as a GIF, MP4 or PNG, and plot its population"),
    ("soup", "soup", "run random 16x16 soups to stability and census the ash (apgcodes)"),
    ("verify", "verify", "check every engine bit for bit against the NumPy reference"),
    ("bench", "bench", "measure cell updates per second per engine and device; where the GPU wins"),
    ("loader-bench", "loader_bench",
     "measure DataLoader settings against DeviceStream (samples/s, time waiting for input)"),
    ("view", "view", "watch a pattern or soup in the browser (served on 127.0.0.1)"),
    ("warmup", "warmup", "compile the common kernels now (first use on this machine)"),
)


def version() -> str:
    """The installed distribution's version, else the package's ``__version__`` (a source tree)."""
    from importlib import metadata

    try:
        return metadata.version("tensorca")
    except metadata.PackageNotFoundError:
        return __version__


class VersionAction(argparse.Action):
    """``--version``: the version is looked up when asked, not when the parser is built (importlib.metadata
    alone takes longer to import than ``tensorca rule`` may spend in all)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        print(f"{parser.prog} {version()}", flush=True)
        parser.exit()


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line like every other error, not nine."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


class Subcommand(Parser):
    """A subcommand's parser, empty until :meth:`load` has its module's ``register`` add the arguments."""

    def __init__(self, *, module: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.module = module
        self.loaded = False

    def load(self) -> Subcommand:
        """Import ``tensorca.cli.<module>`` and let its ``register`` fill this parser (once)."""
        if not self.loaded:
            self.loaded = True
            import_module(f"{__name__}.{self.module}").register(_Into(self))
        return self


class _Into:
    """What a module's ``register(subparsers)`` is given: ``add_parser`` returns the parser already made
    for that subcommand, with the module's settings (``description=``, ...) applied to it."""

    def __init__(self, parser: Subcommand) -> None:
        self.parser = parser

    def add_parser(self, name: str, *, help: str | None = None, **settings: Any) -> Subcommand:
        if name != self.parser.prog.rsplit(" ", 1)[-1]:
            raise ValueError(f"tensorca.cli.{self.parser.module} registers {name!r}, not {self.parser.prog!r}")
        for key, value in settings.items():  # help: the top-level listing has it from COMMANDS already
            setattr(self.parser, key, value)
        return self.parser


class _LazySubparsers(argparse._SubParsersAction):
    """The sub-parsers action: loads the chosen subcommand's parser just before it parses the rest."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        chosen = self._name_parser_map.get(values[0])
        if isinstance(chosen, Subcommand):
            chosen.load()
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    """The ``tensorca`` parser, every subcommand listed (``args.func(args) -> int``); a subcommand's
    module is imported when that subcommand is parsed (:class:`Subcommand`)."""
    parser = Parser(prog="tensorca", description="Cellular automata with Golly's semantics on NumPy and PyTorch.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_LazySubparsers,
                                parser_class=Subcommand)
    for name, module, summary in COMMANDS:
        sub.add_parser(name, help=summary, module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help and --version print and exit 0
            return done.code if isinstance(done.code, int) else 0
        with tensorca_warnings(), compile_status():
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
