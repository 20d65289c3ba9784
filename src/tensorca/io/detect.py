"""Format detection by content (never by file name), as Golly does.

- A first line starting with ``[M2]``: Golly's macrocell; ``#MCell``: MCell.
- ``#Life 1.05`` / ``#Life 1.06`` on the first non-blank line: Life 1.05 / 1.06.
- A first line starting with ``!``: plaintext (``.cells``).
- A size header ``x = ...`` after any ``#`` lines: RLE.
- Coordinate lines without a ``#Life 1.06`` header are not guessed (Golly reads them; here they
  go to the RLE reader, which reports the first unexpected character).
- No ``#`` lines and every non-blank line made of ``.``, ``O``, ``o``, ``*`` (or a ``!`` comment): plaintext
  (``OO.O`` would otherwise be multi-state RLE, where ``O`` is state 15).
- Anything else: headerless RLE (whose parser reports what is wrong, with its position).
"""

from __future__ import annotations

import re

from .common import iter_lines
from .rle import is_header_line

#: Format names :func:`detect_format` returns and the readers accept.
FORMATS = ("rle", "cells", "life105", "life106", "macrocell", "mcl")

_PLAIN_ROW = re.compile(r"[.Oo*]*\s*")
_LIFE = re.compile(r"#Life\s+1\.0([56])\b", re.IGNORECASE)


def detect_format(text: str) -> str:
    """The format of pattern ``text``: one of :data:`FORMATS`."""
    if text.startswith("[M2]"):
        return "macrocell"
    if text.startswith("#MCell"):
        return "mcl"
    saw_hash = False
    first = True
    for _, line in iter_lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if first:
            first = False
            m = _LIFE.match(stripped)
            if m:
                return "life105" if m.group(1) == "5" else "life106"
            if stripped.startswith("!"):
                return "cells"
        if line.startswith("#"):
            saw_hash = True
            continue
        if is_header_line(line):
            return "rle"
        if saw_hash or not (_PLAIN_ROW.fullmatch(line) or line.startswith("!")):
            return "rle"
    return "cells" if not first and not saw_hash else "rle"
