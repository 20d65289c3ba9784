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

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_area, resolve_max_cells
from .common import int_fields, iter_lines, parse_rule_in_file

_HEADER = re.compile(r"#Life\s+1\.06\s*$", re.IGNORECASE)


def read_life106(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse Life 1.06 text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``)."""
    budget = resolve_max_cells(max_cells)
    lines = iter_lines(text)
    seen_header = False
    comments: list[str] = []
    rule = None
    topology = Topology.unbounded()
    xs: list[int] = []
    ys: list[int] = []
    for lineno, line in lines:
        stripped = line.strip()
        if not seen_header:
            if not stripped:
                continue
            if not _HEADER.match(stripped):
                raise PatternError("a Life 1.06 file must start with '#Life 1.06'", lineno, 1, source)
            seen_header = True
            continue
        if not stripped:
            continue
        if stripped.startswith("#"):
            key, rest = stripped[1:2], stripped[2:]
            if key == "R" and rest.strip():
                col = line.index(rest.strip()) + 1
                rule, topology = parse_rule_in_file(rest.strip(), lineno, col, source)
            elif key == "N":
                rule, topology = parse_rule_in_file("B3/S23", lineno, 1, source)
            else:
                comments.append(rest.strip())
            continue
        start = len(line) - len(line.lstrip())
        x, y = int_fields(line[start:], lineno, start + 1, source, 2, "cell coordinates x y")
        xs.append(x)
        ys.append(y)
    if not seen_header:
        raise PatternError("empty pattern file", 1, 1, source)
    return cells_from_coordinates(xs, ys, budget, source, rule=rule, topology=topology, comments=comments)


def cells_from_coordinates(
    xs: list[int],
    ys: list[int],
    budget: int,
    source: str | None,
    **fields,
) -> Pattern:
    """A :class:`Pattern` whose array is the bounding box of live cells at ``(xs[i], ys[i])``."""
    if not xs:
        return Pattern(cells=np.zeros((0, 0), np.uint8), **fields)
    x0, y0 = min(xs), min(ys)
    width, height = max(xs) - x0 + 1, max(ys) - y0 + 1
    check_area(width, height, budget, source=source, what="bounding box")
    cells = np.zeros((height, width), dtype=np.uint8)
    cells[np.asarray(ys, dtype=np.int64) - y0, np.asarray(xs, dtype=np.int64) - x0] = 1
    return Pattern(cells=cells, origin=(x0, y0), **fields)


def write_life106(pattern: Pattern) -> str:
    """Encode a two-state ``pattern`` as Life 1.06; multi-state raises :class:`PatternError`."""
    if pattern.max_state > 1:
        raise PatternError(
            f"Life 1.06 holds only states 0 and 1; this pattern has state {pattern.max_state} (use RLE)"
        )
    ys, xs = np.nonzero(pattern.cells)
    ox, oy = pattern.origin
    lines = ["#Life 1.06"]
    lines += [f"{x} {y}" for x, y in zip((xs + ox).tolist(), (ys + oy).tolist())]
    return "\n".join(lines) + "\n"
