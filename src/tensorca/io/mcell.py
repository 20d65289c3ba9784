"""MCell pattern files (``.mcl``), read as Golly reads them (``readmcell`` in Golly's readpattern.cpp).

- ``#L`` lines hold the cells, run-length encoded: ``.`` is a dead cell, ``A``..``X`` states
  1..24, ``a``..``j`` followed by ``A``..``X`` add 24 per letter; ``$`` ends a row; a number
  repeats what follows.
- The first ``#GOLLY <rule>`` or ``#RULE <rule>`` line names the rule (Golly's WireWorld files say
  ``#GOLLY WireWorld``); MCell's HistoricalLife table becomes ``LifeHistory`` (Brice Due's extended
  tables with their states renumbered) and its Life table ``B3/S23``. No rule: B3/S23.
- ``#BOARD WxH`` makes the grid bounded, a torus when ``#WRAP 1``; the pattern is then centred on
  the board as Golly centres it.
- A state the rule does not have becomes 1, as in Golly (which says MCell does the same).
- Other lines (``#D`` descriptions become comments) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology, parse_topology
from .budget import check_area, resolve_max_cells
from .common import iter_lines, parse_rule_in_file

__all__ = ["read_mcell"]

_HISTORICAL = "#RULE 1,0,1,0,0,0,1,0,0,0,0,0,0,2,2,1,1,2,2,2,2,2,0,2,2,2,1,2,2,2,2,2"
_LIFE = "#RULE 1,0,0,0,0,0,1,0,0,0,0,0,0,0,0,1,1"
_EXTENDED_HL = {8: 4, 3: 5, 5: 3}
#: Largest run count (cells, dead cells or rows); more digits are refused, not summed for ever.
_MAX_COUNT = 1 << 62
_BOARD = re.compile(r"#BOARD ([0-9]+)x([0-9]+)")


def _rule_text(line: str) -> tuple[str, bool]:
    """``(rule text, extended HistoricalLife)`` of a ``#GOLLY``/``#RULE`` line."""
    if line.startswith(_HISTORICAL):
        return "LifeHistory", line.startswith(_HISTORICAL + ",")
    if line.startswith(_LIFE):
        return "B3/S23", False
    rest = line[6:] if line.startswith("#GOLLY") else line[5:]
    words = rest.split()
    return (words[0] if words else ""), False


def _runs(line: str, number: int, x: int, y: int, row_start: int, extended: bool, budget: int,
          source: str | None) -> Generator[tuple[int, int, int, int, int, int], None, tuple[int, int]]:
    """The ``(y, x, n, state, line, column)`` runs of one ``#L`` line; returns the new ``(x, y)``. A count past
    ``budget`` cells is refused at its column (no run that long fits the budget), a count past
    :data:`_MAX_COUNT` (a row or column offset) too."""
    n, i, start = 0, 3, 3
    while i < len(line):
        c = line[i]
        if c.isdigit() and c.isascii():
            start = i if n == 0 else start
            n = n * 10 + int(c)
            if n > _MAX_COUNT:
                raise PatternError(f"run count over {_MAX_COUNT}", number, start + 1, source)
        elif c > " ":
            start = i if n == 0 else start
            n = n or 1
            if c == ".":
                x += n
            elif c == "$":
                x, y = row_start, y + n
            else:
                state = 0
                if "a" <= c <= "j":
                    state, i = 24 * (ord(c) - ord("a") + 1), i + 1
                    c = line[i] if i < len(line) else ""
                if not ("A" <= c <= "X"):
                    raise PatternError(f"illegal MCell state {c!r}", number, i + 1, source)
                state += ord(c) - ord("A") + 1
                if n > budget:
                    raise PatternError(f"a run of {n} cells is over the cell budget of {budget}", number, start + 1,
                                       source)
                yield y, x, n, (_EXTENDED_HL.get(state, state) if extended else state), number, start + 1
                x += n
            n = 0
        i += 1
    return x, y


class _Scan:
    """One pass over an MCell text: :meth:`runs` yields the cells' runs in file order and leaves the
    header (board, wrap, the first rule line, comments) in the attributes. Two passes (extent, then
    fill) hold no list of runs, so memory is the grid's, whatever the text."""

    def __init__(self, text: str, budget: int, source: str | None):
        self.text, self.budget, self.source = text, budget, source
        self._forget_header()

    def _forget_header(self) -> None:
        self.width = self.height = self.wrap = 0
        self.rule_at: tuple[str, int, int, bool] | None = None
        self.comments: list[str] = []

    def runs(self) -> Iterator[tuple[int, int, int, int, int, int]]:
        self._forget_header()  # each pass reads the header afresh (comments are not doubled)
        x = y = 0
        for number, line in iter_lines(self.text):
            if line.startswith("#L "):
                extended = self.rule_at[3] if self.rule_at else False
                x, y = yield from _runs(line, number, x, y, -(self.width // 2), extended, self.budget, self.source)
            elif line.startswith("#BOARD "):
                m = _BOARD.match(line)
                if m:
                    self.width, self.height = int(m.group(1)), int(m.group(2))
                    x, y = -(self.width // 2), -(self.height // 2)
            elif line.startswith("#WRAP "):
                self.wrap = 1 if line[6:].strip()[:1] == "1" else 0
            elif self.rule_at is None and (line.startswith("#GOLLY") or line.startswith("#RULE")):
                rule_text, extended = _rule_text(line)
                self.rule_at = (rule_text, number, line.find(rule_text) + 1 if rule_text else 1, extended)
            elif line.startswith("#D"):
                self.comments.append(line[3:] if line.startswith("#D ") else line[2:])


def read_mcell(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Read an MCell ``.mcl`` file into a :class:`Pattern` (see the module docstring). A state the
    rule does not have becomes 1, as Golly (and MCell) make it; the cells' extent is held to
    ``max_cells`` as the runs are read."""
    budget = resolve_max_cells(max_cells)
    scan = _Scan(text, budget, source)
    extent = _extent(scan)
    rule_text, number, column, _ = scan.rule_at or ("B3/S23", 1, 1, False)
    rule, _topology = parse_rule_in_file(rule_text, number, column, source)
    width, height = scan.width, scan.height
    if width > 0 or height > 0:
        check_area(width, height, budget, line=1, column=1, source=source, what="MCell board")
        topology = parse_topology(f"{'T' if scan.wrap else 'P'}{width},{height}")
        cells = _board(_fill(scan, extent, rule.n_states), extent, width, height, source)
        return Pattern(cells=cells, rule=rule, topology=topology, comments=scan.comments)
    cells = _fill(scan, extent, rule.n_states)
    origin = (extent[2], extent[0]) if extent else (0, 0)
    return Pattern(cells=cells, rule=rule, topology=Topology.unbounded(), origin=origin, comments=scan.comments)


def _extent(scan: _Scan) -> tuple[int, int, int, int] | None:
    """``(top, bottom, left, right)`` (inclusive) of every run, None when there is none; refused at
    the run that takes the box past the scan's budget of cells."""
    box = None
    for y, x, n, _, number, column in scan.runs():
        right = x + n - 1
        if box is None:
            box = (y, y, x, right)
        elif y < box[0] or y > box[1] or x < box[2] or right > box[3]:
            box = (min(box[0], y), max(box[1], y), min(box[2], x), max(box[3], right))
        else:
            continue
        check_area(box[3] - box[2] + 1, box[1] - box[0] + 1, scan.budget, line=number, column=column,
                   source=scan.source, what="MCell pattern")
    return box


def _fill(scan: _Scan, extent: tuple[int, int, int, int] | None, n_states: int) -> np.ndarray:
    """The ``(H, W)`` uint8 cells of the runs, cropped to ``extent``; states past the rule's are 1."""
    if extent is None:
        return np.zeros((0, 0), np.uint8)
    top, bottom, left, right = extent
    cells = np.zeros((bottom - top + 1, right - left + 1), np.uint8)
    for y, x, n, state, _, _ in scan.runs():
        cells[y - top, x - left : x - left + n] = state if state < n_states else 1
    return cells


def _board(pattern: np.ndarray, extent: tuple[int, int, int, int] | None, width: int, height: int,
           source: str | None) -> np.ndarray:
    """The ``(height, width)`` board with ``pattern`` (its runs' box ``extent``) centred as Golly centres it."""
    cells = np.zeros((height, width), np.uint8)
    if extent is None:
        return cells
    top, left = extent[0], extent[2]
    ph, pw = pattern.shape
    shift_x, shift_y = int((width + 1 - pw) / 2), int((height + 1 - ph) / 2)  # C division
    # Golly draws from the board's top-left corner (-(w/2), -(h/2)), then shifts when either is positive
    gx, gy = left + width // 2, top + height // 2
    if shift_x > 0 or shift_y > 0:
        gx, gy = gx + shift_x, gy + shift_y
    if gx < 0 or gy < 0 or gx + pw > width or gy + ph > height:
        raise PatternError(f"the MCell pattern ({pw} x {ph}) does not fit its {width} x {height} board",
                           source=source)
    cells[gy : gy + ph, gx : gx + pw] = pattern
    return cells
