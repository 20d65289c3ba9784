"""HashLife: Gosper's algorithm on a hash-consed quadtree, compiled with Numba.

Runs any two-state rule on the 3x3 neighbourhood (B/S, S/B, V, H, Hensel letters, MAP; not B0)
on the unbounded plane, to any generation (``10**9``, ``2**40``) at a cost that follows the
pattern's regularity rather than its size. Populations and coordinates are exact Python ints.

>>> from tensorca.hashlife import Universe
>>> u = Universe.from_cells(cells, "B3/S23", origin=(0, 0))   # doctest: +SKIP
>>> u.step(10**9).population                                    # doctest: +SKIP
"""

try:  # numba is the optional [fast] extra: say how to get it instead of a bare ImportError
    import numba  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without numba
    from ..errors import MissingDependencyError

    raise MissingDependencyError(
        "HashLife is compiled with Numba, which is not installed", package="numba",
        install="pip install 'tensorca[fast]'",
    ) from exc

from .store import DEFAULT_MAX_BYTES  # noqa: E402  (after the dependency check)
from .universe import DEFAULT_MAX_CELLS, HashLife, Universe  # noqa: E402

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_CELLS", "HashLife", "Universe"]
