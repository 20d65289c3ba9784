"""Plaintext (``.cells``) patterns: ``!`` comment lines, then one row per line.

Reading: ``!Name: <name>`` sets the name and other ``!`` lines (anywhere) are comments; in rows ``.`` is
dead and ``O`` alive, and (as LifeWiki's readers accept) ``o`` and ``*`` are alive too. Short
rows are padded with dead cells; the width is that of the longest row; blank lines are empty
rows; trailing whitespace is ignored. The format has no rule, position or generation.

Writing: two-state only. Every row is written at full width so a round trip keeps the shape.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from .budget import check_area, resolve_max_cells
from .common import iter_lines

_BAD = re.compile(r"[^.Oo*]")
_ALIVE = np.zeros(256, dtype=np.uint8)
for _c in "Oo*":
    _ALIVE[ord(_c)] = 1


def read_plaintext(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse ``.cells`` text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``)."""
    budget = resolve_max_cells(max_cells)
    name: str | None = None
    comments: list[str] = []
    rows: list[str] = []
    first_row_line = 0
    for lineno, line in iter_lines(text):
        if line.startswith("!"):  # comment lines are accepted anywhere, as LifeWiki's readers do
            body = line[1:]
            if body.startswith("Name:"):
                name = body[5:].strip()
            else:
                comments.append(body[1:] if body.startswith(" ") else body)
            continue
        row = line.rstrip()
        if not rows:
            first_row_line = lineno
        m = _BAD.search(row)
        if m:
            raise PatternError(
                f"unexpected character {m.group()!r} in plaintext row; expected '.', 'O', 'o' or '*'",
                lineno,
                m.start() + 1,
                source,
            )
        rows.append(row)
    while rows and not rows[-1]:  # the final newline and trailing blank lines are not rows
        rows.pop()
    if not rows and name is None and not comments:
        raise PatternError("empty pattern file", 1, 1, source)
    width = max((len(r) for r in rows), default=0)
    check_area(width, len(rows), budget, line=first_row_line or 1, column=1, source=source, what="plaintext pattern")
    cells = np.zeros((len(rows), width), dtype=np.uint8)
    for y, row in enumerate(rows):
        if row:
            cells[y, : len(row)] = _ALIVE[np.frombuffer(row.encode("ascii"), dtype=np.uint8)]
    return Pattern(cells=cells, name=name, comments=comments)


def write_plaintext(pattern: Pattern) -> str:
    """Encode a two-state ``pattern`` as ``.cells`` text; multi-state raises :class:`PatternError`."""
    if pattern.max_state > 1:
        raise PatternError(
            f"plaintext (.cells) holds only states 0 and 1; this pattern has state {pattern.max_state} (use RLE)"
        )
    lines = []
    if pattern.name:
        lines.append(f"!Name: {' '.join(str(pattern.name).splitlines())}")
    for comment in pattern.comments:
        for part in str(comment).splitlines() or [""]:
            lines.append(f"! {part}" if part else "!")
    table = np.frombuffer(b".O", dtype=np.uint8)
    for row in pattern.cells:
        lines.append(table[row].tobytes().decode("ascii"))
    return "\n".join(lines) + "\n"
