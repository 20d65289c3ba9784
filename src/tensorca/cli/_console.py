"""The command line's output: one rich console for stdout, one for stderr, one progress bar.

Tables go to :data:`out`; errors, hints and progress to :data:`err`. Lines a user may copy
(a command to continue a run, an error) are printed with ``soft_wrap=True`` so that they never
break mid-command when stderr is not a terminal (rich would wrap them at 80 columns).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console

out = Console()
err = Console(stderr=True)

#: ``progress(done, total)``, as :func:`tensorca.run` and the soup search call it.
ProgressFn = Callable[[int, int], None]


def say(text: str, *, stderr: bool = False) -> None:
    """Print ``text`` as it is: no markup, no highlighting, no wrapping (one logical line stays one)."""
    (err if stderr else out).print(text, markup=False, highlight=False, soft_wrap=True)


def wide(width: int) -> Console:
    """The stdout console, or, off a terminal, one ``width`` columns wide (tables are not cut at 80)."""
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


@contextmanager
def progress_bar(enabled: bool, total: int, label: str = "generations") -> Iterator[ProgressFn | None]:
    """A transient rich bar on stderr, yielded as a ``progress(done, total)`` callback.

    Yields None (no bar) unless ``enabled``, ``total > 0`` and stderr is a terminal, so piped
    output and logs never fill with bar redraws.
    """
    if not enabled or total <= 0 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (label, BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done, _total: bar.update(task, completed=done)
