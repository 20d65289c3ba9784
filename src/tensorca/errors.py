"""The exception hierarchy: one root, one typed error per kind of bad input.

Every error a user can provoke derives from :class:`TensorcaError`, so ``except
TensorcaError`` catches them all, and each also derives from ``ValueError`` where the
cause is a bad value, so generic code that expects ``ValueError`` keeps working.

:class:`Interrupted` is no error: it is Ctrl-C during a checkpointed run, carrying where the state was
saved (here, below every run loop that raises it: the unbounded plane's, the plan's, the lazy grid's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path


class TensorcaError(Exception):
    """Root of every error raised by tensorca for bad input or impossible requests."""


class UsageError(TensorcaError, ValueError):
    """A bad argument to a public function or command: wrong type, out of range, or options that
    conflict (``run(grid, "B3/S23", -1)``, ``checkpoint_every`` without ``checkpoint``)."""


class MissingDependencyError(TensorcaError, ImportError):
    """An optional framework (PyTorch, Numba, Triton, ...) that a requested feature needs is not
    importable here. ``package`` is what is missing, ``install`` the command that adds it."""

    def __init__(self, message: str, package: str | None = None, install: str | None = None):
        self.package = package
        self.install = install
        if install and install not in message:
            message = f"{message}; install it with: {install}"
        super().__init__(message)


class RuleError(TensorcaError, ValueError):
    """A rule string that cannot be parsed or is not a valid rule.

    ``text`` is the whole rule string, ``position`` the 0-based character offset of the
    offending part (``None`` when the rule as a whole is wrong).
    """

    def __init__(self, message: str, text: str | None = None, position: int | None = None):
        self.text = text
        self.position = position
        self.reason = message
        if text is not None and position is not None:
            message = f"{message} in rule {text!r} at position {position}"
        elif text is not None:
            message = f"{message} in rule {text!r}"
        super().__init__(message)


class TopologyError(TensorcaError, ValueError):
    """A topology suffix that cannot be parsed, or one this engine cannot simulate."""


class PatternError(TensorcaError, ValueError):
    """A malformed or oversized pattern file.

    ``line`` and ``column`` are 1-based and point at the offending character when known;
    ``source`` names the file (or ``"<string>"``).
    """

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        source: str | None = None,
    ):
        self.reason = message
        self.line = line
        self.column = column
        self.source = source
        where = source or "<string>"
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: {message}")


class EngineError(TensorcaError, ValueError):
    """An engine asked to run a rule or topology it does not support, or unknown by name."""


class GridError(TensorcaError, ValueError):
    """An input grid with the wrong shape, dtype or cell states for the rule or topology."""


class MemoryBudgetError(TensorcaError, MemoryError):
    """A single grid needs more memory than the device (or the ``max_bytes`` budget) offers.

    ``needed`` and ``available`` are bytes; the message says what to change.
    """

    def __init__(self, message: str, needed: int | None = None, available: int | None = None):
        self.needed = needed
        self.available = available
        super().__init__(message)


class CheckpointError(TensorcaError, ValueError):
    """A checkpoint file that is missing, malformed, or does not match the run resuming it."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a checkpointed run: ``path`` holds the state after ``generation``."""

    def __init__(self, path: Path, generation: int):
        super().__init__(f"interrupted; state at generation {generation} saved to {path}")
        self.path = path
        self.generation = generation
