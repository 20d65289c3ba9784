"""``njit`` when Numba is installed (the ``[fast]`` extra), else the plain Python function.

The analysis and soup-search kernels are written in the subset of Python that Numba compiles, so
without Numba they still run, as ordinary (slow) Python: a census works on the reference install.
Modules that have a faster NumPy form for that case check :data:`HAVE_NUMBA`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from ._numba import njit as _numba_njit
except ImportError:  # pragma: no cover - exercised by the no-numba subprocess test
    _numba_njit = None

HAVE_NUMBA = _numba_njit is not None


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` (same arguments), or a decorator that leaves the function as it is."""
    if _numba_njit is not None:
        return _numba_njit(*args, **options)
    if len(args) == 1 and callable(args[0]) and not options:
        return args[0]

    def keep(function: Callable) -> Callable:
        return function

    return keep


__all__ = ["HAVE_NUMBA", "njit"]
