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
from array import array
from typing import Any

import numpy as np

from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_area, check_extent, resolve_max_cells
from .common import (
    NONBLANK,
    check_writable_states,
    int_fields,
    iter_lines,
    metadata_lines,
    parse_int,
    parse_rule_in_file,
)
from .rle_bulk import fill_runs, read_two_state_body

#: Longest line :func:`write_rle` emits (Golly's limit).
MAX_LINE = 70

# One match per run in the common case (count and tag together); a count followed by whitespace
# or a line break matches alone and stays pending, as in Golly.
_TOKEN = re.compile(r"([0-9]+)?([bo.$!A-X]|[p-y][A-X]?)|([0-9]+)|(\s+)|(.)")
# The rest of a one-character tag repeated (``oooo``, ``$$$``), read as one run; a regex per
# character, since a back-reference repeat would keep a backtracking stack per cell.
_REPEAT = {c: re.compile(re.escape(c) + "+") for c in "ob.$ABCDEFGHIJKLMNOPQRSTUVWX"}
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


class _Runs:
    """Non-zero runs ``(row, first column, length, state)`` in compact typed arrays (25 bytes a run).

    A run that continues the previous one (same row and state, adjacent) extends it, so ``2e7``
    single ``o`` tags are one run. When the array's shape is known (``shape``: the header, or the
    final shape on a second pass) and every buffered run fits it, the runs are written into the
    array and the buffer is emptied. When the shape is unknown (no header, or content beyond it)
    and :data:`CAP` runs are buffered, the runs are dropped (``dropped``) and the reader reads
    the text again knowing the final shape: working memory stays the array plus ``CAP`` runs.
    """

    FLUSH = 1 << 16
    CAP = 1 << 22  # 100 MB of buffered runs

    def __init__(self, shape: tuple[int, int] | None = None) -> None:
        self.ys, self.xs, self.ns = array("q"), array("q"), array("q")
        self.states = array("B")
        self.shape = shape  # (width, height) to fill into, when known
        self.cells: np.ndarray | None = None  # the array of ``shape``, once first flushed into
        self.dropped = False

    def add(self, y: int, x: int, n: int, state: int) -> None:
        if self.ns and self.ys[-1] == y and self.states[-1] == state and self.xs[-1] + self.ns[-1] == x:
            self.ns[-1] += n
            return
        self.ys.append(y)
        self.xs.append(x)
        self.ns.append(n)
        self.states.append(state)

    def maybe_flush(self, width: int, height: int) -> None:
        """Write the buffered runs into the array of ``shape`` when they all fit it, or drop them
        when they do not and the buffer is full (``width x height``: the extent so far)."""
        if self.dropped or len(self.ns) < self.FLUSH:
            return
        if self.shape is not None and width <= self.shape[0] and height <= self.shape[1]:
            if self.cells is None:
                self.cells = np.zeros((self.shape[1], self.shape[0]), dtype=np.uint8)
            self._drain(self.cells)
        elif self.cells is not None or len(self.ns) >= self.CAP:
            self.dropped, self.cells = True, None
            self._clear()

    def _drain(self, cells: np.ndarray) -> None:
        fill_runs(cells, self.ys, self.xs, self.ns, self.states)
        self._clear()

    def _clear(self) -> None:
        for buffer in (self.ys, self.xs, self.ns, self.states):
            del buffer[:]

    def finish(self, width: int, height: int) -> np.ndarray | None:
        """The ``(height, width)`` ``uint8`` array of every run, or None if runs were dropped."""
        cells = self.cells
        if self.dropped or (cells is not None and cells.shape != (height, width)):
            return None
        if cells is None:
            cells = np.zeros((height, width), dtype=np.uint8)
        self._drain(cells)
        return cells


class _RleReader:
    """State of one RLE parse: metadata, header, the body position and the runs seen so far."""

    def __init__(self, source: str | None, budget: int, shape: tuple[int, int] | None = None) -> None:
        self.source, self.budget = source, budget
        self.fields: dict[str, Any] = dict(
            rule=None, topology=Topology.unbounded(), origin=(0, 0), generation=0, name=None, author=None, comments=[]
        )
        self.header: tuple[int, int] | None = None  # (width, height)
        self.runs = _Runs(shape)
        self.x = self.y = 0
        self.width = self.height = 0  # extent of the cells seen so far
        self.count: int | None = None  # pending run count
        self.count_at = (0, 0)
        self.in_body = self.saw_anything = False

    def hash_line(self, line: str, lineno: int) -> None:
        """A ``#`` line: as in Golly, a comment line wherever it appears."""
        kind, value = _comment_line(line, lineno, self.source)
        f = self.fields
        if kind in ("name", "author"):
            f[kind] = value
        elif kind == "comment":
            f["comments"].append(value)
        elif kind == "rule":
            f["rule"], f["topology"] = value
        elif kind == "pos":
            f["origin"] = value
        elif kind == "xrle":
            pos, gen = value
            if pos is not None:
                f["origin"] = pos
            if gen is not None:
                f["generation"] = gen

    def header_line(self, line: str, lineno: int) -> None:
        if self.header is not None:
            raise PatternError("second size header line", lineno, 1, self.source)
        self.header, header_rule = _parse_header(line, lineno, self.source, self.budget)
        if self.runs.shape is None:
            self.runs.shape = self.header
        if header_rule is not None:
            self.fields["rule"], self.fields["topology"] = header_rule

    def body_line(self, line: str, lineno: int) -> bool:
        """Parse the runs of one body line; True once ``!`` ends the pattern."""
        pos, end = 0, len(line)
        while pos < end:
            m = _TOKEN.match(line, pos)
            pos = m.end()
            num, tag, lone_num, space, bad = m.groups()
            col = m.start() + 1
            if tag is None:
                if space is not None:
                    continue  # whitespace is allowed anywhere, even between a count and its tag
                if bad is not None:
                    raise PatternError(f"unexpected character {bad!r} in RLE body", lineno, col, self.source)
                num = lone_num
            if num is not None:
                count = int(num) if len(num) < 10 else 0
                if count and self.count is None and count <= self.budget:  # the common case, inline
                    self.count, self.count_at = count, (lineno, col)
                else:
                    self.set_count(num, lineno, col)
                if tag is None:
                    continue
                col = m.start(2) + 1
            extra = 0
            if pos < end and line[pos] == tag and tag in _REPEAT:  # ``oooo``: one run, one regex match
                stop = _REPEAT[tag].match(line, pos).end()
                extra, pos = stop - pos, stop
            count = self.count
            n = (1 if count is None else count) + extra
            if tag == "b" or tag == ".":  # dead cells, the most common tag: inline
                if self.x + n <= self.budget:
                    self.x += n
                    self.count = None
                    continue
            elif tag != "$" and tag != "!":  # live cells
                self.count = None
                self.add_run(tag, n, self.count_at if count is not None else (lineno, col), lineno, col)
                continue
            if self.apply(tag, extra, lineno, col):
                return True
        return False

    def set_count(self, num: str, lineno: int, col: int) -> None:
        if self.count is not None:
            raise PatternError(
                f"run count {num[:20]} follows run count {self.count} with no tag between them",
                lineno,
                col,
                self.source,
            )
        count = parse_int(num, lineno, col, self.source, "run count")
        if count == 0:
            raise PatternError("run count must be at least 1, got 0", lineno, col, self.source)
        check_extent(count, self.budget, line=lineno, column=col, source=self.source, what="run count")
        self.count, self.count_at = count, (lineno, col)

    def apply(self, tag: str, extra: int, lineno: int, col: int) -> bool:
        """Apply ``tag`` repeated ``count + extra`` times; True for ``!``."""
        n = (1 if self.count is None else self.count) + extra
        at = self.count_at if self.count is not None else (lineno, col)
        self.count = None
        if tag == "!":
            return True
        if tag == "$":
            self.y += n
            self.x = 0
            if self.y > self.budget:
                check_extent(self.y, self.budget, line=at[0], column=at[1], source=self.source, what="row")
            return False
        if tag == "b" or tag == ".":
            self.x += n
            if self.x > self.budget:
                check_extent(self.x, self.budget, line=at[0], column=at[1], source=self.source, what="row length")
            return False
        self.add_run(tag, n, at, lineno, col)
        return False

    def add_run(self, tag: str, n: int, at: tuple[int, int], lineno: int, col: int) -> None:
        state = 1 if tag == "o" else state_of_tag(tag)
        rule = self.fields["rule"]
        if state > 255:
            raise PatternError(f"state {state} ({tag!r}) is above 255, the largest state", lineno, col, self.source)
        if rule is not None and state >= rule.n_states:
            raise PatternError(
                f"state {state} ({tag!r}) is not a state of rule {rule.canonical()!r}, "
                f"which has {rule.n_states} states",
                lineno,
                col,
                self.source,
            )
        x = self.x + n
        if x > self.width or self.y >= self.height:
            check_extent(x, self.budget, line=at[0], column=at[1], source=self.source, what="row length")
            self.width, self.height = max(self.width, x), max(self.height, self.y + 1)
            w = max(self.width, self.header[0] if self.header else 0)
            h = max(self.height, self.header[1] if self.header else 0)
            check_area(w, h, self.budget, line=at[0], column=at[1], source=self.source, what="RLE content")
        runs, y = self.runs, self.y
        ns = runs.ns
        if ns and runs.ys[-1] == y and runs.states[-1] == state and runs.xs[-1] + ns[-1] == self.x:
            ns[-1] += n  # continues the previous run (what _Runs.add does, inline)
        else:
            runs.add(y, self.x, n, state)
        if len(ns) >= runs.FLUSH:
            runs.maybe_flush(self.width, self.height)
        self.x = x

    def read(self, text: str) -> None:
        """Parse every line of ``text`` up to ``!``."""
        for lineno, line in iter_lines(text):
            self.saw_anything = True
            if line.startswith("#"):
                self.hash_line(line, lineno)
                continue
            if not self.in_body:
                if is_header_line(line):
                    self.header_line(line, lineno)
                    continue
                self.in_body = True
            if self.body_line(line, lineno):
                break

    def finish(self) -> Pattern | tuple[int, int]:
        """The pattern, or its final ``(width, height)`` when the runs were dropped (read again)."""
        if self.count is not None:
            raise PatternError(
                f"run count {self.count} is not followed by a tag", self.count_at[0], self.count_at[1], self.source
            )
        if not self.saw_anything:
            raise PatternError("empty pattern file: no RLE header and no cells", 1, 1, self.source)
        width, height = self.width, self.height
        if self.header is not None:
            width, height = max(width, self.header[0]), max(height, self.header[1])
        cells = self.runs.finish(width, height)
        return (width, height) if cells is None else Pattern(cells=cells, **self.fields)


def read_rle(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse RLE ``text`` into a :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Raises :class:`PatternError` with 1-based line and column for malformed input, unknown
    characters, states beyond the rule or 255, and sizes beyond ``max_cells``. Working memory is
    the array plus at most ``_Runs.CAP`` buffered runs: a file with more runs than that and no
    (or a wrong) header is read a second time, into the shape the first pass found.
    """
    budget = resolve_max_cells(max_cells)
    body = _body_offset(text)
    prelude = _RleReader(source, budget)
    prelude.read(text[:body])  # '#' lines and the header: metadata, rule, size
    cells = read_two_state_body(text[body:], prelude.header, budget) if body < len(text) else None
    if cells is not None:  # a plain two-state body, read in bulk
        return Pattern(cells=cells, **prelude.fields)
    reader = _RleReader(source, budget)
    reader.read(text)
    result = reader.finish()
    if isinstance(result, tuple):
        reader = _RleReader(source, budget, shape=result)
        reader.read(text)
        result = reader.finish()
    return result  # type: ignore[return-value]


def _body_offset(text: str) -> int:
    """Offset of the first body line of ``text`` (past blank lines, ``#`` lines and the header, as
    :meth:`_RleReader.read` tells them apart); ``len(text)`` when there is none. Blank lines are
    skipped by a C-level regex search, not one Python step each."""
    end, in_header = 0, True
    for m in NONBLANK.finditer(text):
        start = max(text.rfind("\n", end, m.start()), text.rfind("\r", end, m.start()), end - 1) + 1
        line = text[start : m.end()]
        end = m.end()
        if line.startswith("#"):
            continue
        if not (in_header and is_header_line(line)):
            return start
        in_header = False
    return len(text)


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
        for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            n = stop - start
            tag = tag_of_state(int(used[start]), two_state)
            emit(f"{n}{tag}" if n > 1 else tag)
    emit("!")
    body.append(current)
    return "\n".join(lines + body) + "\n"
