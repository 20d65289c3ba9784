"""MCell pattern files (``.mcl``), read as Golly reads them (``readmcell`` in Golly's readpattern.cpp).

- ``#L`` lines hold the cells, run-length encoded: ``.`` is a dead cell, ``A``..``X`` states
  1..24, ``a``..``j`` followed by ``A``..``X`` add 24 per letter; ``$`` ends a row; a number
  repeats what follows.
- The first ``#GOLLY <rule>`` or ``#RULE <rule>`` line names the rule (Golly's WireWorld files say
  ``#GOLLY WireWorld``); MCell's HistoricalLife table becomes ``LifeHistory`` (Brice Due's extended
  tables with their states renumbered) and its Life table ``B3/S23``. No rule: B3/S23.
- ``#BOARD WxH`` makes the grid bounded, a torus when ``#WRAP 1``; the pattern is then centred on
  the board as Golly centres it. Other lines (``#D`` descriptions become comments) are ignored.
"""

from __future__ import annotations

import re

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


def _runs(line: str, number: int, x: int, y: int, row_start: int, extended: bool, source: str | None, out: list):
    """Decode one ``#L`` line into ``out`` as ``(y, x, n, state)`` runs; returns the new ``(x, y)``."""
    n, i = 0, 3
    while i < len(line):
        c = line[i]
        if c.isdigit() and c.isascii():
            n = n * 10 + int(c)
        elif c > " ":
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
                state = _EXTENDED_HL.get(state, state) if extended else state
                out.append((y, x, n, state))
                x += n
            n = 0
        i += 1
    return x, y


def read_mcell(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Read an MCell ``.mcl`` file into a :class:`Pattern` (see the module docstring)."""
    budget = resolve_max_cells(max_cells)
    rule_at: tuple[str, int, int, bool] | None = None
    width = height = wrap = 0
    runs: list[tuple[int, int, int, int]] = []
    comments: list[str] = []
    x = y = 0
    for number, line in iter_lines(text):
        if line.startswith("#L "):
            x, y = _runs(line, number, x, y, -(width // 2), rule_at[3] if rule_at else False, source, runs)
        elif line.startswith("#BOARD "):
            m = _BOARD.match(line)
            if m:
                width, height = int(m.group(1)), int(m.group(2))
                x, y = -(width // 2), -(height // 2)
        elif line.startswith("#WRAP "):
            wrap = 1 if line[6:].strip()[:1] == "1" else 0
        elif rule_at is None and (line.startswith("#GOLLY") or line.startswith("#RULE")):
            rule_text, extended = _rule_text(line)
            rule_at = (rule_text, number, line.find(rule_text) + 1 if rule_text else 1, extended)
        elif line.startswith("#D"):
            comments.append(line[3:] if line.startswith("#D ") else line[2:])
    rule_text, number, column, _ = rule_at or ("B3/S23", 1, 1, False)
    rule, _topology = parse_rule_in_file(rule_text, number, column, source)
    if width > 0 or height > 0:
        check_area(width, height, budget, line=1, column=1, source=source, what="MCell board")
        topology = parse_topology(f"{'T' if wrap else 'P'}{width},{height}")
        return Pattern(cells=_board(runs, width, height, source), rule=rule, topology=topology, comments=comments)
    cells, origin = _fill(runs, budget, source)
    return Pattern(cells=cells, rule=rule, topology=Topology.unbounded(), origin=origin, comments=comments)


def _fill(runs, budget: int, source: str | None) -> tuple[np.ndarray, tuple[int, int]]:
    """The cells of ``runs`` cropped to their bounding box, and its top-left ``(x, y)``."""
    if not runs:
        return np.zeros((0, 0), np.uint8), (0, 0)
    top = min(r[0] for r in runs)
    bottom = max(r[0] for r in runs)
    left = min(r[1] for r in runs)
    right = max(r[1] + r[2] - 1 for r in runs)
    check_area(right - left + 1, bottom - top + 1, budget, line=1, column=1, source=source, what="MCell pattern")
    cells = np.zeros((bottom - top + 1, right - left + 1), np.uint8)
    for ry, rx, n, state in runs:
        cells[ry - top, rx - left : rx - left + n] = min(state, 255)
    return cells, (left, top)


def _board(runs, width: int, height: int, source: str | None) -> np.ndarray:
    """The ``(height, width)`` board with the pattern centred as Golly centres it."""
    cells = np.zeros((height, width), np.uint8)
    if not runs:
        return cells
    pattern, (left, top) = _fill(runs, width * height or 1, source)
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
