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

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_extent, resolve_max_cells
from .common import int_fields, iter_lines, parse_rule_in_file
from .life106 import cells_from_coordinates

_HEADER = re.compile(r"#Life\s+1\.05\s*$", re.IGNORECASE)
_BAD = re.compile(r"[^.*]")


def read_life105(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse Life 1.05 text into a two-state :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``)."""
    budget = resolve_max_cells(max_cells)
    seen_header = False
    comments: list[str] = []
    name: str | None = None
    rule = None
    topology = Topology.unbounded()
    xs: list[int] = []
    ys: list[int] = []
    left = y = 0
    for lineno, line in iter_lines(text):
        stripped = line.rstrip()
        if not seen_header:
            if not stripped.strip():
                continue
            if not _HEADER.match(stripped.strip()):
                raise PatternError("a Life 1.05 file must start with '#Life 1.05'", lineno, 1, source)
            seen_header = True
            continue
        if not stripped:
            continue
        if stripped.startswith("#"):
            key, rest = stripped[1:2], stripped[2:]
            if key == "P":
                left, y = int_fields(rest, lineno, 3, source, 2, "block position x y")
            elif key == "R":
                if not rest.strip():
                    raise PatternError("#R line without a rule", lineno, 3, source)
                col = 3 + len(rest) - len(rest.lstrip())
                rule, topology = parse_rule_in_file(rest.strip(), lineno, col, source)
            elif key == "N":
                rule, topology = parse_rule_in_file("B3/S23", lineno, 1, source)
            elif key in ("D", "C"):
                body = rest[1:] if rest.startswith(" ") else rest
                if name is None and not comments and body.startswith("Name:"):
                    name = body[5:].strip()  # what write_life105 writes for a name
                else:
                    comments.append(body)
            # other '#' lines are ignored, as in Golly
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
        for col in (i for i, c in enumerate(stripped) if c == "*"):
            xs.append(left + col)
            ys.append(y)
        y += 1
    if not seen_header:
        raise PatternError("empty pattern file", 1, 1, source)
    return cells_from_coordinates(
        xs, ys, budget, source, rule=rule, topology=topology, comments=comments, name=name
    )


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
