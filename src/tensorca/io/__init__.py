"""Pattern files: RLE, plaintext (``.cells``), Life 1.05, Life 1.06 and macrocell (``.mc``),
optionally gzip-compressed.

- :func:`load` / :func:`loads` read a file / text into a :class:`~tensorca.pattern.Pattern`,
  detecting the format from the content (and gzip from its magic bytes).
- :func:`save` / :func:`dumps` write one; ``save`` picks the format from the extension.

Every reader checks sizes against a cell budget (``max_cells``, default 2**31) before
allocating, and needs little working memory beside the array (runs, coordinates and macrocell
nodes are kept in compact typed arrays, blank lines are counted, not listed). The text itself
has a budget (``max_bytes``, default 256 MiB): gzip is decompressed in chunks and refused once
it passes it. Malformed or oversized input raises :class:`~tensorca.errors.PatternError` with a
1-based line and column where there is one.

The per-format ``read_*`` / ``write_*`` functions are imported on first use (PEP 562), as
:func:`load` imports only the reader of the format it meets.
"""

from __future__ import annotations

from typing import Any

from .._lazy import attribute
from ..pattern import Pattern
from .budget import DEFAULT_MAX_CELLS
from .detect import FORMATS, detect_format
from .files import dumps, load, loads, save

#: ``read_*`` / ``write_*`` name -> its module in this package.
_LAZY = {f"{verb}_{module}": f".{module}" for module in ("life105", "life106", "macrocell", "plaintext", "rle")
         for verb in ("read", "write")}


def __getattr__(name: str) -> Any:
    """A format's reader or writer, its module imported on first use; else a submodule (``io.macrocell``)."""
    return attribute(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    """The module's names with every reader and writer, imported or not."""
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "DEFAULT_MAX_CELLS",
    "FORMATS",
    "Pattern",
    "detect_format",
    "dumps",
    "load",
    "loads",
    "read_life105",
    "read_life106",
    "read_macrocell",
    "read_plaintext",
    "read_rle",
    "save",
    "write_life105",
    "write_life106",
    "write_macrocell",
    "write_plaintext",
    "write_rle",
]
