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
"""

from __future__ import annotations

from ..pattern import Pattern
from .budget import DEFAULT_MAX_CELLS
from .detect import FORMATS, detect_format
from .files import dumps, load, loads, save
from .life105 import read_life105, write_life105
from .life106 import read_life106, write_life106
from .macrocell import read_macrocell, write_macrocell
from .plaintext import read_plaintext, write_plaintext
from .rle import read_rle, write_rle

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
