"""Dataset errors that are also the exceptions Python's protocols expect.

``len()`` of an endless dataset raises a ``TypeError`` and an index past the end an ``IndexError``
(iteration by index stops on it, ``tqdm`` falls back when ``len`` fails); both are still
:class:`~tensorca.errors.UsageError`, so ``except TensorcaError`` catches them.
"""

from __future__ import annotations

from ..errors import MemoryBudgetError, UsageError
from ..memory import available_bytes, format_bytes


class DatasetIndexError(UsageError, IndexError):
    """An index outside the dataset (``IndexError``, so ``for x in dataset`` ends there)."""


class DatasetTypeError(UsageError, TypeError):
    """A dataset asked for what its kind has not: a non-integer index, the length of an endless stream."""


def check_fits(what: str, needed: int, device: str | None, fix: str) -> None:
    """:class:`~tensorca.errors.MemoryBudgetError` when ``needed`` bytes (one item, one batch) are more
    than ``device`` has free: said when the dataset is made, not as the first worker dies."""
    available = available_bytes(device)
    if available is not None and needed > available:
        raise MemoryBudgetError(f"{what} needs about {format_bytes(needed)}, and {format_bytes(available)} is free "
                                f"on {device or 'cpu'}; {fix}", needed=needed, available=available)
