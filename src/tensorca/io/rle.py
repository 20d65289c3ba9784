"""Run Length Encoded (``.rle``) patterns: Golly's extended RLE, two-state and multi-state.

Reading follows Golly's ``readrle``:

- ``#`` lines: ``#N`` name, ``#O`` author, ``#C``/``#c`` comments, ``#r <rule>`` rule,
  ``#P x y``/``#R x y`` top-left position (XLife), ``#CXRLE Pos=x,y Gen=g`` position and
  generation; other ``#`` lines are ignored.
- Header ``x = W, y = H[, rule = <rule>[:<topology>]]``; the rule runs to the end of the line
  and may contain commas (``rule = R5,C0,M1,S34..58,B34..45,NM``); a trailing comma is dropped.
  The header is optional (headerless RLE takes its size from the content).
- Body: ``<count><tag>`` runs. ``b`` and ``.`` are dead; ``o`` is state 1; ``A``..``X`` are
  1..24; ``pA``..``yO`` are 25..255; a lone ``p``..``y`` is state 1 (Golly's leniency for old
  files); ``$`` ends a row (``3$`` ends three); ``!`` ends the pattern (optional; anything after
  it is ignored). Whitespace and line breaks may appear anywhere, also between a count and its
  tag, and lines may be of any length.

Decisions where Golly is silent or lenient:

- The array shape is the header's ``(y, x)``, grown to cover any cells beyond it (Golly reads
  such files too; a wrong header is common in hand-written RLE). Sizes are checked against the
  cell budget as they grow, before anything is allocated.
- Characters Golly skips silently (other letters, punctuation) are errors here, as are a run
  count of 0, two counts in a row and a count with no tag at the end of the file.
- Multi-state states are checked against the rule's ``n_states`` when the file names a rule.

Writing follows Golly's ``writepattern``: ``#CXRLE`` first when the origin or generation is
non-zero, then ``#N``/``#O``/``#C``, the header, and the body in lines of at most 70 characters.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_area, check_extent, resolve_max_cells
from .common import check_writable_states, int_fields, iter_lines, metadata_lines, parse_int, parse_rule_in_file

#: Longest line :func:`write_rle` emits (Golly's limit).
MAX_LINE = 70

# One match per run in the common case (count and tag together); a count followed by whitespace
# or a line break matches alone and stays pending, as in Golly.
_TOKEN = re.compile(r"(\d+)?([bo.$!A-X]|[p-y][A-X]?)|(\d+)|(\s+)|(.)")
_HEADER = re.compile(
    r"x\s*=\s*(?P<w>[^,\s]+)\s*,\s*y\s*=\s*(?P<h>[^,\s]+)\s*(?:,\s*rule\s*=\s*(?P<rule>.*?))?\s*$"
)
_XRLE_POS = re.compile(r"Pos\s*=\s*([^\s,]+)\s*,\s*([^\s,]+)")
_XRLE_GEN = re.compile(r"Gen\s*=\s*(\S+)")


def is_header_line(line: str) -> bool:
    """Golly's test: a line starting ``x`` then whitespace or ``=`` is the size header."""
    return line.startswith("x") and (len(line) == 1 or line[1] <= " " or line[1] == "=")


def state_of_tag(tag: str) -> int:
    """The state a body tag (``o``, ``A``..``X``, ``pA``..``yX``, lone ``p``..``y``) stands for."""
    c = tag[0]
    if c == "o":
        return 1
    if "A" <= c <= "X":
        return ord(c) - ord("A") + 1
    if len(tag) == 1:  # lone p..y: Golly reads it as state 1
        return 1
    return 24 * (ord(c) - ord("p") + 1) + ord(tag[1]) - ord("A") + 1


def tag_of_state(state: int, two_state: bool) -> str:
    """The RLE tag for ``state``: ``b``/``o`` when ``two_state``, else ``.``, ``A``.., ``pA``.."""
    if two_state:
        return "o" if state else "b"
    if state == 0:
        return "."
    if state <= 24:
        return chr(ord("A") + state - 1)
    s = state - 25
    return chr(ord("p") + s // 24) + chr(ord("A") + s % 24)


def read_rle(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse RLE ``text`` into a :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Raises :class:`PatternError` with 1-based line and column for malformed input, unknown
    characters, states beyond the rule or 255, and sizes beyond ``max_cells``.
    """
    budget = resolve_max_cells(max_cells)
    name: str | None = None
    author: str | None = None
    comments: list[str] = []
    rule = None
    topology = Topology.unbounded()
    origin = (0, 0)
    generation = 0
    header: tuple[int, int] | None = None  # (width, height)

    # non-zero runs: row, first column, length, state
    run_y: list[int] = []
    run_x: list[int] = []
    run_n: list[int] = []
    run_state: list[int] = []
    x = y = 0
    width = height = 0  # extent of the cells seen so far
    count: int | None = None  # pending run count
    count_at = (0, 0)
    in_body = False
    saw_anything = False
    done = False

    for lineno, line in iter_lines(text):
        if line.startswith("#"):
            saw_anything = True
            # as in Golly, a '#' line is a comment line wherever it appears
            kind, value = _comment_line(line, lineno, source)
            if kind == "name":
                name = value
            elif kind == "author":
                author = value
            elif kind == "comment":
                comments.append(value)
            elif kind == "rule":
                rule, topology = value
            elif kind == "pos":
                origin = value
            elif kind == "xrle":
                pos, gen = value
                if pos is not None:
                    origin = pos
                if gen is not None:
                    generation = gen
            continue
        if not in_body:
            if not line.strip():
                continue
            if is_header_line(line):
                if header is not None:
                    raise PatternError("second size header line", lineno, 1, source)
                saw_anything = True
                header, header_rule = _parse_header(line, lineno, source, budget)
                if header_rule is not None:
                    rule, topology = header_rule
                continue
            in_body = True
        saw_anything = True

        for m in _TOKEN.finditer(line):
            num, tag, lone_num, space, bad = m.groups()
            col = m.start() + 1
            if tag is None:
                if space is not None:
                    continue  # whitespace is allowed anywhere, even between a count and its tag
                if bad is not None:
                    raise PatternError(f"unexpected character {bad!r} in RLE body", lineno, col, source)
                num = lone_num
            if num is not None:
                if count is not None:
                    raise PatternError(
                        f"run count {num} follows run count {count} with no tag between them", lineno, col, source
                    )
                count = parse_int(num, lineno, col, source, "run count")
                if count == 0:
                    raise PatternError("run count must be at least 1, got 0", lineno, col, source)
                check_extent(count, budget, line=lineno, column=col, source=source, what="run count")
                count_at = (lineno, col)
                if tag is None:
                    continue
                col = m.start(2) + 1
            n = 1 if count is None else count
            at = count_at if count is not None else (lineno, col)
            count = None
            if tag == "!":
                done = True
                break
            if tag == "$":
                y += n
                x = 0
                if y > budget:
                    check_extent(y, budget, line=at[0], column=at[1], source=source, what="row")
                continue
            if tag == "b" or tag == ".":
                x += n
                if x > budget:
                    check_extent(x, budget, line=at[0], column=at[1], source=source, what="row length")
                continue
            state = 1 if tag == "o" else state_of_tag(tag)
            if state > 255:
                raise PatternError(f"state {state} ({tag!r}) is above 255, the largest state", lineno, col, source)
            if rule is not None and state >= rule.n_states:
                raise PatternError(
                    f"state {state} ({tag!r}) is not a state of rule {rule.canonical()!r}, "
                    f"which has {rule.n_states} states",
                    lineno,
                    col,
                    source,
                )
            run_y.append(y)
            run_x.append(x)
            run_n.append(n)
            run_state.append(state)
            x += n
            if x > width or y >= height:
                check_extent(x, budget, line=at[0], column=at[1], source=source, what="row length")
                width, height = max(width, x), max(height, y + 1)
                w = max(width, header[0] if header else 0)
                h = max(height, header[1] if header else 0)
                check_area(w, h, budget, line=at[0], column=at[1], source=source, what="RLE content")
        if done:
            break

    if count is not None:
        raise PatternError(f"run count {count} is not followed by a tag", count_at[0], count_at[1], source)
    if not saw_anything:
        raise PatternError("empty pattern file: no RLE header and no cells", 1, 1, source)
    if header is not None:
        width, height = max(width, header[0]), max(height, header[1])

    cells = np.zeros((height, width), dtype=np.uint8)
    fill_runs(cells, run_y, run_x, run_n, run_state)
    return Pattern(
        cells=cells,
        rule=rule,
        topology=topology,
        origin=origin,
        generation=generation,
        name=name,
        comments=comments,
        author=author,
    )


def fill_runs(cells: np.ndarray, ys: list[int], xs: list[int], ns: list[int], states: list[int]) -> None:
    """Set ``cells[y, x : x + n] = state`` for every run, in place (``cells``: ``(H, W)`` ``uint8``).

    Short runs are scattered in vectorised chunks (one flat index per cell, bounded memory);
    long runs are written as slices.
    """
    if not ys:
        return
    width = cells.shape[1]
    flat = cells.reshape(-1)
    y = np.asarray(ys, dtype=np.int64)
    x = np.asarray(xs, dtype=np.int64)
    n = np.asarray(ns, dtype=np.int64)
    s = np.asarray(states, dtype=np.uint8)
    long = n > 256
    for i in np.flatnonzero(long).tolist():
        start = int(y[i] * width + x[i])
        flat[start : start + int(n[i])] = s[i]
    short = ~long
    y, x, n, s = y[short], x[short], n[short], s[short]
    chunk = 1 << 16  # runs per chunk: at most 2**24 cells of int64 indices at a time
    for lo in range(0, n.size, chunk):
        cn = n[lo : lo + chunk]
        starts = y[lo : lo + chunk] * width + x[lo : lo + chunk]
        total = int(cn.sum())
        offsets = np.cumsum(cn) - cn  # where each run begins in the expanded index
        index = np.repeat(starts - offsets, cn) + np.arange(total, dtype=np.int64)
        flat[index] = np.repeat(s[lo : lo + chunk], cn)


def _comment_line(line: str, lineno: int, source: str | None) -> tuple[str, Any]:
    """Classify one ``#`` line: ``(kind, value)`` with kind name/author/comment/rule/pos/xrle/other."""
    if line.startswith("#CXRLE"):
        return "xrle", _parse_xrle(line, lineno, source)
    key = line[1:2]
    rest = line[2:]
    if key == "N":
        return "name", rest.strip()
    if key == "O":
        return "author", rest.strip()
    if key in ("C", "c"):
        return "comment", rest[1:] if rest.startswith(" ") else rest
    if key == "r":
        stripped = rest.strip()
        if not stripped:
            raise PatternError("#r line without a rule", lineno, 3, source)
        col = 3 + (len(rest) - len(rest.lstrip()))
        return "rule", parse_rule_in_file(stripped, lineno, col, source)
    if key in ("P", "R"):
        px, py = int_fields(rest, lineno, 3, source, 2, "position x y")
        return "pos", (px, py)
    return "other", None


def _parse_xrle(line: str, lineno: int, source: str | None) -> tuple[tuple[int, int] | None, int | None]:
    """``#CXRLE Pos=x,y Gen=g`` -> ``((x, y) or None, g or None)``."""
    pos = gen = None
    m = _XRLE_POS.search(line)
    if m:
        px = parse_int(m.group(1), lineno, m.start(1) + 1, source, "#CXRLE Pos x")
        py = parse_int(m.group(2), lineno, m.start(2) + 1, source, "#CXRLE Pos y")
        pos = (px, py)
    m = _XRLE_GEN.search(line)
    if m:
        gen = parse_int(m.group(1), lineno, m.start(1) + 1, source, "#CXRLE Gen")
        if gen < 0:
            raise PatternError(f"generation must be >= 0, got {gen}", lineno, m.start(1) + 1, source)
    return pos, gen


def _parse_header(line: str, lineno: int, source: str | None, budget: int):
    """Parse ``x = W, y = H[, rule = R]`` -> ``((W, H), (rule, topology) or None)``."""
    m = _HEADER.match(line)
    if not m:
        raise PatternError(
            "bad RLE header: expected 'x = <width>, y = <height>' optionally followed by ', rule = <rule>'",
            lineno,
            1,
            source,
        )
    sizes = []
    for key, what in (("w", "width"), ("h", "height")):
        col = m.start(key) + 1
        value = parse_int(m.group(key), lineno, col, source, f"header {what}")
        if value < 0:
            raise PatternError(f"header {what} must be >= 0, got {value}", lineno, col, source)
        check_extent(value, budget, line=lineno, column=col, source=source, what=f"header {what}")
        sizes.append(value)
    check_area(sizes[0], sizes[1], budget, line=lineno, column=1, source=source, what="RLE header size")
    rule = None
    if m.group("rule") is not None:
        text = m.group("rule").rstrip()
        if text.endswith(","):  # Golly drops one trailing comma
            text = text[:-1].rstrip()
        if not text:
            raise PatternError("header has 'rule =' but no rule", lineno, m.start("rule") + 1, source)
        rule = parse_rule_in_file(text, lineno, m.start("rule") + 1, source)
    return (sizes[0], sizes[1]), rule


def write_rle(pattern: Pattern) -> str:
    """Encode ``pattern`` as Golly-readable RLE text (lines <= 70 characters, ends with ``\\n``).

    Two-state rules (or no rule and only states 0/1) use ``b``/``o``; otherwise ``.``/``A``...
    A pattern with no rule but a bounded topology is written with rule ``B3/S23`` and its suffix.
    Raises :class:`PatternError` if a cell's state is not a state of the pattern's rule.
    """
    cells = pattern.cells
    height, width = cells.shape
    rule = pattern.rule
    two_state = check_writable_states(pattern)

    lines: list[str] = []
    ox, oy = pattern.origin
    if (ox, oy) != (0, 0) or pattern.generation:
        lines.append(f"#CXRLE Pos={ox},{oy} Gen={pattern.generation}")
    lines += metadata_lines(pattern)
    header = f"x = {width}, y = {height}"
    suffix = pattern.topology.suffix()
    if rule is not None:
        header += f", rule = {rule.canonical()}{suffix}"
    elif suffix:
        header += f", rule = B3/S23{suffix}"
    lines.append(header)

    body: list[str] = []
    current = ""

    def emit(token: str) -> None:
        nonlocal current
        if len(current) + len(token) > MAX_LINE:
            body.append(current)
            current = ""
        current += token

    pending_rows = 0  # row ends not yet written (merged into one "n$")
    first_row = True
    for row in cells:
        nonzero = np.flatnonzero(row)
        if nonzero.size == 0:
            pending_rows += 1
            continue
        if not first_row or pending_rows:
            ends = pending_rows + (0 if first_row else 1)
            if ends:
                emit(f"{ends}$" if ends > 1 else "$")
        first_row = False
        pending_rows = 0
        used = row[: nonzero[-1] + 1]  # trailing dead cells are omitted
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(used)) + 1, [used.size]))
        for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            n = stop - start
            tag = tag_of_state(int(used[start]), two_state)
            emit(f"{n}{tag}" if n > 1 else tag)
    emit("!")
    body.append(current)
    return "\n".join(lines + body) + "\n"
