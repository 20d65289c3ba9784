"""Life 1.05 (``.lif``): ``#Life 1.05``, ``#D`` descriptions, a rule line, ``#P x y`` blocks.

Reading: ``#D`` lines are comments; ``#N`` means Conway's Life; ``#R <rule>`` sets the rule
(Life 1.05 writes survival/birth, ``#R 23/3``, which Golly's rule parser reads as S/B); each
``#P x y`` starts a block of rows of ``.`` (dead) and ``*`` (alive) whose top-left is
``(x, y)``. Rows before any ``#P`` start at ``(0, 0)``. Coordinates are kept as written, so the
array is the bounding box of the live cells and ``origin`` its top-left.

Writing: two-state only; the name as ``#D Name: ...``, comments as ``#D``, ``#R`` with the
rule when there is one, then one ``#P`` block at the origin, trailing dead cells trimmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_extent, resolve_max_cells
from .common import int_fields, iter_lines, parse_rule_in_file
from .life106 import cells_from_coordinates, check_coordinate

_HEADER = re.compile(r"#Life\s+1\.05\s*$", re.IGNORECASE)
_BAD = re.compile(r"[^.*]")
_FIELD = re.compile(r"\S+")
_DOT, _STAR, _NEWLINE = (ord(c) for c in ".*\n")


def read_life105(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse Life 1.05 text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Two passes (bounding box, then fill), so working memory is the array plus one row.
    """
    budget = resolve_max_cells(max_cells)
    meta: dict = dict(rule=None, topology=Topology.unbounded(), comments=[], name=None)
    found = _all_coordinates(text, source, budget, meta)
    if found is not None:  # the common case, in a few array operations
        cells, origin = cells_from_coordinates(lambda: [found], budget, source)
    else:  # anything irregular: row by row, which says where the file is wrong
        cells, origin = cells_from_coordinates(lambda: _coordinates(text, source, budget, meta), budget, source)
    return Pattern(cells=cells, origin=origin, **meta)


def _all_coordinates(text: str, source: str | None, budget: int,
                     meta: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """``(xs, ys)`` ``int64`` of every live cell at once, ``meta`` filled from the ``#`` lines; None
    when a row holds anything but ``.`` and ``*`` (or a row is longer than the budget, or a lone
    CR ends a line): :func:`_coordinates` then reads the file and reports the line and column.
    The rows are joined and searched for ``*`` in one pass, not one array per row (the 13 KB
    ``breeder.lif`` of 4,500 rows: ~45 ms row by row)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None or not _HEADER.match(lines[start].strip()):
        return None
    meta["comments"] = []
    meta["name"] = None
    rows: list[str] = []
    lefts: list[int] = []
    tops: list[int] = []
    left = y = 0
    for lineno, line in enumerate(lines[start + 1:], start + 2):
        stripped = line.rstrip()
        if not stripped:
            continue
        if stripped[0] == "#":
            if stripped[1:2] == "P":
                left, y = _block_position(stripped, lineno, source)
            else:
                _hash_line(stripped, lineno, source, meta)
            continue
        rows.append(stripped)
        lefts.append(left)
        tops.append(y)
        y += 1
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if lengths.max() > budget:
        return None
    try:
        chars = np.frombuffer("\n".join(rows).encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    if not ((chars == _DOT) | (chars == _STAR) | (chars == _NEWLINE)).all():
        return None
    row_start = np.cumsum(lengths + 1) - lengths - 1
    stars = np.flatnonzero(chars == _STAR)
    row = np.searchsorted(row_start, stars, side="right") - 1
    return np.asarray(lefts, np.int64)[row] + (stars - row_start[row]), np.asarray(tops, np.int64)[row]


def _coordinates(text: str, source: str | None, budget: int, meta: dict) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(xs, ys)`` ``int64`` arrays of the live cells, one per row; ``meta`` gets rule, name, comments."""
    seen_header = False
    meta["comments"] = []
    meta["name"] = None
    left = y = 0
    for lineno, line in iter_lines(text):
        stripped = line.rstrip()
        if not seen_header:
            if not _HEADER.match(stripped.strip()):
                raise PatternError("a Life 1.05 file must start with '#Life 1.05'", lineno, 1, source)
            seen_header = True
            continue
        if stripped.startswith("#"):
            if stripped[1:2] == "P":
                left, y = _block_position(stripped, lineno, source)
            else:
                _hash_line(stripped, lineno, source, meta)
            continue
        m = _BAD.search(stripped)
        if m:
            raise PatternError(
                f"unexpected character {m.group()!r} in Life 1.05 row; expected '.' or '*'",
                lineno,
                m.start() + 1,
                source,
            )
        check_extent(len(stripped), budget, line=lineno, column=1, source=source, what="row length")
        cols = np.flatnonzero(np.frombuffer(stripped.encode("ascii"), dtype=np.uint8) == ord("*"))
        yield left + cols.astype(np.int64), np.full(cols.size, y, dtype=np.int64)
        y += 1
    if not seen_header:
        raise PatternError("empty pattern file", 1, 1, source)


def _block_position(stripped: str, lineno: int, source: str | None) -> tuple[int, int]:
    """The ``(x, y)`` of a ``#P x y`` line, each checked against the coordinate range."""
    left, top = int_fields(stripped[2:], lineno, 3, source, 2, "block position x y")
    for value, f in zip((left, top), _FIELD.finditer(stripped, 2), strict=False):
        check_coordinate(value, lineno, f.start() + 1, source)
    return left, top


def _hash_line(stripped: str, lineno: int, source: str | None, meta: dict) -> None:
    """A ``#`` line other than ``#P``: ``#R`` rule, ``#N`` Life, ``#D``/``#C`` comments (the first
    ``#D Name:`` is the name, as :func:`write_life105` writes it); others are ignored, as in Golly."""
    key, rest = stripped[1:2], stripped[2:]
    if key == "R":
        if not rest.strip():
            raise PatternError("#R line without a rule", lineno, 3, source)
        col = 3 + len(rest) - len(rest.lstrip())
        meta["rule"], meta["topology"] = parse_rule_in_file(rest.strip(), lineno, col, source)
    elif key == "N":
        meta["rule"], meta["topology"] = parse_rule_in_file("B3/S23", lineno, 1, source)
    elif key in ("D", "C"):
        body = rest[1:] if rest.startswith(" ") else rest
        if meta["name"] is None and not meta["comments"] and body.startswith("Name:"):
            meta["name"] = body[5:].strip()
        else:
            meta["comments"].append(body)


def write_life105(pattern: Pattern) -> str:
    """Encode a two-state ``pattern`` as Life 1.05; multi-state raises :class:`PatternError`."""
    if pattern.max_state > 1:
        raise PatternError(
            f"Life 1.05 holds only states 0 and 1; this pattern has state {pattern.max_state} (use RLE)"
        )
    lines = ["#Life 1.05"]
    if pattern.name:
        lines.append(f"#D Name: {' '.join(str(pattern.name).splitlines())}")
    for comment in pattern.comments:
        for part in str(comment).splitlines() or [""]:
            lines.append(f"#D {part}" if part else "#D")
    if pattern.rule is not None:
        lines.append(f"#R {pattern.rule.canonical()}{pattern.topology.suffix()}")
    ox, oy = pattern.origin
    lines.append(f"#P {ox} {oy}")
    table = np.frombuffer(b".*", dtype=np.uint8)
    for row in pattern.cells:
        nonzero = np.flatnonzero(row)
        used = row[: nonzero[-1] + 1] if nonzero.size else row[:1]
        lines.append(table[used].tobytes().decode("ascii") or ".")
    return "\n".join(lines) + "\n"
