"""The command line's output: plain lines, one rich console for stdout, one for stderr, one progress bar.

Lines (:func:`say`) are printed as they are, without rich: errors, hints and the fast commands
(``--version``, ``rule``, ``info``) never import it (a tenth of a second). Tables go to :data:`out`;
progress and engine rows to :data:`err`: both consoles, and rich with them, are made on first use.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: ``progress(done, total)``, as :func:`tensorca.run` and the soup search call it.
ProgressFn = Callable[[int, int], None]

#: The control characters rich removes from printed text (bell, backspace, VT, FF, CR): a file name or
#: rule string shown in an error cannot move the cursor or hide the rest of its line.
_CONTROL = dict.fromkeys((7, 8, 11, 12, 13))
_CONSOLES: dict[str, Console] = {}


def console(stderr: bool = False) -> Console:
    """The rich console for stdout (:data:`out`) or stderr (:data:`err`), made on first use."""
    name = "err" if stderr else "out"
    if name not in _CONSOLES:
        from rich.console import Console

        _CONSOLES[name] = Console(stderr=stderr)
    return _CONSOLES[name]


def __getattr__(name: str) -> Any:
    """:data:`out` and :data:`err` (PEP 562): importing this module does not import rich."""
    if name in ("out", "err"):
        return console(stderr=name == "err")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def say(text: str, *, stderr: bool = False) -> None:
    """Print ``text`` as it is: no markup, no highlighting, no wrapping (one logical line stays one)."""
    print(text.translate(_CONTROL), file=sys.stderr if stderr else sys.stdout, flush=True)


def rows(pairs: Sequence[tuple[str, str]], title: str | None = None) -> None:
    """Print ``key  value`` lines, the keys padded to one width, under ``title`` if given: the plain
    two-column table of ``rule`` and ``info``, which need not import rich for it."""
    width = max((len(key) for key, _ in pairs), default=0)
    lines = [f"{key.ljust(width)}  {value}" for key, value in pairs]
    say("\n".join(lines if title is None else [title, *lines]))  # one write, as rich printed a table


def wide(width: int) -> Console:
    """The stdout console, or, off a terminal, one ``width`` columns wide (tables are not cut at 80)."""
    from rich.console import Console

    out = console()
    return out if out.is_terminal else Console(width=width)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextmanager
def tensorca_warnings() -> Iterator[None]:
    """Show tensorca's own warnings (``PerformanceWarning``: a faster engine is one extra away) as
    one line ``tensorca: warning: ...``; other libraries' warnings keep Python's format."""
    with warnings.catch_warnings():
        fallback = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if os.path.abspath(filename).startswith(_PACKAGE + os.sep):
                say(f"tensorca: warning: {message}", stderr=True)
            else:
                fallback(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def progress_shown(enabled: bool, total: int) -> bool:
    """Whether :func:`progress_bar` draws a bar (and so whether the run reports progress, which
    splits it into more engine calls: ``run --explain`` prices those calls before the bar exists)."""
    return enabled and total > 0 and sys.stderr.isatty()


@contextmanager
def progress_bar(enabled: bool, total: int, label: str = "generations") -> Iterator[ProgressFn | None]:
    """A transient rich bar on stderr, yielded as a ``progress(done, total)`` callback.

    Yields None (no bar) unless ``enabled``, ``total > 0`` and stderr is a terminal, so piped
    output and logs never fill with bar redraws.
    """
    if not progress_shown(enabled, total):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (label, BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done, _total: bar.update(task, completed=done)
