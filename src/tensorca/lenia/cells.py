"""Chan's cell format (``animals.json``): run-length encoded levels 0..255, read as floats in [0, 1].

A level is ``.`` (0), one letter ``A``..``X`` (1..24) or a prefix ``p``..``y`` and a letter
(``pA`` = 25, ... ``yO`` = 255: ``(prefix - 'p') * 24 + (letter - 'A') + 25``); ``$`` ends a row;
a decimal count before a level or ``$`` repeats it (``3yO``, ``2$``); ``!`` may end the text.
Rows shorter than the widest are padded with zeros; values are divided by 255.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from ..errors import PatternError

#: Default largest ``H * W`` decoded (a creature is a few thousand cells; 16 Mi float64 cells are 128 MiB).
MAX_CELLS = 1 << 24

_COUNT = re.compile(r"[0-9]*")
_CODE = re.compile(r"[p-y][A-X]|[.bo$!A-X]")
#: A count with more digits than the largest budget is refused before ``int()`` reads it.
_COUNT_DIGITS = 19


def level(code: str) -> int:
    """The 0..255 level of one code (``"."``, ``"A"``, ``"pA"``, ``"yO"``)."""
    if code in (".", "b"):
        return 0
    if code == "o":
        return 255
    if len(code) == 1:
        return ord(code) - ord("A") + 1
    return (ord(code[0]) - ord("p")) * 24 + (ord(code[1]) - ord("A") + 25)


def _runs(text: str, source: str) -> Iterator[tuple[int, str, int]]:
    """``(count, code, column)`` of each run of ``text`` up to ``!``; :class:`PatternError` with the
    1-based column of a bad character or count. A generator: a long text is never held as runs."""
    pos = 0
    while pos < len(text):
        start = pos
        pos = _COUNT.match(text, pos).end()
        if pos - start > _COUNT_DIGITS:
            raise PatternError(f"run count of {pos - start} digits", 1, start + 1, source)
        count = int(text[start:pos]) if pos > start else 1
        if pos >= len(text):
            raise PatternError("a run count has no cell after it", 1, start + 1, source)
        code = _CODE.match(text, pos)
        if code is None:
            raise PatternError(f"unexpected character {text[pos]!r} in Lenia cells", 1, pos + 1, source)
        if code.group() == "!":
            return
        if len(code.group()) == 2 and (value := level(code.group())) > 255:
            raise PatternError(f"level {code.group()} is {value}, past 255 (yO)", 1, pos + 1, source)
        yield count, code.group(), start + 1
        pos = code.end()


def _shape(text: str, source: str, max_cells: int) -> tuple[int, int]:
    """``(H, W)`` of the cells in ``text``: rows up to the last that holds a cell (a final ``$`` ends
    a row, it does not start one), the widest row; refused as soon as ``H * W`` passes ``max_cells``."""
    y = x = height = width = 0
    for count, code, column in _runs(text, source):
        if code == "$":
            y, x = y + count, 0
        elif count:
            x += count
            if x > width or y >= height:
                height, width = max(height, y + 1), max(width, x)
                if height * width > max_cells:
                    raise PatternError(f"Lenia cells of at least {height} x {width} exceed the cell budget of "
                                       f"{max_cells} (pass a larger max_cells= to allow it)", 1, column, source)
    return height, width


def decode_cells(text: str, source: str = "<cells>", dtype: type = np.float64,
                 max_cells: int = MAX_CELLS) -> np.ndarray:
    """``(H, W)`` ``dtype`` floats in [0, 1] from Chan's cell string (see the module docstring); rows
    shorter than the widest are padded with zeros. :class:`PatternError` for a malformed string or
    one of more than ``max_cells`` cells, before anything that size is allocated."""
    text = text.strip()
    height, width = _shape(text, source, max_cells)
    levels = np.zeros((height, width), dtype=np.uint8)
    y = x = 0
    for count, code, _ in _runs(text, source):
        if code == "$":
            y, x = y + count, 0
        else:
            if y < height:
                levels[y, x : x + count] = level(code)
            x += count
    return (np.arange(256) / 255.0).astype(dtype)[levels]  # level / 255 in float64, then dtype: as always


def encode_cells(cells: np.ndarray) -> str:
    """Chan's cell string of ``(H, W)`` values in [0, 1] (rounded to levels 0..255), runs compressed."""
    levels = np.clip(np.rint(np.asarray(cells, dtype=np.float64) * 255), 0, 255).astype(int)
    out = []
    for row in levels:
        codes = [_code(v) for v in row]
        while codes and codes[-1] == ".":
            codes.pop()
        i = 0
        while i < len(codes):
            j = i
            while j < len(codes) and codes[j] == codes[i]:
                j += 1
            out.append((str(j - i) if j - i > 1 else "") + codes[i])
            i = j
        out.append("$")
    return "".join(out[:-1]) + "!" if out else "!"


def _code(value: int) -> str:
    if value == 0:
        return "."
    if value <= 24:
        return chr(ord("A") + value - 1)
    value -= 25
    return chr(ord("p") + value // 24) + chr(ord("A") + value % 24)
