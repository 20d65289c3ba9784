"""HashLife: Gosper's algorithm on a hash-consed quadtree, compiled with Numba.

Runs any two-state rule on the 3x3 neighbourhood (B/S, S/B, V, H, Hensel letters, MAP; not B0)
on the unbounded plane, to any generation (``10**9``, ``2**40``) at a cost that follows the
pattern's regularity rather than its size. Populations and coordinates are exact Python ints.

>>> from tensorca.hashlife import Universe
>>> u = Universe.from_cells(cells, "B3/S23", origin=(0, 0))   # doctest: +SKIP
>>> u.step(10**9).population                                    # doctest: +SKIP

The compiled parts need Numba (the ``[fast]`` extra): asking for them without it raises
:class:`~tensorca.errors.MissingDependencyError` with the install command. The package itself
imports without Numba, so :mod:`tensorca.persist.macrocell` (macrocell checkpoints, written
and read through :mod:`tensorca.io`) works everywhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_CELLS", "HashLife", "Universe"]


def __getattr__(name: str) -> Any:
    """The compiled API, imported on first use (after the Numba check)."""
    if name not in __all__:
        raise AttributeError(f"module 'tensorca.hashlife' has no attribute {name!r}")
    try:  # numba is the optional [fast] extra: say how to get it instead of a bare ImportError
        import numba  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without numba
        from ..errors import MissingDependencyError

        raise MissingDependencyError(
            "HashLife is compiled with Numba, which is not installed", package="numba",
            install="pip install 'tensorca[fast]'",
        ) from exc
    from . import store, universe

    return getattr(store if name == "DEFAULT_MAX_BYTES" else universe, name)
