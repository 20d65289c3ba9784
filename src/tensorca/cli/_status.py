"""Status lines on stderr for what a command waits on that is not its own work: kernel compiles.

The library logs ``compiling ...`` records (:mod:`tensorca.compiling`) on the ``tensorca.compile``
logger at INFO; a library user sees them only after configuring logging. The command line shows them
as ``tensorca: compiling ...`` lines on stderr for the length of one command (:func:`compile_status`),
so a first run that waits seconds for Numba says so instead of looking hung.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..compiling import LOGGER


class _StderrLines(logging.Handler):
    """Each record as one ``tensorca: <message>`` line on the stderr of the moment (pytest swaps it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(f"tensorca: {record.getMessage()}", file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - a status line must never break the command
            self.handleError(record)


@contextmanager
def compile_status() -> Iterator[None]:
    """Show compile announcements on stderr while the block runs (then restore the logger)."""
    handler = _StderrLines(logging.INFO)
    level, propagate = LOGGER.level, LOGGER.propagate
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False  # the user's own logging setup would print the same line twice
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.setLevel(level)
        LOGGER.propagate = propagate


__all__ = ["compile_status"]
