"""Life 1.06 (``.lif``/``.life``): ``#Life 1.06`` then one ``x y`` line per live cell.

Reading: coordinates are absolute pattern coordinates (negative allowed); the array is the
bounding box of the cells and ``origin`` its top-left. ``#`` lines after the header are
accepted as Golly does: ``#R <rule>`` sets the rule, ``#N`` means Conway's Life, ``#D`` and
other ``#`` lines are comments. A file with no cells gives a ``(0, 0)`` array.

Writing: two-state only; ``#Life 1.06`` then ``x y`` (``x = origin_x + column``) for every live
cell in reading order. The format carries no rule, name, generation or dead border, so a round
trip keeps exactly the cropped cells and their position.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_area, resolve_max_cells
from .common import count_line_breaks, int_fields, iter_lines, parse_rule_in_file

_HEADER = re.compile(r"#Life\s+1\.06\s*$", re.IGNORECASE)
# The common coordinate line: two integers of at most 18 digits (within MAX_COORDINATE).
_XY = re.compile(r"\s*([+-]?[0-9]{1,18})\s+([+-]?[0-9]{1,18})\s*")

_FIELD = re.compile(r"\S+")

#: Largest coordinate magnitude accepted (int64 arithmetic on positions stays exact).
MAX_COORDINATE = 2**62
#: Coordinates per chunk between parsing and filling.
CHUNK = 1 << 16
#: Characters per piece parsed in bulk.
PIECE = 1 << 20
# Blank and '#' lines at the start (header, rule, comments), each with its line break.
_HEAD = re.compile(r"(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*")
_BREAK = re.compile(r"[\r\n]")
_NOT_BULK = re.compile(r"[^0-9+\- \t\r\n]")
_LONG_NUMBER = re.compile(r"[0-9]{19}")


def read_life106(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse Life 1.06 text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Two passes: the first finds the bounding box (and the rule and comments), the second fills
    the array, so working memory is the array plus one chunk of coordinates.
    """
    budget = resolve_max_cells(max_cells)
    meta: dict = dict(rule=None, topology=Topology.unbounded(), comments=[])
    cells, origin = cells_from_coordinates(lambda: _coordinates(text, source, meta), budget, source)
    return Pattern(cells=cells, origin=origin, **meta)


def _coordinates(text: str, source: str | None, meta: dict) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks ``(xs, ys)`` (``int64``) of the live cells; ``meta`` gets the rule and comments.

    The header and ``#`` lines are read line by line; after them, as long as the text is plain
    ``x y`` lines (the bulk of a large file), pieces of about 1 MB are checked and parsed with
    NumPy (:func:`_bulk_coordinates`); anything else goes line by line, with exact positions.
    """
    meta["comments"] = []
    state = {"seen_header": False}
    head_end = _HEAD.match(text).end()
    yield from _line_coordinates(text, 0, 1, head_end, source, meta, state)
    pos, lineno = head_end, 1 + count_line_breaks(text, 0, head_end)
    if state["seen_header"] and text.find("#", head_end) < 0:
        while pos < len(text):
            end = _piece_end(text, pos)
            chunk = _bulk_coordinates(text[pos:end])
            if chunk is None:
                break
            yield chunk
            lineno += count_line_breaks(text, pos, end)
            pos = end
    yield from _line_coordinates(text, pos, lineno, len(text), source, meta, state)
    if not state["seen_header"]:
        raise PatternError("empty pattern file", 1, 1, source)


def _piece_end(text: str, pos: int) -> int:
    """Where a piece of about :data:`PIECE` characters from ``pos`` ends: after a line break."""
    m = _BREAK.search(text, pos + PIECE)
    if m is None:
        return len(text)
    return m.end() + (text.startswith("\n", m.end()) if m.group() == "\r" else 0)


def _bulk_coordinates(piece: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(xs, ys)`` of a piece made only of ``x y`` lines (ASCII digits, signs, spaces, tabs and
    blank lines, at most 18 digits a number), or None when the piece is anything else."""
    if _NOT_BULK.search(piece) or _LONG_NUMBER.search(piece):
        return None
    c = np.frombuffer(piece.encode("ascii"), dtype=np.uint8)
    space = (c == 32) | (c == 9)
    brk = (c == 10) | (c == 13)
    sign = (c == 43) | (c == 45)
    sep = np.concatenate(([True], space | brk))  # sep[i]: the character before i is a separator
    starts = np.flatnonzero(~(space | brk) & sep[:-1])  # first character of each token
    nxt = np.concatenate((c[1:], [32]))
    if (sign & ~(sep[:-1] & (nxt >= 48) & (nxt <= 57))).any():
        return None  # a sign that does not start a number
    line_of = np.cumsum(brk & ~((c == 13) & (nxt == 10)))  # line index of every character
    per_line = np.bincount(line_of[starts])
    if (per_line[per_line > 0] != 2).any():
        return None
    numbers = np.fromstring(piece, dtype=np.int64, sep=" ")
    if numbers.size != starts.size:
        return None
    return numbers[0::2], numbers[1::2]


def _line_coordinates(
    text: str, pos: int, lineno: int, stop: int, source: str | None, meta: dict, state: dict
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The lines of ``text[pos:stop]`` (``pos`` on line ``lineno``) one by one: header, ``#``
    lines and coordinates, with exact error positions."""
    xs, ys = array("q"), array("q")
    for number, line in iter_lines(text, pos, lineno, stop):
        stripped = line.strip()
        if not state["seen_header"]:
            if not _HEADER.match(stripped):
                raise PatternError("a Life 1.06 file must start with '#Life 1.06'", number, 1, source)
            state["seen_header"] = True
            continue
        if stripped.startswith("#"):
            _hash_line(line, stripped, number, source, meta)
            continue
        x, y = _xy(line, number, source)
        xs.append(x)
        ys.append(y)
        if len(xs) >= CHUNK:
            yield np.asarray(xs, dtype=np.int64), np.asarray(ys, dtype=np.int64)
            xs, ys = array("q"), array("q")
    yield np.asarray(xs, dtype=np.int64), np.asarray(ys, dtype=np.int64)


def _hash_line(line: str, stripped: str, lineno: int, source: str | None, meta: dict) -> None:
    """``#R <rule>``, ``#N`` (Conway's Life); any other ``#`` line is a comment."""
    key, rest = stripped[1:2], stripped[2:]
    if key == "R" and rest.strip():
        col = line.index(rest.strip()) + 1
        meta["rule"], meta["topology"] = parse_rule_in_file(rest.strip(), lineno, col, source)
    elif key == "N":
        meta["rule"], meta["topology"] = parse_rule_in_file("B3/S23", lineno, 1, source)
    else:
        meta["comments"].append(rest.strip())


def _xy(line: str, lineno: int, source: str | None) -> tuple[int, int]:
    """The two coordinates of a cell line, range-checked."""
    m = _XY.fullmatch(line)
    if m:
        return int(m.group(1)), int(m.group(2))
    start = len(line) - len(line.lstrip())
    x, y = int_fields(line[start:], lineno, start + 1, source, 2, "cell coordinates x y")
    cols = [start + 1 + f.start() for f in _FIELD.finditer(line[start:])]
    check_coordinate(x, lineno, cols[0], source)
    check_coordinate(y, lineno, cols[1], source)
    return x, y


def check_coordinate(value: int, line: int, column: int, source: str | None) -> None:
    """Refuse a coordinate beyond +-2**62 (where int64 arithmetic on positions would overflow)."""
    if abs(value) > MAX_COORDINATE:
        raise PatternError(f"coordinate {value} is out of range (at most 2**62 in magnitude)", line, column, source)


def cells_from_coordinates(
    chunks: Callable[[], Iterable[tuple[np.ndarray, np.ndarray]]], budget: int, source: str | None
) -> tuple[np.ndarray, tuple[int, int]]:
    """The bounding-box array of the live cells at ``(xs[i], ys[i])`` and its top-left ``(x, y)``.

    ``chunks()`` yields ``(xs, ys)`` ``int64`` arrays and is called twice: once to find the box
    (checked against ``budget`` before anything is allocated), once to fill it.
    """
    box: list[int] | None = None
    for xs, ys in chunks():
        if xs.size:
            lo_x, lo_y, hi_x, hi_y = int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())
            if box is None:
                box = [lo_x, lo_y, hi_x, hi_y]
            else:
                box = [min(box[0], lo_x), min(box[1], lo_y), max(box[2], hi_x), max(box[3], hi_y)]
    if box is None:
        return np.zeros((0, 0), np.uint8), (0, 0)
    x0, y0 = box[0], box[1]
    width, height = box[2] - x0 + 1, box[3] - y0 + 1
    check_area(width, height, budget, source=source, what="bounding box")
    cells = np.zeros((height, width), dtype=np.uint8)
    for xs, ys in chunks():
        cells[ys - y0, xs - x0] = 1
    return cells, (x0, y0)


def write_life106(pattern: Pattern) -> str:
    """Encode a two-state ``pattern`` as Life 1.06; multi-state raises :class:`PatternError`."""
    if pattern.max_state > 1:
        raise PatternError(
            f"Life 1.06 holds only states 0 and 1; this pattern has state {pattern.max_state} (use RLE)"
        )
    ys, xs = np.nonzero(pattern.cells)
    ox, oy = pattern.origin
    lines = ["#Life 1.06"]
    lines += [f"{x} {y}" for x, y in zip((xs + ox).tolist(), (ys + oy).tolist(), strict=True)]
    return "\n".join(lines) + "\n"
