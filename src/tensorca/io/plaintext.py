"""Plaintext (``.cells``) patterns: ``!`` comment lines, then one row per line.

Reading: ``!Name: <name>`` sets the name and other ``!`` lines (anywhere) are comments; in rows ``.`` is
dead and ``O`` alive, and (as LifeWiki's readers accept) ``o`` and ``*`` are alive too. Short
rows are padded with dead cells; the width is that of the longest row; blank lines are empty
rows; trailing whitespace is ignored. The format has no rule, position or generation.

Writing: two-state only. Every row is written at full width so a round trip keeps the shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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
    """Parse ``.cells`` text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Two passes over the text: the first checks every row and measures the array, the second fills
    it, so working memory is the array alone whatever the text's shape (a billion blank lines
    cost a count, not a list).
    """
    budget = resolve_max_cells(max_cells)
    name: str | None = None
    comments: list[str] = []
    width = height = 0
    first_row_line = 1  # the first line that is not a comment: row 0 (blank or not)
    for lineno, y, line in _rows(text):
        if line.startswith("!"):
            first_row_line += lineno == first_row_line
            if line[1:].startswith("Name:"):
                name = line[6:].strip()
            else:
                comments.append(line[2:] if line[1:].startswith(" ") else line[1:])
            continue
        row = line.rstrip()
        m = _BAD.search(row)
        if m:
            raise PatternError(
                f"unexpected character {m.group()!r} in plaintext row; expected '.', 'O', 'o' or '*'",
                lineno,
                m.start() + 1,
                source,
            )
        if row:  # trailing blank rows are not rows: the height ends at the last non-blank one
            width, height = max(width, len(row)), y + 1
    if not height and name is None and not comments:
        raise PatternError("empty pattern file", 1, 1, source)
    check_area(width, height, budget, line=first_row_line, column=1, source=source, what="plaintext pattern")
    cells = np.zeros((height, width), dtype=np.uint8)
    for _, y, line in _rows(text):
        if not line.startswith("!"):
            row = line.rstrip()
            cells[y, : len(row)] = _ALIVE[np.frombuffer(row.encode("ascii"), dtype=np.uint8)]
    return Pattern(cells=cells, name=name, comments=comments)


def _rows(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line number, row index, line)`` for each non-blank line; comment lines (``!``) are
    yielded too (their row index is meaningless) and are not rows. Blank lines are empty rows
    counted from the line numbers: a row's index is its line number less the comment lines
    before it."""
    comment_lines = 0
    for lineno, line in iter_lines(text):
        yield lineno, lineno - 1 - comment_lines, line
        if line.startswith("!"):  # comment lines are accepted anywhere, as LifeWiki's readers do
            comment_lines += 1


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
