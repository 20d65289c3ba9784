"""The cell budget: refuse oversized patterns before allocating anything.

A pattern file can describe far more cells than memory holds (``x = 100000000, y = 100000000`` or
a run count of ``10**12``). Every reader checks sizes against ``max_cells`` as soon as it knows
them, and raises :class:`~tensorca.errors.PatternError` at the offending position instead of
allocating. The default is the number of bytes of a 2 GiB ``uint8`` array.
"""

from __future__ import annotations

from ..errors import PatternError, UsageError

#: Default largest ``H * W`` a reader will allocate (one ``uint8`` per cell: 2 GiB).
DEFAULT_MAX_CELLS = 2**31

#: Largest pattern text (after gzip decompression) a reader holds by default: 256 MiB. The text is
#: working memory beside the array, so it has its own budget; a gzip stream is decompressed in
#: chunks and refused as soon as it passes the budget.
DEFAULT_MAX_BYTES = 2**28

#: Text bytes allowed per cell of an explicit ``max_cells`` (a Life 1.06 line is ~16 bytes a cell).
BYTES_PER_CELL = 16


def resolve_max_cells(max_cells: int | None) -> int:
    """``max_cells`` or the default; a non-positive budget is a caller error."""
    if max_cells is None:
        return DEFAULT_MAX_CELLS
    if not isinstance(max_cells, int) or isinstance(max_cells, bool) or max_cells < 1:
        raise UsageError(f"max_cells must be a positive integer, got {max_cells!r}")
    return max_cells


def resolve_max_bytes(max_bytes: int | None, max_cells: int | None) -> int:
    """The text budget: ``max_bytes``, else derived from an explicit ``max_cells``
    (``16 * max_cells + 1 MiB``), else :data:`DEFAULT_MAX_BYTES`."""
    if max_bytes is not None:
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
            raise UsageError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        return max_bytes
    if max_cells is not None:
        return BYTES_PER_CELL * resolve_max_cells(max_cells) + 2**20
    return DEFAULT_MAX_BYTES


def check_text_size(size: int, max_bytes: int, source: str | None, what: str = "pattern text") -> None:
    """Raise :class:`PatternError` naming the limit when ``size`` bytes exceed ``max_bytes``."""
    if size > max_bytes:
        raise PatternError(
            f"{what} is larger than {max_bytes} bytes, the text budget (pass a larger max_bytes= to allow it)",
            source=source,
        )


def check_area(
    width: int,
    height: int,
    max_cells: int,
    *,
    line: int | None = None,
    column: int | None = None,
    source: str | None = None,
    what: str = "pattern",
) -> None:
    """Raise :class:`PatternError` when a ``width x height`` grid exceeds ``max_cells``."""
    if width * height > max_cells:
        raise PatternError(
            f"{what} of {width} x {height} cells exceeds the cell budget of {max_cells} "
            f"(pass a larger max_cells= to allow it)",
            line,
            column,
            source,
        )


def check_extent(
    value: int,
    max_cells: int,
    *,
    line: int | None = None,
    column: int | None = None,
    source: str | None = None,
    what: str = "coordinate",
) -> None:
    """Raise when one side alone (a run end, a row index) already exceeds the budget."""
    if value > max_cells:
        raise PatternError(
            f"{what} {value} exceeds the cell budget of {max_cells} (pass a larger max_cells= to allow it)",
            line,
            column,
            source,
        )
