"""``run(..., progress=...)``: a callback of the caller's, or ``True`` for a rich progress bar on stderr."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import UsageError

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each chunk of generations."""


def check_progress(progress: Any) -> Any:
    """``progress`` as given: None/False (no reports), True (a bar) or a callable; else :class:`UsageError`."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise UsageError(f"progress must be True, False, None or a callable progress(done, total), "
                     f"not {type(progress).__name__}")


@contextlib.contextmanager
def progress_reporter(progress: Any, total: int) -> Iterator[ProgressCallback | None]:
    """The callback a run reports to: the caller's own, a rich bar for ``True``, or None.

    The bar (generations done of ``total``, time remaining) is drawn on stderr and closed when the
    run ends, also when it raises.
    """
    if progress is None or progress is False:
        yield None
        return
    if progress is not True:
        yield progress
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("generations", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task("run", total=total)
        yield lambda done, _total: bar.update(task, completed=done)
