"""Dataset errors that are also the exceptions Python's protocols expect.

``len()`` of an endless dataset raises a ``TypeError`` and an index past the end an ``IndexError``
(iteration by index stops on it, ``tqdm`` falls back when ``len`` fails); both are still
:class:`~tensorca.errors.UsageError`, so ``except TensorcaError`` catches them.
"""

from __future__ import annotations

from ..errors import UsageError


class DatasetIndexError(UsageError, IndexError):
    """An index outside the dataset (``IndexError``, so ``for x in dataset`` ends there)."""


class DatasetTypeError(UsageError, TypeError):
    """A dataset asked for what its kind has not: a non-integer index, the length of an endless stream."""

